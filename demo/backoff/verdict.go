package backoff

import (
	"fmt"

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
			return herdSays(f, v, "thundering herd: %[1]s の時間枠に %[2]d のクライアントがそろって取り直した (%[3]d の半数以上)。ここまでの呼び出しは %[4]d 回、ロックを取れたのは %[3]d のうち %[5]s。",
				"Thundering herd: %[2]d clients retried in the same slot, at %[1]s (half of the %[3]d or more). %[4]d calls so far; %[5]s of %[3]d have had the lock.")
		},
	}})
	// Spread: the clients retried, and no slot took half of them.
	Spread = demo.NewKind(demo.KindSpec{Name: "spread", Class: demo.Held, Words: demo.Words{
		Short:  demo.Text{JA: "取り直しが散らばる", EN: "retries spread"},
		Legend: demo.Text{JA: "取り直しが時間に散らばり、どの時間枠でもクライアントの半数に届かなかった。", EN: "The retries spread out over time: no slot took half of the clients."},
		Say: func(f *demo.Frame, v demo.Violation) demo.Text {
			return herdSays(f, v, "取り直しが散らばる: 1 つの時間枠で取り直したのは最多で %[2]d (%[1]s)、%[3]d の半数未満。ここまでの呼び出しは %[4]d 回、ロックを取れたのは %[3]d のうち %[5]s。",
				"Retries spread: at most %[2]d clients retried in one slot (at %[1]s), under half of the %[3]d. %[4]d calls so far; %[5]s of %[3]d have had the lock.")
		},
	}})
)

// herdSays is the busiest slot of retries, the calls so far, and, once all
// have had the lock, when the last got it.
func herdSays(f *demo.Frame, v demo.Violation, ja, en string) demo.Text {
	sc := f.Scenario
	t := demo.Says(ja, en, demo.ShowTime(sc, v.At), v.Token, len(sc.Clients), v.Max, v.Value)
	if v.Before != "" {
		last := "t=" + v.Before + "ms"
		t.JA += fmt.Sprintf("最後の 1 人が取れたのは %s。", last)
		t.EN += fmt.Sprintf(" The last got it at %s.", last)
	}
	return t
}
