package demo_test

import (
	"reflect"
	"testing"

	. "github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/demotest"
	"github.com/distlock/fencing-demo/demo/script"
)

// Every scenario of the real file plays to its last frame in both switch
// positions, and replaying past the end stops there.
func TestScenariosReplayToLastFrame(t *testing.T) {
	c := demotest.Catalog(t)
	if len(c.Scenarios) == 0 {
		t.Fatal("scenarios.yaml has no scenarios")
	}
	for _, sc := range c.Scenarios {
		for _, on := range []bool{true, false} {
			t.Run(demotest.Name(sc, on), func(t *testing.T) {
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
	c := demotest.Catalog(t)
	for _, sc := range c.Scenarios {
		for _, on := range []bool{true, false} {
			t.Run(demotest.Name(sc, on), func(t *testing.T) {
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
	src := demotest.File(demotest.YAML("s", "if-on: A acquire 10", "{if-off: B acquire 10}", "tick 1", "A write a"))
	c, err := script.Load("test.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Load: %v\n%s", err, demotest.Numbered(src))
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
		if got, want := do[i].Line, demotest.LineOf(t, src, want.line); got != want {
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
		{true, []played{{Acquired, "A"}, {Accepted, "A"}}},
		{false, []played{{Acquired, "B"}, {WriteSkipped, "A"}}},
	} {
		t.Run("switch-"+demotest.OnOff(tt.on), func(t *testing.T) {
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
	src := demotest.Replace(t, demotest.File(demotest.OnStore(t, "redlock", demotest.YAML("s", "tick 1"))),
		"    initial:\n", "    setup:\n      - if-on: all monotonic\n    initial:\n")
	c, err := script.Load("test.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Load: %v\n%s", err, demotest.Numbered(src))
	}
	for _, on := range []bool{true, false} {
		r := NewRun(c.Scenarios[0], on)
		f := r.Frame()
		if len(f.Events) != 0 {
			t.Fatalf("switch %s: the first frame shows the setup's events %+v", demotest.OnOff(on), f.Events)
		}
		for _, n := range f.Nodes {
			if n.Monotonic != on {
				t.Fatalf("switch %s: %s Monotonic=%v, want %v", demotest.OnOff(on), n.Name, n.Monotonic, on)
			}
		}
	}
}
