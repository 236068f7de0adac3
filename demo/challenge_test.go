package demo_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/internal/testkit"
)

func challenge(t *testing.T, id string) *demo.Challenge {
	t.Helper()
	ch, ok := testkit.Catalog(t).Challenge(id)
	if !ok {
		t.Fatalf("no challenge %s in scenarios.yaml", id)
	}
	return ch
}

// shortest is the finder's shortest break from ch's start, as a history.
func shortest(t *testing.T, ch *demo.Challenge) string {
	t.Helper()
	prop, _ := ch.Sc.Promise()
	r, err := find.Find(ch.Start(), prop, find.Options{Depth: ch.Moves})
	if err != nil || !r.Found {
		t.Fatalf("%s: the finder finds no break (%v)", ch.ID, err)
	}
	return r.Place().Play
}

// A break is judged by the model on the learner's own history: the
// finder's shortest breaks it at par, and so does a longer way round,
// counted to its first break (actions after it are not counted).
func TestBreakCountsMoves(t *testing.T) {
	for _, id := range []string{"gc-pause-break", "release-other-break", "lost-update-break"} {
		t.Run(id, func(t *testing.T) {
			ch := challenge(t, id)
			play := shortest(t, ch)
			par := strings.Count(play, "\n") + 1
			at, err := ch.Break(play)
			if err != nil {
				t.Fatal(err)
			}
			if !at.Broken || at.Moves != par || !at.InTime(ch) {
				t.Fatalf("the finder's history: broken=%v in %d, want broken in %d within %d", at.Broken, at.Moves, par, ch.Moves)
			}
			prop, _ := ch.Sc.Promise()
			if at.Violation.Kind != prop.Kind {
				t.Errorf("violation %v, want one of kind %v", at.Violation.Kind, prop.Kind)
			}
			// The same history played on past its break counts to the break.
			offers, err := at.Place.Offers()
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range offers {
				if o.Enabled() {
					longer := play + "\n" + o.Action.Source
					if at2, err := ch.Break(longer); err != nil || at2.Moves != par || at2.Played != par {
						t.Errorf("%q: moves %d, played %d (%v), want the break at %d", longer, at2.Moves, at2.Played, err, par)
					}
					break
				}
			}
		})
	}
}

// A history that breaks nothing is not a break, with the place it stands
// at; a history that does not parse is a HistoryError naming its line.
func TestBreakRefusesWhatBreaksNothing(t *testing.T) {
	ch := challenge(t, "gc-pause-break")
	at, err := ch.Break("A acquire 10\nA write A")
	if err != nil {
		t.Fatal(err)
	}
	if at.Broken || at.Played != 2 || at.InTime(ch) {
		t.Fatalf("a holder's own write: broken=%v played=%d, want not broken, 2 played", at.Broken, at.Played)
	}
	if at.Place.Play != "A acquire 10\nA write A" {
		t.Errorf("place %q, want the history played", at.Place.Play)
	}
	_, err = ch.Break("A acquire 10\nA fly away")
	var he *demo.HistoryError
	if !errors.As(err, &he) || he.Index != 2 {
		t.Fatalf("a history with a made-up verb: %v, want a HistoryError at action 2", err)
	}
	// Too many moves: broken, but not within the challenge.
	slow := challenge(t, "gc-pause-break")
	tight := *slow
	tight.Moves = 3
	at, err = tight.Break(shortest(t, slow))
	if err != nil || !at.Broken || at.InTime(&tight) {
		t.Fatalf("a break in %d with 3 moves: broken=%v in time=%v (%v), want broken, not in time", at.Moves, at.Broken, at.InTime(&tight), err)
	}
}

// A fix is solved when the judge proves the built lab holds; the starter
// is broken, with the judge's shortest break as its trace.
func TestFixSolvedByTheJudge(t *testing.T) {
	if testing.Short() {
		t.Skip("judges two builds of a lab: a few seconds")
	}
	ch := challenge(t, "gc-pause-fix")
	for _, try := range ch.Sc.Lab.Tries {
		if try.Name != "fencing" && try.Name != "starter" {
			continue
		}
		built, err := demo.Apply(ch.Sc, try.Build)
		if err != nil {
			t.Fatal(err)
		}
		j, err := find.Judge(demo.Place{Sc: built, On: built.Default, Step: 1}, find.Options{})
		if err != nil {
			t.Fatal(err)
		}
		switch try.Name {
		case "fencing":
			if !demo.Fixed(j.Verdict()) {
				t.Errorf("the resource checking tokens: %s, want solved (holds)", j.Verdict())
			}
		case "starter":
			if demo.Fixed(j.Verdict()) || !j.Always.Found || len(j.Always.Trace) == 0 {
				t.Errorf("the starter: %s with a trace of %d, want broken with its trace", j.Verdict(), len(j.Always.Trace))
			}
		}
	}
}

// Any history the model judges a violation wins, not only the finder's:
// A pauses before its write, and writes after B, in 7 actions.
func TestBreakAnyHistory(t *testing.T) {
	ch := challenge(t, "gc-pause-break")
	at, err := ch.Break("A acquire 10\nA pause\ntick 10\nB acquire 10\nB write B\nA resume\nA write A")
	if err != nil {
		t.Fatal(err)
	}
	if !at.Broken || at.Moves != 7 || !at.InTime(ch) || at.Violation.Kind != demo.StaleWrite {
		t.Fatalf("a pause before the write: broken=%v in %d (%v), want a stale write in 7, within %d", at.Broken, at.Moves, at.Violation.Kind, ch.Moves)
	}
}
