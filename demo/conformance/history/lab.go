package history

import (
	"fmt"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
)

// The kinds of a lab try's history.
const (
	LabScript Kind = "lab script"      // the built scenario's scripted frames
	LabBreak  Kind = "judge's break"   // the judge's shortest history that breaks the build
	LabGood   Kind = "judge's example" // the judge's shortest history to the good thing
	LabNear   Kind = "judge's closest" // for a try that never gets there, the history that came closest
)

// JudgeStates is the judge's budget of states for a try, the check
// command's: the same answer `go run . check` prints for it.
const JudgeStates = 2_000_000

// Try is one of a lab's tries, built, with the histories a suite replays.
type Try struct {
	demo.Try
	Built     *demo.Scenario
	Verdict   string // the judge's answer, in the words a try states it in
	Histories []History
	// Unbuilt is why the model does not build the try (a bound of the
	// sandbox's the script runs into, a command it does not play): it has
	// no histories, and a suite says so.
	Unbuilt error
}

// Labs returns, for each try of sc's lab (its reference solutions and the
// classic wrong tries), the histories a learner sees it play: the built
// scenario's script, from its first frame to its last; and the history
// the lab's page plays with the judge's answer: the judge's shortest break
// when it finds one; when nothing breaks it, its example of the good thing
// the lab's Sometimes names, or, when that never happens, the history that
// came closest. Each is named by lab and try, "lab
// release-other/starter: judge's break". A try the model does not build
// has none, and says why (Unbuilt), as the check command does; a scenario
// with no lab has no tries.
func Labs(sc *demo.Scenario) ([]Try, error) {
	if sc.Lab == nil {
		return nil, nil
	}
	var out []Try
	for _, t := range sc.Lab.Tries {
		try, err := labTry(sc, t)
		if err != nil {
			return nil, err
		}
		out = append(out, try)
	}
	return out, nil
}

func labTry(sc *demo.Scenario, t demo.Try) (Try, error) {
	built, err := demo.Apply(sc, t.Build)
	if err != nil {
		return Try{Try: t, Unbuilt: err}, nil
	}
	name := func(k Kind) string { return fmt.Sprintf("lab %s/%s: %s", sc.ID, t.Name, k) }
	try := Try{Try: t, Built: built}
	try.Histories = append(try.Histories, History{
		Place: demo.Place{Sc: built, On: built.Default, Step: built.Frames()}, Kind: LabScript, Name: name(LabScript)})
	start := demo.Place{Sc: built, On: built.Default, Step: 1}
	j, err := find.Judge(start, find.Options{MaxStates: JudgeStates})
	if err != nil {
		return Try{}, fmt.Errorf("lab %s, try %s: the judge: %w", sc.ID, t.Name, err)
	}
	try.Verdict = j.Verdict()
	if j.Always.Found && len(j.Always.Trace) > 0 {
		try.Histories = append(try.Histories, History{Place: j.Always.Place(), Kind: LabBreak, Name: name(LabBreak)})
	}
	if s := j.Sometimes; s != nil && s.Found && len(s.Trace) > 0 {
		try.Histories = append(try.Histories, History{Place: s.Place(), Kind: LabGood, Name: name(LabGood)})
	} else if s != nil && !s.Found && len(s.Closest) > 0 {
		p := start
		for _, a := range s.Closest {
			p = p.Then(a)
		}
		try.Histories = append(try.Histories, History{Place: p, Kind: LabNear, Name: name(LabNear)})
	}
	try.Histories = dedupe(try.Histories)
	return try, nil
}

// EachLabTry calls each with every try that builds of every lab of a
// scenario in scs that replay says a suite replays, as a suite's lab test
// walks them: a try the model does not build is logged in a line and
// counted in tl, not replayed. It fails tb when no lab is replayed, so
// that a suite cannot pass having replayed nothing.
func EachLabTry(tb testing.TB, scs []*demo.Scenario, replay func(*demo.Scenario) bool, tl *Tally, each func(*demo.Scenario, Try)) {
	tb.Helper()
	labs := 0
	for _, sc := range scs {
		if sc.Lab == nil || !replay(sc) {
			continue
		}
		labs++
		tries, err := Labs(sc)
		if err != nil {
			tb.Fatal(err)
		}
		for _, try := range tries {
			if try.Unbuilt != nil {
				tl.Add("tries the model does not build", 1)
				tb.Logf("not replayed: lab %s, try %s: the model does not build it: %v", sc.ID, try.Name, try.Unbuilt)
				continue
			}
			each(sc, try)
		}
	}
	if labs == 0 {
		tb.Fatalf("%s: no lab of the family's in the catalog: nothing replayed", tl.Family)
	}
}
