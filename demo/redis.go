package demo

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// Node is a Redis-like server reduced to what a lock needs: string keys with an
// optional time to live, a wall clock of its own, and an up or down state.
// Redis counts a key's TTL against its wall clock, which is why a clock that
// jumps forward expires keys early; with monotonic set, a TTL counts real
// elapsed time instead, which is antirez's answer to that objection.
type Node struct {
	Name      string
	Role      string // "primary" or "replica" when replicated, else ""
	Up        bool
	Offset    int  // how far the node's wall clock runs ahead of true time, in ms
	Monotonic bool // TTLs count elapsed time, unaffected by wall-clock jumps
	keys      []entry
	backlog   []entry // writes the primary has not yet shipped to its replica
}

// entry is one key. A removed key travels in a backlog as an entry with
// gone set, so a replica learns about deletions too.
type entry struct {
	key, value string
	ttl        int // ms; 0 means the key never expires
	setAt      int // true time when the TTL was set
	wallAt     int // the node's wall clock then
	gone       bool
}

// expired reports whether e has run out at true time now on node n. Like the
// lock service, a key is gone at the instant its TTL is used up.
func (n *Node) expired(e entry, now int) bool {
	if e.ttl == 0 {
		return false
	}
	if n.Monotonic {
		return now-e.setAt >= e.ttl
	}
	return now+n.Offset-e.wallAt >= e.ttl
}

func (n *Node) find(key string) int {
	for i := range n.keys {
		if n.keys[i].key == key {
			return i
		}
	}
	return -1
}

// lookup returns the live entry for key, dropping it if it has expired.
func (n *Node) lookup(key string, now int) (entry, bool) {
	i := n.find(key)
	if i < 0 {
		return entry{}, false
	}
	if n.expired(n.keys[i], now) {
		n.keys = append(n.keys[:i], n.keys[i+1:]...)
		return entry{}, false
	}
	return n.keys[i], true
}

func (n *Node) put(e entry) {
	if i := n.find(e.key); i >= 0 {
		n.keys[i] = e
	} else {
		n.keys = append(n.keys, e)
	}
	if n.Role == "primary" {
		n.backlog = append(n.backlog, e)
	}
}

func (n *Node) remove(key string) bool {
	i := n.find(key)
	if i < 0 {
		return false
	}
	n.keys = append(n.keys[:i], n.keys[i+1:]...)
	if n.Role == "primary" {
		n.backlog = append(n.backlog, entry{key: key, gone: true})
	}
	return true
}

// Set is SET key value [NX] [PX ms]: with nx it only sets a key that does
// not exist. ttl 0 means no expiry.
func (n *Node) Set(key, value string, nx bool, ttl, now int) bool {
	if _, ok := n.lookup(key, now); ok && nx {
		return false
	}
	n.put(entry{key: key, value: value, ttl: ttl, setAt: now, wallAt: now + n.Offset})
	return true
}

// Get returns the value of key.
func (n *Node) Get(key string, now int) (string, bool) {
	e, ok := n.lookup(key, now)
	return e.value, ok
}

// Expire is PEXPIRE key ms: it gives an existing key a new TTL.
func (n *Node) Expire(key string, ttl, now int) bool {
	e, ok := n.lookup(key, now)
	if !ok {
		return false
	}
	e.ttl, e.setAt, e.wallAt = ttl, now, now+n.Offset
	n.put(e)
	return true
}

// Del is DEL key: it removes the key whoever set it.
func (n *Node) Del(key string, now int) bool {
	if _, ok := n.lookup(key, now); !ok {
		return false
	}
	return n.remove(key)
}

// DelIfEq is the compare-and-delete script: it removes key only while it
// still holds value, so a client can never delete a lock that is not its own.
func (n *Node) DelIfEq(key, value string, now int) bool {
	if e, ok := n.lookup(key, now); !ok || e.value != value {
		return false
	}
	return n.remove(key)
}

// ExpireIfEq renews key's TTL only while it still holds value: what
// Redisson's watchdog does for the holder.
func (n *Node) ExpireIfEq(key, value string, ttl, now int) bool {
	if e, ok := n.lookup(key, now); !ok || e.value != value {
		return false
	}
	return n.Expire(key, ttl, now)
}

// TTL returns the time left on key in ms at true time now, -1 when it never
// expires and false when there is no such key.
func (n *Node) TTL(key string, now int) (int, bool) {
	e, ok := n.lookup(key, now)
	if !ok {
		return 0, false
	}
	if e.ttl == 0 {
		return -1, true
	}
	if n.Monotonic {
		return e.ttl - (now - e.setAt), true
	}
	return e.ttl - (now + n.Offset - e.wallAt), true
}

// Keys returns the live keys' names.
func (n *Node) Keys(now int) []string {
	var ks []string
	for _, e := range n.keys {
		if !n.expired(e, now) {
			ks = append(ks, e.key)
		}
	}
	return ks
}

// ship applies the primary's backlog to the replica and empties it. Redis
// replication is asynchronous: until this happens the replica lacks the keys.
func (n *Node) ship(to *Node) int {
	for _, e := range n.backlog {
		if e.gone {
			if i := to.find(e.key); i >= 0 {
				to.keys = append(to.keys[:i], to.keys[i+1:]...)
			}
			continue
		}
		// Redis ships expiry as an absolute time, and a replica compares
		// it with its own wall clock: one that runs ahead expires the key
		// early. The entry keeps the primary's wall time for just that.
		if i := to.find(e.key); i >= 0 {
			to.keys[i] = e
		} else {
			to.keys = append(to.keys, e)
		}
	}
	k := len(n.backlog)
	n.backlog = n.backlog[:0]
	return k
}

// lockValue is the random value a client stores in a lock key, made from the
// scenario, the client and its attempt so every run draws the same "random"
// value: the docs' 20 random bytes, deterministic for the demo.
func lockValue(scenario, client string, attempt int) string {
	sum := sha256.Sum256([]byte(scenario + "/" + client + "/" + strconv.Itoa(attempt)))
	return hex.EncodeToString(sum[:20])
}
