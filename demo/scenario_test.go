package demo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// loadCatalog reads the real scenarios.yaml, the file the web app serves.
func loadCatalog(tb testing.TB) *Catalog {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("..", "scenarios.yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	c, err := Load("scenarios.yaml", data)
	if err != nil {
		tb.Fatalf("Load(scenarios.yaml): %v", err)
	}
	return c
}

// scenario returns one minimal valid scenario, as an item of the list under
// "scenarios:", with clients A and B and a single move that does the given
// actions. Tests break it in one place at a time with strings.Replace.
func scenario(id string, do ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `  - id: %s
    title: {ja: 題, en: Title}
    summary: {ja: 要約, en: Summary}
    lesson: {ja: 教訓, en: Lesson}
    purpose: correctness
    topology: consensus
    switch: fencing
    switch-label: {ja: フェンシング, en: Fencing}
    fencing: switch
    resource: row-1
    clients: [A, B]
    initial:
      title: {ja: 初期状態, en: Initial state}
      text: {ja: 空, en: Empty}
    moves:
      - title: {ja: 一手, en: One move}
        text: {ja: 本文, en: Text}
        do:
`, id)
	for _, a := range do {
		fmt.Fprintf(&b, "          - %s\n", a)
	}
	return b.String()
}

// file puts scenarios under "scenarios:", as scenarios.yaml does.
func file(scenarios ...string) string {
	return "scenarios:\n" + strings.Join(scenarios, "")
}

// lineOf returns the 1-based number of the only line of src containing s.
func lineOf(tb testing.TB, src, s string) int {
	tb.Helper()
	line := 0
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, s) {
			if line != 0 {
				tb.Fatalf("%q is on lines %d and %d of the test YAML", s, line, i+1)
			}
			line = i + 1
		}
	}
	if line == 0 {
		tb.Fatalf("%q is not in the test YAML:\n%s", s, src)
	}
	return line
}

// replace is strings.Replace that insists old is there, so a test cannot
// silently stop breaking what it means to break.
func replace(tb testing.TB, s, old, new string) string {
	tb.Helper()
	if !strings.Contains(s, old) {
		tb.Fatalf("%q is not in the test YAML:\n%s", old, s)
	}
	return strings.Replace(s, old, new, 1)
}

// loadError loads src and returns the *LoadError it must fail with.
func loadError(tb testing.TB, src string) *LoadError {
	tb.Helper()
	c, err := Load("test.yaml", []byte(src))
	if err == nil {
		tb.Fatalf("Load succeeded with %d scenarios, want an error; YAML:\n%s", len(c.Scenarios), src)
	}
	var le *LoadError
	if !errors.As(err, &le) {
		tb.Fatalf("Load error %v (%T) is not a *LoadError", err, err)
	}
	if got, want := le.File, "test.yaml"; got != want {
		tb.Fatalf("LoadError.File=%q, want %q", got, want)
	}
	return le
}

