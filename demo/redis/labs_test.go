package redis_test

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	. "github.com/distlock/fencing-demo/demo/redis"
	"github.com/distlock/fencing-demo/demo/redis/redistest"
)

// shortDepth is how deep -short searches.
const shortDepth = 4

// Every lab's reference solutions and wrong tries get the answer their
// file states: the verdict the scripted frames end with, the finder's
// shortest break (or none within the depth, the search having run out of
// new states rather than budget), an error reply with its line, or the
// clear error, with its line, that stops the try within the sandbox's
// budget.
func TestLabTries(t *testing.T) {
	for _, l := range redistest.Labs(t) {
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

func stopsClearly(t *testing.T, err error, x *redistest.Answer) {
	t.Helper()
	var ae *demo.ActionError
	if !errors.As(err, &ae) {
		t.Fatalf("the scripted frames stop with %v, want a clear refusal", err)
	}
	if !strings.Contains(ae.Msg, x.Says) || !strings.Contains(ae.Msg, "line "+itoa(x.Line)) || !strings.Contains(ae.JA, itoa(x.Line)+" 行目") {
		t.Errorf("the refusal\n\t%s\n\t%s\ndoes not say %q at line %d in both languages", ae.Msg, ae.JA, x.Says, x.Line)
	}
}

func answersError(t *testing.T, f demo.Frame, x *redistest.Answer) {
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
func judge(t *testing.T, l redistest.Lab, sc *demo.Scenario, try redistest.Try) {
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
	l := redistest.Labs(t)[slices.IndexFunc(redistest.Labs(t), func(l redistest.Lab) bool { return l.Scenario == "release-other" })]
	slow := redistest.Try{Name: "slow", Lua: l.Tries[0].Lua + "for i = 1, 45000 do end\n"}
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
