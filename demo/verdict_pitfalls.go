package demo

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