func TestLoadMinimalScenario(t *testing.T) {
	src := file(scenario("one", "A acquire 10", "tick 2", "A write x"), scenario("two", "tick 1"))
	c, err := Load("test.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Load: %v\n%s", err, src)
	}
	if got, want := c.IDs(), []string{"one", "two"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("IDs()=%q, want %q", got, want)
	}
	sc, ok := c.Get("one")
	if !ok {
		t.Fatal(`Get("one") found nothing`)
	}
	if _, ok := c.Get("three"); ok {
		t.Fatal(`Get("three") found a scenario`)
	}
	if got, want := sc.Clients, []string{"A", "B"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Clients=%q, want %q", got, want)
	}
	if got, want := sc.Frames(), 2; got != want {
		t.Fatalf("Frames()=%d, want %d", got, want)
	}
	want := []Action{
		{Who: "A", Verb: Acquire, N: 10, Line: lineOf(t, src, "A acquire 10"), Source: "A acquire 10"},
		{Verb: Tick, N: 2, Line: lineOf(t, src, "tick 2"), Source: "tick 2"},
		{Who: "A", Verb: Write, Value: "x", Line: lineOf(t, src, "A write x"), Source: "A write x"},
	}
	if got := sc.Moves[0].Do; !reflect.DeepEqual(got, want) {
		t.Fatalf("Do=\n%+v\nwant\n%+v", got, want)
	}
	if got, want := sc.Moves[0].Title.In("ja"), "一手"; got != want {
		t.Fatalf(`Title.In("ja")=%q, want %q`, got, want)
	}
	if got, want := sc.Moves[0].Title.In("fr"), "One move"; got != want {
		t.Fatalf(`Title.In("fr")=%q, want English %q`, got, want)
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		src  string
		at   string   // the text on the culprit's line; "" when the error has no line
		msg  []string // what Msg must mention
	}{
		{
			name: "bad YAML syntax",
			src:  replace(t, file(scenario("s", "tick 1")), "resource: row-1", "resource: row-1: oops"),
			at:   "resource: row-1: oops",
		},
		{
			name: "unknown verb",
			src:  file(scenario("s", "A acquire 3", "A fly 3")),
			at:   "A fly 3",
			msg:  []string{`"fly"`, "unknown action"},
		},
		{
			name: "unknown client",
			src:  file(scenario("s", "A acquire 10", "C acquire 10")),
			at:   "C acquire 10",
			msg:  []string{`"C"`, "unknown client", "C acquire 10"},
		},
		{
			name: "paused client acts",
			src:  file(scenario("s", "A acquire 10", "A pause", "tick 1", "A write x")),
			at:   "A write x",
			msg:  []string{"A write x", "paused"},
		},
		{
			name: "resume by a client that is not paused",
			src:  file(scenario("s", "B resume")),
			at:   "B resume",
			msg:  []string{"B resume", "not paused"},
		},
		{
			name: "lease is not a number",
			src:  file(scenario("s", "A acquire ten")),
			at:   "A acquire ten",
			msg:  []string{`"ten"`},
		},
		{
			name: "negative tick",
			src:  file(scenario("s", "tick -1")),
			at:   "tick -1",
			msg:  []string{"tick -1"},
		},
		{
			name: "write of two words",
			src:  file(scenario("s", "A write x y")),
			at:   "A write x y",
			msg:  []string{"A write x y"},
		},
		{
			name: "move title without English",
			src:  replace(t, file(scenario("s", "tick 1")), "{ja: 一手, en: One move}", "{ja: 一手}"),
			at:   "tick 1", // a move has no line of its own: its first action stands for it
			msg:  []string{"move 1 title", "English"},
		},
		{
			name: "move text without Japanese",
			src:  replace(t, file(scenario("s", "tick 1")), "{ja: 本文, en: Text}", "{en: Text}"),
			at:   "tick 1",
			msg:  []string{"move 1 text", "Japanese"},
		},
		{
			name: "scenario title without Japanese",
			src:  replace(t, file(scenario("s", "tick 1")), "{ja: 題, en: Title}", "{en: Title}"),
			msg:  []string{`"s"`, "title", "Japanese"},
		},
		{
			name: "initial text missing",
			src:  replace(t, file(scenario("s", "tick 1")), "      text: {ja: 空, en: Empty}\n", ""),
			msg:  []string{"initial text", "missing"},
		},
		{
			name: "lesson without English",
			src:  replace(t, file(scenario("s", "tick 1")), "{ja: 教訓, en: Lesson}", "{ja: 教訓}"),
			msg:  []string{"lesson", "English"},
		},
		{
			// Scenario carries no line of its own, so neither does this error.
			name: "duplicate scenario id",
			src:  file(scenario("twin", "tick 1"), scenario("other", "tick 1"), scenario("twin", "tick 2")),
			msg:  []string{`"twin"`, "twice"},
		},
		{
			name: "unknown top-level field",
			src:  "version: 2\n" + file(scenario("s", "tick 1")),
			at:   "version: 2",
			msg:  []string{`"version"`},
		},
		{
			name: "unknown scenario field",
			src:  replace(t, file(scenario("s", "tick 1")), "    switch: fencing\n", "    switch: fencing\n    outcome: B wins\n"),
			at:   "outcome: B wins",
			msg:  []string{`"outcome"`},
		},
		{
			name: "unknown move field",
			src:  replace(t, file(scenario("s", "tick 1")), "        do:\n", "        expect: rejected\n        do:\n"),
			at:   "expect: rejected",
			msg:  []string{`"expect"`},
		},
		{
			name: "no scenarios",
			src:  "scenarios: []\n",
			msg:  []string{"no scenarios"},
		},
		{
			name: "bad id",
			src:  file(scenario("GC_Pause", "tick 1")),
			msg:  []string{"id"},
		},
		{
			name: "move without actions",
			src:  file(scenario("s")),
			msg:  []string{"move 1", "do"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantLoadError(t, tt.src, tt.at, tt.msg...)
		})
	}
}

