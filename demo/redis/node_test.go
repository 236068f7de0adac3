package redis

import (
	"reflect"
	"testing"
)

// The Redis node's rules, one at a time, driven by hand with true time in ms,
// the way the redis.io page on distributed locks walks through them.

// wantValue fails unless node n holds value under key at true time now; an
// empty value means the key must be absent.
func wantValue(tb testing.TB, n *Node, key string, now int, value string) {
	tb.Helper()
	got, ok := n.Get(key, now)
	if value == "" {
		if ok {
			tb.Fatalf("t=%dms: GET %s=%q, want no such key", now, key, got)
		}
		return
	}
	if !ok {
		tb.Fatalf("t=%dms: GET %s found nothing, want %q", now, key, value)
	}
	if got != value {
		tb.Fatalf("t=%dms: GET %s=%q, want %q", now, key, got, value)
	}
}

// mustSet sets key on n and fails the test if the node refuses.
func mustSet(tb testing.TB, n *Node, key, value string, nx bool, ttl, now int) {
	tb.Helper()
	if !n.Set(key, value, nx, ttl, now) {
		tb.Fatalf("t=%dms: SET %s %s (nx=%v, ttl=%d) refused", now, key, value, nx, ttl)
	}
}

func TestSetNXRefusesAnExistingKey(t *testing.T) {
	n := &Node{Name: "redis", Up: true}
	mustSet(t, n, "lock", "a", true, 10000, 0)
	if n.Set("lock", "b", true, 10000, 5) {
		t.Fatal("SET NX on a live key succeeded")
	}
	wantValue(t, n, "lock", 5, "a")
	// Without NX, SET overwrites whoever's key it is.
	mustSet(t, n, "lock", "b", false, 10000, 6)
	wantValue(t, n, "lock", 6, "b")
}

func TestSetNXTakesAnExpiredKey(t *testing.T) {
	n := &Node{Name: "redis", Up: true}
	mustSet(t, n, "lock", "a", true, 100, 0)
	if n.Set("lock", "b", true, 100, 99) {
		t.Fatal("SET NX at t=99ms succeeded while a's key has 1 ms left")
	}
	mustSet(t, n, "lock", "b", true, 100, 100)
	wantValue(t, n, "lock", 100, "b")
	if got, want := n.Keys(100), []string{"lock"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Keys()=%q, want %q", got, want)
	}
}

// Like the lock service's lease, a key is gone at the instant its TTL is
// used up, not one millisecond later.
func TestKeyExpiresExactlyWhenTTLIsUsedUp(t *testing.T) {
	n := &Node{Name: "redis", Up: true}
	mustSet(t, n, "lock", "a", true, 100, 50)
	wantValue(t, n, "lock", 149, "a")
	wantValue(t, n, "lock", 150, "")
	if got := n.Keys(150); len(got) != 0 {
		t.Fatalf("Keys() at expiry=%q, want none", got)
	}
}

func TestTTLZeroNeverExpires(t *testing.T) {
	n := &Node{Name: "redis", Up: true}
	mustSet(t, n, "lock", "a", true, 0, 0)
	n.Offset += 1 << 40 // not even a wall clock far in the future ends it
	wantValue(t, n, "lock", 1<<40, "a")
	if got, ok := n.TTL("lock", 1<<40); !ok || got != -1 {
		t.Fatalf("TTL()=(%d, %v), want (-1, true)", got, ok)
	}
}

func TestTTLReportsTheTimeLeft(t *testing.T) {
	n := &Node{Name: "redis", Up: true}
	mustSet(t, n, "lock", "a", true, 30000, 1000)
	for _, tt := range []struct {
		now  int
		ttl  int
		live bool
	}{
		{1000, 30000, true},
		{1001, 29999, true},
		{30999, 1, true},
		{31000, 0, false},
	} {
		got, ok := n.TTL("lock", tt.now)
		if ok != tt.live || ok && got != tt.ttl {
			t.Fatalf("t=%dms: TTL()=(%d, %v), want (%d, %v)", tt.now, got, ok, tt.ttl, tt.live)
		}
	}
	if _, ok := n.TTL("missing", 0); ok {
		t.Fatal("TTL of a missing key reports a key")
	}
}

