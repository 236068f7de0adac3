// Package history gives the conformance suites the histories they replay on
// a real server, each a place that a learner can reach on the page: the
// scenario's script, in both switch positions; the finder's trace from the
// first frame, for the scenario's own property, and the history of each
// other violation it met on the way (the "also met" list), as `go run .
// check` finds them; and a sample of free-play histories, each a walk over
// the actions the page offers, drawn from a fixed seed so that every run
// replays the same ones; and for a lab, each try's built script and the
// history the judge's answer plays (Labs). The suites compare the real
// server with what the page shows at every frame of each.
package history

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/views"
)

// The walks' bounds, a learner's free play of a few minutes; and the
// finder's, the check command's.
const (
	Seed       = 32 // the seed every walk is drawn from
	MinWalk    = 6  // actions in a walk, at least
	MaxWalk    = 12 // and at most
	FindStates = 1_000_000
)

// Kind says where a history comes from.
type Kind string

// The kinds of history.
const (
	Script  Kind = "script"   // the scenario's own moves
	Trace   Kind = "finder"   // the finder's shortest counterexample (or example)
	AlsoMet Kind = "also-met" // the history to another violation the finder met
	Walk    Kind = "walk"     // a seeded walk over the page's offers
)

// History is one history to replay: a place (the scripted step it leaves
// the script at, and the free-play actions after it), and where it comes
// from.
type History struct {
	demo.Place
	Kind Kind
	Name string // for a subtest and a message: "script", "finder", "also-met-stale-write", "walk-03"
}

func (h History) String() string {
	if h.Play == "" {
		return fmt.Sprintf("%s/%s %s (step %d)", h.Sc.ID, demo.OnOff(h.On), h.Name, h.Step)
	}
	return fmt.Sprintf("%s/%s %s (step %d, then %q)", h.Sc.ID, demo.OnOff(h.On), h.Name, h.Step, h.Play)
}

// Of returns the histories of sc in position on: the script, the finder's
// traces, and walks walks. Histories that play the same actions are kept
// once, under the first name.
func Of(sc *demo.Scenario, on bool, walks int) ([]History, error) {
	out := []History{{Place: demo.Place{Sc: sc, On: on, Step: sc.Frames()}, Kind: Script, Name: "script"}}
	found, err := Finder(sc, on)
	if err != nil {
		return nil, err
	}
	out = append(out, found...)
	ws, err := Walks(sc, on, walks)
	if err != nil {
		return nil, err
	}
	out = append(out, ws...)
	return dedupe(out), nil
}

// Finder runs the finder from the first frame for the scenario's property,
// with the bounds the check command uses, and returns its trace (when it
// found one) and the history of each other violation it met. A scenario
// with no property has none.
func Finder(sc *demo.Scenario, on bool) ([]History, error) {
	prop, ok := sc.Promise()
	if !ok || sc.Family.Offers == nil {
		return nil, nil
	}
	start := demo.Place{Sc: sc, On: on, Step: 1}
	res, err := find.Find(start, prop, find.Options{Depth: find.DefaultDepth, MaxStates: FindStates})
	if err != nil {
		return nil, fmt.Errorf("%s/%s: the finder: %w", sc.ID, demo.OnOff(on), err)
	}
	var out []History
	if res.Found && len(res.Trace) > 0 {
		out = append(out, History{Place: res.Place(), Kind: Trace, Name: "finder"})
	}
	for _, m := range res.Others {
		p := start
		for _, a := range m.Trace {
			p = p.Then(a)
		}
		out = append(out, History{Place: p, Kind: AlsoMet, Name: "also-met-" + m.Violation.Kind.String()})
	}
	return out, nil
}