// wantLoadError loads src, which must fail on the line containing at (no
// line when at is ""), with a message that mentions each of msg.
func wantLoadError(tb testing.TB, src, at string, msg ...string) {
	tb.Helper()
	le := loadError(tb, src)
	want := 0
	if at != "" {
		want = lineOf(tb, src, at)
	}
	if got := le.Line; got != want {
		tb.Fatalf("Line=%d, want %d (%q); error: %v\nYAML:\n%s", got, want, at, le, numbered(src))
	}
	for _, m := range msg {
		if !strings.Contains(le.Msg, m) {
			tb.Errorf("Msg %q does not mention %q", le.Msg, m)
		}
	}
	prefix := "test.yaml: "
	if want > 0 {
		prefix = fmt.Sprintf("test.yaml:%d: ", want)
	}
	if got := le.Error(); !strings.HasPrefix(got, prefix) {
		tb.Errorf("Error()=%q, want it to start with %q", got, prefix)
	}
}

// numbered returns src with line numbers, for failure messages about lines.
func numbered(src string) string {
	var b strings.Builder
	for i, l := range strings.Split(src, "\n") {
		fmt.Fprintf(&b, "%3d  %s\n", i+1, l)
	}
	return b.String()
}

// A mistake in a later scenario is reported on its own line, not the first
// scenario's.
func TestLoadErrorLineInSecondScenario(t *testing.T) {
	src := file(scenario("first", "A acquire 10"), scenario("second", "tick 1", "B pause", "B release"))
	le := loadError(t, src)
	if got, want := le.Line, lineOf(t, src, "B release"); got != want {
		t.Fatalf("Line=%d, want %d; error: %v", got, want, le)
	}
	if !strings.Contains(le.Msg, `"second"`) {
		t.Fatalf("Msg %q does not name the scenario", le.Msg)
	}
}

