package demo_test

import (
	. "github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/backoff"
	"github.com/distlock/fencing-demo/demo/partition"
	"github.com/distlock/fencing-demo/demo/redis"
	"github.com/distlock/fencing-demo/demo/sql"
	"github.com/distlock/fencing-demo/internal/testkit"
	"reflect"
	"testing"
)

// The families' own kinds, by their short names in the table below.
var (
	Deadlock, QueuedBehind, WaitsOnItself  = sql.Deadlock, sql.QueuedBehind, sql.WaitsOnItself
	Oversold, ChargedTwice, TooManyClients = sql.Oversold, sql.ChargedTwice, sql.TooManyClients
	StaleOwner, EpochFenced                = partition.StaleOwner, partition.EpochFenced
	ThunderingHerd, Spread                 = backoff.ThunderingHerd, backoff.Spread
)

// violationSeen is what a verdict says: what went wrong, when, and who. For
// two holders Client is the second holder and Other the first; for a stale
// write Client wrote over Other's value; for a lock held forever Client is
// the dead holder.
type violationSeen struct {
	Kind          ViolationKind
	At            int
	Client, Other string
}

func seen(vs []Violation) []violationSeen {
	var out []violationSeen
	for _, v := range vs {
		out = append(out, violationSeen{v.Kind, v.At, v.Client, v.Other})
	}
	return out
}

