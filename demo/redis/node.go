package redis

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// Node is a Redis-like server reduced to what a lock needs: string keys (and
// Redisson's one-field hashes) with an optional time to live, a wall clock of
// its own, and an up or down state.
//
// Redis keeps a key's expiry as an absolute Unix time in ms, read from the
// wall clock when the TTL was set, and compares it with the wall clock: a
// clock stepped forward expires keys early. Redis has no monotonic expiry
// (redis/redis#416), so the only remedy is on the clock itself: slew it
// rather than step it.
type Node struct {
	Name    string
	Role    string // "primary" or "replica" when replicated, else ""
	Up      bool
	Offset  int // how far the node's wall clock runs ahead of true time, in ms
	keys    []entry
	backlog []entry // writes the primary has not yet shipped to its replica

	slewLeft int   // ms of correction still to slew into Offset (may be negative)
	slewRate int   // ppm: how much faster (or slower) the clock runs meanwhile
	slewNano int64 // correction accrued but not yet a whole ms, in ns

	hold   int // ms a crashed node stays down at least (a delayed restart); 0: none
	downAt int // true time it last went down
}

// held is how long n, down, must still stay down at true time now: a
// delayed restart keeps a node that forgot its keys away until every lock
// it had granted has run out everywhere. 0 when it may come back.
func (n *Node) held(now int) int {
	if n.Up || n.hold == 0 {
		return 0
	}
	return max(0, n.downAt+n.hold-now)
}

// entry is one key. A removed key travels in a backlog as an entry with
// gone set, so a replica learns about deletions too.
type entry struct {
	key, value string
	ttl        int  // ms; 0 means the key never expires
	setAt      int  // true time when the TTL was set
	wallAt     int  // the node's wall clock then: expiry is wallAt + ttl
	hash       bool // a Redisson lock: a hash whose one field, value, holds count
	count      int
	gone       bool
	counter    bool // made by INCR: a number, not a lock
}

// expired reports whether e has run out at true time now on node n. Like the
// lock service, a key is gone at the instant its TTL is used up.
func (n *Node) expired(e entry, now int) bool {
	return e.ttl != 0 && now+n.Offset-e.wallAt >= e.ttl
}

// Slew starts correcting the node's clock by ms, spread out at rate ppm of
// elapsed time, as an NTP daemon that may not step does.
func (n *Node) Slew(ms, rate int) {
	n.slewLeft, n.slewRate, n.slewNano = ms, rate, 0
}

// slew moves the clock's correction on by d ms of true time: d x rate ppm
// is d x rate ns, kept exactly so that 0.5 ms/s is not lost to rounding.
func (n *Node) slew(d int) {
	if n.slewLeft == 0 || d <= 0 {
		return
	}
	n.slewNano += int64(d) * int64(n.slewRate)
	step := int(n.slewNano / 1e6)
	if left := abs(n.slewLeft); step >= left {
		step = left
	}
	n.slewNano -= int64(step) * 1e6
	if n.slewLeft < 0 {
		step = -step
	}
	n.Offset += step
	n.slewLeft -= step
	if n.slewLeft == 0 {
		n.slewNano = 0
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
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

// RLock is Redisson's lock script: when key is absent, or is a hash that
// already has field, it adds 1 to field and sets the TTL to ttl ms, and the
// script answers nil (ok). Otherwise it answers the time key has left (PTTL).
func (n *Node) RLock(key, field string, ttl, now int) (left int, ok bool) {
	e, found := n.lookup(key, now)
	if found && !(e.hash && e.value == field) {
		left, _ = n.TTL(key, now)
		return left, false
	}
	if !found {
		e = entry{key: key, value: field, hash: true}
	}
	e.count++
	e.ttl, e.setAt, e.wallAt = ttl, now, now+n.Offset
	n.put(e)
	return 0, true
}

// RRenew is the watchdog's renewal script: while key has field, set its TTL
// back to ttl ms.
func (n *Node) RRenew(key, field string, ttl, now int) bool {
	if e, ok := n.lookup(key, now); !ok || !e.hash || e.value != field {
		return false
	}
	return n.Expire(key, ttl, now)
}

// RUnlock is Redisson's unlock script. A latch key that already exists
// answers for a retried call. Without field the answer is nil (found false);
// otherwise 1 is taken off field: above 0 the TTL is set back to ttl and the
// answer is 0, at 0 the key is deleted (and the unlock published) and the
// answer is 1. The answer is kept in latch for latchTTL ms.
func (n *Node) RUnlock(key, field, latch string, ttl, latchTTL, now int) (reply int, found bool) {
	if l, ok := n.lookup(latch, now); ok {
		v, _ := strconv.Atoi(l.value)
		return v, true
	}
	e, ok := n.lookup(key, now)
	if !ok || !e.hash || e.value != field {
		return 0, false
	}
	if e.count--; e.count > 0 {
		e.ttl, e.setAt, e.wallAt = ttl, now, now+n.Offset
		n.put(e)
		reply = 0
	} else {
		n.remove(key)
		reply = 1
	}
	n.put(entry{key: latch, value: strconv.Itoa(reply), ttl: latchTTL, setAt: now, wallAt: now + n.Offset})
	return reply, true
}

// Incr is INCR key: it adds 1 to the number key holds (a missing key counts
// as 0) and returns the new number, keeping the key's TTL. A key that holds
// no number is left alone, and Incr reports false, as Redis answers an error.
func (n *Node) Incr(key string, now int) (int64, bool) {
	e, found := n.lookup(key, now)
	if !found {
		e = entry{key: key, value: "0", setAt: now, wallAt: now + n.Offset}
	}
	v, err := strconv.ParseInt(e.value, 10, 64)
	if err != nil || e.hash {
		return 0, false
	}
	e.value, e.counter = strconv.FormatInt(v+1, 10), true
	n.put(e)
	return v + 1, true
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

// redissonField is the hash field a Redisson client writes in a lock: its
// connection manager's UUID and the thread's id. The UUID is made from the
// scenario and the client, so every run draws the same one; the thread is 1.
func redissonField(scenario, client string) string {
	h := hex.EncodeToString(sha(scenario + "/" + client))
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32] + ":1"
}

// requestID is the id Redisson gives one unlock call, for its latch key:
// 16 random bytes in hex, deterministic here.
func requestID(scenario, client string, n int) string {
	return hex.EncodeToString(sha(scenario + "/" + client + "/unlock/" + strconv.Itoa(n))[:16])
}

func sha(s string) []byte {
	sum := sha256.Sum256([]byte(s))
	return sum[:]
}

// lockValue is the random value a client stores in a lock key, made from the
// scenario, the client and its attempt so every run draws the same "random"
// value: the docs' 20 random bytes, deterministic for the demo.
func lockValue(scenario, client string, attempt int) string {
	sum := sha256.Sum256([]byte(scenario + "/" + client + "/" + strconv.Itoa(attempt)))
	return hex.EncodeToString(sum[:20])
}
