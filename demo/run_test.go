package demo_test

import (
	"errors"
	"reflect"
	"testing"

	. "github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/lockservice"
	"github.com/distlock/fencing-demo/demo/redis"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// Every scenario of the real file plays to its last frame in both switch
// positions, and replaying past the end stops there.
func TestScenariosReplayToLastFrame(t *testing.T) {
	c := testkit.Catalog(t)
	if len(c.Scenarios) == 0 {
		t.Fatal("scenarios.yaml has no scenarios")
	}
	for _, sc := range c.Scenarios {
		for _, on := range []bool{true, false} {
			t.Run(testkit.Name(sc, on), func(t *testing.T) {
				for _, frame := range []int{sc.Frames(), sc.Frames() + 5} {
					r, err := Replay(sc, on, frame)
					if err != nil {
						t.Fatalf("Replay(%d): %v", frame, err)
					}
					if got, want := r.Index(), sc.Frames(); got != want {
						t.Fatalf("Replay(%d).Index()=%d, want %d", frame, got, want)
					}
					f := r.Frame()
					if got, want := f.Total, sc.Frames(); got != want {
						t.Fatalf("Frame().Total=%d, want %d", got, want)
					}
					if !f.Last() {
						t.Fatalf("Frame().Last() is false at frame %d/%d", f.Index, f.Total)
					}
					if r.Step() {
						t.Fatal("Step() at the last frame returned true")
					}
				}
			})
		}
	}
}

// The same scenario, switch and step always give the same frame, whether it
// is reached by one run stepping or by a fresh replay.
func TestReplayIsDeterministic(t *testing.T) {
	c := testkit.Catalog(t)
	for _, sc := range c.Scenarios {
		for _, on := range []bool{true, false} {
			t.Run(testkit.Name(sc, on), func(t *testing.T) {
				r := NewRun(sc, on)
				for {
					stepped := r.Frame()
					again, err := Replay(sc, on, stepped.Index)
					if err != nil {
						t.Fatalf("Replay(%d): %v", stepped.Index, err)
					}
					if got := again.Frame(); !reflect.DeepEqual(got, stepped) {
						t.Fatalf("frame %d: Replay gives\n%+v\nstepping gives\n%+v", stepped.Index, got, stepped)
					}
					if !r.Step() {
						break
					}
				}
				if err := r.Err(); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// An {if-on: ...} action plays only with the switch on, an {if-off: ...} only
// with it off, in either YAML form; the others play in both.
func TestConditionalActions(t *testing.T) {
	src := testkit.File(testkit.YAML("s", "if-on: A acquire 10", "{if-off: B acquire 10}", "tick 1", "A write a"))
	c, err := script.Load("test.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Load: %v\n%s", err, testkit.Numbered(src))
	}
	sc := c.Scenarios[0]
	do := sc.Moves[0].Do
	for i, want := range []struct {
		when, source, line string
	}{
		{"on", "A acquire 10", "if-on: A acquire 10"},
		{"off", "B acquire 10", "{if-off: B acquire 10}"},
		{"", "tick 1", "tick 1"},
		{"", "A write a", "A write a"},
	} {
		if got := do[i].When; got != want.when {
			t.Errorf("action %d: When=%q, want %q", i, got, want.when)
		}
		if got := do[i].Source; got != want.source {
			t.Errorf("action %d: Source=%q, want %q", i, got, want.source)
		}
		if got, want := do[i].Line, testkit.LineOf(t, src, want.line); got != want {
			t.Errorf("action %d: Line=%d, want %d", i, got, want)
		}
	}
	type played struct {
		Kind   Kind
		Client string
	}
	for _, tt := range []struct {
		on   bool
		want []played
	}{
		{true, []played{{lockservice.Acquired, "A"}, {Accepted, "A"}}},
		{false, []played{{lockservice.Acquired, "B"}, {WriteSkipped, "A"}}},
	} {
		t.Run("switch-"+OnOff(tt.on), func(t *testing.T) {
			r, err := Replay(sc, tt.on, sc.Frames())
			if err != nil {
				t.Fatal(err)
			}
			var got []played
			for _, e := range r.Frame().Events {
				got = append(got, played{e.Kind(), e.Header().Client})
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("events=%+v, want %+v", got, tt.want)
			}
		})
	}
}

// A conditional action in setup sets the stage in one position only, and the
// setup's events are not part of the story.
func TestConditionalSetup(t *testing.T) {
	src := testkit.Replace(t, testkit.File(testkit.OnStore(t, "redlock", testkit.YAML("s", "tick 1"))),
		"    initial:\n", "    setup:\n      - if-on: all jump 100\n    initial:\n")
	c, err := script.Load("test.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Load: %v\n%s", err, testkit.Numbered(src))
	}
	for _, on := range []bool{true, false} {
		r := NewRun(c.Scenarios[0], on)
		f := r.Frame()
		if len(f.Events) != 0 {
			t.Fatalf("switch %s: the first frame shows the setup's events %+v", OnOff(on), f.Events)
		}
		for _, n := range redisNodes(t, f) {
			if got, want := n.Offset != 0, on; got != want {
				t.Fatalf("switch %s: %s Offset=%d, want it stepped only with the switch on", OnOff(on), n.Name, n.Offset)
			}
		}
	}
}

// WAIT 1 0 with the replica down blocks the client for as long as no replica
// acknowledges: it can do nothing else, and WAIT answers only when the replica
// is back. With a timeout WAIT answers the count reached when time is up.
func TestWaitBlocksUntilAReplicaAcknowledges(t *testing.T) {
	src := testkit.File(testkit.OnStore(t, "replicated", testkit.YAML("s",
		"A set lock:k NX PX 10000", "replica down", "A wait 1 0")))
	c, err := script.Load("test.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	r, err := Replay(c.Scenarios[0], true, 2)
	if err != nil {
		t.Fatal(err)
	}
	f := r.Frame()
	if a := f.Clients[0]; !a.Blocked {
		t.Fatalf("A=%+v, want A blocked in WAIT", a)
	}
	for _, e := range f.Events {
		if e.Kind() == redis.WaitCmd {
			t.Fatalf("WAIT answered %+v while no replica could acknowledge", e)
		}
	}
	var ae *ActionError
	if err := r.Apply(Action{Who: "A", Verb: Write, Args: WriteArgs{Value: "A"}, Source: "A write A"}); !errors.As(err, &ae) {
		t.Fatalf("a blocked client's write: err=%v, want an ActionError", err)
	}
	if err := r.Apply(Action{Verb: Tick, Args: TickArgs{Forward: 60000}}); err != nil {
		t.Fatal(err)
	}
	if a := r.Frame().Clients[0]; !a.Blocked {
		t.Fatal("A stopped waiting on its own: WAIT 1 0 has no timeout")
	}
	if err := r.Apply(Action{Who: "replica", Verb: redis.Up, Source: "replica up"}); err != nil {
		t.Fatal(err)
	}
	f = r.Frame()
	last, ok := f.Events[len(f.Events)-1].(redis.WaitCommand)
	if !ok || last.Reply() != "(integer) 1" || last.At != 60000 || f.Clients[0].Blocked {
		t.Fatalf("after the replica came back: last event %+v, A=%+v; want WAIT answering (integer) 1 at 60000 and A free", f.Events[len(f.Events)-1], f.Clients[0])
	}
}

// A stop-the-world pause stops the watchdog's thread too: a renewal due while
// the client is paused does not happen, and is no mistake in the script.
func TestWatchdogStopsWhileItsClientIsPaused(t *testing.T) {
	src := testkit.File(testkit.OnStore(t, "redis", testkit.YAML("s",
		"A rlock lock:k 30000", "tick 10000", "A rrenew lock:k 30000", "tick 10000", "A rrenew lock:k 30000",
		"tick 9900", "A pause", "tick 100", "A rrenew lock:k 30000", "tick 20000",
		"tick 50", "B rtrylock lock:k 30000", "B write B", "tick 50", "A resume", "A write A")))
	f := testkit.Play(t, src, false)
	var skipped []int
	for _, e := range f.Events {
		if e.Kind() == redis.WatchdogStopped {
			skipped = append(skipped, e.Header().At)
		}
	}
	if !reflect.DeepEqual(skipped, []int{30000}) {
		t.Fatalf("skipped renewals at %v, want [30000]", skipped)
	}
	// The key ran out 30 s after the last renewal, at 50000: a pause of
	// 20.2 s, begun just before a renewal, lost the lock.
	for _, e := range f.Events {
		if k, ok := e.(redis.KeyExpiry); ok && k.At != 50000 {
			t.Fatalf("key expired at %d, want 50000", k.At)
		}
	}
	if got := f.Verdict().Kind; got != StaleWrite {
		t.Fatalf("verdict %v, want %v: A's write after the pause landed over B's", got, StaleWrite)
	}
}

// A slewed clock never jumps: at 500 ppm the key set on redis3 lives within
// a ms of its TTL, so B finds A's key there and fails to win a majority.
func TestSlewOnlyKeepsRedis3Key(t *testing.T) {
	f := testkit.LastFrame(t, "redlock-clock-jump", true)
	var n redis.NodeState
	for _, x := range redisNodes(t, f) {
		if x.Name == "redis3" {
			n = x
		}
	}
	if n.Offset > 1 || n.Slew < 14999 || n.SlewRate != 500 {
		t.Fatalf("redis3=%+v, want at most 1 ms slewed of 15000 at 500 ppm", n)
	}
	if len(n.Keys) != 1 || n.Keys[0].Owner != "A" {
		t.Fatalf("redis3 keys=%+v, want A's key", n.Keys)
	}
	for _, e := range f.Events {
		if e.Kind() == redis.ClockJump {
			t.Fatalf("a clock jumped with steps forbidden: %+v", e)
		}
	}
}

// redisNodes are the Redis nodes of f, whose scenario must be of the Redis
// family.
func redisNodes(tb testing.TB, f Frame) []redis.NodeState {
	tb.Helper()
	st, ok := redis.Of(f)
	if !ok {
		tb.Fatalf("%s is not played on Redis", f.Scenario.ID)
	}
	return st.Nodes
}