// The verdict at the last frame of every scenario of scenarios.yaml, in both
// switch positions: what each scenario teaches, computed by the model. The
// headline is the heaviest kind among the violations; none at all means
// mutual exclusion held.
var verdicts = []struct {
	id       string
	on       bool
	headline ViolationKind
	want     []violationSeen
}{
	// B takes the lock at 11 while the paused A still believes: an overlap.
	// Without fencing A's write lands; with it the resource turns it away.
	{"gc-pause", false, StaleWrite, []violationSeen{{Overlap, 11, "A", "B"}, {StaleWrite, 16, "A", "B"}}},
	{"gc-pause", true, Contained, []violationSeen{{Contained, 11, "A", "B"}}},
	{"no-lease", false, Stuck, []violationSeen{{Stuck, 3000, "A", ""}}},
	{"no-lease", true, MutualExclusionHeld, nil},
	{"setnx-expire", false, Stuck, []violationSeen{{Stuck, 5, "A", ""}}},
	{"setnx-expire", true, MutualExclusionHeld, nil},
	// The checked release stops A freeing B's lock, not A working on past
	// its TTL while B holds it: only fencing would fix that.
	{"release-other", false, TwoHolders, []violationSeen{{Overlap, 11000, "A", "B"}, {TwoHolders, 13000, "C", "B"}}},
	{"release-other", true, Overlap, []violationSeen{{Overlap, 11000, "A", "B"}}},
	{"redis-failover", false, TwoHolders, []violationSeen{{TwoHolders, 1510, "B", "A"}}},
	{"redis-failover", true, MutualExclusionHeld, nil},
	{"redlock-quorum", false, MutualExclusionHeld, nil}, // see TestRedlockQuorumArithmetic
	{"redlock-quorum", true, MutualExclusionHeld, nil},
	{"redlock-clock-jump", false, TwoHolders, []violationSeen{{TwoHolders, 1212, "B", "A"}}},
	{"redlock-clock-jump", true, MutualExclusionHeld, nil},
	// Fencing cannot help: Redlock hands out no token (see TestRedlockGCPauseHasNoToken).
	{"redlock-gc-pause", false, StaleWrite, []violationSeen{{Overlap, 10120, "A", "B"}, {StaleWrite, 15230, "A", "B"}}},
	{"redlock-gc-pause", true, StaleWrite, []violationSeen{{Overlap, 10120, "A", "B"}, {StaleWrite, 15230, "A", "B"}}},
	{"watchdog", false, StaleWrite, []violationSeen{{Overlap, 31000, "A", "B"}, {StaleWrite, 45000, "A", "B"}}},
	{"watchdog", true, MutualExclusionHeld, nil},
	// The database family (sql.go): its own kinds weigh less than the
	// chapter's, so two holders behind the pooler lead the verdict.
	{"lost-update", false, LostUpdate, []violationSeen{{LostUpdate, 30, "B", "A"}}},
	{"lost-update", true, MutualExclusionHeld, nil},
	// The cycle is a deadlock when B's wait closes it (t=300ms); the
	// detector breaks it a second after A began to wait.
	{"deadlock", false, Deadlock, []violationSeen{{Deadlock, 300, "B", "A"}}},
	{"deadlock", true, MutualExclusionHeld, nil},
	{"job-queue", false, QueuedBehind, []violationSeen{{QueuedBehind, 510, "W2", "W1"}}},
	{"job-queue", true, MutualExclusionHeld, nil},
	{"advisory-pooler", false, TwoHolders, []violationSeen{{TwoHolders, 10, "B", "A"}}},
	{"advisory-pooler", true, MutualExclusionHeld, nil},
	{"optimistic-version", false, LostUpdate, []violationSeen{{LostUpdate, 30, "A", "B"}}},
	{"optimistic-version", true, MutualExclusionHeld, nil},
	// A second connection of A's own waits for A's lock; the same session
	// counts the re-entry.
	{"reentrant", false, WaitsOnItself, []violationSeen{{WaitsOnItself, 10, "A", ""}}},
	{"reentrant", true, MutualExclusionHeld, nil},
	// The chapter's Resource as an UPDATE: WHERE max_token <= $token is the
	// check, and UPDATE 0 is the write turned away.
	{"fencing-sql", false, StaleWrite, []violationSeen{{Overlap, 10100, "A", "B"}, {StaleWrite, 12300, "A", "B"}}},
	{"fencing-sql", true, Contained, []violationSeen{{Contained, 10100, "A", "B"}}},
	// A consensus lock is not mutual exclusion by itself: the paused holder
	// overlaps the next, and only the token check contains its write.
	{"zookeeper-session-expiry", false, StaleWrite, []violationSeen{{Overlap, 10000, "A", "B"}, {StaleWrite, 12000, "A", "B"}}},
	{"zookeeper-session-expiry", true, Contained, []violationSeen{{Contained, 10000, "A", "B"}}},
	{"zookeeper-recipe", false, MutualExclusionHeld, nil}, // the herd costs reads, not safety: see TestHerdCounts
	{"zookeeper-recipe", true, MutualExclusionHeld, nil},
	{"etcd-lease", false, StaleWrite, []violationSeen{{Overlap, 10000, "A", "B"}, {StaleWrite, 12000, "A", "B"}}},
	{"etcd-lease", true, Contained, []violationSeen{{Contained, 10000, "A", "B"}}},
	// Lock-delay keeps the lock from B until A's late write has landed.
	{"lock-delay", false, StaleWrite, []violationSeen{{Overlap, 21000, "A", "B"}, {StaleWrite, 25000, "A", "B"}}},
	{"lock-delay", true, MutualExclusionHeld, nil},
	// A plain EXPIRE renews B's key and A's belief, not A's lease: A's
	// write lands as a stale one. The checked renewal tells A it lost the
	// lock, so only the overlap during the pause is left.
	{"naive-renewal", false, StaleWrite, []violationSeen{{Overlap, 15000, "A", "B"}, {StaleWrite, 19000, "A", "B"}}},
	{"naive-renewal", true, Overlap, []violationSeen{{Overlap, 15000, "A", "B"}}},
	// The failover undoes A's INCR, and B is given token 1 again: the
	// resource takes A's late write. With WAIT the replica has the INCR, B
	// gets 2, and the resource turns A's 1 away.
	{"incr-token", false, StaleWrite, []violationSeen{{TokenReused, 12000, "B", "A"}, {Overlap, 12000, "A", "B"}, {StaleWrite, 15000, "A", "B"}}},
	{"incr-token", true, Contained, []violationSeen{{Contained, 12000, "A", "B"}}},
	// The 10-tick lease breaks under the 13-tick pause and the token
	// contains it; the 60-tick lease outlasts the pause and keeps C out for
	// the rest of it once A has crashed.
	{"lease-length", false, Contained, []violationSeen{{Contained, 15, "A", "B"}}},
	{"lease-length", true, DeadHolder, []violationSeen{{DeadHolder, 28, "C", "A"}}},
	// redis3 comes back empty and B counts it with redis4 and redis5. Kept
	// down past the TTL, it leaves B with two nodes, one short of a majority.
	{"redlock-restart", false, TwoHolders, []violationSeen{{TwoHolders, 1412, "B", "A"}}},
	{"redlock-restart", true, MutualExclusionHeld, nil},
	// Designs that need no lock. B's order is the first past the stock; C's
	// takes it to -2. With the check in the UPDATE, B and C update 0 rows.
	{"flash-sale", false, Oversold, []violationSeen{{Oversold, 40, "B", "C"}}},
	{"flash-sale", true, MutualExclusionHeld, nil},
	// The retry under a fresh request id is a second charge for order 7;
	// under the same key its INSERT inserts nothing.
	{"idempotency-key", false, ChargedTwice, []violationSeen{{ChargedTwice, 3000, "W2", "W1"}}},
	{"idempotency-key", true, MutualExclusionHeld, nil},
	// A, B and C hold the three connections when D comes: A idle in its
	// transaction, B and C queued for A's row lock.
	{"pool-exhaustion", false, TooManyClients, []violationSeen{{TooManyClients, 210, "D", "A, B, C"}}},
	{"pool-exhaustion", true, MutualExclusionHeld, nil},
	// B writes back 100 + 50 over A's 70; one consumer applies both events.
	{"event-log", false, LostUpdate, []violationSeen{{LostUpdate, 30, "B", "A"}}},
	{"event-log", true, MutualExclusionHeld, nil},
	// W1's late write, with epoch 1, after the rebalance gave W2 epoch 2.
	{"single-owner", false, StaleOwner, []violationSeen{{StaleOwner, 12100, "W1", "W2"}}},
	{"single-owner", true, EpochFenced, []violationSeen{{EpochFenced, 12100, "W1", "W2"}}},
	// Nineteen retries in the slot at 100 ms, in lockstep; with jitter the
	// busiest slot, at 60 ms, takes seven.
	{"backoff-jitter", false, ThunderingHerd, []violationSeen{{ThunderingHerd, 100, "", ""}}},
	{"backoff-jitter", true, Spread, []violationSeen{{Spread, 60, "", ""}}},
}

