package consensus

import "github.com/distlock/fencing-demo/demo"

// offers are the script's calls, by any client (they run the same recipe),
// and time passing by each session's timeout and lock-delay, the moments
// the lesson turns on.
func offers(r *demo.Run) []demo.Offer {
	out := demo.ScriptOffers(r, true)
	sc := r.Scenario()
	var ds []int
	for _, a := range sc.Setup {
		if s, ok := a.Args.(SessionArgs); ok && a.Verb == Session {
			ds = append(ds, s.TTL, s.Delay)
		}
	}
	for _, d := range ds {
		if d > 0 {
			out = append(out, demo.TickOffer(sc, d))
		}
	}
	return out
}
