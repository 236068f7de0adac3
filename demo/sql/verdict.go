package sql

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// What a database lets happen beyond the engine's kinds. A deadlock the
// server broke, a queue of workers and a pool run dry cost time or a retry,
// not data; an oversold stock, a double charge and a client waiting on
// itself are broken.
var (
	// Deadlock: transactions wait for each other in a cycle. It is a
	// deadlock from the moment the cycle forms (At, between Client, whose
	// wait closed it, and Other); PostgreSQL only finds it once a waiter
	// has waited deadlock_timeout, and then aborts one transaction: Value
	// is that victim and Before the time, in ms, or both "" while nobody
	// has looked yet.
	Deadlock = demo.NewKind(demo.KindSpec{Name: "deadlock", Class: demo.Warning, Words: deadlockWords})
	// QueuedBehind: a worker waited for a row lock and, once it was free,
	// took a different row: the wait bought nothing, the workers ran one
	// after another. Value is the row, Before the wait in ms.
	QueuedBehind = demo.NewKind(demo.KindSpec{Name: "queued", Class: demo.Warning, Words: queuedWords})
	// WaitsOnItself: a client waits for a lock that it holds itself on
	// another connection; no deadlock detector can see the cycle. Value is
	// the lock.
	WaitsOnItself = demo.NewKind(demo.KindSpec{Name: "waits-on-itself", Class: demo.Broken, Words: selfWaitWords})
	// Oversold: a commit took a count of the resource below zero, as three
	// orders for the last item leave its stock at -2. Client is the first
	// order past the stock and Other the last, Value the count now and
	// Before the row and column.
	Oversold = demo.NewKind(demo.KindSpec{Name: "oversold", Class: demo.Broken, Words: oversoldWords})
	// ChargedTwice: the resource took a second row equal to one it had in
	// everything but its key, as a payment retried under a fresh id is
	// charged again. Value is the new row's key, Before the first's.
	ChargedTwice = demo.NewKind(demo.KindSpec{Name: "charged-twice", Class: demo.Broken, Words: chargedTwiceWords})
	// TooManyClients: a client could not connect at all, because the
	// server already had max_connections open, held by others (Other).
	// Value is max_connections, Before those of them waiting for a lock.
	TooManyClients = demo.NewKind(demo.KindSpec{Name: "too-many-clients", Class: demo.Warning, Words: tooManyWords})
)

// properties are the promises a database scenario may name beyond the
// engine's.
var properties = []demo.Property{
	{Name: "no-deadlock", Kind: Deadlock,
		Says: demo.Text{EN: "transactions never wait for each other in a cycle", JA: "トランザクションが互いを循環して待つことはない"}},
	{Name: "no-queue", Kind: QueuedBehind,
		Says: demo.Text{EN: "no worker waits for a row it then does not take", JA: "ワーカーが、結局取らない行のために待たされない"}},
	{Name: "no-self-wait", Kind: WaitsOnItself,
		Says: demo.Text{EN: "no client waits for a lock it holds itself", JA: "クライアントが自分の持つロックを待つことはない"}},
	{Name: "no-oversell", Kind: Oversold,
		Says: demo.Text{EN: "no order takes the stock below zero", JA: "注文が在庫を 0 未満にすることはない"}},
	{Name: "charged-once", Kind: ChargedTwice,
		Says: demo.Text{EN: "a payment that is retried is charged once", JA: "再試行した支払いが二度請求されることはない"}},
	{Name: "no-spread", Kind: TooManyClients,
		Says: demo.Text{EN: "no request is refused a connection while others hold theirs waiting for a lock",
			JA: "ロックを待つ接続のせいで、ほかの要求が接続を断られることはない"},
		Match: func(v demo.Violation, _ []demo.Holding) bool { return v.Before != "" }},
	{Name: "a-client-commits", Reached: func(r *demo.Run) bool { return r.Store().(*database).committed != 0 },
		Says: demo.Text{EN: "the work gets done: some client's transaction commits its change",
			JA: "仕事が済む: どれかのクライアントのトランザクションが変更をコミットできる"}},
	{Name: "every-client-commits", Reached: everyoneCommitted,
		Says: demo.Text{EN: "the work gets done: every client's transaction commits its change",
			JA: "仕事が済む: どのクライアントのトランザクションも変更をコミットできる"}},
}

