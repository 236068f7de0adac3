package check

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/demo/script"
)

// judge holds the catalog's scenarios (or sc alone) to every expectation
// they state. The verdicts and the answers were held when the file was read
// (differs); the finder's answers are searched for here, a few at a time,
// and the guide's places looked up. It prints a line for each scenario and
// position, each difference with its file and line, and a last line that
// sums up; ErrDiffers when something does not hold.
func judge(file string, c *demo.Catalog, sc *demo.Scenario, differs []*script.LoadError, guide Guide, states int, w io.Writer) error {
	scenarios := c.Scenarios
	if sc != nil {
		scenarios = []*demo.Scenario{sc}
	}
	found := finders(scenarios, states)
	held, broken := 0, 0
	for i, sc := range scenarios {
		var ds []string
		for _, d := range differs {
			if d.ID == sc.ID {
				ds = append(ds, d.Error())
			}
		}
		for k, on := range []bool{false, true} {
			x := sc.Expect[k]
			if !x.Stated() {
				continue
			}
			fmt.Fprintf(w, "%s, %s %s: %s\n", sc.ID, sc.Switch, demo.OnOff(on), stated(x))
			held += count(x)
			if msg := found[i][k]; msg != "" {
				ds = append(ds, where(file, x.FinderLine, sc.ID, fmt.Sprintf("expect %s finder: %s", demo.OnOff(on), msg)))
			}
		}
		if g := sc.Guide; len(g.Tree)+len(g.Quiz) > 0 {
			fmt.Fprintf(w, "%s, guide: %s\n", sc.ID, places(g))
			held += len(g.Tree) + len(g.Quiz)
			if msg := unlinked(guide, sc); msg != "" {
				ds = append(ds, where(file, g.Line, sc.ID, msg))
			}
		}
		if ls := labs(file, sc, states, w); sc.Lab != nil || sc.Sometimes != "" {
			held += tries(sc)
			ds = append(ds, ls...)
		} else if !sc.Expect[0].Stated() && !sc.Expect[1].Stated() && len(sc.Guide.Tree)+len(sc.Guide.Quiz) == 0 {
			fmt.Fprintf(w, "%s: states nothing under expect:\n", sc.ID)
		}
		if n := breaks(sc); n > 0 {
			held += n
			ds = append(ds, challenges(file, sc, states, w)...)
		}
		for _, d := range ds {
			fmt.Fprintf(w, "  %s\n", d)
		}
		broken += len(ds)
	}
	if broken > 0 {
		fmt.Fprintf(w, "%d of %d expectations of %d scenarios do not hold\n", broken, held, len(scenarios))
		return ErrDiffers
	}
	fmt.Fprintf(w, "all %d expectations of %d scenarios hold\n", held, len(scenarios))
	return nil
}

// tries counts what sc's lab and a saved solution state: each try's answer,
// and the solution's own.
func tries(sc *demo.Scenario) int {
	n := 0
	if sc.Lab != nil {
		n += len(sc.Lab.Tries)
	}
	if sc.Sometimes != "" {
		n++
	}
	return n
}

// finders searches, for each scenario and position that states what the
// finder finds, whether it finds that, on a few goroutines: what differs,
// by scenario and position, "" where it holds.
func finders(scenarios []*demo.Scenario, states int) [][2]string {
	out := make([][2]string, len(scenarios))
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, sc := range scenarios {
		for k := range 2 {
			if sc.Expect[k].Finder == nil {
				continue
			}
			slots <- struct{}{}
			wg.Go(func() {
				defer func() { <-slots }()
				out[i][k] = finderDiffers(sc, k == 1, *sc.Expect[k].Finder, states)
			})
		}
	}
	wg.Wait()
	return out
}

// finderDiffers searches from sc's first frame as deep as x says: the
// shortest history breaking the property has x.N actions, or none of up to
// x.N breaks it. It says what the search found instead, or "".
func finderDiffers(sc *demo.Scenario, on bool, x demo.Expectation, states int) string {
	prop, _ := sc.Promise() // checked when the file was read
	res, err := find.Find(demo.Place{Sc: sc, On: on, Step: 1}, prop, find.Options{Depth: x.N, MaxStates: states})
	switch {
	case err != nil:
		return err.Error()
	case res.OutOfBudget:
		return fmt.Sprintf("the budget of %d states ran out at depth %d, before the answer (-states)", states, res.Depth)
	}
	if got := (demo.Expectation{Found: res.Found, N: res.Depth}); got != x {
		return fmt.Sprintf("the finder finds %s, not %s", got, x)
	}
	return ""
}

// unlinked says which places sc names under expect: guide do not link to
// it, or "".
func unlinked(guide Guide, sc *demo.Scenario) string {
	if guide == nil {
		return "expect guide: no guide to hold it to"
	}
	have := guide.LinksTo(sc.ID)
	var missing demo.GuideLinks
	for _, t := range sc.Guide.Tree {
		if !slices.Contains(have.Tree, t) {
			missing.Tree = append(missing.Tree, t)
		}
	}
	for _, q := range sc.Guide.Quiz {
		if !slices.Contains(have.Quiz, q) {
			missing.Quiz = append(missing.Quiz, q)
		}
	}
	if len(missing.Tree)+len(missing.Quiz) == 0 {
		return ""
	}
	return fmt.Sprintf("expect guide: %s of guide.yaml do not link to it (it is linked from %s)", places(missing), orNothing(places(have)))
}

// stated is what x states, in a line.
func stated(x demo.Expected) string {
	var s []string
	switch {
	case x.Verdict == "":
	case len(x.Findings) == 1:
		s = append(s, fmt.Sprintf("verdict %s, 1 finding", x.Verdict))
	case len(x.Findings) > 1:
		s = append(s, fmt.Sprintf("verdict %s, %d findings", x.Verdict, len(x.Findings)))
	default:
		s = append(s, "verdict "+x.Verdict)
	}
	if len(x.Answers) > 0 {
		s = append(s, "answer "+strings.Join(x.Answers, ", "))
	}
	if x.Finder != nil {
		s = append(s, "finder "+x.Finder.String())
	}
	return strings.Join(s, "; ")
}

// count is how many expectations x states: a verdict with its findings,
// each answer, the finder's.
func count(x demo.Expected) int {
	n := len(x.Answers)
	if x.Verdict != "" {
		n++
	}
	if x.Finder != nil {
		n++
	}
	return n
}

func places(g demo.GuideLinks) string {
	var s []string
	for _, t := range g.Tree {
		s = append(s, "tree "+t)
	}
	for _, q := range g.Quiz {
		s = append(s, fmt.Sprintf("quiz %d", q))
	}
	return strings.Join(s, ", ")
}

func orNothing(s string) string {
	if s == "" {
		return "nowhere"
	}
	return s
}

// where is a difference as the loader writes its errors: file:line.
func where(file string, line int, id, msg string) string {
	return (&script.LoadError{File: file, Line: line, Msg: fmt.Sprintf("scenario %q: %s", id, msg)}).Error()
}
