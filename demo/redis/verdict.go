package redis

import (
	"fmt"

	"github.com/distlock/fencing-demo/demo"
)

// RenewedOther is what Redis lets a renewal without the owner check do: a
// plain EXPIRE, or a renew script that does not compare the value first,
// extends the key whatever it holds, and after a pause it holds another
// client's lock (Other). The renewer (Client) counts on its own lease as
// renewed, which it does not have; the holder's lock outlives what it
// asked for. At is the renewal, Value the key. A warning: nothing broke
// yet, but the renewer will work, and write, on a belief.
var RenewedOther = demo.NewKind(demo.KindSpec{Name: "renewed-other", Class: demo.Warning, Words: demo.Words{
	Short: demo.Text{JA: "他人のロックを延長", EN: "renewed another's lock"},
	Legend: demo.Text{JA: "値を確かめない更新が、ほかのクライアントのロックの期限を延ばし、送ったクライアントは自分のリースが延びたと思い込んだ。",
		EN: "A renewal that did not check the value extended another client's lock, and the client that sent it counts on its own lease as renewed."},
	Say: func(f *demo.Frame, v demo.Violation) demo.Text {
		at := demo.Clock(f.Scenario, v.At)
		if v.Other == "" {
			return demo.Says("%[1]s の %[2]s の更新は、%[1]s のものではない %[3]s の期限を延ばした。%[1]s は自分のリースが延びたと思っている。",
				"%[1]s's renewal at %[2]s extended %[3]s, which did not hold %[1]s's value; %[1]s counts on its lease as renewed.", v.Client, at, v.Value)
		}
		return demo.Says("%[1]s の %[2]s の更新は、%[3]s のロック %[4]s の期限を延ばした。%[1]s は自分のリースが延びたと思っている。",
			"%[1]s's renewal at %[2]s extended %[3]s's lock %[4]s; %[1]s counts on its own lease as renewed.", v.Client, at, v.Other, v.Value)
	},
	Story: func(sc *demo.Scenario, v demo.Violation) string {
		whose := "a key not its own"
		if v.Other != "" {
			whose = v.Other + "'s lock"
		}
		return fmt.Sprintf("%s's renewal at %s extended %s (%s), and %s counts on its lease as renewed", v.Client, demo.Clock(sc, v.At), whose, v.Value, v.Client)
	},
	Claims: func(f *demo.Frame, v demo.Violation) []demo.Claim {
		return []demo.Claim{{Fact: demo.Believes, Client: v.Client, At: v.At}}
	},
}})

// properties are the promises a Redis scenario may name beyond the
// engine's.
var properties = []demo.Property{
	{Name: "no-renewing-others", Kind: RenewedOther,
		Says: demo.Text{EN: "a renewal never extends another client's lock", JA: "更新がほかのクライアントのロックを延ばすことはない"}},
	{Name: "every-client-renews-and-writes", Reached: everyoneRenewedAndWrote,
		Says: demo.Text{EN: "the work gets done: every client renews its own lock and gets a write taken by the resource",
			JA: "仕事が済む: どのクライアントも自分のロックを延長し、書き込みを資源に受け付けてもらえる"}},
}

// everyoneRenewedAndWrote reports whether every client has renewed its
// own lock and had a write taken: a renewal lab's good thing, so that a
// fix that drops the renewal, or one whose renewal never goes through, is
// told from a renewal that works.
func everyoneRenewedAndWrote(r *demo.Run) bool {
	s, ok := r.Store().(*redisNodes)
	if !ok || !r.EveryoneWrote() {
		return false
	}
	for _, k := range s.clients {
		if !k.renewed {
			return false
		}
	}
	return true
}
