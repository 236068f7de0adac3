package demo

import "fmt"

// What the texts' pitfalls let happen beyond the chapter's kinds. Their
// numbers start far from the others', as the database's do, so the lists
// can grow apart; a frame that has one of these and one of the chapter's
// leads with the chapter's.
const (
	// TokenReused: a client was given a fencing token another client had
	// been given already (a counter that a failover rolled back). The
	// resource cannot tell the two holders apart: it takes the writes of
	// both. Token is the token; Other the client that had it first.
	TokenReused ViolationKind = 200 + iota
	// DeadHolder: a client asked for the lock and was turned away while its
	// holder was dead, because the dead holder's lease had not run out yet.
	// Other is the dead holder, Token (as a time) when its lease runs out,
	// Max when it crashed.
	DeadHolder
	// ThunderingHerd: half of the clients or more retried in the same
	// slot, in which one or two at most get the lock: retries in lockstep.
	// At is the slot, Token its retries, Max every call so far, Value how
	// many clients have had the lock, Before when the last got it ("" until
	// all have).
	ThunderingHerd
	// Spread: the clients retried, and no slot took half of them; the
	// same figures as ThunderingHerd.
	Spread
)

// A reused token is broken: nothing the resource checks can contain it. A
// lock kept by a dead holder costs its waiters time, not data.
// A herd costs the lock calls and the clients time, not data; retries that
// spread cost neither more than they must.
var pitfallClasses = map[ViolationKind]Class{TokenReused: Broken, DeadHolder: Warning, ThunderingHerd: Warning, Spread: Held}

var pitfallNames = map[ViolationKind]string{
	TokenReused: "token-reused", DeadHolder: "dead-holder", ThunderingHerd: "thundering-herd", Spread: "spread",
}

// checkToken finds, when c takes the lock with a token, an earlier holding
// of another client with the same token: the token was handed out twice.
func (r *Run) checkToken(c *Client) {
	if c.Token == 0 {
		return
	}
	for _, h := range r.holdings {
		if h.Client != c.Name && h.Token == c.Token {
			r.Violate(Violation{Kind: TokenReused, At: r.now, Client: c.Name, Other: h.Client, Token: c.Token})
			return
		}
	}
}

// TurnedAway records that client was refused the lock now while holder, who
// crashed at crashed, keeps it until its lease runs out at until: the price
// of a lease long enough to outlast a pause. Once per waiter and holder.
func (r *Run) TurnedAway(client, holder string, crashed, until int) {
	for _, v := range r.violations {
		if v.Kind == DeadHolder && v.Client == client && v.Other == holder {
			return
		}
	}
	r.Violate(Violation{Kind: DeadHolder, At: r.now, Client: client, Other: holder, Token: int64(until), Max: int64(crashed)})
}

// pitfallStory is the transcript's line for the kinds above; "" for others.
func (v Violation) pitfallStory(sc *Scenario) string {
	at := Clock(sc, v.At)
	switch v.Kind {
	case TokenReused:
		return fmt.Sprintf("%s took the lock at %s with token %d, which %s had been given already", v.Client, at, v.Token, v.Other)
	case DeadHolder:
		return fmt.Sprintf("%s was turned away at %s: %s crashed at %s and keeps the lock until its lease runs out at %s",
			v.Client, at, v.Other, Clock(sc, int(v.Max)), Clock(sc, int(v.Token)))
	}
	return ""
}