func TestExpireRenews(t *testing.T) {
	n := &Node{Name: "redis", Up: true}
	mustSet(t, n, "lock", "a", true, 100, 0)
	if !n.Expire("lock", 100, 60) {
		t.Fatal("Expire of a live key refused")
	}
	if got, _ := n.TTL("lock", 60); got != 100 {
		t.Fatalf("TTL after Expire=%d, want 100", got)
	}
	wantValue(t, n, "lock", 159, "a") // past the first TTL, within the new one
	wantValue(t, n, "lock", 160, "")
	if n.Expire("lock", 100, 160) {
		t.Fatal("Expire of an expired key succeeded")
	}
	if n.Expire("missing", 100, 0) {
		t.Fatal("Expire of a missing key succeeded")
	}
}

// SETNX then EXPIRE: the EXPIRE gives the key with no TTL one.
func TestExpireGivesATTLToAKeyWithout(t *testing.T) {
	n := &Node{Name: "redis", Up: true}
	mustSet(t, n, "lock", "a", true, 0, 0)
	if !n.Expire("lock", 30000, 5) {
		t.Fatal("Expire refused")
	}
	wantValue(t, n, "lock", 30004, "a")
	wantValue(t, n, "lock", 30005, "")
}

func TestExpireIfEqRenewsOnlyTheOwnersKey(t *testing.T) {
	n := &Node{Name: "redis", Up: true}
	mustSet(t, n, "lock", "a", true, 100, 0)
	if n.ExpireIfEq("lock", "b", 1000, 50) {
		t.Fatal("ExpireIfEq with another client's value succeeded")
	}
	wantValue(t, n, "lock", 99, "a")
	wantValue(t, n, "lock", 100, "") // b's attempt did not renew a's key
	mustSet(t, n, "lock", "a", true, 100, 200)
	if !n.ExpireIfEq("lock", "a", 1000, 250) {
		t.Fatal("ExpireIfEq with the owner's value refused")
	}
	wantValue(t, n, "lock", 1249, "a")
	wantValue(t, n, "lock", 1250, "")
	if n.ExpireIfEq("lock", "a", 1000, 1250) {
		t.Fatal("ExpireIfEq of an expired key succeeded")
	}
}

// The compare-and-delete script: a client that finds another client's value
// in the key leaves it alone.
func TestDelIfEqDeletesOnlyTheMatchingValue(t *testing.T) {
	n := &Node{Name: "redis", Up: true}
	mustSet(t, n, "lock", "b", true, 10000, 0)
	if n.DelIfEq("lock", "a", 10) {
		t.Fatal("DelIfEq with a's value deleted b's lock")
	}
	wantValue(t, n, "lock", 10, "b")
	if !n.DelIfEq("lock", "b", 20) {
		t.Fatal("DelIfEq with b's own value refused")
	}
	wantValue(t, n, "lock", 20, "")
	if n.DelIfEq("lock", "b", 30) {
		t.Fatal("DelIfEq of a deleted key reported a deletion")
	}
}

// A plain DEL does not ask whose lock it is.
func TestDelDeletesWhoeversKeyItIs(t *testing.T) {
	n := &Node{Name: "redis", Up: true}
	mustSet(t, n, "lock", "b", true, 10000, 0)
	if !n.Del("lock", 10) {
		t.Fatal("DEL of b's live key refused")
	}
	wantValue(t, n, "lock", 10, "")
	if n.Del("lock", 20) {
		t.Fatal("DEL of a missing key reported a deletion")
	}
	mustSet(t, n, "lock", "c", true, 100, 30)
	if n.Del("lock", 130) {
		t.Fatal("DEL of an expired key reported a deletion")
	}
}

// Redis counts a TTL on its wall clock: a step forward expires a key early.
// A key set after the step counts from the stepped clock and lives its
// full TTL.
func TestWallClockJump(t *testing.T) {
	n := &Node{Name: "redis3", Up: true}
	mustSet(t, n, "lock", "a", true, 10000, 0)
	wantValue(t, n, "lock", 1000, "a")
	n.Offset += 15000
	if got, ok := n.TTL("lock", 1000); ok {
		t.Fatalf("after the jump: TTL()=(%d, true), want the key gone", got)
	}
	mustSet(t, n, "later", "b", true, 10000, 2000)
	wantValue(t, n, "later", 11999, "b")
	wantValue(t, n, "later", 12000, "")
}