// everyoneCommitted reports whether every client has committed a change
// since the stage was set.
func everyoneCommitted(r *demo.Run) bool {
	d := r.Store().(*database)
	return d.committed == 1<<len(d.clients)-1
}

// words tell the engine's kinds as a database's page and transcript do: a
// frame that found nothing may have taken no lock at all, so it says "no
// anomaly"; a lost update is a commit's; the lock's kinds keep their words
// and tell their transcript lines with the table in mind.
var words = map[demo.ViolationKind]demo.Words{
	demo.MutualExclusionHeld: {
		Short: demo.Text{JA: "異常なし", EN: "no anomaly"},
		Legend: demo.Text{JA: "データベースのシナリオが見張るもの (消えた更新、デッドロック、無駄な待ち、売り越し、二重請求、接続の枯渇など) が、ここまで一つも起きていない。",
			EN: "None of what a database scenario watches for (a lost update, a deadlock, a wasted wait, an oversold stock, a double charge, connections run out) has happened so far."},
		Say: noAnomaly,
	},
	demo.LostUpdate: {
		Short: demo.Text{JA: "失われた更新", EN: "lost update"},
		Legend: demo.Text{JA: "他人のコミットより前に読んだ値から計算した書き込みがコミットされ、その他人の変更が消えた。",
			EN: "A write computed from a read older than another client's commit was committed, and that change is gone."},
		Say: func(f *demo.Frame, v demo.Violation) demo.Text {
			return demo.Says("失われた更新: %[1]s が %[3]s に %[2]s をコミットした。その計算の元になった読み取りは、%[4]s のコミット (%[5]s) より前のもので、%[4]s の変更は消えた。",
				"Lost update: %[1]s committed %[2]s at %[3]s, computed from a read taken before %[4]s's commit (%[5]s). %[4]s's change is lost.",
				v.Client, v.Value, demo.ShowTime(f.Scenario, v.At), v.Other, v.Before)
		},
		Story: func(sc *demo.Scenario, v demo.Violation) string {
			return fmt.Sprintf("%s committed %s at %s, computed from a read older than %s's commit, which set %s", v.Client, v.Value, demo.Clock(sc, v.At), v.Other, v.Before)
		},
	},
	demo.StaleWrite: withStory(demo.StaleWrite, func(sc *demo.Scenario, v demo.Violation) string {
		return fmt.Sprintf("%s's lease had run out, yet its write %q landed at %s over %s's %q", v.Client, v.Value, demo.Clock(sc, v.At), v.Other, v.Before)
	}),
	demo.Contained: withStory(demo.Contained, func(sc *demo.Scenario, v demo.Violation) string {
		return fmt.Sprintf("%s and %s both believed they held the lock from %s; the table turned %s's write away (token %d < max_token %d)", v.Client, v.Other, demo.Clock(sc, v.At), v.Client, v.Token, v.Max)
	}),
	demo.Overlap: withStory(demo.Overlap, func(sc *demo.Scenario, v demo.Violation) string {
		return fmt.Sprintf("%s worked on past its lease while %s held the lock, from %s", v.Client, v.Other, demo.Clock(sc, v.At))
	}),
}

// withStory is k's own words with a transcript line of the database's.
func withStory(k demo.ViolationKind, story func(*demo.Scenario, demo.Violation) string) demo.Words {
	w := k.Spec().Words
	w.Story = story
	return w
}

// story is a database frame's finding in the transcript's words.
func story(sc *demo.Scenario, v demo.Violation) string {
	if s := demo.WordsFor(sc, v.Kind).Story; s != nil {
		return s(sc, v)
	}
	return fmt.Sprintf("%s at %s", v.Client, demo.Clock(sc, v.At))
}

