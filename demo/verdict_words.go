package demo

import (
	"fmt"
	"strconv"
)

// The engine's kinds of violation: the chapter's (a stale write, two
// holders, a lock stuck with a dead holder, an overlap, and the overlap the
// resource contained), and what any store may let happen (a lost update, a
// token handed out twice, a waiter turned away by a dead holder's lease).
// They are registered in this order, which breaks ties within a class.
const MutualExclusionHeld ViolationKind = 0

var (
	// StaleWrite: a client whose lease had run out wrote, and the resource
	// took it. Someone else's data was overwritten.
	StaleWrite = NewKind(KindSpec{Name: "stale-write", Class: Broken, Words: staleWriteWords})
	// LateWrite: a client whose lease had run out wrote, and the resource
	// took it, over no newer holder's data: over nothing, its own value, or
	// an older holder's. It worked past its lease; nothing is lost yet. With
	// fencing, the resource took it because no higher token had reached it.
	LateWrite = NewKind(KindSpec{Name: "late-write", Class: Warning, Words: lateWriteWords})
	// TwoHolders: two clients held the lock at once, each within its own
	// lease or validity. The lock was granted twice.
	TwoHolders = NewKind(KindSpec{Name: "two-holders", Class: Broken, Words: twoHoldersWords})
	// Stuck: a dead client holds a lock that never expires. Nobody can ever
	// take it again.
	Stuck = NewKind(KindSpec{Name: "stuck", Class: Broken, Words: stuckWords})
	// Overlap: a client kept believing it held the lock after its lease ran
	// out, while another client held it; no write of the first has reached
	// the resource (yet).
	Overlap = NewKind(KindSpec{Name: "overlap-no-write", Class: Warning, Words: overlapWords})
	// Contained: the same overlap, and the resource turned the expired
	// holder's write away by its token.
	Contained = NewKind(KindSpec{Name: "contained", Class: ContainedByResource, Words: containedWords})
	// LostUpdate: a client wrote a value computed from a read that another
	// client's write had already made stale, and that write is gone. A
	// database (a commit) and a modelled account (a handler's write back)
	// both let it happen, and tell it in their own words (Family.Words).
	LostUpdate = NewKind(KindSpec{Name: "lost-update", Class: Broken, Words: lostUpdateWords})
	// TokenReused: a client was given a fencing token another client had
	// been given already (a counter that a failover rolled back). The
	// resource cannot tell the two holders apart: it takes the writes of
	// both. Token is the token; Other the client that had it first.
	TokenReused = NewKind(KindSpec{Name: "token-reused", Class: Broken, Words: tokenReusedWords})
	// DeadHolder: a client asked for the lock and was turned away while its
	// holder was dead, because the dead holder's lease had not run out yet.
	// Other is the dead holder, Token (as a time) when its lease runs out,
	// Max when it crashed. It costs time, not data.
	DeadHolder = NewKind(KindSpec{Name: "dead-holder", Class: Warning, Words: deadHolderWords})
)

var heldSpec = KindSpec{Name: "mutual-exclusion-held", Class: Held, Words: Words{
	Short:  Text{JA: "相互排除を維持", EN: "exclusion held"},
	Legend: Text{JA: "ロックを持っているつもりのクライアントは、いつも 1 つだけ。", EN: "At every moment, at most one client believed it held the lock."},
	Say: Plain("相互排除を維持: ロックを持っているつもりのクライアントは、どの時点でも 1 つだけだった。",
		"Exclusion held: at no moment did two clients believe they held the lock."),
}}

var staleWriteWords = Words{
	Short:  Text{JA: "古い書き込み", EN: "stale write"},
	Legend: Text{JA: "期限の切れた持ち主の書き込みが資源に通り、新しい値を上書きした。", EN: "A write from an expired holder reached the resource and overwrote newer data."},
	Say: func(f *Frame, v Violation) Text {
		return Says("古い書き込み: %[1]s のロックは切れていたのに、その書き込み %[4]q が %[2]s に通り、%[3]q を上書きした。",
			"Stale write: %[1]s's lock had run out, yet its write %[4]q landed at %[2]s and overwrote %[3]q.",
			v.Client, ShowTime(f.Scenario, v.At), v.Before, v.Value)
	},
	Story: func(sc *Scenario, v Violation) string {
		return fmt.Sprintf("%s wrote %q at %s after its lock ran out, overwriting %q (%s's)", v.Client, v.Value, Clock(sc, v.At), v.Before, v.Other)
	},
	Claims: func(f *Frame, v Violation) []Claim {
		return []Claim{
			{Fact: LeaseOver, Client: v.Client, At: v.At},
			{Fact: Landed, Client: v.Client, Value: v.Value, At: v.At},
			{Fact: Destroyed, Client: v.Client, Other: v.Other, Value: v.Before, At: v.At},
		}
	},
}

