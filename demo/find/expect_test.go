package find_test

import (
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// shortDepth is how deep -short looks: none within D implies none within
// fewer, and a shortest violation in N implies none within N-1, so the
// short suite checks the shallow part of every expectation and the whole
// suite the rest.
const shortDepth = 4

// Every scenario and position meets what scenarios.yaml expects of the
// finder: the shortest history breaking the property has the length
// written, or none breaks it within the depth written, with the budget
// never the reason.
func TestFinderMeetsExpectations(t *testing.T) {
	for _, sc := range testkit.Catalog(t).Scenarios {
		for _, on := range []bool{false, true} {
			x := sc.Expect[boolIndex(on)].Finder
			if x == nil {
				continue
			}
			t.Run(testkit.Name(sc, on), func(t *testing.T) {
				prop, _ := sc.Promise()
				depth, want := x.N, *x
				if testing.Short() && x.N > shortDepth {
					depth, want = shortDepth, demo.Expectation{N: shortDepth}
				}
				res, err := find.Find(demo.Place{Sc: sc, On: on, Step: 1}, prop, find.Options{Depth: depth, MaxStates: 2_000_000})
				if err != nil {
					t.Fatal(err)
				}
				if res.OutOfBudget {
					t.Fatalf("the budget ran out at depth %d after %d states", res.Depth, res.States)
				}
				if got := (demo.Expectation{Found: res.Found, N: res.Depth}); got != want {
					t.Fatalf("found %v, want %v (trace %s)", got, want, sources(res.Trace))
				}
				if res.Found {
					replays(t, res)
				}
			})
		}
	}
}

// replays holds a found trace to what it claims: played as a free-play
// history from the start, its last frame has the violation.
func replays(t *testing.T, res find.Result) {
	t.Helper()
	f, err := res.Place().Frame()
	if err != nil {
		t.Fatalf("the trace does not play: %v", err)
	}
	for _, v := range f.Violations {
		if res.Property.Breaks(v, f.Holdings) {
			return
		}
	}
	t.Fatalf("the trace %s, played, breaks no %s", sources(res.Trace), res.Property.Name)
}

func sources(as []demo.Action) string {
	var s []string
	for _, a := range as {
		s = append(s, a.Source)
	}
	return strings.Join(s, "; ")
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}
