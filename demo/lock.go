// Package demo is the lesson itself: a lock service that lends one lock with a
// lease and a fencing token, the resource that the lock protects, and the engine
// that plays a scenario onto them one move at a time.
//
// Everything here is deterministic. Time is a logical clock that only moves when
// a move says so, there are no goroutines and no I/O, so the same scenario, switch
// and step always give the same frame. The web server and the tests are callers.
package demo

// LockService lends a single lock. It keeps a logical clock, lets a lease expire
// on its own, and issues a fencing token that grows with every acquisition.
// Agreement on who holds the lock is assumed; a real service sits on Raft or
// ZooKeeper. Here we keep only the meaning of the lease and the token.
type LockService struct {
	clock     int    // logical time
	holder    string // current holder ("" when free)
	expiry    int    // the time at which the current lease runs out
	token     int64  // the token issued to the current holder
	nextToken int64  // the next token to issue (strictly increasing)
}

// NewLockService makes an empty lock service. Tokens start at 1.
func NewLockService() *LockService {
	return &LockService{nextToken: 1}
}

// Now returns the current logical time.
func (s *LockService) Now() int { return s.clock }

// Tick moves the logical clock forward by d. Time passing is what lets a lease
// run out, so a negative d is ignored rather than turning the clock back.
func (s *LockService) Tick(d int) {
	if d > 0 {
		s.clock += d
	}
}

// refresh frees the lock once its lease has run out. The lease is over at the
// instant now == expiry, not one tick later.
func (s *LockService) refresh() {
	if s.holder != "" && s.clock >= s.expiry {
		s.holder = ""
	}
}

// Acquire tries to take the lock. When it is free (or its lease has run out) it
// lends it to client for lease ticks, issues a new fencing token and returns
// (token, true); while someone else holds it, (0, false). The token grows with
// every acquisition: that is what later tells an old holder from a new one.
func (s *LockService) Acquire(client string, lease int) (int64, bool) {
	s.refresh()
	if s.holder != "" {
		return 0, false // someone holds it and the lease has not run out
	}
	if lease < 1 {
		lease = 1
	}
	s.holder = client
	s.expiry = s.clock + lease
	s.token = s.nextToken
	s.nextToken++
	return s.token, true
}

// Renew extends the current holder's lease (a heartbeat); false if client is not
// the holder. The token stays the same, because it is the same holding.
func (s *LockService) Renew(client string, lease int) bool {
	s.refresh()
	if s.holder != client {
		return false
	}
	if lease < 1 {
		lease = 1
	}
	s.expiry = s.clock + lease
	return true
}

// Release lets the holder give the lock up early. Anyone else's call does
// nothing: a client must never free a lock it does not hold.
func (s *LockService) Release(client string) {
	s.refresh()
	if s.holder == client {
		s.holder = ""
	}
}

// Holder returns the current holder and its token, with expiry taken into
// account; ("", 0) when the lock is free.
func (s *LockService) Holder() (string, int64) {
	s.refresh()
	if s.holder == "" {
		return "", 0
	}
	return s.holder, s.token
}

// Expiry returns the time at which the current (or last) lease runs out. It is
// for watching the demo; the lock's rules never read it from outside.
func (s *LockService) Expiry() int { return s.expiry }

// AppendKey appends the service's state to b, for the finder's key, the
// lease's expiry as seen from the clock: two services with the same key
// answer every call alike. A free lock's last expiry changes nothing.
func (s *LockService) AppendKey(b []byte) []byte {
	s.refresh()
	b = append(b, s.holder...)
	if s.holder != "" {
		b = append(b, ',')
		b = KeyInt(b, int64(s.expiry-s.clock))
		b = append(b, ',')
		b = KeyInt(b, s.token)
	}
	b = append(b, ',')
	return KeyInt(b, s.nextToken)
}