// A slewed clock moves by at most rate ppm of the time that passes, in
// whole ms once the fraction adds up, and stops when the correction is made:
// at 500 ppm a 15 s correction moves the clock 0.5 ms a second, and a 10 s
// key loses at most 5 ms of its life.
func TestSlew(t *testing.T) {
	n := &Node{Name: "redis3", Up: true}
	n.Slew(15000, 500)
	n.slew(1000)
	if n.Offset != 0 {
		t.Fatalf("after 1 s at 500 ppm: Offset=%d, want 0 (0.5 ms is not a whole ms yet)", n.Offset)
	}
	n.slew(1000)
	if n.Offset != 1 || n.slewLeft != 14999 {
		t.Fatalf("after 2 s at 500 ppm: Offset=%d left=%d, want 1 and 14999", n.Offset, n.slewLeft)
	}
	n.slew(8000)
	if n.Offset != 5 {
		t.Fatalf("after 10 s at 500 ppm: Offset=%d, want 5", n.Offset)
	}
	n.slew(1 << 40)
	if n.Offset != 15000 || n.slewLeft != 0 {
		t.Fatalf("long after: Offset=%d left=%d, want 15000 and 0: a slew never overshoots", n.Offset, n.slewLeft)
	}
	back := &Node{Name: "redis3", Up: true}
	back.Slew(-3, 1000)
	back.slew(10000)
	if back.Offset != -3 || back.slewLeft != 0 {
		t.Fatalf("a slew back: Offset=%d left=%d, want -3 and 0", back.Offset, back.slewLeft)
	}
}

// A clock running ahead from the start does not shorten a key's life: only a
// jump between SET and now does.
func TestSteadyOffsetDoesNotShortenTTL(t *testing.T) {
	n := &Node{Name: "redis", Up: true, Offset: 50000}
	mustSet(t, n, "lock", "a", true, 10000, 0)
	wantValue(t, n, "lock", 9999, "a")
	wantValue(t, n, "lock", 10000, "")
}

func TestPrimaryRecordsABacklogOthersDoNot(t *testing.T) {
	for _, tt := range []struct {
		role    string
		backlog int // after SET, PEXPIRE and DEL
	}{
		{"primary", 3},
		{"replica", 0},
		{"", 0},
		{"former-primary", 0},
	} {
		t.Run("role="+tt.role, func(t *testing.T) {
			n := &Node{Name: "n", Role: tt.role, Up: true}
			mustSet(t, n, "lock", "a", true, 30000, 0)
			n.Expire("lock", 30000, 10)
			n.Del("lock", 20)
			if got, want := len(n.backlog), tt.backlog; got != want {
				t.Fatalf("len(backlog)=%d, want %d", got, want)
			}
		})
	}
}

// Replication is asynchronous: the replica has nothing until the primary
// ships, and then it has what the primary wrote, deletions included.
func TestShip(t *testing.T) {
	primary := &Node{Name: "primary", Role: "primary", Up: true}
	replica := &Node{Name: "replica", Role: "replica", Up: true}

	mustSet(t, primary, "lock", "a", true, 30000, 0)
	mustSet(t, primary, "other", "x", false, 0, 0)
	wantValue(t, replica, "lock", 5, "") // not shipped yet
	if got, want := primary.ship(replica), 2; got != want {
		t.Fatalf("ship()=%d writes, want %d", got, want)
	}
	if got := len(primary.backlog); got != 0 {
		t.Fatalf("backlog after ship has %d entries, want none", got)
	}
	wantValue(t, replica, "lock", 5, "a")
	wantValue(t, replica, "other", 5, "x")
	// The TTL travels with the key.
	if got, ok := replica.TTL("lock", 5); !ok || got != 29995 {
		t.Fatalf("replica TTL=(%d, %v), want (29995, true)", got, ok)
	}

	// A deletion ships too.
	if !primary.Del("other", 10) {
		t.Fatal("DEL on the primary refused")
	}
	wantValue(t, replica, "other", 10, "x") // the replica lags
	if got, want := primary.ship(replica), 1; got != want {
		t.Fatalf("ship()=%d writes, want %d", got, want)
	}
	wantValue(t, replica, "other", 10, "")
	wantValue(t, replica, "lock", 10, "a")

	// An overwrite replaces the replica's copy rather than adding a second.
	mustSet(t, primary, "lock", "b", false, 30000, 20)
	primary.ship(replica)
	wantValue(t, replica, "lock", 20, "b")
	if got, want := replica.Keys(20), []string{"lock"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("replica Keys()=%q, want %q", got, want)
	}
	if got := primary.ship(replica); got != 0 {
		t.Fatalf("ship() of an empty backlog=%d, want 0", got)
	}
	// On clocks that agree, the key runs out on the replica exactly when it
	// does on the primary.
	for _, n := range []*Node{primary, replica} {
		wantValue(t, n, "lock", 30019, "b")
		wantValue(t, n, "lock", 30020, "")
	}
}