// Every scenario in the catalog must have its verdicts in the table above: a
// new scenario without rows fails here, and so does a row for a scenario
// that is gone.
func TestVerdictAtLastFrame(t *testing.T) {
	c := testkit.Catalog(t)
	used := make([]bool, len(verdicts))
	for _, sc := range c.Scenarios {
		for _, on := range []bool{false, true} {
			t.Run(testkit.Name(sc, on), func(t *testing.T) {
				row := -1
				for i, v := range verdicts {
					if v.id == sc.ID && v.on == on {
						row = i
					}
				}
				if row < 0 {
					t.Fatalf("no expected verdict for %s with the switch %s: add a row to verdicts", sc.ID, OnOff(on))
				}
				used[row] = true
				f := testkit.LastFrame(t, sc.ID, on)
				if got, want := seen(f.Violations), verdicts[row].want; !reflect.DeepEqual(got, want) {
					t.Fatalf("violations=%+v, want %+v", got, want)
				}
				if got, want := f.Verdict().Kind, verdicts[row].headline; got != want {
					t.Fatalf("Verdict()=%v, want %v", got, want)
				}
			})
		}
	}
	for i, v := range verdicts {
		if !used[i] {
			t.Errorf("verdicts has a row for %s %s, which scenarios.yaml does not have", v.id, OnOff(v.on))
		}
	}
}