var deadlockWords = demo.Words{
	Short: demo.Text{JA: "デッドロック", EN: "deadlock"},
	Legend: demo.Text{JA: "トランザクションが互いのロックを待つ輪ができた。できた瞬間からデッドロックで、PostgreSQL は deadlock_timeout の後に見つけて片方を中断する。",
		EN: "Transactions wait for each other's locks in a cycle: a deadlock from the moment it forms, which PostgreSQL finds after deadlock_timeout and breaks by aborting one."},
	Say: func(f *demo.Frame, v demo.Violation) demo.Text {
		sc := f.Scenario
		if v.Value == "" {
			return demo.Says("デッドロック: %[1]s と %[2]s が互いのロックを待っている (%[3]s から)。どちらも先へ進めない。PostgreSQL がこの輪に気づくのは、待ち始めて deadlock_timeout が過ぎたバックエンドが調べたときで、そのとき片方を ERROR 40P01 で中断する。",
				"Deadlock: %[1]s and %[2]s wait for each other's locks (from %[3]s), and neither can move. PostgreSQL finds the cycle only when a waiter has waited deadlock_timeout and looks; then it aborts one of them with ERROR 40P01.",
				v.Client, v.Other, demo.ShowTime(sc, v.At))
		}
		ms, _ := strconv.Atoi(v.Before)
		return demo.Says("デッドロック: %[1]s と %[2]s は %[3]s から互いのロックを待っていた。%[4]s に deadlock_timeout を待ち終えた検出がこの輪を見つけ、%[5]s のトランザクションを ERROR 40P01 で中断した。%[5]s はやり直しが要る。",
			"Deadlock: %[1]s and %[2]s waited for each other's locks from %[3]s. At %[4]s, after deadlock_timeout, the detector found the cycle and aborted %[5]s's transaction with ERROR 40P01. %[5]s has to start again.",
			v.Client, v.Other, demo.ShowTime(sc, v.At), demo.ShowTime(sc, ms), v.Value)
	},
	Story: func(sc *demo.Scenario, v demo.Violation) string {
		s := fmt.Sprintf("%s and %s wait for each other from %s", v.Client, v.Other, demo.Clock(sc, v.At))
		if v.Value != "" {
			ms, _ := strconv.Atoi(v.Before)
			s += fmt.Sprintf("; the detector aborted %s at %s", v.Value, demo.Clock(sc, ms))
		}
		return s
	},
}

var queuedWords = demo.Words{
	Short: demo.Text{JA: "待ち行列", EN: "queued"},
	Legend: demo.Text{JA: "ワーカーが行ロックを待ったあげく別の行を取った。待ちは無駄で、ワーカーは 1 列に並んでいる。",
		EN: "A worker waited for a row lock and then took another row: the wait bought nothing, and the workers run one after another."},
	Say: func(f *demo.Frame, v demo.Violation) demo.Text {
		ms, _ := strconv.Atoi(v.Before)
		return demo.Says("待ち行列: %[1]s は %[3]s が持つ %[4]s のロックを %[2]s 待ったあげく、別の行を取った。ワーカーが 1 列に並んでいる。",
			"Queued: %[1]s waited %[2]s for %[3]s's lock on %[4]s and then took a different row. The workers are running one after another.",
			v.Client, demo.ShowDuration(f.Scenario, ms), v.Other, v.Value)
	},
	Story: func(sc *demo.Scenario, v demo.Violation) string {
		return fmt.Sprintf("%s waited %sms behind %s for %s, then took another row at %s", v.Client, v.Before, v.Other, v.Value, demo.Clock(sc, v.At))
	},
}

var selfWaitWords = demo.Words{
	Short: demo.Text{JA: "自分待ち", EN: "waits on itself"},
	Legend: demo.Text{JA: "クライアントが、自分が別の接続で持っているロックを待っている。デッドロック検出には見えない。",
		EN: "A client waits for a lock it holds itself on another connection; no deadlock detector can see it."},
	Say: func(f *demo.Frame, v demo.Violation) demo.Text {
		return demo.Says("自分待ち: %[1]s は自分が別の接続で持っている %[2]s を待っている (%[3]s から)。デッドロック検出には見えない。",
			"Waits on itself: %[1]s waits for %[2]s, which it holds itself on another connection (from %[3]s). No deadlock detector can see it.",
			v.Client, v.Value, demo.ShowTime(f.Scenario, v.At))
	},
	Story: func(sc *demo.Scenario, v demo.Violation) string {
		return fmt.Sprintf("%s waits for %s, which it holds itself, from %s", v.Client, v.Value, demo.Clock(sc, v.At))
	},
}