// lateWriteWords say what the late write landed over, that nothing newer
// was lost, and, where the resource checks tokens, why it took the write:
// it can only reject a token lower than one it has already seen.
var lateWriteWords = Words{
	Short: Text{JA: "期限切れの書き込み", EN: "late write"},
	Legend: Text{JA: "リースの切れた持ち主の書き込みが資源に通ったが、新しい持ち主のデータは上書きしていない。期限を過ぎて働く、害の一歩手前。",
		EN: "A write from a holder whose lease had run out landed, over no newer holder's data: it worked past its lease, one step short of the harm."},
	Say: func(f *Frame, v Violation) Text {
		t := Says("期限切れの書き込み: %[1]s のリースは切れていたのに、その書き込み %[2]q が %[3]s に通った", "Late write: %[1]s's lease had run out, yet its write %[2]q landed at %[3]s",
			v.Client, v.Value, ShowTime(f.Scenario, v.At))
		switch {
		case v.Before == "":
			t = t.Join(Text{JA: "。資源は空だった。", EN: ", on an empty resource."})
		case v.Other == v.Client:
			t = t.Join(Says("。上書きしたのは自分が前に書いた %q だった。", ", over its own earlier value %q.", v.Before))
		case v.Other == "":
			t = t.Join(Says("。上書きした %q は、どの持ち主が書いたものでもない。", ", over %q, which no holder had written.", v.Before))
		default:
			t = t.Join(Says("。上書きしたのは、%[2]s より前に持っていた %[1]s の %[3]q だった。", ", over %[3]q, written by %[1]s, who held the lock before %[2]s.", v.Other, v.Client, v.Before))
		}
		t = t.Join(Says("新しい持ち主のデータはまだ失われていないが、%[1]s は期限を過ぎて働いている。", " No newer holder's data is lost yet, but %[1]s worked past its lease.", v.Client))
		if v.Token > 0 && f.Fenced {
			t = t.Join(unseen(f, v))
		}
		return t
	},
	Story: func(sc *Scenario, v Violation) string {
		over := "nothing"
		if v.Before != "" {
			over = fmt.Sprintf("%q (%s's)", v.Before, v.Other)
			if v.Other == "" {
				over = fmt.Sprintf("%q (no holder's)", v.Before)
			}
		}
		return fmt.Sprintf("%s wrote %q at %s after its lock ran out, over %s; no newer holder's data is lost", v.Client, v.Value, Clock(sc, v.At), over)
	},
	Claims: func(f *Frame, v Violation) []Claim {
		cs := []Claim{
			{Fact: LeaseOver, Client: v.Client, At: v.At},
			{Fact: Landed, Client: v.Client, Value: v.Value, At: v.At},
			{Fact: NothingNewerLost, Client: v.Client, At: v.At},
		}
		if v.Before != "" {
			cs = append(cs, Claim{Fact: Overwrote, Client: v.Client, Other: v.Other, Value: v.Before, At: v.At})
		}
		if v.Token > 0 && f.Fenced {
			cs = append(cs, Claim{Fact: NotYetSeen, Client: v.Client, Other: newer(f, v), Token: v.Token, At: v.At})
		}
		return cs
	},
}

// newer is the holder with a token higher than the late writer's, who had
// the lock by the time of the write; "" for none.
func newer(f *Frame, v Violation) string {
	for _, h := range f.Holdings {
		if h.Client != v.Client && h.Token > v.Token && h.From <= v.At {
			return h.Client
		}
	}
	return ""
}

