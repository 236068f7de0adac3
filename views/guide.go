package views

import (
	"fmt"
	"strings"

	"github.com/a-h/templ"

	"github.com/distlock/fencing-demo/demo"
)

// The guide: two pages that sit next to the demo. The decision tree asks
// whether a distributed lock is needed at all and which one fits; the quiz
// asks the chapter's five closing questions. The words live here, in both
// languages, as data; the pages (guide.templ) only lay them out, and each
// leaf and answer points at the scenarios that show what it says.

// GuideTreeURL is the decision tree's address in lang.
func GuideTreeURL(lang string) string { return "/guide/decision-tree?lang=" + lang }

// GuideQuizURL is the quiz's address in lang.
func GuideQuizURL(lang string) string { return "/guide/quiz?lang=" + lang }

// GuideLinked reports whether the site's header should link to the guide. The
// guide lives only on the server: the static export (export.go) links its
// pages to each other by relative paths and has no guide to link to, so a page
// whose Home is not an address on the server gets no guide links.
func GuideLinked(p Page) bool { return strings.HasPrefix(p.Home, "/") }

// navCurrent marks the header's link to the page being shown.
func navCurrent(p Page, url string) templ.Attributes {
	if p.Canonical == url {
		return templ.Attributes{"aria-current": "page"}
	}
	return templ.Attributes{}
}

// treeLabel names a node of the decision tree in a link to it: what its
// leaf advises, or for a branch the answer that leads there.
func treeLabel(lang, id string) string {
	n, ok := GuideTree.Find(id)
	if !ok {
		return ""
	}
	if n.Leaf() {
		return n.Advice.In(lang)
	}
	return n.Answer.In(lang)
}

// DemoLink points from the guide at one frame of a scenario that shows what
// the guide says there.
type DemoLink struct {
	ID   string    // the scenario, by its id in scenarios.yaml
	On   bool      // the switch position to open it in
	Step int       // the frame to open; LastStep for the scenario's last
	Note demo.Text // what to look for there, in a few words
}

// LastStep in a DemoLink opens the scenario's last frame, where its verdict is.
const LastStep = 0

// GuideNode is one point of the decision tree. A branch asks Question and its
// Children are the answers; a leaf says what to use (Advice), why, what to get
// right, and which scenarios show it. A leaf with no scenario says so in NoDemo.
type GuideNode struct {
	ID       string    // the anchor "tree-<ID>" on the page; the quiz links to it
	Answer   demo.Text // the answer to the parent's question that leads here; empty at the root
	Question demo.Text // a branch: what to ask next
	Children []GuideNode

	Advice demo.Text   // a leaf: what to use
	Why    demo.Text   // a leaf: why, in a sentence or two
	Points []demo.Text // a leaf: what to get right, one line each
	Demos  []DemoLink  // a leaf: the scenarios that show it
	NoDemo demo.Text   // a leaf with no scenario: why there is none
}

// Leaf reports whether n ends a branch.
func (n GuideNode) Leaf() bool { return len(n.Children) == 0 }

// Leaves returns the tree's leaves, in the page's order.
func (n GuideNode) Leaves() []GuideNode {
	if n.Leaf() {
		return []GuideNode{n}
	}
	var leaves []GuideNode
	for _, c := range n.Children {
		leaves = append(leaves, c.Leaves()...)
	}
	return leaves
}

// Find returns the node with the given ID.
func (n GuideNode) Find(id string) (GuideNode, bool) {
	if n.ID == id {
		return n, true
	}
	for _, c := range n.Children {
		if found, ok := c.Find(id); ok {
			return found, true
		}
	}
	return GuideNode{}, false
}

// QuizQuestion is one of the chapter's closing questions with its answer:
// paragraphs, an optional list, the scenarios that show it, and the part of
// the decision tree to read next. One with no scenario says so in NoDemo.
type QuizQuestion struct {
	Ask    demo.Text
	Answer []demo.Text // paragraphs
	Points []demo.Text // a list after the paragraphs
	Demos  []DemoLink
	Tree   string    // the ID of a decision tree node to read next; "" for none
	NoDemo demo.Text // when no scenario shows it: said plainly
}

// Guide is the view model of both guide pages. The words are the package's
// GuideTree, GuideConclusion and GuideQuiz; the catalog turns a DemoLink into
// a scenario's title and a frame's address.
type Guide struct {
	Page
	Catalog *demo.Catalog
}

