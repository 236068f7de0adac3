package redistest

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/redis"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// Lab is one lab's file under testdata/labs: the scenario whose script a
// learner writes, where the script stands (the verbs it replaces, the eval
// that replaces them), the promise it is judged by, and what a learner may
// write, each with what the model answers. The conformance suite replays
// the same tries on real Redis.
type Lab struct {
	Scenario string   `yaml:"scenario"`
	Role     string   `yaml:"role"`
	Replaces []string `yaml:"replaces"`
	Args     string   `yaml:"args"`
	Position string   `yaml:"position"`
	Property string   `yaml:"property"`
	Depth    int      `yaml:"depth"`
	Tries    []Try    `yaml:"tries"`
}

// Try is one script a learner may write, and the model's answer: the
// verdict at the scripted frames' end and the finder's answer from the
// first frame, or the clear error it stops with; Reply is an error the
// script answers on its first run, as Redis does.
type Try struct {
	Name      string `yaml:"name"`
	Reference bool   `yaml:"reference"`
	Says      string `yaml:"says"`
	Lua       string `yaml:"lua"`
	Expect    struct {
		Verdict string  `yaml:"verdict"`
		Finder  string  `yaml:"finder"`
		Reply   *Answer `yaml:"reply"`
		Error   *Answer `yaml:"error"`
	} `yaml:"expect"`
}

// Answer is an error with its line and what it says.
type Answer struct {
	Line int    `yaml:"line"`
	Says string `yaml:"says"`
}

// Labs reads testdata/labs.
func Labs(tb testing.TB) []Lab {
	tb.Helper()
	_, here, _, _ := runtime.Caller(0)
	files, err := filepath.Glob(filepath.Join(filepath.Dir(here), "..", "testdata", "labs", "*.yaml"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no labs under testdata/labs: %v", err)
	}
	var labs []Lab
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var l Lab
		dec := yaml.NewDecoder(strings.NewReader(string(data)))
		dec.KnownFields(true)
		if err := dec.Decode(&l); err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		labs = append(labs, l)
	}
	return labs
}

// With is the lab's scenario with the try's script in place of what it
// replaces, played alike in both positions.
func (l Lab) With(tb testing.TB, t Try) *demo.Scenario {
	tb.Helper()
	sc := withEvals(tb, testkit.Scenario(tb, l.Scenario), func(a demo.Action) string {
		for _, v := range l.Replaces {
			if string(a.Verb) == v {
				return a.Who + " eval " + t.Name + " " + l.Args
			}
		}
		return ""
	})
	sc.Scripts = []demo.Script{{Name: t.Name, Role: l.Role, Lua: t.Lua}}
	for i := range sc.Moves {
		// The script stands in both positions' places at once: a move
		// that sends one action with the switch on and another with it
		// off now sends the one eval whatever the switch.
		var do []demo.Action
		for _, a := range sc.Moves[i].Do {
			if a.Verb == redis.Eval {
				if slices.ContainsFunc(do, func(b demo.Action) bool { return b.Source == a.Source }) {
					continue
				}
				a.When = ""
			}
			do = append(do, a)
		}
		sc.Moves[i].Do = do
	}
	return sc
}

// On is the lab's position.
func (l Lab) On() bool { return l.Position == "on" }

// withEvals is sc with each action the swap names replaced by the eval of
// one of the scenario's scripts, in the same place and position.
func withEvals(tb testing.TB, sc *demo.Scenario, swap func(a demo.Action) string) *demo.Scenario {
	tb.Helper()
	c := *sc
	c.Moves = slices.Clone(sc.Moves)
	for i := range c.Moves {
		do := slices.Clone(c.Moves[i].Do)
		for j, a := range do {
			line := swap(a)
			if line == "" {
				continue
			}
			e, err := demo.ParseAction(sc.Family, sc.Store, line)
			if err != nil {
				tb.Fatalf("%q: %v", line, err)
			}
			e.Line, e.When = a.Line, a.When
			do[j] = e
		}
		c.Moves[i].Do = do
	}
	return &c
}

// WithEvals is withEvals, for the family's own tests.
var WithEvals = withEvals