// unseen says why a resource that checks tokens took a late write: the
// highest token it had seen was no higher than the writer's, even where a
// newer holder already had one.
func unseen(f *Frame, v Violation) Text {
	for _, h := range f.Holdings {
		if h.Client != v.Client && h.Token > v.Token && h.From <= v.At {
			return Says(" 資源がこの書き込みを受け付けたのは、それまでに見た最大のトークンが %[1]d だったから。%[2]s のトークン %[3]d はまだ資源に届いていなかった。資源が拒めるのは、すでに見たより小さいトークンだけ。",
				" The resource took it because the highest token it had seen was %[1]d: %[2]s's token %[3]d had not reached it yet. A resource can only reject a token lower than one it has seen.",
				v.Max, h.Client, h.Token)
		}
	}
	return Says(" 資源がこの書き込みを受け付けたのは、トークン %[1]d より大きいトークンをまだ見ていなかったから。", " The resource took it: no token higher than %[1]d had reached it.", v.Token)
}

var twoHoldersWords = Words{
	Short:  Text{JA: "2 人が保持", EN: "two holders"},
	Legend: Text{JA: "ロックが 2 つのクライアントに同時に与えられた。", EN: "The lock was granted to two clients at once."},
	Say: func(f *Frame, v Violation) Text {
		return Says("2 人が保持: %[1]s と %[2]s が同時にロックを持った (%[3]s から)。相互排除が破れている。",
			"Two holders: %[1]s and %[2]s both held the lock at once (from %[3]s). Mutual exclusion is gone.",
			v.Other, v.Client, ShowTime(f.Scenario, v.At))
	},
	Story: func(sc *Scenario, v Violation) string {
		return fmt.Sprintf("%s and %s hold the lock at once, from %s", v.Other, v.Client, Clock(sc, v.At))
	},
	Claims: func(f *Frame, v Violation) []Claim {
		return []Claim{{Fact: BothValid, Client: v.Client, Other: v.Other, At: v.At}}
	},
}

var stuckWords = Words{
	Short:  Text{JA: "行き詰まり", EN: "stuck"},
	Legend: Text{JA: "クラッシュしたクライアントが期限のないロックを持ったままで、誰も取れない。", EN: "A crashed client holds a lock with no expiry, and nobody can take it."},
	Say: func(f *Frame, v Violation) Text {
		return Says("行き詰まり: クラッシュした %[1]s が期限のないロックを持ったまま (%[2]s)。誰も二度と取れない。",
			"Stuck: %[1]s crashed holding a lock with no expiry (%[2]s). Nobody can ever take it.",
			v.Client, ShowTime(f.Scenario, v.At))
	},
	Story: func(sc *Scenario, v Violation) string {
		return fmt.Sprintf("%s crashed holding a lock with no expiry (seen at %s)", v.Client, Clock(sc, v.At))
	},
	Claims: func(f *Frame, v Violation) []Claim {
		return []Claim{{Fact: Dead, Client: v.Client}}
	},
}