// GuideDemo is a DemoLink made ready for the page.
type GuideDemo struct {
	URL   string // the frame's address
	Title string // the scenario's title
	Where string // the switch and the step, in words
	Note  string // what to look for
}

// Demo resolves l in the guide's language. ok is false when the catalog has
// no such scenario (a -scenarios file without it): the page leaves it out.
func (g Guide) Demo(l DemoLink) (d GuideDemo, ok bool) {
	sc, ok := g.Catalog.Get(l.ID)
	if !ok {
		return GuideDemo{}, false
	}
	step := l.Step
	if step == LastStep || step > sc.Frames() {
		step = sc.Frames()
	}
	return GuideDemo{
		URL:   FrameURL(sc, l.On, step, g.Lang),
		Title: sc.Title.In(g.Lang),
		Where: fmt.Sprintf(T(g.Lang, "guide.where"), sc.SwitchLabel.In(g.Lang), T(g.Lang, OnOff(l.On)), step, sc.Frames()),
		Note:  l.Note.In(g.Lang),
	}, true
}

// Demos resolves ls, leaving out those the catalog lacks.
func (g Guide) Demos(ls []DemoLink) []GuideDemo {
	var ds []GuideDemo
	for _, l := range ls {
		if d, ok := g.Demo(l); ok {
			ds = append(ds, d)
		}
	}
	return ds
}

// MissingDemos lists the scenario ids the guide links to that c lacks.
func MissingDemos(c *demo.Catalog) []string {
	var missing []string
	for _, l := range AllGuideDemos() {
		if _, ok := c.Get(l.ID); !ok {
			missing = append(missing, l.ID)
		}
	}
	return missing
}

// AllGuideDemos is every DemoLink of the tree and the quiz.
func AllGuideDemos() []DemoLink {
	var ls []DemoLink
	for _, n := range GuideTree.Leaves() {
		ls = append(ls, n.Demos...)
	}
	for _, q := range GuideQuiz {
		ls = append(ls, q.Demos...)
	}
	return ls
}