// Every scenario of the real file plays to its last frame in both switch
// positions, and replaying past the end stops there.
func TestScenariosReplayToLastFrame(t *testing.T) {
	c := loadCatalog(t)
	if len(c.Scenarios) == 0 {
		t.Fatal("scenarios.yaml has no scenarios")
	}
	for _, sc := range c.Scenarios {
		for _, on := range []bool{true, false} {
			t.Run(transcriptName(sc, on), func(t *testing.T) {
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
	c := loadCatalog(t)
	for _, sc := range c.Scenarios {
		for _, on := range []bool{true, false} {
			t.Run(transcriptName(sc, on), func(t *testing.T) {
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

// Mistakes in the grammar of the Redis family: who may do what on which
// store, and the shape of the scenario around it.
func TestLoadErrorsRedisGrammar(t *testing.T) {
	redlock := func(do ...string) string { return file(onStore(t, "redlock", scenario("s", do...))) }
	redis := func(do ...string) string { return file(onStore(t, "redis", scenario("s", do...))) }
	replicated := func(do ...string) string { return file(onStore(t, "replicated", scenario("s", do...))) }
	lockservice := func(do ...string) string { return file(scenario("s", do...)) }
	for _, tt := range []struct {
		name string
		src  string
		at   string   // the text on the culprit's line; "" when the error has no line
		msg  []string // what Msg must mention
	}{
		{
			name: "unknown node in a 5-node redlock",
			src:  redlock("redis4 down", "redis9 down"),
			at:   "redis9 down",
			msg:  []string{`unknown node "redis9"`, "redis1, redis2, redis3, redis4, redis5"},
		},
		{
			name: "cut from an unknown node",
			src:  redlock("A cut redis2 redis6"),
			at:   "A cut redis2 redis6",
			msg:  []string{`unknown node "redis6"`},
		},
		{
			name: "node verb on the lock service",
			src:  lockservice("A acquire 10", "redis1 down"),
			at:   "redis1 down",
			msg:  []string{`unknown node "redis1"`, "the lock service has no nodes"},
		},
		{
			name: "all nodes on the lock service",
			src:  lockservice("all jump 100"),
			at:   "all jump 100",
			msg:  []string{"jump does not apply to the lockservice store"},
		},
		{
			name: "redis verb on the lock service",
			src:  lockservice("A set k NX PX 10"),
			at:   "A set k NX PX 10",
			msg:  []string{"set does not apply to the lockservice store"},
		},
		{
			name: "lock service verb on a redis store",
			src:  redis("A acquire 10"),
			at:   "A acquire 10",
			msg:  []string{"acquire does not apply to the redis store"},
		},
		{
			name: "single-node verb on redlock",
			src:  redlock("A set k NX PX 10"),
			at:   "A set k NX PX 10",
			msg:  []string{"set does not apply to the redlock store"},
		},
		{
			name: "redlock on one node",
			src:  redis("A redlock k PX 10"),
			at:   "A redlock k PX 10",
			msg:  []string{"redlock does not apply to the redis store"},
		},
		{
			name: "WAIT without a replica",
			src:  redis("A set k NX PX 10", "A wait 1 0"),
			at:   "A wait 1 0",
			msg:  []string{"wait does not apply to the redis store"},
		},
		{
			name: "promote on one node",
			src:  redis("redis promote"),
			at:   "redis promote",
			msg:  []string{"promote does not apply to the redis store"},
		},
		{
			name: "promote a primary",
			src:  replicated("tick 1", "primary promote"),
			at:   "primary promote",
			msg:  []string{"primary is not a replica"},
		},
		{
			name: "replicate from a replica",
			src:  replicated("A set k NX PX 10", "replica replicate"),
			at:   "replica replicate",
			msg:  []string{"cannot replicate"},
		},
		{
			name: "replicate to a replica that is down",
			src:  replicated("A set k NX PX 10", "replica down", "primary replicate"),
			at:   "primary replicate",
			msg:  []string{"cannot replicate"},
		},
		{
			name: "conditional key other than if-on and if-off",
			src:  lockservice("A acquire 10", "if-maybe: B acquire 10"),
			at:   "if-maybe: B acquire 10",
			msg:  []string{`"if-maybe"`, "if-on or if-off"},
		},
		{
			name: "conditional action with a bad action",
			src:  lockservice("if-on: A acquire soon"),
			at:   "if-on: A acquire soon",
			msg:  []string{`"soon"`},
		},
		{
			name: "unknown SET option",
			src:  redis("A set k NX EX 10"),
			at:   "A set k NX EX 10",
			msg:  []string{`unknown SET option "EX"`},
		},
		{
			name: "SET PX without a number",
			src:  redis("A set k NX PX"),
			at:   "A set k NX PX",
			msg:  []string{"KEY nx [px MS]"},
		},
		{
			name: "SET PX 0",
			src:  redis("A set k NX PX 0"),
			at:   "A set k NX PX 0",
			msg:  []string{"PX must be at least 1 ms"},
		},
		{
			name: "redlock without PX",
			src:  redlock("A redlock k 10000"),
			at:   "A redlock k 10000",
			msg:  []string{"KEY px MS"},
		},
		{
			name: "EXPIRE of 0 seconds",
			src:  redis("A setnx k", "A expire k 0"),
			at:   "A expire k 0",
			msg:  []string{"at least 1"},
		},
		{
			name: "a client named like the redis node",
			src:  replace(t, redis("tick 1"), "clients: [A, B]", "clients: [A, redis]"),
			msg:  []string{`client "redis"`, "not a node's name"},
		},
		{
			name: "a client named like a redlock node",
			src:  replace(t, redlock("tick 1"), "clients: [A, B]", "clients: [redis3, B]"),
			msg:  []string{`client "redis3"`},
		},
		{
			name: "a client named all",
			src:  replace(t, lockservice("tick 1"), "clients: [A, B]", "clients: [A, all]"),
			msg:  []string{`client "all"`},
		},
		{
			name: "missing purpose",
			src:  replace(t, lockservice("tick 1"), "    purpose: correctness\n", ""),
			msg:  []string{"purpose", "efficiency, correctness"},
		},
		{
			name: "unknown purpose",
			src:  replace(t, lockservice("tick 1"), "purpose: correctness", "purpose: speed"),
			msg:  []string{`purpose "speed"`},
		},
		{
			name: "missing topology",
			src:  replace(t, lockservice("tick 1"), "    topology: consensus\n", ""),
			msg:  []string{"topology", "single, replicated, quorum, consensus"},
		},
		{
			name: "missing switch-label",
			src:  replace(t, lockservice("tick 1"), "    switch-label: {ja: フェンシング, en: Fencing}\n", ""),
			msg:  []string{"switch-label is missing"},
		},
		{
			name: "switch-label without Japanese",
			src:  replace(t, lockservice("tick 1"), "switch-label: {ja: フェンシング, en: Fencing}", "switch-label: {en: Fencing}"),
			msg:  []string{"switch-label has no Japanese"},
		},
		{
			name: "unknown store",
			src:  file(onStore(t, "zookeeper", scenario("s", "tick 1"))),
			msg:  []string{`store "zookeeper"`},
		},
		{
			name: "nodes on a store that is not redlock",
			src:  replace(t, redis("tick 1"), "    store: redis\n", "    store: redis\n    nodes: 3\n"),
			msg:  []string{"nodes, latency and timeout are for the redlock store only"},
		},
		{
			name: "too many redlock nodes",
			src:  replace(t, redlock("tick 1"), "    store: redlock\n", "    store: redlock\n    nodes: 10\n"),
			msg:  []string{"nodes: 10", "1 to 9"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantLoadError(t, tt.src, tt.at, tt.msg...)
		})
	}
}

// An {if-on: ...} action plays only with the switch on, an {if-off: ...} only
// with it off, in either YAML form; the others play in both.
func TestConditionalActions(t *testing.T) {
	src := file(scenario("s", "if-on: A acquire 10", "{if-off: B acquire 10}", "tick 1", "A write a"))
	c, err := Load("test.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Load: %v\n%s", err, numbered(src))
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
		if got, want := do[i].Line, lineOf(t, src, want.line); got != want {
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
		t.Run("switch-"+onOff(tt.on), func(t *testing.T) {
			r, err := Replay(sc, tt.on, sc.Frames())
			if err != nil {
				t.Fatal(err)
			}
			var got []played
			for _, e := range r.Frame().Events {
				got = append(got, played{e.Kind, e.Client})
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
	src := replace(t, file(onStore(t, "redlock", scenario("s", "tick 1"))),
		"    initial:\n", "    setup:\n      - if-on: all monotonic\n    initial:\n")
	c, err := Load("test.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Load: %v\n%s", err, numbered(src))
	}
	for _, on := range []bool{true, false} {
		r := NewRun(c.Scenarios[0], on)
		f := r.Frame()
		if len(f.Events) != 0 {
			t.Fatalf("switch %s: the first frame shows the setup's events %+v", onOff(on), f.Events)
		}
		for _, n := range f.Nodes {
			if n.Monotonic != on {
				t.Fatalf("switch %s: %s Monotonic=%v, want %v", onOff(on), n.Name, n.Monotonic, on)
			}
		}
	}
}