// A replica that never got the ship lacks the key: the failover story.
func TestReplicaWithoutShipLacksTheKey(t *testing.T) {
	primary := &Node{Name: "primary", Role: "primary", Up: true}
	replica := &Node{Name: "replica", Role: "replica", Up: true}
	mustSet(t, primary, "lock", "a", true, 30000, 0)
	replica.Role = "primary" // promoted before the ship
	wantValue(t, replica, "lock", 1, "")
	mustSet(t, replica, "lock", "b", true, 30000, 1)
	wantValue(t, replica, "lock", 1, "b")
	wantValue(t, primary, "lock", 1, "a") // both "hold" the lock
}

func TestKeys(t *testing.T) {
	n := &Node{Name: "redis", Up: true}
	if got := n.Keys(0); len(got) != 0 {
		t.Fatalf("Keys() of an empty node=%q", got)
	}
	mustSet(t, n, "a", "1", true, 100, 0)
	mustSet(t, n, "b", "2", true, 0, 0)
	mustSet(t, n, "c", "3", true, 200, 0)
	if got, want := n.Keys(99), []string{"a", "b", "c"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Keys(99)=%q, want %q", got, want)
	}
	if got, want := n.Keys(150), []string{"b", "c"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Keys(150)=%q, want %q", got, want)
	}
}

// lockValue is the docs' 20 random bytes, hex-encoded, and the same for the
// same scenario, client and attempt.
func TestLockValue(t *testing.T) {
	v := lockValue("s", "A", 1)
	if got, want := len(v), 40; got != want {
		t.Fatalf("len(lockValue)=%d, want %d (20 bytes in hex)", got, want)
	}
	if got := lockValue("s", "A", 1); got != v {
		t.Fatalf("lockValue is not deterministic: %q then %q", v, got)
	}
	for _, other := range []string{lockValue("s", "B", 1), lockValue("s", "A", 2), lockValue("t", "A", 1)} {
		if other == v {
			t.Fatalf("lockValue repeats %q for a different client, attempt or scenario", v)
		}
	}
}

// INCR counts from a missing key's 0, refuses a key that holds no number,
// and a primary keeps what it has not shipped: the replica, promoted before
// the backlog ships, answers the same number again (incr-token).
func TestIncrIsLostWithTheBacklog(t *testing.T) {
	primary := &Node{Name: "primary", Role: "primary", Up: true}
	replica := &Node{Name: "replica", Role: "replica", Up: true}
	if v, ok := primary.Incr("lock:row-42:token", 0); !ok || v != 1 {
		t.Fatalf("INCR on a missing key = %d, %v; want 1, true", v, ok)
	}
	promoted := *replica
	promoted.Role = "primary"
	if v, ok := promoted.Incr("lock:row-42:token", 10); !ok || v != 1 {
		t.Fatalf("the replica, promoted before the first INCR shipped, answered %d, %v; want 1 again", v, ok)
	}
	primary.ship(replica)
	replica.Role = "primary"
	if v, _ := replica.Incr("lock:row-42:token", 20); v != 2 {
		t.Fatalf("promoted after the ship, the replica's INCR answered %d, want 2", v)
	}
	mustSet(t, primary, "lock", "a", true, 10000, 30)
	if v, ok := primary.Incr("lock", 30); ok {
		t.Fatalf("INCR on a lock's random value answered %d; Redis answers an error", v)
	}
	wantValue(t, primary, "lock", 30, "a")
}
