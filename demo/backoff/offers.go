package backoff

import "github.com/distlock/fencing-demo/demo"

// offers are a client's first call, by hand, for each client not calling
// yet (disabled, with the reason, for one already in its loop or done),
// and time passing by one slot beside the script's amounts: the retries
// themselves are the clients' own timers, which the clock plays.
func offers(r *demo.Run) []demo.Offer {
	c := r.Store().(*crowd)
	var out []demo.Offer
	for i, name := range r.Scenario().Clients {
		o := demo.Offer{
			Action: demo.Action{Who: name, Verb: Call, Args: callArgs{}, Source: name + " " + string(Call)},
			Who:    name, Label: demo.Text{EN: "call SET NX", JA: "SET NX で取りに行く"},
		}
		if k := c.caller(i); k.got >= 0 {
			o.Why = demo.Text{EN: name + " has had the lock already", JA: name + " はもうロックを取った"}
		} else if k.calling {
			o.Why = demo.Text{EN: name + " is retrying on its own timer already", JA: name + " はもう自分のタイマーで取り直している"}
		}
		out = append(out, o)
	}
	if c.policy.Hold > 0 {
		out = append(out, demo.TickOffer(r.Scenario(), c.policy.Hold))
	}
	return out
}

// caller is client i's loop, not calling yet before anyone has called.
func (c *crowd) caller(i int) caller {
	if i < len(c.callers) {
		return c.callers[i]
	}
	return caller{got: -1}
}

// narrate words a client's first call by hand: what it does from now on,
// not what comes of it.
func narrate(_ *demo.Scenario, a demo.Action) (demo.Narration, bool) {
	if a.Verb != Call {
		return demo.Narration{}, false
	}
	c := a.Who
	return demo.Narration{
		Title: demo.Text{EN: c + " calls for the lock", JA: c + " がロックを取りに行く"},
		Text: demo.Text{
			EN: c + " sends SET NX now. If it is refused, it waits by the retry policy and tries again, on its own timer, until it gets the lock.",
			JA: c + " がいま SET NX を送る。断られたら、リトライの規則どおりに待ってから、自分のタイマーで取れるまで取り直す。",
		},
	}, true
}