var oversoldWords = demo.Words{
	Short: demo.Text{JA: "売り越し", EN: "oversold"},
	Legend: demo.Text{JA: "コミットで在庫などの数が 0 を下回った。あるより多く売れている。",
		EN: "A commit took a count such as a stock below zero: more was sold than there was."},
	Say: func(f *demo.Frame, v demo.Violation) demo.Text {
		// Before is "table key=v column": the page names the column.
		col := v.Before[strings.LastIndexByte(v.Before, ' ')+1:]
		at := demo.ShowTime(f.Scenario, v.At)
		if v.Other == v.Client {
			return demo.Says("売り越し: %[1]s のコミットで %[2]s が %[3]s に 0 を下回り、%[4]s になった。在庫より多く売れている。在庫の確認が書き込みとは別の文だったので、確かめた時点の在庫はもう無かった。",
				"Oversold: %[1]s's commit took %[2]s below zero at %[3]s, to %[4]s: more sold than there was. The stock was checked in a statement of its own, before the write, and by then it was gone.",
				v.Client, col, at, v.Value)
		}
		return demo.Says("売り越し: %[1]s のコミットで %[2]s が %[3]s に 0 を下回った。%[4]s のコミットの後は %[5]s。在庫より多く売れている。在庫の確認が書き込みとは別の文だったので、確かめた時点の在庫はもう無かった。",
			"Oversold: %[1]s's commit took %[2]s below zero at %[3]s, and after %[4]s's it is %[5]s: more sold than there was. The stock was checked in a statement of its own, before the write, and by then it was gone.",
			v.Client, col, at, v.Other, v.Value)
	},
	Story: func(sc *demo.Scenario, v demo.Violation) string {
		s := fmt.Sprintf("%s's commit took %s below zero at %s", v.Client, v.Before, demo.Clock(sc, v.At))
		if v.Other != v.Client {
			return s + fmt.Sprintf("; after %s's it is %s", v.Other, v.Value)
		}
		return s + ", to " + v.Value
	},
}

var chargedTwiceWords = demo.Words{
	Short: demo.Text{JA: "二重請求", EN: "charged twice"},
	Legend: demo.Text{JA: "キーだけが違う同じ請求が 2 行目として記録された。1 つの支払いが 2 回請求された。",
		EN: "A second row equal to one already there but for its key: one payment charged twice."},
	Say: func(f *demo.Frame, v demo.Violation) demo.Text {
		return demo.Says("二重請求: %[1]s が %[3]s に %[2]s で請求を記録した。中身は %[4]s の %[5]s と同じで、キーだけが違う。同じ支払いが 2 回請求された。",
			"Charged twice: %[1]s recorded a charge under %[2]s at %[3]s, the same as %[4]s's %[5]s but for its key. One payment has been charged twice.",
			v.Client, v.Value, demo.ShowTime(f.Scenario, v.At), v.Other, v.Before)
	},
	Story: func(sc *demo.Scenario, v demo.Violation) string {
		return fmt.Sprintf("%s inserted %s at %s, the same as %s's %s under another key", v.Client, v.Value, demo.Clock(sc, v.At), v.Other, v.Before)
	},
}