// overlapWords tell an overlap as it stands in the frame shown: whether its
// holder is stopped, running, or has learned it lost the lock, and whether
// the other still holds the lock, from that frame's own state, never from
// the frame where it was found.
var overlapWords = Words{
	Short: Text{JA: "重なり", EN: "overlap"},
	Legend: Text{JA: "リースの切れたクライアントが、ほかのクライアントの保持中もロックを持っているつもりでいる。期限切れの後の書き込みはまだ資源に届いていない。",
		EN: "A client whose lease ran out still believed it held the lock while another held it; no write of its since has reached the resource."},
	Say: func(f *Frame, v Violation) Text {
		at := ShowTime(f.Scenario, v.At)
		c := f.client(v.Client)
		other := Says("%[2]s は %[3]s にロックを取った", "%[2]s took the lock at %[3]s", v.Client, v.Other, at)
		if f.validAt(v.Other, f.Now) {
			other = Says("%[3]s から %[2]s がロックを持っている", "%[2]s has held the lock since %[3]s", v.Client, v.Other, at)
		}
		none := Says("%[2]s 以降、%[1]s の書き込みは資源に届いていない。", " No write from %[1]s has reached the resource since %[2]s.", v.Client, at)
		switch {
		case c != nil && !c.Holds:
			return Says("重なり: %[1]s のリースが切れたあとも、%[1]s はロックを持っているつもりでいた。その間に ", "Overlap: after %[1]s's lease ran out, %[1]s went on believing it held the lock while ", v.Client).
				Join(other).Join(Says("。%[1]s は今はもう持っていないと知っている。", ". %[1]s now knows it does not.", v.Client)).Join(none)
		case c != nil && c.Paused:
			return Says("重なり: %[1]s のリースは止まっている間に切れ、", "Overlap: %[1]s's lease ran out while it was stopped, and ", v.Client).
				Join(other).Join(Says("。止まったままの %[1]s は、まだロックを持っているつもりでいる。", ". %[1]s, still stopped, believes it holds the lock.", v.Client)).Join(none)
		}
		return Says("重なり: %[1]s のリースは切れ、", "Overlap: %[1]s's lease ran out, and ", v.Client).
			Join(other).Join(Says("。それでも %[1]s はロックを持っているつもりで動いている。", ", yet %[1]s runs on believing it holds the lock.", v.Client)).Join(none)
	},
	Story: func(sc *Scenario, v Violation) string {
		return fmt.Sprintf("%s works on past its lease while %s holds the lock, from %s", v.Client, v.Other, Clock(sc, v.At))
	},
	Claims: func(f *Frame, v Violation) []Claim {
		cs := []Claim{
			{Fact: LeaseOver, Client: v.Client, At: v.At},
			{Fact: HoldsValid, Client: v.Other, At: v.At},
			{Fact: Believes, Client: v.Client, At: v.At},
			{Fact: NoneLanded, Client: v.Client, At: v.At},
		}
		if f.validAt(v.Other, f.Now) {
			cs = append(cs, Claim{Fact: HoldsValid, Client: v.Other, At: Currently})
		}
		c := f.client(v.Client)
		switch {
		case c != nil && !c.Holds:
			cs = append(cs, Claim{Fact: BelievesNot, Client: v.Client, At: Currently})
		case c != nil && c.Paused:
			cs = append(cs, Claim{Fact: IsPaused, Client: v.Client}, Claim{Fact: Believes, Client: v.Client, At: Currently})
		default:
			cs = append(cs, Claim{Fact: Believes, Client: v.Client, At: Currently})
		}
		return cs
	},
}

var containedWords = Words{
	Short: Text{JA: "資源が拒否", EN: "contained"},
	Legend: Text{JA: "2 つのクライアントが持っているつもりになったが、期限の切れた側の書き込みは資源がトークンで拒否した。",
		EN: "Two clients believed they held the lock, but the resource turned the expired holder's write away by its token."},
	Say: func(f *Frame, v Violation) Text {
		return Says("資源が拒否: %[1]s と %[2]s がどちらもロックを持っているつもりになった (%[3]s から)。二重取得は起きたが、期限の切れた %[1]s の書き込みは、資源がトークンで拒否した (%[4]d < %[5]d)。",
			"Contained: %[1]s and %[2]s both believed they held the lock (from %[3]s). The double acquisition happened, but the resource turned away %[1]s's stale write (token %[4]d < %[5]d).",
			v.Client, v.Other, ShowTime(f.Scenario, v.At), v.Token, v.Max)
	},
	Story: func(sc *Scenario, v Violation) string {
		return fmt.Sprintf("%s worked on past its lease while %s held the lock, from %s; its write was rejected (token %d < maxToken %d)", v.Client, v.Other, Clock(sc, v.At), v.Token, v.Max)
	},
	Claims: func(f *Frame, v Violation) []Claim {
		return []Claim{
			{Fact: Believes, Client: v.Client, At: v.At},
			{Fact: Believes, Client: v.Other, At: v.At},
			{Fact: LeaseOver, Client: v.Client, At: v.At},
			{Fact: FencedOff, Client: v.Client, Token: v.Token, At: -1},
		}
	},
}

var lostUpdateWords = Words{
	Short: Text{JA: "失われた更新", EN: "lost update"},
	Legend: Text{JA: "他人の書き込みより前に読んだ値から計算した書き込みが通り、その他人の変更が消えた。",
		EN: "A write computed from a read older than another client's write went through, and that change is gone."},
	Say: func(f *Frame, v Violation) Text {
		return Says("失われた更新: %[1]s が %[3]s に %[2]s を書いた。その計算の元になった読み取りは、%[4]s の書き込み (%[5]s) より前のもので、%[4]s の変更は消えた。",
			"Lost update: %[1]s wrote %[2]s at %[3]s, computed from a read taken before %[4]s's write (%[5]s). %[4]s's change is lost.",
			v.Client, v.Value, ShowTime(f.Scenario, v.At), v.Other, v.Before)
	},
}