// quorumEvent returns the one redis.RedlockResult among es.
func quorumEvent(tb testing.TB, es []Event) redis.RedlockResult {
	tb.Helper()
	var found []redis.RedlockResult
	for _, e := range es {
		if q, ok := e.(redis.RedlockResult); ok {
			found = append(found, q)
		}
	}
	if len(found) != 1 {
		tb.Fatalf("%d quorum events, want 1: %+v", len(found), found)
	}
	return found[0]
}

// redlock-quorum holds mutual exclusion either way, but the switch decides
// whether A gets the lock. With two nodes down A locks three of five at
// T1=100 ms: three nodes answer in 2 ms each and the two that are down refuse
// the connection, also in 2 ms, so elapsed is 10; drift is 10000/100+2 = 102,
// validity 10000-10-102 = 9888 > 0. With a third node down it locks two and
// fails; it sends the unlock script to all five, each in turn, waits a random
// delay and tries once more, failing the same way.
func TestRedlockQuorumArithmetic(t *testing.T) {
	sc, ok := testkit.Catalog(t).Get("redlock-quorum")
	if !ok {
		t.Fatal("scenarios.yaml has no redlock-quorum scenario")
	}
	const redlockFrame = 4 // "A runs Redlock"

	t.Run("two nodes down", func(t *testing.T) {
		r, err := Replay(sc, false, redlockFrame)
		if err != nil {
			t.Fatal(err)
		}
		f := r.Frame()
		e := quorumEvent(t, f.Latest())
		if got, want := e.Kind(), redis.QuorumHeld; got != want {
			t.Fatalf("quorum event=%v, want %v", got, want)
		}
		want := redis.Quorum{Locked: 3, Need: 3, TTL: 10000, Elapsed: 10, Drift: 102, Validity: 9888}
		if got := e.Quorum; got != want {
			t.Fatalf("Quorum=%+v, want %+v", got, want)
		}
		// A holds from T2 for the validity: until T1 + TTL - drift.
		if got, want := e.Expiry, 100+10000-102; got != want {
			t.Fatalf("QuorumHeld Expiry=%d, want %d", got, want)
		}
		a := f.Clients[0]
		if !a.Holds || a.Until != 9998 {
			t.Fatalf("A=%+v, want A believing it holds the lock until 9998", a)
		}
	})

	t.Run("three nodes down", func(t *testing.T) {
		r, err := Replay(sc, true, redlockFrame)
		if err != nil {
			t.Fatal(err)
		}
		f := r.Frame()
		// What A sends and hears, in order: per attempt five SETs, the
		// count, five unlocks; between the attempts the random delay.
		type step struct {
			at    int
			kind  Kind
			node  string
			reply string
		}
		var got []step
		for _, e := range f.Latest() {
			h := e.Header()
			s := step{at: h.At, kind: e.Kind(), node: h.Node}
			if c, ok := e.(redis.Command); ok {
				s.reply = c.Reply()
			}
			if q, ok := e.(redis.RedlockResult); ok {
				if want := (redis.Quorum{Locked: 2, Need: 3, TTL: 10000, Elapsed: 10, Drift: 102, Validity: 9888}); q.Quorum != want {
					t.Fatalf("Quorum=%+v, want %+v", q.Quorum, want)
				}
			}
			got = append(got, s)
		}
		attempt := func(t0 int) []step {
			return []step{
				{t0 + 2, redis.NodeTry, "redis1", "OK"}, {t0 + 4, redis.NodeTry, "redis2", "OK"},
				{t0 + 6, redis.Unreachable, "redis3", ""}, {t0 + 8, redis.Unreachable, "redis4", ""}, {t0 + 10, redis.Unreachable, "redis5", ""},
				{t0 + 10, redis.QuorumLost, "", ""},
				{t0 + 12, redis.UnlockCmd, "redis1", "(integer) 1"}, {t0 + 14, redis.UnlockCmd, "redis2", "(integer) 1"},
				{t0 + 16, redis.Unreachable, "redis3", ""}, {t0 + 18, redis.Unreachable, "redis4", ""}, {t0 + 20, redis.Unreachable, "redis5", ""},
			}
		}
		delay := 0
		for _, e := range f.Latest() {
			if d, ok := e.(redis.RetryDelay); ok {
				delay = d.Delay
				if d.Max != redis.MaxRetryDelay || d.Delay < 0 || d.Delay > d.Max {
					t.Fatalf("retry delay %+v, want 0 to %d ms", d, redis.MaxRetryDelay)
				}
			}
		}
		want := append(attempt(100), step{120, redis.RetryWait, "", ""})
		want = append(want, attempt(120+delay)...)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("A's steps:\n%+v\nwant\n%+v", got, want)
		}
		if a := f.Clients[0]; a.Holds {
			t.Fatalf("A=%+v, want A not holding the lock", a)
		}
		for _, n := range redisNodes(t, f) {
			if len(n.Keys) != 0 {
				t.Fatalf("%s still has %+v after A unlocked", n.Name, n.Keys)
			}
		}
	})

	// And so A writes only with the switch off.
	for _, tt := range []struct {
		on    bool
		write Kind
	}{
		{false, Accepted},
		{true, WriteSkipped},
	} {
		r, err := Replay(sc, tt.on, redlockFrame+1)
		if err != nil {
			t.Fatal(err)
		}
		f := r.Frame()
		latest := f.Latest()
		if len(latest) != 1 || latest[0].Kind() != tt.write || latest[0].Header().Client != "A" {
			t.Fatalf("switch %s: A's write gives %+v, want one %v", OnOff(tt.on), latest, tt.write)
		}
	}
}