// tooManyWords name, where it holds, the holders that wait for a lock: the
// failure that spread from the lock, which the plain refusal is not.
var tooManyWords = demo.Words{
	Short: demo.Text{JA: "接続の枯渇", EN: "connections ran out"},
	Legend: demo.Text{JA: "max_connections がすべてふさがり、ロックと関係のない要求が接続できなかった。",
		EN: "Every one of max_connections was taken, and a request that wanted no lock could not connect."},
	Say: func(f *demo.Frame, v demo.Violation) demo.Text {
		at := demo.ShowTime(f.Scenario, v.At)
		if v.Before != "" {
			return demo.Says("接続の枯渇: %[1]s は %[2]s に接続すらできなかった (FATAL 53300 too many clients)。max_connections の %[3]s 本は、すべて %[4]s が持っていた。%[5]s はロックを待っていた。",
				"Connections ran out: %[1]s could not even connect at %[2]s (FATAL 53300, too many clients). All %[3]s of max_connections were held, by %[4]s, while %[5]s waited for a lock.",
				v.Client, at, v.Value, v.Other, v.Before)
		}
		return demo.Says("接続の枯渇: %[1]s は %[2]s に接続すらできなかった (FATAL 53300 too many clients)。max_connections の %[3]s 本は、すべて %[4]s が持っていた。",
			"Connections ran out: %[1]s could not even connect at %[2]s (FATAL 53300, too many clients). All %[3]s of max_connections were held, by %[4]s.",
			v.Client, at, v.Value, v.Other)
	},
	Story: func(sc *demo.Scenario, v demo.Violation) string {
		return fmt.Sprintf("%s could not connect at %s: max_connections %s, all held by %s", v.Client, demo.Clock(sc, v.At), v.Value, v.Other)
	},
}

// noAnomaly tells a database frame in which nothing was found by what is
// true of it, never more: the promise the scenario makes, kept so far; who
// waited for a lock, how long and how it ended, or that nobody has; and
// whether any lock was taken at all, where a page with none (flash-sale,
// idempotency-key) must not speak of two holders.
func noAnomaly(f *demo.Frame, _ demo.Violation) demo.Text {
	t := demo.Text{JA: "異常なし:", EN: "No anomaly:"}
	p, promised := f.Scenario.Promise()
	if promised {
		t.JA += " 「" + p.Says.JA + "」はここまで守られている。"
		t.EN += " so far it holds that " + p.Says.EN + "."
	}
	for _, w := range waitsOf(f) {
		t.JA += w.JA // Japanese puts no space after 。
		t.EN += " " + w.EN
	}
	db, _ := Of(*f)
	switch {
	case len(f.Holdings) == 0 && len(db.Holds) == 0 && db.Lock.Expiry == 0:
		t.JA += "ロックは一つも取られていない。"
		t.EN += " No lock has been taken."
	case promised && (p.Kind == demo.TwoHolders || p.Kind == demo.Overlap):
		// The promise said it already.
	case len(f.Holdings) > 0:
		// Every pair of beliefs that met would be a finding of its own.
		t.JA += "同時に 2 人がロックを持っているつもりになったことはない。"
		t.EN += " No two clients believed they held the lock at once."
	}
	return t
}

// waitsOf says, client by client, who waited for a lock in f and how the
// wait ended (the lock, or an ERROR), or who waits now; that nobody has
// waited, when nobody has.
func waitsOf(f *demo.Frame) []demo.Text {
	var out []demo.Text
	waiting := map[string]bool{}
	for _, e := range f.Events {
		s, ok := e.(SQLStatement)
		switch {
		case !ok:
		case s.Waiting:
			waiting[s.Client] = true
		case waiting[s.Client]:
			// A client's next answer after it began to wait is its
			// waiting statement's: one statement of a program at a time.
			waiting[s.Client] = false
			d := demo.ShowDuration(f.Scenario, s.At-s.Sent)
			if s.Err != nil {
				out = append(out, demo.Says("%[1]s はロックを %[2]s 待ち、その文は ERROR %[3]s で終わった。", "%[1]s waited %[2]s for a lock, and its statement ended in ERROR %[3]s.", s.Client, d, s.Err.Code))
			} else if s.At == s.Sent {
				out = append(out, demo.Says("%[1]s はロックを待ったが、同じ時刻のうちに文に答えが返った。", "%[1]s waited for a lock, and its statement was answered in the same moment.", s.Client))
			} else {
				out = append(out, demo.Says("%[1]s はロックを %[2]s 待ち、その後で文に答えが返った。", "%[1]s waited %[2]s for a lock, and then its statement was answered.", s.Client, d))
			}
		}
	}
	for _, c := range f.Scenario.Clients {
		if waiting[c] {
			out = append(out, demo.Says("%s はロックを待っている。", "%s is waiting for a lock.", c))
		}
	}
	if len(out) == 0 {
		out = append(out, demo.Text{JA: "誰もロックを待っていない。", EN: "Nobody has waited for a lock."})
	}
	return out
}