// Walks returns n free-play histories of sc in position on. Each leaves the
// script at a step drawn at random and plays MinWalk to MaxWalk actions,
// each drawn (see draw) among those the page offers enabled where the walk
// stands: disabled ones, and those the store would turn away, are not
// drawn. A walk that reaches a frame with nothing enabled ends there.
func Walks(sc *demo.Scenario, on bool, n int) ([]History, error) {
	if sc.Family.Offers == nil || n == 0 {
		return nil, nil
	}
	var out []History
	for i := range n {
		rng := rand.New(rand.NewPCG(Seed, stream(sc.ID, on, i)))
		p := demo.Place{Sc: sc, On: on, Step: 1 + rng.IntN(sc.Frames())}
		for range MinWalk + rng.IntN(MaxWalk-MinWalk+1) {
			offers, err := p.Offers()
			if err != nil {
				return nil, fmt.Errorf("%s/%s walk %d: %w", sc.ID, demo.OnOff(on), i+1, err)
			}
			a, ok := draw(rng, p.Run, offers)
			if !ok {
				break
			}
			p = p.Then(a)
		}
		out = append(out, History{Place: p, Kind: Walk, Name: fmt.Sprintf("walk-%02d", i+1)})
	}
	return out, nil
}

// The walks draw what kind of action comes next before the action, so that
// a scenario with many nodes or amounts of time is not mostly those: a
// client's own call (SET NX, a statement, a lock recipe) weighs most, as
// it does in a learner's free play.
var weights = [...]int{
	call:  5, // a client's call of the family's
	deed:  2, // a client's write, pause, resume or crash
	world: 1, // a node's or the network's action
	clock: 2, // time passing
}

type group int

const (
	call group = iota
	deed
	world
	clock
)

func groupOf(a demo.Action) group {
	switch {
	case a.Verb == demo.Tick:
		return clock
	case a.Verb.Engine():
		return deed
	}
	return call
}

// draw picks one of the enabled offers: first its group by weights, among
// the groups that have one, then one of that group, each alike.
func draw(rng *rand.Rand, run func() (*demo.Run, error), offers []demo.Offer) (demo.Action, bool) {
	r, err := run()
	if err != nil {
		return demo.Action{}, false
	}
	var by [len(weights)][]demo.Action
	total := 0
	for _, o := range offers {
		if !o.Enabled() {
			continue
		}
		s := groupOf(o.Action)
		if s == call && r.Client(o.Action.Who) == nil {
			s = world
		}
		if len(by[s]) == 0 {
			total += weights[s]
		}
		by[s] = append(by[s], o.Action)
	}
	if total == 0 {
		return demo.Action{}, false
	}
	n := rng.IntN(total)
	for s, as := range by {
		if len(as) == 0 {
			continue
		}
		if n < weights[s] {
			return as[rng.IntN(len(as))], true
		}
		n -= weights[s]
	}
	return demo.Action{}, false
}

// stream is walk i's own stream of the seed, so that adding a walk or a
// scenario does not change the others.
func stream(id string, on bool, i int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%s/%d", id, demo.OnOff(on), i)
	return h.Sum64()
}

func dedupe(hs []History) []History {
	var out []History
	seen := map[demo.Place]bool{}
	for _, h := range hs {
		if !seen[h.Place] {
			seen[h.Place] = true
			out = append(out, h)
		}
	}
	return out
}

// Frame is one frame of a history with its place on the page.
type Frame struct {
	demo.Frame
	Here views.Place // the frame's address, in English
}

// Frames plays h from the first frame and calls each with every frame in
// turn: the script's up to the step h leaves it at, then one per free-play
// action. It stops at the first error each returns, and returns it.
func (h History) Frames(each func(Frame) error) error {
	r := demo.NewRun(h.Sc, h.On)
	at := func(p demo.Place) error {
		here := views.Place{Place: p, Lang: "en", FreePlay: p.Play != ""}
		return each(Frame{Frame: r.Frame(), Here: here})
	}
	if err := at(h.At(1)); err != nil {
		return err
	}
	for r.Index() < h.Step && r.Step() {
		if err := at(h.At(r.Index())); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("%s: the model stopped: %w", h, err)
	}
	actions, err := h.History()
	if err != nil {
		return fmt.Errorf("%s: %w", h, err)
	}
	p := h.At(h.Step)
	for _, a := range actions {
		if err := r.Free(a); err != nil {
			return fmt.Errorf("%s: %q: %w", h, a.Source, err)
		}
		p = p.Then(a)
		if err := at(p); err != nil {
			return err
		}
	}
	return nil
}
