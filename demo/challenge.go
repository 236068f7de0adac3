package demo

import (
	"fmt"
	"strings"
)

// A challenge is a task set in a scenario, judged by the model and never by
// a script: "break it" (from a frame, with the switch in a position, make a
// history that breaks the scenario's property in at most Moves actions; any
// history the model judges a violation wins) or "fix it" (build the
// scenario's lab so that the judge says it holds).
type Challenge struct {
	ID    string
	Kind  ChallengeKind
	Title Text
	Task  Text
	// From and On are where a break starts: the scripted frame (from 1) and
	// the switch's position. Moves is how many actions a break may take,
	// at least the finder's shortest (the par shown once it is done).
	From  int
	On    bool
	Moves int
	Line  int // where it is written, for a check's message
	Sc    *Scenario
}

// ChallengeKind is what a challenge asks for.
type ChallengeKind string

const (
	BreakIt ChallengeKind = "break"
	FixIt   ChallengeKind = "fix"
)

// Start is the place a break starts from: the learner's free play begins
// there.
func (ch *Challenge) Start() Place { return Place{Sc: ch.Sc, On: ch.On, Step: ch.From} }

// Attempt is the model's answer on a learner's history for a break: the
// first action after which the run breaks the scenario's property (Moves,
// the actions it took to get there) or that nothing did.
type Attempt struct {
	Played    int // the actions of the history, all played
	Broken    bool
	Moves     int       // with Broken: the actions up to the first break
	Violation Violation // with Broken: the violation that breaks the property
	// Place is where the history stands: after its first break, or after
	// its last action.
	Place Place
}

// InTime reports whether a break came within the challenge's moves.
func (a Attempt) InTime(ch *Challenge) bool { return a.Broken && a.Moves <= ch.Moves }

// Break replays play (a free-play history, one action a line) from the
// challenge's start and asks the model, after each action, whether the run
// breaks the scenario's property: the first action that does ends the
// attempt. A history that does not read or play is a *HistoryError.
func (ch *Challenge) Break(play string) (Attempt, error) {
	if ch.Kind != BreakIt {
		return Attempt{}, fmt.Errorf("challenge %s is not one to break", ch.ID)
	}
	prop, ok := ch.Sc.Promise()
	if !ok {
		return Attempt{}, fmt.Errorf("scenario %s names no property to break", ch.Sc.ID)
	}
	start := ch.Start()
	r, err := start.Run()
	if err != nil {
		return Attempt{}, err
	}
	at := Attempt{Place: start}
	if play == "" {
		return at, nil
	}
	before := len(r.Violations()) // a break is one the learner's actions made
	for i, line := range strings.Split(play, "\n") {
		a, err := ParseFree(ch.Sc, line)
		if err == nil {
			err = r.Free(a)
		}
		if err != nil {
			return at, &HistoryError{Index: i + 1, Line: line, Err: err}
		}
		at.Played, at.Place = i+1, at.Place.Then(a)
		for _, v := range r.Violations()[before:] {
			if prop.Breaks(v, r.Holdings()) {
				at.Broken, at.Moves, at.Violation = true, i+1, v
				return at, nil
			}
		}
		before = len(r.Violations())
	}
	return at, nil
}

// Broken reports whether the challenge's start already breaks the
// property, which would leave nothing to do (the loader refuses it).
func (ch *Challenge) Broken() bool {
	prop, ok := ch.Sc.Promise()
	r, err := ch.Start().Run()
	if !ok || err != nil {
		return false
	}
	for _, v := range r.Violations() {
		if prop.Breaks(v, r.Holdings()) {
			return true
		}
	}
	return false
}

// Challenge returns the challenge with the given id, in whichever scenario
// of the catalog sets it.
func (c *Catalog) Challenge(id string) (*Challenge, bool) {
	for _, sc := range c.Scenarios {
		for i := range sc.Challenges {
			if sc.Challenges[i].ID == id {
				return &sc.Challenges[i], true
			}
		}
	}
	return nil, false
}

// Challenges lists every challenge of the catalog, in the file's order.
func (c *Catalog) Challenges() []*Challenge {
	var out []*Challenge
	for _, sc := range c.Scenarios {
		for i := range sc.Challenges {
			out = append(out, &sc.Challenges[i])
		}
	}
	return out
}

// Fixed reports whether the judge's verdict on a fix (find.Judgement's
// Verdict) solves a fix challenge: it holds for every history within the
// judge's bounds, and the work still gets done. "holds to D", where the
// budget ran out first, is not yet a proof.
func Fixed(verdict string) bool { return verdict == "holds" }
