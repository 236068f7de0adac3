package check

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
)

// A lab's tries each state the judge's answer, and a saved build (a
// scenario with a sometimes promise, as "Save as a scenario" writes a
// learner's fix) is a solution to be judged: both are held here, with the
// judge's own search (find.Judge).

// labs holds sc's lab tries and, for a saved solution, the solution itself
// to the judge: it prints a line for each and returns what differs or
// breaks, each as a line that names the file and line where it can.
func labs(file string, sc *demo.Scenario, states int, w io.Writer) []string {
	var out []string
	if sc.Lab != nil {
		for _, t := range sc.Lab.Tries {
			built, err := demo.Apply(sc, t.Build)
			if err != nil {
				out = append(out, where(file, t.Line, sc.ID, fmt.Sprintf("lab try %s: %v", t.Name, err)))
				continue
			}
			start := time.Now()
			j, err := find.Judge(demo.Place{Sc: built, On: built.Default, Step: 1}, find.Options{MaxStates: states})
			if err != nil {
				out = append(out, where(file, t.Line, sc.ID, fmt.Sprintf("lab try %s: %v", t.Name, err)))
				continue
			}
			fmt.Fprintf(w, "%s, lab try %s: %s (%s states, %s)\n", sc.ID, t.Name, j.Verdict(), searched(j), time.Since(start).Round(time.Millisecond))
			if got := j.Verdict(); got != t.Expect {
				out = append(out, where(file, t.Line, sc.ID, fmt.Sprintf("lab try %s: the judge says %s, not %s", t.Name, got, t.Expect)))
			}
		}
	}
	if sc.Sometimes != "" {
		if msg := solution(sc, states, w); msg != "" {
			out = append(out, fmt.Sprintf("%s: scenario %q: %s", file, sc.ID, msg))
		}
	}
	return out
}

// searched is how many states a judgement explored: the judge looks for
// the break and the good thing in one search, so its Sometimes counts the
// same states again, and the page says Always's count.
func searched(j find.Judgement) string { return strconv.Itoa(j.Always.States) }

// solution judges a saved build from its first frame and tells the answer
// in full: the bounds it holds within, or the history that breaks it, or
// that the work never gets done and the closest it came. It returns why
// the solution fails, or "" when it holds (to a depth, it says so).
func solution(sc *demo.Scenario, states int, w io.Writer) string {
	j, err := find.Judge(demo.Place{Sc: sc, On: sc.Default, Step: 1}, find.Options{MaxStates: states})
	if err != nil {
		return err.Error()
	}
	prop, _ := sc.Promise()
	fmt.Fprintf(w, "%s, the solution: %s\n", sc.ID, j.Verdict())
	switch v := j.Verdict(); {
	case j.Always.Found:
		fmt.Fprintf(w, "  a history of %d actions breaks %q:\n", len(j.Always.Trace), prop.Says.EN)
		trace(w, sc, j.Always.Trace)
		return v
	case j.Sometimes != nil && !j.Sometimes.Found:
		fmt.Fprintf(w, "  nothing breaks %q, but no history gets to %q; the closest:\n", prop.Says.EN, j.Sometimes.Property.Says.EN)
		trace(w, sc, j.Sometimes.Closest)
		return v
	case j.Always.Exhausted:
		fmt.Fprintf(w, "  holds for every history within the bounds (%d states): %s\n", j.Always.States, j.Bounds().EN)
	default:
		fmt.Fprintf(w, "  holds up to depth %d only: the budget of %d states ran out first (-states)\n", j.Always.Depth, states)
	}
	return ""
}

func trace(w io.Writer, sc *demo.Scenario, as []demo.Action) {
	for _, a := range as {
		fmt.Fprintf(w, "    - %s\n", strings.TrimSpace(demo.Longhand(sc, sc.Default, a)))
	}
}