// GuideTree is the decision tree of the chapter's recommendations (10.1),
// with each leaf tied to the scenarios that show it. Figures for real systems
// come from ../shared/reference/real-systems.md.
var GuideTree = GuideNode{
	ID: "root",
	Question: demo.Text{
		JA: "本当に分散ロックが必要か?",
		EN: "Do you really need a distributed lock?",
	},
	Children: []GuideNode{
		{
			ID: "avoid",
			Answer: demo.Text{
				JA: "いいえ。データの持ち方や処理の組み方で、衝突そのものをなくせる",
				EN: "No: the conflict can be designed away",
			},
			Advice: demo.Text{
				JA: "ロックを使わずに済ませる: 冪等性、CAS、パーティショニング",
				EN: "Do without the lock: idempotency, compare-and-set, partitioning",
			},
			Why: demo.Text{
				JA: "使わないロックは破れない。分散ロックは最後の手段にとっておく。",
				EN: "A lock you never take can never fail you. Keep the distributed lock as the last resort.",
			},
			Points: []demo.Text{
				{
					JA: "冪等性: 同じ操作を 2 回実行しても結果が変わらないように作る。たとえばリクエスト ID を記録しておき、2 回目は何もしない。",
					EN: "Idempotency: make the operation safe to run twice, for example by recording its request id and doing nothing the second time.",
				},
				{
					JA: "CAS: 読んだときの版を条件に書く。UPDATE t SET ..., version = version + 1 WHERE id = $1 AND version = $2 が 0 行なら、先に誰かが変えている。",
					EN: "Compare-and-set: write only if the row is still the version you read. UPDATE t SET ..., version = version + 1 WHERE id = $1 AND version = $2 updates zero rows when someone else got there first.",
				},
				{
					JA: "パーティショニング: 同じキーはいつも同じワーカーに処理させる。担当が 1 人なら取り合いは起きない。",
					EN: "Partitioning: send each key to the same worker every time. With one owner per key there is nothing to fight over.",
				},
				{
					JA: "追記だけのイベントログ (Event Sourcing) や、1 度に 1 メッセージしか処理しないアクターも、同じ考え方でロックを要らなくする。",
					EN: "An append-only event log (event sourcing) and actors that handle one message at a time make the lock unnecessary in the same way.",
				},
			},
			Demos: []DemoLink{
				{ID: "optimistic-version", On: true, Step: LastStep, Note: demo.Text{
					JA: "CAS: version を条件にした UPDATE が 0 行を返し、A は読み直してやり直す",
					EN: "compare-and-set: the UPDATE conditioned on the version returns zero rows, and A reads again and retries",
				}},
			},
		},
		{
			ID:     "yes",
			Answer: demo.Text{JA: "はい", EN: "Yes"},
			Question: demo.Text{
				JA: "ロックが破れて 2 つのクライアントが同時に持ったら、何が起きるか?",
				EN: "If the lock fails and two clients hold it at once, what happens?",
			},
			Children: []GuideNode{
				{
					ID: "efficiency",
					Answer: demo.Text{
						JA: "同じ仕事が 2 回行われるだけ。ロックは効率のため",
						EN: "The same work gets done twice, nothing worse: the lock is for efficiency",
					},
					Question: demo.Text{
						JA: "仕事がリース (TTL) より長くかかることはあるか?",
						EN: "Can the work take longer than the lease (TTL)?",
					},
					Children: []GuideNode{
						{
							ID: "single-redis",
							Answer: demo.Text{
								JA: "いいえ。TTL よりずっと短い",
								EN: "No, it is well within the TTL",
							},
							Advice: demo.Text{
								JA: "Redis 1 台のロック (SET NX PX) で足りる",
								EN: "A single Redis lock (SET NX PX) is enough",
							},
							Why: demo.Text{
								JA: "ロックがたまに破れても、失うのは重複した仕事だけだ。単純なロックを選び、仕事を冪等にして保険にする。",
								EN: "If the lock fails now and then, all you lose is some duplicated work. Take the simple lock, and make the work idempotent as a back-up.",
							},
							Points: []demo.Text{
								{
									JA: "期限付きで取る: SET lock <ランダムな値> NX PX 30000。期限 (リース) がなければ、持ち主が落ちたロックは二度と戻らない。",
									EN: "Take it with an expiry: SET lock <random value> NX PX 30000. Without a lease, a lock whose holder crashed never comes back.",
								},
								{
									JA: "取得と期限の設定は 1 つのコマンドで行う。SETNX と EXPIRE に分けると、その間に落ちたとき期限のないキーが残る。",
									EN: "Take the lock and set its expiry in one command. SETNX followed by EXPIRE leaves a key with no expiry if the client dies in between.",
								},
								{
									JA: "解放は、キーの値が自分のものなら消す Lua スクリプト (EVAL) で行う。ただの DEL は、自分のロックが切れたあとに他人のロックを消してしまう。",
									EN: "Release with the Lua script that deletes the key only if it still holds your value (EVAL). A plain DEL, sent after your lock ran out, deletes someone else's.",
								},
							},
							Demos: []DemoLink{
								{ID: "no-lease", On: false, Step: 1, Note: demo.Text{
									JA: "リース無: 持ち主が落ちるとロックが永久に残る",
									EN: "no lease: the crashed holder's lock stays forever",
								}},
								{ID: "setnx-expire", On: false, Step: 1, Note: demo.Text{
									JA: "SETNX と EXPIRE の間で落ちると、期限のないキーが残る",
									EN: "a crash between SETNX and EXPIRE leaves a key with no expiry",
								}},
								{ID: "release-other", On: false, Step: 1, Note: demo.Text{
									JA: "ただの DEL が他人のロックを消し、B と C が同時に持つ",
									EN: "a plain DEL frees someone else's lock, and B and C hold it at once",
								}},
							},
						},
						{
							ID: "long-work",
							Answer: demo.Text{
								JA: "はい。長くかかる仕事がある",
								EN: "Yes, some jobs run long",
							},
							Advice: demo.Text{
								JA: "同じロックを、持ち主が生きている間は延長し続ける (Redisson の watchdog)",
								EN: "The same lock, renewed for as long as its holder is alive (Redisson's watchdog)",
							},
							Why: demo.Text{
								JA: "TTL を最も長い仕事に合わせると、落ちた持ち主のロックもそれだけ長く残る。短い TTL を延長し続けるほうがよい。",
								EN: "A TTL as long as the longest job keeps a crashed holder's lock for just as long. A short TTL that is renewed while the holder lives is better.",
							},
							Points: []demo.Text{
								{
									JA: "Redisson の watchdog は、lockWatchdogTimeout (既定 30 秒) のリースを 10 秒ごとに延長する。lock() をリース時間なしで呼んだときだけ働く。",
									EN: "Redisson's watchdog keeps a lease of lockWatchdogTimeout (30 s by default) and renews it every 10 s. It runs only when lock() is called without a lease time.",
								},
								{
									JA: "30 秒を超えて止まれば (GC など)、やはり黙ってロックを失う。効率のためなら許せるが、正しさが懸かるなら「データが壊れる」の枝 (フェンシングトークン) へ進む。",
									EN: "A pause longer than 30 s (a GC, say) still loses the lock without a word. That is fine for efficiency; if correctness is at stake, take the \"data gets corrupted\" branch (a fencing token).",
								},
							},
							Demos: []DemoLink{
								{ID: "watchdog", On: false, Step: 1, Note: demo.Text{
									JA: "watchdog 無: 仕事の途中でリースが切れ、B も書く。有にすると延長でロックが保たれる",
									EN: "watchdog off: the lease runs out mid-job and B writes too; switch it on and the renewals keep the lock",
								}},
							},
						},
					},
				},
				{
					ID: "correctness",
					Answer: demo.Text{
						JA: "データが壊れる。ロックは正しさのため",
						EN: "Data gets corrupted: the lock is for correctness",
					},
					Question: demo.Text{
						JA: "どんなロックサービスを使うか?",
						EN: "Which kind of lock service?",
					},
					Children: []GuideNode{
						{
							ID: "database",
							Answer: demo.Text{
								JA: "守りたいデータが 1 つのデータベースの中にある",
								EN: "The data to protect lives in one database",
							},
							Advice: demo.Text{
								JA: "そのデータベースのロック: SELECT ... FOR UPDATE、version 列、アドバイザリロック",
								EN: "That database's own locks: SELECT ... FOR UPDATE, a version column, advisory locks",
							},
							Why: demo.Text{
								JA: "ロックとデータが同じトランザクションの中にあれば、ロックはコミットかロールバックで必ず外れ、書き込みと食い違うことがない。別のロックサービスを足す理由がない。",
								EN: "When the lock and the data share a transaction, the lock always goes at commit or rollback and can never disagree with the write. There is no reason to add a separate lock service.",
							},
							Points: []demo.Text{
								{
									JA: "読んでから書くなら SELECT ... FOR UPDATE で読む。待てないなら NOWAIT か lock_timeout (どちらも ERROR 55P03)。",
									EN: "If you read and then write, read with SELECT ... FOR UPDATE. If you cannot wait, use NOWAIT or lock_timeout (both fail with ERROR 55P03).",
								},
								{
									JA: "複数の行は、全員が同じ順 (キーの小さい順など) で取る。さもないと PostgreSQL が deadlock_timeout 後に片方を 40P01 で中断する。",
									EN: "Take several rows in the same order everywhere, lowest key first say; otherwise PostgreSQL aborts one transaction with 40P01 after deadlock_timeout.",
								},
								{
									JA: "ジョブキューは FOR UPDATE SKIP LOCKED で、ワーカーごとに別の行を取る。",
									EN: "For a job queue, FOR UPDATE SKIP LOCKED gives each worker a different row.",
								},
								{
									JA: "PgBouncer のトランザクションモード越しなら、アドバイザリロックは pg_advisory_xact_lock にする。セッションレベルのロックはサーバー接続に残り、別のクライアントに渡る。",
									EN: "Behind PgBouncer in transaction mode, use pg_advisory_xact_lock: a session-level lock stays with the server connection and passes to another client.",
								},
							},
							Demos: []DemoLink{
								{ID: "lost-update", On: false, Step: LastStep, Note: demo.Text{
									JA: "FOR UPDATE なしの読み書きで、A の引き出しが消える",
									EN: "read and write without FOR UPDATE, and A's withdrawal is lost",
								}},
								{ID: "deadlock", On: false, Step: LastStep, Note: demo.Text{
									JA: "逆順の送金がデッドロックになり、片方が 40P01 で中断される",
									EN: "two transfers in opposite directions deadlock, and one is aborted with 40P01",
								}},
								{ID: "job-queue", On: true, Step: LastStep, Note: demo.Text{
									JA: "SKIP LOCKED で、2 人のワーカーが待たずに別のジョブを取る",
									EN: "with SKIP LOCKED, two workers take different jobs without waiting",
								}},
								{ID: "advisory-pooler", On: false, Step: LastStep, Note: demo.Text{
									JA: "プーラー越しのセッションレベルのロックを、A と B が同時に持つ",
									EN: "a session-level lock behind a pooler, held by A and B at once",
								}},
							},
						},
						{
							ID: "consensus",
							Answer: demo.Text{
								JA: "合意アルゴリズムに基づくもの: ZooKeeper (ZAB) や etcd (Raft)",
								EN: "One built on consensus: ZooKeeper (ZAB) or etcd (Raft)",
							},
							Advice: demo.Text{
								JA: "合意に基づくロックと、資源が検査するフェンシングトークン",
								EN: "A consensus-based lock, plus a fencing token that the storage checks",
							},
							Why: demo.Text{
								JA: "どんなロックも、持ち主の GC 停止やネットワークの遅れには勝てない。止まっていた古い持ち主の書き込みを止められるのは、資源側の検査だけだ。",
								EN: "No lock can outlast its holder's GC pause or a slow network. Only a check at the storage can turn away the late write of an old holder that was stopped.",
							},
							Points: []demo.Text{
								{
									JA: "ロックを取るたびに、単調に増える番号 (トークン) を受け取る。ZooKeeper ならロックノードの czxid か連番、etcd ならキーの create revision が使える。",
									EN: "Each acquisition hands out a number that only grows: the token. In ZooKeeper the lock node's czxid or sequence number serves; in etcd, the key's create revision.",
								},
								{
									JA: "書き込みにトークンを添え、資源はそれまでに見た最大のトークンより小さいものを拒否する。",
									EN: "Every write carries the token, and the storage rejects any token lower than the highest it has seen.",
								},
								{
									JA: "資源がトークンを検査できないなら、ロックだけでは守れない。資源自身のトランザクションや CAS に正しさを任せる。",
									EN: "If the storage cannot check a token, the lock alone does not protect it: let the storage's own transactions or compare-and-set decide.",
								},
							},
							Demos: []DemoLink{
								{ID: "gc-pause", On: false, Step: 1, Note: demo.Text{
									JA: "フェンシング無: 再開した A の古い書き込みが B のデータを壊す。有にすると資源が拒否する",
									EN: "fencing off: A's late write destroys B's data; switch it on and the storage rejects it",
								}},
								{ID: "redlock-gc-pause", On: true, Step: 1, Note: demo.Text{
									JA: "資源が検査しても、Redlock の乱数値には順序がないので古い書き込みを見分けられない",
									EN: "even a checking storage cannot spot the late write: Redlock's random value has no order",
								}},
							},
						},
						{
							ID: "redis-for-correctness",
							Answer: demo.Text{
								JA: "Redis を使う: レプリカ付きの Redis や Redlock",
								EN: "Redis: a replicated Redis, or Redlock",
							},
							Advice: demo.Text{
								JA: "レプリカ付きの Redis も Redlock も、正しさのためには足りない",
								EN: "Neither a replicated Redis nor Redlock is enough for correctness",
							},
							Why: demo.Text{
								JA: "どちらも安全性を時間とタイミングの仮定に頼り、止まった持ち主を締め出せる番号も出さない。使うなら効率のためのロックとして使う。",
								EN: "Both rest their safety on assumptions about time and timing, and neither hands out a number that could fence off a stopped holder. Use them, if at all, as locks for efficiency.",
							},
							Points: []demo.Text{
								{
									JA: "Redis のレプリケーションは非同期だ。キーがレプリカに届く前にプライマリが落ちると、昇格したレプリカにはロックがない。WAIT で待っても強い一貫性にはならない。",
									EN: "Redis replicates asynchronously. If the primary dies before the key reaches the replica, the promoted replica has no lock. WAIT narrows the gap but does not make Redis strongly consistent.",
								},
								{
									JA: "Redlock は独立した 5 台のうち 3 台 (N/2+1) で取り、有効時間 = TTL − 経過時間 − ドリフト が残る間だけ持つ。",
									EN: "Redlock takes the lock on 3 of 5 independent nodes (N/2+1) and holds it only while validity = TTL − elapsed − drift is left.",
								},
								{
									JA: "1 台の時計が先へ飛ぶと、そのノードのキーが早く消え、別のクライアントも多数を取れる (Kleppmann, 2016)。",
									EN: "If one node's clock jumps forward, its key expires early and a second client can win a quorum too (Kleppmann, 2016).",
								},
							},
							Demos: []DemoLink{
								{ID: "redis-failover", On: false, Step: 1, Note: demo.Text{
									JA: "WAIT 無: フェイルオーバーのあと A と B が同時に持つ",
									EN: "no WAIT: after the failover, A and B both hold the lock",
								}},
								{ID: "redlock-quorum", On: false, Step: 1, Note: demo.Text{
									JA: "多数決と有効時間の計算を 1 手ずつ見る。3 台目も落とすと取れない",
									EN: "the quorum and the validity sum, step by step; take a third node down and the lock is lost",
								}},
								{ID: "redlock-clock-jump", On: false, Step: 1, Note: demo.Text{
									JA: "時計のジャンプで A と B が同時に持つ。単調時計で TTL を数えれば防げる",
									EN: "a clock jump lets A and B hold the lock at once; counting TTLs on a monotonic clock prevents it",
								}},
							},
						},
					},
				},
			},
		},
	},
}

