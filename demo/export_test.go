package demo

// What the outside tests (package demo_test) may see of the inside.

// LockValue is the "random" value client's attempt stores in a lock key.
var LockValue = lockValue

// LockHolder returns the lock service's holder and token, and false for a
// run on another store.
func (r *Run) LockHolder() (string, int64, bool) {
	s, ok := r.store.(*lockStore)
	if !ok {
		return "", 0, false
	}
	h, t := s.svc.Holder()
	return h, t, true
}

// NodeKeys returns, for each node of a Redis run, the names of the keys it
// keeps, expired or not, in its own order.
func (r *Run) NodeKeys() map[string][]string {
	s, ok := r.store.(*redisNodes)
	if !ok {
		return nil
	}
	keys := map[string][]string{}
	for _, n := range s.nodes {
		for _, e := range n.keys {
			keys[n.Name] = append(keys[n.Name], e.key)
		}
	}
	return keys
}

// RedissonField is the hash field a Redisson client writes in a lock.
var RedissonField = redissonField

// RequestID is the id of a client's nth unlock call.
var RequestID = requestID