// Redlock's random value is no fencing token: every write carries token 0,
// so a fencing resource's maxToken stays 0 and it takes A's late write.
func TestRedlockGCPauseHasNoToken(t *testing.T) {
	f := testkit.LastFrame(t, "redlock-gc-pause", true)
	if !f.Fenced {
		t.Fatal("redlock-gc-pause with the switch on: resource not fenced")
	}
	if got, want := f.MaxToken, int64(0); got != want {
		t.Fatalf("MaxToken=%d, want %d", got, want)
	}
	var writes []string
	for _, e := range f.Events {
		w, ok := e.(WriteResult)
		switch {
		case !ok:
		case w.OK:
			if w.Token != 0 || w.Max != 0 {
				t.Fatalf("write %+v: token %d over maxToken %d, want 0 over 0", w, w.Token, w.Max)
			}
			writes = append(writes, w.Client)
		default:
			t.Fatalf("fencing rejected %+v, but there is no token to tell the writes apart", w)
		}
	}
	if got, want := writes, []string{"B", "A"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("accepted writes by %q, want %q", got, want)
	}
	if got, want := f.Data, "A"; got != want {
		t.Fatalf("row-42=%q, want A's late write %q", got, want)
	}
}

// Each kind of violation on its own, in the smallest scenario that shows it,
// and the near misses that are safe.
func TestVerdictOfSmallScenarios(t *testing.T) {
	for _, tt := range []struct {
		name  string
		store string
		on    bool // fencing
		do    []string
		want  []violationSeen
	}{
		{
			name:  "write within the key's TTL is safe",
			store: "redis",
			do:    []string{"A set lock:k NX PX 100", "tick 99", "A write A"},
		},
		{
			// Late, but over nobody's data: a warning, not a stale write.
			name:  "write at the instant the key runs out is late",
			store: "redis",
			do:    []string{"A set lock:k NX PX 100", "tick 100", "A write A"},
			want:  []violationSeen{{LateWrite, 100, "A", ""}},
		},
		{
			// B takes the key the instant it expires: one after the other,
			// not two holders. A still believes and writes over B.
			name:  "second SET NX after the first key expired, then the first writes",
			store: "redis",
			do:    []string{"A set lock:k NX PX 100", "tick 100", "B set lock:k NX PX 100", "B write B", "tick 10", "A write A"},
			want:  []violationSeen{{Overlap, 100, "A", "B"}, {StaleWrite, 110, "A", "B"}},
		},
		{
			name:  "SET NX without PX, then a crash",
			store: "redis",
			do:    []string{"A set lock:k NX", "tick 5", "A crash"},
			want:  []violationSeen{{Stuck, 5, "A", ""}},
		},
		{
			name:  "SET NX PX, then a crash, is not held forever",
			store: "redis",
			do:    []string{"A set lock:k NX PX 100", "tick 5", "A crash"},
		},
		{
			name:  "SET NX without PX, released before the crash",
			store: "redis",
			do:    []string{"A set lock:k NX", "A unlock lock:k", "A crash"},
		},
		{
			name:  "a plain SET without NX takes a held lock",
			store: "redis",
			do:    []string{"A set lock:k NX PX 1000", "tick 10", "B set lock:k PX 1000"},
			want:  []violationSeen{{TwoHolders, 10, "B", "A"}},
		},
		{
			name:  "lock service: write within the lease is safe",
			store: "lockservice",
			on:    true,
			do:    []string{"A acquire 10", "tick 9", "A write A"},
		},
		{
			// Fencing lets it through (token 1 is the largest yet), but the
			// lease was over: the verdict is about the lease.
			name:  "lock service: write when the lease is up",
			store: "lockservice",
			on:    true,
			do:    []string{"A acquire 10", "tick 10", "A write A"},
			want:  []violationSeen{{LateWrite, 10, "A", ""}},
		},
		{
			// The issue's own walk: B has the lock and token 2, but has not
			// written, so A's late write with token 1 lands over nobody's
			// data, and the resource, which has not seen token 2, takes it.
			name:  "lock service: a late write the fenced resource has not yet seen a newer token for",
			store: "lockservice",
			on:    true,
			do:    []string{"A acquire 10", "tick 10", "B acquire 10", "A write A"},
			want:  []violationSeen{{Overlap, 10, "A", "B"}, {LateWrite, 10, "A", ""}},
		},
		{
			// Over its own earlier value: still no newer holder's data.
			name:  "lock service: a late write over the writer's own value",
			store: "lockservice",
			do:    []string{"A acquire 10", "A write A1", "tick 10", "A write A2"},
			want:  []violationSeen{{LateWrite, 10, "A", "A"}},
		},
		{
			name:  "lock service: a paused holder's late write without fencing",
			store: "lockservice",
			do:    []string{"A acquire 10", "A pause", "tick 10", "B acquire 10", "B write B", "tick 1", "A resume", "A write A"},
			want:  []violationSeen{{Overlap, 10, "A", "B"}, {StaleWrite, 11, "A", "B"}},
		},
		{
			name:  "lock service: the same late write bounces off fencing",
			store: "lockservice",
			on:    true,
			do:    []string{"A acquire 10", "A pause", "tick 10", "B acquire 10", "B write B", "tick 1", "A resume", "A write A"},
			want:  []violationSeen{{Contained, 10, "A", "B"}},
		},
		{
			name:  "lock service: the paused holder wakes and releases without writing",
			store: "lockservice",
			on:    true,
			do:    []string{"A acquire 10", "A pause", "tick 10", "B acquire 10", "tick 1", "A resume", "A release"},
			want:  []violationSeen{{Overlap, 10, "A", "B"}},
		},
		{
			name:  "lock service: the holder's lease runs out and it learns so before anyone takes the lock",
			store: "lockservice",
			do:    []string{"A acquire 10", "tick 10", "A renew 10", "B acquire 10", "B write B"},
		},
		{
			name:  "lock service: a crashed holder's lease runs out",
			store: "lockservice",
			do:    []string{"A acquire 10", "A crash", "tick 10", "B acquire 10", "B write B"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := testkit.File(testkit.OnStore(t, tt.store, testkit.YAML("s", tt.do...)))
			f := testkit.Play(t, src, tt.on)
			if got := seen(f.Violations); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("violations=%+v, want %+v", got, tt.want)
			}
		})
	}
}
