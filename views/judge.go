package views

import (
	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
)

// Judge is the view model of the judge's answer on a learner's build
// (find.Judge): broken, with the shortest history as script lines, the
// finding in its family's words and the way to play it as frames; holds,
// for every history within the bounds (said in words) or up to a depth;
// or never gets the work done, with the closest it came.
type Judge struct {
	Page
	Here Place // the built scenario's first frame, where the judge starts
	J    find.Judgement
	// Cut: the time ran out before the search did (the answer then holds
	// only to a depth, and is not kept: another moment may get further).
	Cut bool
	// Broken is the shortest break played as free play, End its last
	// frame, whose finding the answer words.
	Broken Place
	End    demo.Frame
	// Example is a history in which the work gets done, for a fix that
	// holds; Closest the history that came closest, for one that never
	// gets it done. Both are played as free play.
	Example, Closest Place
}

// NewJudge is the view model of j, judged from here; an error is a trace
// that does not play, which the judge never gives.
func NewJudge(here Place, j find.Judgement, cut bool) (Judge, error) {
	v := Judge{Here: here, J: j, Cut: cut}
	v.Page.Lang = here.Lang
	free := func(trace []demo.Action) Place {
		p := here
		p.Present, p.FreePlay = false, true
		for _, a := range trace {
			p.Place = p.Place.Then(a)
		}
		return p
	}
	switch {
	case j.Always.Found:
		v.Broken = free(j.Always.Trace)
		end, err := v.Broken.Frame()
		if err != nil {
			return v, err
		}
		v.End = end
	case j.Sometimes == nil:
	case j.Sometimes.Found:
		v.Example = free(j.Sometimes.Trace)
	default:
		v.Closest = free(j.Sometimes.Closest)
	}
	return v, nil
}

// Sc is the built scenario judged.
func (v Judge) Sc() *demo.Scenario { return v.Here.Sc }

// Verdict is the answer in the words a lab's tries state it in ("broken
// in 5", "holds", "never"), for a test to read.
func (v Judge) Verdict() string { return v.J.Verdict() }

// Lines are a history as the script lines a scenario writes.
func (v Judge) Lines(trace []demo.Action) []string {
	var out []string
	for _, a := range trace {
		out = append(out, ScriptLine(v.Sc(), v.Here.On, demo.Canonical(v.Sc(), a)))
	}
	return out
}

// Promise is the always property the build is held to, in the page's
// language.
func (v Judge) Promise() string { return v.J.Always.Property.Says.In(v.Lang) }

// Goal is the sometimes property (the work gets done) in the page's
// language; "" for a scenario that names none.
func (v Judge) Goal() string {
	if v.J.Sometimes == nil {
		return ""
	}
	return v.J.Sometimes.Property.Says.In(v.Lang)
}

// Never says the build breaks nothing but never gets the work done.
func (v Judge) Never() bool {
	return !v.J.Always.Found && v.J.Sometimes != nil && !v.J.Sometimes.Found
}

// States are the distinct states the judge explored.
func (v Judge) States() int { return v.J.Always.States }

// LabURL is the lab's page with the build judged, to change it.
func (v Judge) LabURL() string { return v.Here.EditURL() }
