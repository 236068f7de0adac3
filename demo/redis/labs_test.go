package redis_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	. "github.com/distlock/fencing-demo/demo/redis"
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
	files, err := filepath.Glob(filepath.Join("testdata", "labs", "*.yaml"))
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
		for j := range sc.Moves[i].Do {
			if sc.Moves[i].Do[j].Verb == Eval {
				sc.Moves[i].Do[j].When = ""
			}
		}
	}
	return sc
}

// shortDepth is how deep -short searches.
const shortDepth = 4

// On is the lab's position.
func (l Lab) On() bool { return l.Position == "on" }

// Every lab's reference solutions and wrong tries get the answer their
// file states: the verdict the scripted frames end with, the finder's
// shortest break (or none within the depth, the search having run out of
// new states rather than budget), an error reply with its line, or the
// clear error, with its line, that stops the try within the sandbox's
// budget.
func TestLabTries(t *testing.T) {
	for _, l := range Labs(t) {
		for _, try := range l.Tries {
			t.Run(l.Scenario+"/"+try.Name, func(t *testing.T) {
				sc := l.With(t, try)
				r := demo.NewRun(sc, l.On())
				for r.Step() {
				}
				if x := try.Expect.Error; x != nil {
					stopsClearly(t, r.Err(), x)
					return
				}
				if err := r.Err(); err != nil {
					t.Fatalf("the scripted frames stop: %v", err)
				}
				f := r.Frame()
				if got := f.Verdict().Kind.String(); got != try.Expect.Verdict {
					t.Errorf("the scripted frames end in %s, want %s", got, try.Expect.Verdict)
				}
				if x := try.Expect.Reply; x != nil {
					answersError(t, f, x)
				}
				judge(t, l, sc, try)
			})
		}
	}
}

func stopsClearly(t *testing.T, err error, x *Answer) {
	t.Helper()
	var ae *demo.ActionError
	if !errors.As(err, &ae) {
		t.Fatalf("the scripted frames stop with %v, want a clear refusal", err)
	}
	if !strings.Contains(ae.Msg, x.Says) || !strings.Contains(ae.Msg, "line "+itoa(x.Line)) || !strings.Contains(ae.JA, itoa(x.Line)+" 行目") {
		t.Errorf("the refusal\n\t%s\n\t%s\ndoes not say %q at line %d in both languages", ae.Msg, ae.JA, x.Says, x.Line)
	}
}

func answersError(t *testing.T, f demo.Frame, x *Answer) {
	t.Helper()
	for _, e := range f.Events {
		if ev, ok := e.(EvalCommand); ok {
			if ev.Answer.Line != x.Line || !strings.Contains(ev.Answer.Str, x.Says) {
				t.Errorf("the script answers %v at line %d, want an error saying %q at line %d", ev.Answer, ev.Answer.Line, x.Says, x.Line)
			}
			return
		}
	}
	t.Error("no script was sent")
}

// judge holds the finder's answer for the try to the file's, and logs the
// search's states and time, which the report quotes.
func judge(t *testing.T, l Lab, sc *demo.Scenario, try Try) {
	t.Helper()
	want, err := demo.ParseExpectation(try.Expect.Finder)
	if err != nil {
		t.Fatal(err)
	}
	prop, ok := demo.PropertyOf(sc.Family, l.Property)
	if !ok {
		t.Fatalf("no property %q", l.Property)
	}
	depth := l.Depth
	if want.Found {
		depth = want.N
	}
	if testing.Short() && depth > shortDepth {
		// None within D implies none within fewer, and a shortest break in
		// N none within N-1: the short suite checks the shallow part.
		depth, want = shortDepth, demo.Expectation{N: shortDepth}
	}
	start := time.Now()
	res, err := find.Find(demo.Place{Sc: sc, On: l.On(), Step: 1}, prop, find.Options{Depth: depth, MaxStates: 2_000_000})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: found=%v depth=%d states=%d in %v", l.Property, res.Found, res.Depth, res.States, time.Since(start).Round(time.Millisecond))
	if res.OutOfBudget {
		t.Fatalf("the search ran out of budget at depth %d after %d states (%v)", res.Depth, res.States, res.Spent)
	}
	if got := (demo.Expectation{Found: res.Found, N: res.Depth}); got != want {
		t.Errorf("the finder finds %v, want %v; trace: %s", got, want, traceOf(res.Trace))
	}
}

func traceOf(as []demo.Action) string {
	var s []string
	for _, a := range as {
		s = append(s, a.Source)
	}
	return strings.Join(s, "; ")
}

func itoa(n int) string { return strconv.Itoa(n) }

// A search's scripts share one budget: a script that runs long on every
// call spends it, and the search ends on that, saying so, rather than
// running for as long as its states allow.
func TestSearchSpendsItsScriptBudget(t *testing.T) {
	l := Labs(t)[slices.IndexFunc(Labs(t), func(l Lab) bool { return l.Scenario == "release-other" })]
	slow := Try{Name: "slow", Lua: l.Tries[0].Lua + "for i = 1, 45000 do end\n"}
	slow.Lua = strings.Replace(slow.Lua, "return 0\n", "", 1)
	sc := l.With(t, slow)
	defer SearchBudget(2_000_000)()
	prop, _ := demo.PropertyOf(sc.Family, l.Property)
	res, err := find.Find(demo.Place{Sc: sc, On: true, Step: 1}, prop, find.Options{Depth: 12, MaxStates: 2_000_000})
	if err != nil {
		t.Fatal(err)
	}
	var ae *demo.ActionError
	if !res.OutOfBudget || res.Spent == nil || !errors.As(res.Spent, &ae) || !strings.Contains(ae.Msg, "have run 2000000 instructions in this run or search") {
		t.Fatalf("the search ended at depth %d after %d states, out of budget %v, spent %v; want it ended by its scripts' budget", res.Depth, res.States, res.OutOfBudget, res.Spent)
	}
	t.Logf("ended at depth %d after %d states: %s / %s", res.Depth, res.States, ae.Msg, ae.JA)
}
