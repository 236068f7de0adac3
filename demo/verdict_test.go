package demo_test

import (
	"reflect"
	"slices"
	"testing"

	. "github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/backoff"
	"github.com/distlock/fencing-demo/demo/partition"
	"github.com/distlock/fencing-demo/demo/redis"
	"github.com/distlock/fencing-demo/demo/sql"
	"github.com/distlock/fencing-demo/internal/testkit"
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

// Every scenario of scenarios.yaml states its verdict at the last frame in
// both switch positions (expect: verdict and findings), and the model
// computes it: what each scenario teaches. The headline is the heaviest kind
// among the violations; none at all means mutual exclusion held. A scenario
// that states no verdict fails here.
func TestVerdictAtLastFrame(t *testing.T) {
	for _, sc := range testkit.Catalog(t).Scenarios {
		for i, on := range []bool{false, true} {
			t.Run(testkit.Name(sc, on), func(t *testing.T) {
				x := sc.Expect[i]
				if x.Verdict == "" {
					t.Fatalf("scenarios.yaml states no verdict for %s with the switch %s: write it under expect: %s: verdict:", sc.ID, OnOff(on), OnOff(on))
				}
				f := testkit.LastFrame(t, sc.ID, on)
				if got, want := f.Verdict().Kind.String(), x.Verdict; got != want {
					t.Fatalf("Verdict()=%v, want %v (scenarios.yaml:%d)", got, want, x.VerdictLine)
				}
				var got []Finding
				for _, v := range f.Violations {
					got = append(got, Found(v))
				}
				if !slices.Equal(got, x.Findings) {
					t.Fatalf("violations=%+v, want %+v (scenarios.yaml:%d)", got, x.Findings, x.FindingsLine)
				}
			})
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