// GuideConclusion is Kleppmann's conclusion (10.2), in our words, and where
// it comes from.
var (
	GuideConclusion = demo.Text{
		JA: "効率のためなら Redis のロックで足りる (Redlock でもよいが、手間に見合う得は少ない)。正しさのためなら、合意アルゴリズム (ZAB、Raft) に基づくロックとフェンシングトークンを使う。",
		EN: "For efficiency, a Redis lock will do (Redlock too, though it costs more than it buys). For correctness, use a lock built on consensus (ZAB, Raft) together with a fencing token.",
	}
	GuideConclusionSource = demo.Text{
		JA: "Martin Kleppmann「How to do distributed locking」(2016) の要旨",
		EN: "The gist of Martin Kleppmann, \"How to do distributed locking\" (2016)",
	}
)

// GuideQuiz is the chapter's five closing questions. The answers are ours,
// and each points at the frames that show it.
var GuideQuiz = []QuizQuestion{
	{
		Ask: demo.Text{
			JA: "Redlock の核心的な問題は何か?",
			EN: "What is the core problem with Redlock?",
		},
		Answer: []demo.Text{
			{
				JA: "安全性が時間の仮定に頼っていることだ。GC 停止と時計のジャンプのどちらでも破れる (Kleppmann, 2016)。",
				EN: "Its safety rests on assumptions about time: a GC pause and a clock jump each break it (Kleppmann, 2016).",
			},
			{
				JA: "GC 停止: A がロックを取ったあと有効時間より長く止まると、その間にキーが失効して B も取れる。再開した A はまだ持っているつもりで書き込む。Redlock の値はただの乱数で順序がないので、資源が検査しても古い書き込みを見分けられない。",
				EN: "A GC pause: A takes the lock, then stops for longer than the validity. Its keys expire, B takes the lock, and A wakes up still believing it holds it, and writes. Redlock's value is a random string with no order, so even a storage that checks it cannot tell the late write apart.",
			},
			{
				JA: "時計のジャンプ: あるノードの時計が先へ飛ぶと、そこのキーが早く消え、別のクライアントも 5 台中 3 台の多数を取れる。",
				EN: "A clock jump: one node's clock leaps forward, its key expires early, and a second client wins a quorum of 3 out of 5 as well.",
			},
			{
				JA: "だから Redlock は効率のためのロックにとどめ、正しさが要るなら合意に基づくロックとフェンシングトークンを使う。",
				EN: "So keep Redlock for efficiency; where correctness matters, use a consensus-based lock with a fencing token.",
			},
		},
		Demos: []DemoLink{
			{ID: "redlock-gc-pause", On: true, Step: LastStep, Note: demo.Text{
				JA: "フェンシング有でも、止まっていた A の書き込みが B の値を上書きする",
				EN: "fencing on, and still the paused A's write overwrites B's value",
			}},
			{ID: "redlock-clock-jump", On: false, Step: LastStep, Note: demo.Text{
				JA: "時計が飛んだノードのキーが早く消え、A と B が同時に持つ",
				EN: "a key expires early on the node whose clock jumped, and A and B hold the lock at once",
			}},
		},
		Tree: "redis-for-correctness",
	},
	{
		Ask: demo.Text{
			JA: "フェンシングトークンは、どのように安全性を保証するのか?",
			EN: "How does a fencing token keep the data safe?",
		},
		Answer: []demo.Text{
			{
				JA: "ロックサービスは取得のたびに単調に増えるトークンを発行し、持ち主は書き込みにそれを添える。資源はそれまでに受け付けた最大のトークンを覚えておき、それより小さいトークンの書き込みを拒否する。",
				EN: "The lock service hands out a token that grows with every acquisition, and the holder sends it with each write. The storage remembers the highest token it has accepted and rejects any write that carries a lower one.",
			},
			{
				JA: "例: A が token 1 を得て GC で止まる。リースが切れ、B が token 2 を得て書き込む (資源の maxToken は 2 になる)。再開した A が token 1 で書きにくると、1 < 2 なので資源は拒否する。",
				EN: "For example: A gets token 1 and stops for a GC. Its lease runs out; B gets token 2 and writes (the storage's maxToken is now 2). When A wakes up and writes with token 1, the storage sees 1 < 2 and refuses.",
			},
			{
				JA: "肝心なのは、検査するのが資源の側だということ。多くのデータベースはそのままではできないので、検査の仕組みを自分で足す必要がある。",
				EN: "The crux is that the storage does the checking. Most databases cannot do that out of the box, so you have to add the check yourself.",
			},
		},
		Demos: []DemoLink{
			{ID: "gc-pause", On: true, Step: LastStep, Note: demo.Text{
				JA: "資源が token 1 の書き込みを拒否し、B の値が残る",
				EN: "the storage rejects the write with token 1 and B's value survives",
			}},
			{ID: "gc-pause", On: false, Step: LastStep, Note: demo.Text{
				JA: "フェンシング無では、同じ書き込みが B の値を壊す",
				EN: "with fencing off, the same write destroys B's value",
			}},
		},
		Tree: "consensus",
	},
	{
		Ask: demo.Text{
			JA: "ZooKeeper のエフェメラルノードは、なぜ分散ロックに向いているのか?",
			EN: "Why does a ZooKeeper ephemeral node suit a distributed lock?",
		},
		Answer: []demo.Text{
			{
				JA: "作ったクライアントのセッションが切れると、ZooKeeper が自動で消すからだ。持ち主が死ねばセッションがタイムアウトし (タイムアウトは tickTime の 2〜20 倍の範囲で決まる)、ロックのノードが消えて、待っていた次のクライアントが取れる。死んだ持ち主のロックが残り続けることはない。リース (TTL) と同じ働きだ。",
				EN: "Because ZooKeeper deletes it by itself when the session of the client that created it ends. If the holder dies, its session times out (the timeout is negotiated between 2 and 20 times tickTime), the lock node disappears, and the next client in line takes the lock. A dead holder leaves no lock behind: it works like a lease (TTL).",
			},
			{
				JA: "しかも ZooKeeper は合意 (ZAB) の上で動くので、Redis のフェイルオーバーのようにロックを失って 2 人が持つことがない。ロックノードの czxid や連番はフェンシングトークンにも使える。",
				EN: "And since ZooKeeper runs on consensus (ZAB), a failover cannot lose the lock and let two clients hold it, as one can with Redis. The lock node's czxid or sequence number can serve as a fencing token, too.",
			},
			{
				JA: "弱点もリースと同じだ。GC で止まっている間にセッションが切れても、持ち主本人はまだ持っているつもりでいる。だから、ここでもフェンシングトークンが要る。",
				EN: "Its weak spot is a lease's weak spot: a holder that stops for a GC while its session expires still believes it holds the lock. So a fencing token is needed here too.",
			},
		},
		Demos: []DemoLink{
			{ID: "no-lease", On: true, Step: LastStep, Note: demo.Text{
				JA: "リース有: A が落ちてもロックは時間で戻り、B が取れる",
				EN: "with a lease, A crashes and the lock comes back in time for B",
			}},
			{ID: "no-lease", On: false, Step: LastStep, Note: demo.Text{
				JA: "リース無: 落ちた A のロックが永久に残る",
				EN: "without one, the crashed A's lock stays forever",
			}},
			{ID: "gc-pause", On: false, Step: LastStep, Note: demo.Text{
				JA: "弱点: リースが切れたことを知らない A が書き込む",
				EN: "the weak spot: A, unaware its lease ran out, writes anyway",
			}},
		},
		Tree: "consensus",
	},
	{
		Ask: demo.Text{
			JA: "SELECT FOR UPDATE の限界は何か?",
			EN: "What are the limits of SELECT FOR UPDATE?",
		},
		Answer: []demo.Text{
			{
				JA: "行ロックはトランザクションが終わるまで続く。その間データベースの資源を占め、同じ行を狙うトランザクションは 1 列に並ばされる。長いトランザクションは、ほかの仕事をまとめて止める。",
				EN: "The row locks last until the transaction ends. All that time the database holds resources for them, transactions that want the same rows queue up one by one, and a long transaction holds up everyone else's work.",
			},
			{
				JA: "複数の行をばらばらの順で取ればデッドロックになる。複数のデータベースにまたがると、2 相コミットなしには守れない。",
				EN: "Take rows in different orders and you get deadlocks. Span more than one database and it cannot protect you without a two-phase commit.",
			},
			{
				JA: "代わりの手は、version 列による楽観ロック、CAS、パーティショニング、冪等性。とはいえ、1 つのデータベースの中で済む単純な場面なら、SELECT FOR UPDATE がいちばん安全なことも多い。",
				EN: "The alternatives are optimistic locking with a version column, compare-and-set, partitioning and idempotency. Still, for a simple case that stays inside one database, SELECT FOR UPDATE is often the safest choice.",
			},
		},
		Demos: []DemoLink{
			{ID: "lost-update", On: true, Step: LastStep, Note: demo.Text{
				JA: "FOR UPDATE で B は A のコミットまで待ち、新しい残高から計算する",
				EN: "with FOR UPDATE, B waits for A's commit and computes from the new balance",
			}},
			{ID: "job-queue", On: false, Step: LastStep, Note: demo.Text{
				JA: "同じ行を狙うワーカーが 1 列に並ぶ。SKIP LOCKED で解ける",
				EN: "workers after the same row line up one by one; SKIP LOCKED untangles them",
			}},
			{ID: "deadlock", On: false, Step: LastStep, Note: demo.Text{
				JA: "ばらばらの順で行を取るとデッドロックになり、片方が 40P01 で中断される",
				EN: "rows taken in different orders deadlock, and one transaction is aborted with 40P01",
			}},
			{ID: "optimistic-version", On: true, Step: LastStep, Note: demo.Text{
				JA: "代わりの手: version 列の楽観ロックは 0 行の更新で衝突を知らせる",
				EN: "the alternative: optimistic locking with a version column reports the conflict as zero rows updated",
			}},
		},
		Tree: "database",
	},
	{
		Ask: demo.Text{
			JA: "分散ロックを避けるには、どうすればよいか?",
			EN: "How can you avoid a distributed lock?",
		},
		Answer: []demo.Text{
			{
				JA: "分散ロックは最後の手段だ。まず、データの持ち方と処理の組み方で衝突そのものをなくせないかを考える。そのための型が 5 つある。",
				EN: "Treat a distributed lock as the last resort: first try to arrange the data and the work so that the conflict never arises. Five patterns do that.",
			},
		},
		Points: []demo.Text{
			{
				JA: "担当を 1 つに: パーティショニングで、同じキーをいつも同じワーカーに送る。ロックは要らない。",
				EN: "One owner: partition the work so that the same key always goes to the same worker. No lock needed.",
			},
			{
				JA: "冪等性: 何度実行しても結果が同じになる操作にする。",
				EN: "Idempotency: make the operation give the same result however many times it runs.",
			},
			{
				JA: "CAS: UPDATE ... WHERE version = ? のように、読んだときの版を条件に書く。",
				EN: "Compare-and-set: write on the condition that the row is still the version you read (UPDATE ... WHERE version = ?).",
			},
			{
				JA: "Event Sourcing: 上書きせず追記だけにすれば、ぶつかるものがない。",
				EN: "Event sourcing: append events, never overwrite, and there is nothing to collide.",
			},
			{
				JA: "アクター: 各アクターが 1 度に 1 メッセージだけ処理する (Erlang/Elixir、Akka)。",
				EN: "Actors: each actor handles one message at a time (Erlang/Elixir, Akka).",
			},
		},
		NoDemo: demo.Text{
			JA: "どれもロックを使わない方法なので、見せるシナリオはない。判断の木の最初の枝がこの話だ。",
			EN: "These all do without a lock, so there is no scenario to show; the decision tree's first branch is about them.",
		},
		Tree: "avoid",
	},
}