var tokenReusedWords = Words{
	Short:  Text{JA: "同じトークン", EN: "token reused"},
	Legend: Text{JA: "同じフェンシングトークンが 2 つのクライアントに渡った。資源の検査では防げない。", EN: "One fencing token was given to two clients; no check at the resource can tell them apart."},
	Say: func(f *Frame, v Violation) Text {
		return Says("同じトークン: %[1]s は %[2]s にトークン %[3]d でロックを取ったが、その番号は %[4]s がすでに受け取っていた。資源には 2 人の見分けがつかず、どちらの書き込みも受け取る。",
			"Token reused: %[1]s took the lock at %[2]s with token %[3]d, which %[4]s had been given already. The resource cannot tell the two apart and takes the writes of both.",
			v.Client, ShowTime(f.Scenario, v.At), v.Token, v.Other)
	},
	Story: func(sc *Scenario, v Violation) string {
		return fmt.Sprintf("%s took the lock at %s with token %d, which %s had been given already", v.Client, Clock(sc, v.At), v.Token, v.Other)
	},
	Claims: func(f *Frame, v Violation) []Claim {
		return []Claim{{Fact: TokenGiven, Client: v.Client, Token: v.Token}, {Fact: TokenGiven, Client: v.Other, Token: v.Token}}
	},
}

var deadHolderWords = Words{
	Short: Text{JA: "死んだ持ち主", EN: "dead holder"},
	Legend: Text{JA: "クラッシュした持ち主のリースが切れるまで、ほかのクライアントがロックを断られた。データは壊れないが、時間を失う。",
		EN: "A client was refused the lock while its holder was dead, until the holder's lease ran out: no data is lost, only time."},
	Say: func(f *Frame, v Violation) Text {
		sc := f.Scenario
		return Says("死んだ持ち主: %[1]s は %[2]s にロックを断られた。持ち主の %[3]s は %[4]s にクラッシュしていたが、そのリースは %[5]s まで続く。それまで誰もロックを取れない。",
			"Dead holder: %[1]s was turned away at %[2]s. Its holder %[3]s had crashed at %[4]s, but its lease runs to %[5]s, and until then nobody can take the lock.",
			v.Client, ShowTime(sc, v.At), v.Other, ShowTime(sc, int(v.Max)), ShowTime(sc, int(v.Token)))
	},
	Story: func(sc *Scenario, v Violation) string {
		return fmt.Sprintf("%s was turned away at %s: %s crashed at %s and keeps the lock until its lease runs out at %s",
			v.Client, Clock(sc, v.At), v.Other, Clock(sc, int(v.Max)), Clock(sc, int(v.Token)))
	},
	Claims: func(f *Frame, v Violation) []Claim {
		return []Claim{{Fact: Dead, Client: v.Other}, {Fact: BelievesNot, Client: v.Client, At: v.At}}
	},
}

// ShowTime is a moment as a page shows it, in the scenario's unit: t=16 in
// ticks, or t=10.5s for a real system's milliseconds.
func ShowTime(sc *Scenario, at int) string { return "t=" + ShowDuration(sc, at) }

// ShowDuration is a span of time as a page shows it, in the scenario's unit.
func ShowDuration(sc *Scenario, d int) string {
	if sc.Unit() == "tick" {
		return strconv.Itoa(d)
	}
	if d%1000 == 0 {
		return strconv.Itoa(d/1000) + "s"
	}
	if d < 1000 && d > -1000 {
		return strconv.Itoa(d) + "ms"
	}
	return strconv.FormatFloat(float64(d)/1000, 'f', -1, 64) + "s"
}

// validAt reports whether client held the lock at t within its lease, by
// the frame's holdings.
func (f *Frame) validAt(client string, t int) bool {
	for _, h := range f.Holdings {
		if h.Client == client && h.validAt(t) {
			return true
		}
	}
	return false
}

// client returns the frame's client named name, or nil.
func (f *Frame) client(name string) *Client {
	for i := range f.Clients {
		if f.Clients[i].Name == name {
			return &f.Clients[i]
		}
	}
	return nil
}
