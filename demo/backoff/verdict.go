package backoff

import (
	"fmt"
	"strconv"

	"github.com/distlock/fencing-demo/demo"
)

// What retries let happen. A herd costs the lock calls and the clients
// time, not data; retries that spread cost neither more than they must.
// Both carry the same figures: At is the busiest slot, Token its retries,
// Max every call so far, Value how many clients have had the lock, Before
// when the last got it ("" until all have).
var (
	// ThunderingHerd: half of the clients or more retried in the same
	// slot, in which one or two at most get the lock: retries in lockstep.
	ThunderingHerd = demo.NewKind(demo.KindSpec{Name: "thundering-herd", Class: demo.Warning, Words: demo.Words{
		Short: demo.Text{JA: "thundering herd", EN: "thundering herd"},
		Legend: demo.Text{JA: "断られたクライアントの半数以上が同じ時間枠にそろって取り直し、その 1 人のほかは全員もう一度断られた。",
			EN: "Half of the refused clients or more retried in the same time slot, and all but one were refused again."},
		Say: func(f *demo.Frame, v demo.Violation) demo.Text {
			return herdSays(f, v, "thundering herd: %[1]s の時間枠に %[2]d のクライアントがそろって取り直した (%[3]d の半数以上)。",
				"Thundering herd: %[2]d clients retried in the same slot, at %[1]s (half of the %[3]d or more).")
		},
	}})
	// Spread: the clients retried, and no slot took half of them.
	Spread = demo.NewKind(demo.KindSpec{Name: "spread", Class: demo.Held, Words: demo.Words{
		Short:  demo.Text{JA: "取り直しが散らばる", EN: "retries spread"},
		Legend: demo.Text{JA: "取り直しが時間に散らばり、どの時間枠でもクライアントの半数に届かなかった。", EN: "The retries spread out over time: no slot took half of the clients."},
		Say: func(f *demo.Frame, v demo.Violation) demo.Text {
			if v.Token == 1 {
				return herdSays(f, v, "取り直しが散らばる: どの時間枠でも、取り直したクライアントは 1 つまで (%[1]s など)。%[3]d の半数未満。",
					"Retries spread: no slot took more than one client's retry (one at %[1]s), under half of the %[3]d.")
			}
			return herdSays(f, v, "取り直しが散らばる: 1 つの時間枠で取り直したのは最多で %[2]d (%[1]s)。%[3]d の半数未満。",
				"Retries spread: at most %[2]d clients retried in one slot (at %[1]s), under half of the %[3]d.")
		},
	}})
)

// herdSays is the busiest slot of retries (ja and en say it), then the
// calls so far and how many have had the lock, and, once all have, when
// the last got it, in the page's own way of writing a time.
func herdSays(f *demo.Frame, v demo.Violation, ja, en string) demo.Text {
	sc := f.Scenario
	t := demo.Says(ja, en, demo.ShowTime(sc, v.At), v.Token, len(sc.Clients))
	done, _ := strconv.Atoi(v.Value)
	t.JA += fmt.Sprintf("ここまでの呼び出しは %d 回、ロックを取れたのは %d のうち %d。", v.Max, len(sc.Clients), done)
	have := "have"
	if done == 1 {
		have = "has"
	}
	t.EN += fmt.Sprintf(" %d %s so far; %d of %d %s had the lock.", v.Max, plural(int(v.Max), "call", "calls"), done, len(sc.Clients), have)
	if v.Before != "" {
		ms, _ := strconv.Atoi(v.Before)
		last := demo.ShowTime(sc, ms)
		t.JA += fmt.Sprintf("最後の 1 人が取れたのは %s。", last)
		t.EN += fmt.Sprintf(" The last got it at %s.", last)
	}
	return t
}

// plural is one or many, by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
