package check

import (
	"fmt"
	"io"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
)

// A break challenge gives a learner moves actions, at least the finder's
// shortest break from its start, which the page shows as par once the
// learner is done: a challenge whose moves are fewer cannot be done, and
// is held here.

// challenges holds sc's break challenges to the finder: it prints each
// one's par and returns, for each whose moves are below it, a line that
// names the file and the challenge's line.
func challenges(file string, sc *demo.Scenario, states int, w io.Writer) []string {
	var out []string
	for i := range sc.Challenges {
		ch := &sc.Challenges[i]
		if ch.Kind != demo.BreakIt {
			continue
		}
		par, err := Par(ch, states)
		if err != nil {
			out = append(out, where(file, ch.Line, sc.ID, fmt.Sprintf("challenge %s: %v", ch.ID, err)))
			continue
		}
		if par == 0 {
			fmt.Fprintf(w, "%s, challenge %s: no break within its %d moves\n", sc.ID, ch.ID, ch.Moves)
			out = append(out, where(file, ch.Line, sc.ID, fmt.Sprintf("challenge %s: moves %d is below the finder's shortest break: none within %d", ch.ID, ch.Moves, ch.Moves)))
			continue
		}
		fmt.Fprintf(w, "%s, challenge %s: par %d, moves %d\n", sc.ID, ch.ID, par, ch.Moves)
	}
	return out
}

// Par is the finder's shortest break of ch's property from its start, in
// actions, searched as deep as ch's moves; 0 when none is that short, so
// the challenge cannot be done.
func Par(ch *demo.Challenge, states int) (int, error) {
	prop, ok := ch.Sc.Promise()
	if !ok {
		return 0, fmt.Errorf("scenario %s names no property", ch.Sc.ID)
	}
	r, err := find.Find(ch.Start(), prop, find.Options{Depth: ch.Moves, MaxStates: states})
	if err != nil {
		return 0, err
	}
	if !r.Found || len(r.Trace) > ch.Moves {
		return 0, nil
	}
	return len(r.Trace), nil
}

// breaks counts sc's break challenges, each an expectation held.
func breaks(sc *demo.Scenario) int {
	n := 0
	for _, ch := range sc.Challenges {
		if ch.Kind == demo.BreakIt {
			n++
		}
	}
	return n
}
