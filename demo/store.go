package demo

// Store is what lends the lock in a run: one type per StoreKind, each the
// lesson's model of a real system. The Run plays what every client does alike
// (writes to the resource, pauses, crashes) and hands the store the rest: the
// commands its clients send and what its nodes do. A new kind of store (a
// consensus service, a SQL database) is one more type with these methods,
// plus a component to draw it.
type Store interface {
	// do plays a client's command or a node's action, logging what happened
	// on r. The verb is one that the store's kind Takes.
	do(r *Run, a Action) error
	// elapse records what ran out while r's clock moved from since to now.
	elapse(r *Run, since int)
	// forever returns a dead client that holds a lock that never expires,
	// or "" when there is none.
	forever(r *Run) string
	// show copies the store's state into a frame.
	show(r *Run, f *Frame)
}

// newStore makes an empty store of the scenario's kind.
func newStore(sc *Scenario) Store {
	switch sc.Store {
	case LockServiceStore:
		return &lockStore{svc: New()}
	case DatabaseStore:
		return newDatabase(sc)
	}
	if sc.Store.Consensus() {
		return newConsensusStore(sc)
	}
	return newRedisNodes(sc)
}

// lockStore plays the chapter's LockService. Its clock is the run's: every
// tick moves both, so a lease runs out when the run's time reaches it.
type lockStore struct {
	svc *LockService
}

func (s *lockStore) do(r *Run, a Action) error {
	c := r.client(a.Who)
	h := r.head(c.Name, "")
	switch a.Verb {
	case Acquire:
		token, ok := s.svc.Acquire(c.Name, a.Lease)
		if !ok {
			r.log(AcquireCall{Head: h, Lease: a.Lease})
			return nil
		}
		c.Token = token
		r.hold(c, s.svc.Expiry())
		r.log(AcquireCall{Head: h, Lease: a.Lease, Token: token, Expiry: s.svc.Expiry(), OK: true})
	case Renew:
		if !s.svc.Renew(c.Name, a.Lease) {
			// The client learns that it lost the lock: this is the only way
			// a running client finds out.
			r.letGo(c)
			r.log(RenewCall{Head: h, Lease: a.Lease, Token: c.Token})
			return nil
		}
		r.extendHold(c, s.svc.Expiry())
		r.log(RenewCall{Head: h, Lease: a.Lease, Token: c.Token, Expiry: s.svc.Expiry(), OK: true})
	case Release:
		holder, _ := s.svc.Holder()
		s.svc.Release(c.Name)
		r.letGo(c)
		r.log(ReleaseCall{Head: h, Token: c.Token, Held: holder == c.Name})
	default:
		return &ActionError{a, "the lock service does not " + string(a.Verb)}
	}
	return nil
}

func (s *lockStore) elapse(r *Run, since int) {
	holder, token := s.svc.Holder()
	s.svc.Tick(r.now - since)
	if holder == "" {
		return
	}
	if now, _ := s.svc.Holder(); now == "" {
		r.log(LeaseExpiry{Head: r.headAt(s.svc.Expiry(), holder, ""), Token: token})
	}
}

// forever is always "": a lease lasts at least one tick.
func (s *lockStore) forever(*Run) string { return "" }

func (s *lockStore) show(_ *Run, f *Frame) {
	f.Holder, f.Token = s.svc.Holder()
	f.Expiry = s.svc.Expiry()
}
