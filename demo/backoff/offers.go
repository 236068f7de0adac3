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
	wake := demo.Offer{
		Action: demo.Action{Who: Cron, Verb: Wake, Args: wakeArgs{}, Source: Cron + " " + string(Wake)},
		Who:    Cron, Label: demo.Text{EN: "wake every client", JA: "全クライアントを起こす"},
	}
	if c.idle(len(r.Scenario().Clients)) == 0 {
		wake.Why = demo.Text{EN: "every client is retrying or has had the lock already", JA: "どのクライアントも、もう取り直し中か、ロックを取った"}
	}
	out = append(out, wake)
	if c.policy.Hold > 0 {
		out = append(out, demo.TickOffer(r.Scenario(), c.policy.Hold))
	}
	return out
}

// idle is how many of n clients have not called yet.
func (c *crowd) idle(n int) int {
	idle := 0
	for i := range n {
		if k := c.caller(i); !k.calling && k.got < 0 {
			idle++
		}
	}
	return idle
}

// caller is client i's loop, not calling yet before anyone has called.
func (c *crowd) caller(i int) caller {
	if i < len(c.callers) {
		return c.callers[i]
	}
	return caller{got: -1}
}

// narrate words a client's first call by hand, or everyone's: what it does from now on,
// not what comes of it.
func narrate(_ *demo.Scenario, a demo.Action) (demo.Narration, bool) {
	if a.Verb == Wake {
		return demo.Narration{
			Title: demo.Text{EN: "Every client is woken", JA: "全クライアントが起こされる"},
			Text: demo.Text{
				EN: "Every client that has not called yet sends SET NX now, all at the same moment, and then retries on its own timer until it gets the lock.",
				JA: "まだ呼んでいないクライアントが全員、同じ瞬間にいま SET NX を送り、そのあとは自分のタイマーで取れるまで取り直す。",
			},
		}, true
	}
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
