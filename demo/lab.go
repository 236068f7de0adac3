package demo

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// A lab is a scenario whose fix the learner makes: the programs its clients
// run, the scripts its store runs, its settings (the resource's rule, the
// switch). The learner's Build, applied to the scenario (Apply), is a
// scenario of its own, which the judge (find.Judge) searches for the
// shortest way to break it, or proves within its bounds. Beside the lab,
// its reference solutions and the classic wrong tries the texts discuss are
// data (Tries), each with the judge's answer, so that a lab is checked as a
// scenario's expectations are.
type Lab struct {
	Goal Text // what the learner builds, in a sentence or two
	// Clients are those whose programs the learner writes; the others run
	// the script's.
	Clients []string
	// Palette are the blocks a program is made of, the right ones and the
	// distractors: a learner may arrange them, or write lines of the
	// scenario's own grammar.
	Palette  []Block
	Settings []Setting
	// Scripts are the scenario's scripts (Scenario.Scripts) the learner
	// rewrites.
	Scripts []string
	// Property is the promise the judge holds a fix to, where it is not the
	// scenario's own: naive-renewal's scenario promises no stale write,
	// which no renewal script can keep through a pause (only fencing can),
	// so its lab holds the script to what the script alone decides.
	Property string
	// Sometimes is the good thing a fix must still let happen (a sometimes
	// property), so that a fix that stops everyone is told from a fix.
	Sometimes string
	// Time bounds how far the judge lets time move, in the scenario's
	// unit: with programs run once and faults bounded, the judge can then
	// try every history. Steps, when set, are the amounts time moves by at
	// a time (Scenario.TimeSteps).
	Time    int
	Steps   []int
	Starter Build
	Tries   []Try
}

// Block is one block of a program: an action line without its client
// ("acquire 10", "write $me"), what it does in words, and the client whose
// program it belongs in ("" for any: a statement naming A's amount is A's).
type Block struct {
	Line   string
	Label  Text
	Client string
}

// Setting is one choice the learner makes beside the programs: the
// scenario's switch (its name is the switch's), or a value a program line
// names as $NAME (a lease, a margin).
type Setting struct {
	Name   string
	Label  Text
	Values []string
}

// Try is a build the judge is held to: a reference solution or a classic
// wrong try, with what the judge must answer (Verdict's words: "broken in
// N", "holds", "never").
type Try struct {
	Name   string
	Label  Text
	Build  Build
	Expect string
	Line   int // where it is written, for a check's message
}

// Build is what a learner made of a lab: each client's program, one action
// line each (without the client, $me for its name, $NAME for a setting),
// each setting's value and each script's text.
type Build struct {
	Programs map[string][]string
	Settings map[string]string
	Scripts  map[string]string
}

// The bounds on a build, so that no address can make a server judge for
// long or hold much: a lab's program is a handful of lines.
const (
	MaxProgram = 15        // lines a client's program has at most (the finder's 4 bits)
	MaxScript  = 4096      // bytes a script has at most
	MaxBuild   = 16 * 1024 // bytes a whole build has at most, written out
)

// BuildError is what is wrong with a build, where: a client's program and
// its line, a setting, or a script; Index is from 1 (0 for the part as a
// whole). JA is Msg in Japanese.
type BuildError struct {
	Part  string // "program A", "setting fencing", "script release"
	Index int
	Msg   string
	JA    string
}

func (e *BuildError) Error() string {
	if e.Index > 0 {
		return fmt.Sprintf("%s, line %d: %s", e.Part, e.Index, e.Msg)
	}
	return e.Part + ": " + e.Msg
}

// Apply makes the scenario that b builds in lab scenario sc: its clients run
// b's programs (one move a line, client by client), then the world does
// what the script has it do (time, pauses, nodes); the switch and $NAME
// settings take b's values; b's scripts replace the scenario's. Its
// property is the lab's when it names one (else the scenario's), its
// Sometimes the lab's. It is a scenario of
// its own, which plays, saves and is judged as any.
func Apply(sc *Scenario, b Build) (*Scenario, error) {
	lab := sc.Lab
	if lab == nil {
		return nil, fmt.Errorf("scenario %s has no lab", sc.ID)
	}
	if err := lab.check(b); err != nil {
		return nil, err
	}
	d := *sc
	d.Lab, d.Built = nil, b.String() // a built scenario is no lab: it is one answer to it
	d.Challenges = nil               // nor does it set the lab's challenges: it answers one
	d.Lesson = lab.Goal
	d.Sometimes = lab.Sometimes
	if lab.Property != "" {
		d.Property = lab.Property
	}
	d.TimeBound, d.TimeSteps = lab.Time, slices.Clone(lab.Steps)
	d.Expect, d.Guide = [2]Expected{}, GuideLinks{}
	if v, ok := b.Settings[sc.Switch]; ok {
		d.Default = v == "on"
	}
	for name, v := range b.Settings {
		if name != sc.Switch && d.Family.Configure != nil {
			d.Family.Configure(&d, name, v)
		}
	}
	d.Scripts = slices.Clone(sc.Scripts)
	for i, s := range d.Scripts {
		if text, ok := b.Scripts[s.Name]; ok {
			d.Scripts[i].Lua, d.Scripts[i].Line = text, 0
		}
	}
	moves, err := lab.moves(&d, b)
	if err != nil {
		return nil, err
	}
	d.Moves = moves
	if d.Family.Check != nil {
		if err := d.Family.Check(&d); err != nil {
			return nil, &BuildError{Part: "scripts", Msg: err.Error(), JA: err.Error()}
		}
	}
	if err := Rehearse(&d); err != nil {
		return nil, lab.playError(&d, b, err)
	}
	return &d, nil
}

// check says what is wrong with b's shape for the lab, before anything is
// read as an action.
func (lab *Lab) check(b Build) error {
	if n := len(b.String()); n > MaxBuild {
		return &BuildError{Part: "build", Msg: fmt.Sprintf("%d bytes, more than the %d a build may have", n, MaxBuild),
			JA: fmt.Sprintf("%d バイトあり、上限の %d を超えている", n, MaxBuild)}
	}
	for c, lines := range b.Programs {
		if !slices.Contains(lab.Clients, c) {
			return &BuildError{Part: "program " + c, Msg: "this lab has no program of " + c + " to write (" + strings.Join(lab.Clients, ", ") + ")",
				JA: "この演習で書けるプログラムは " + strings.Join(lab.Clients, ", ") + " のもので、" + c + " のものは無い"}
		}
		if len(lines) > MaxProgram {
			return &BuildError{Part: "program " + c, Msg: fmt.Sprintf("%d lines, more than the %d a program may have", len(lines), MaxProgram),
				JA: fmt.Sprintf("%d 行あり、上限の %d 行を超えている", len(lines), MaxProgram)}
		}
	}
	for name, v := range b.Settings {
		i := slices.IndexFunc(lab.Settings, func(s Setting) bool { return s.Name == name })
		if i < 0 {
			return &BuildError{Part: "setting " + name, Msg: "this lab has no such setting", JA: "この演習にこの設定は無い"}
		}
		if !slices.Contains(lab.Settings[i].Values, v) {
			return &BuildError{Part: "setting " + name, Msg: fmt.Sprintf("%q is not one of %s", v, strings.Join(lab.Settings[i].Values, ", ")),
				JA: fmt.Sprintf("%q は %s のどれでもない", v, strings.Join(lab.Settings[i].Values, ", "))}
		}
	}
	for name, text := range b.Scripts {
		if !slices.Contains(lab.Scripts, name) {
			return &BuildError{Part: "script " + name, Msg: "this lab has no such script to write", JA: "この演習で書けるスクリプトにこれは無い"}
		}
		if len(text) > MaxScript {
			return &BuildError{Part: "script " + name, Msg: fmt.Sprintf("%d bytes, more than the %d a script may have", len(text), MaxScript),
				JA: fmt.Sprintf("%d バイトあり、上限の %d を超えている", len(text), MaxScript)}
		}
	}
	return nil
}

// moves are the built scenario's: each program line a move of its own,
// client by client in the lab's order, then the script's moves with the
// built clients' own actions taken out (they run their programs instead).
func (lab *Lab) moves(d *Scenario, b Build) ([]Move, error) {
	var moves []Move
	for _, c := range lab.Clients {
		for i, line := range b.Programs[c] {
			a, err := lab.action(d, b, c, line)
			if err != nil {
				return nil, &BuildError{Part: "program " + c, Index: i + 1, Msg: err.Error(), JA: err.Error()}
			}
			n := FreeNarration(d, a)
			moves = append(moves, Move{Narration: n, Do: []Action{a}})
		}
	}
	for _, m := range d.Moves {
		var keep []Action
		for _, a := range m.Do {
			if !slices.Contains(lab.Clients, a.Who) || a.Verb == Pause || a.Verb == Resume || a.Verb == Crash {
				keep = append(keep, a)
			}
		}
		if len(keep) == 0 {
			continue
		}
		moves = append(moves, Move{Narration: worldNarration(d, keep), Do: keep})
	}
	return moves, nil
}

// action reads one program line of client c, with b's settings filled in.
func (lab *Lab) action(d *Scenario, b Build, c, line string) (Action, error) {
	line = strings.ReplaceAll(line, "$me", c)
	for _, s := range lab.Settings {
		if v, ok := b.Settings[s.Name]; ok {
			line = strings.ReplaceAll(line, "$"+s.Name, v)
		} else if len(s.Values) > 0 {
			line = strings.ReplaceAll(line, "$"+s.Name, s.Values[0])
		}
	}
	a, err := ParseAction(d.Family, d.Store, c+" "+line)
	if err != nil {
		return a, err
	}
	switch spec, _ := d.Family.Verb(d.Store, a.Verb); {
	case a.Verb == Tick || a.Verb == Pause || a.Verb == Resume || a.Verb == Crash:
		return a, fmt.Errorf("%q: time, pauses and crashes are the world's, which the judge tries; a program has the client's own calls", a.Source)
	case spec.Node:
		return a, fmt.Errorf("%q: %s is done by a node, not a client's program", a.Source, a.Verb)
	}
	return a, nil
}

// worldNarration words a move of the world's actions as free play would,
// one sentence each: the script's own words were written for its clients'
// programs, not the learner's.
func worldNarration(sc *Scenario, as []Action) Narration {
	var n Narration
	for i, a := range as {
		f := FreeNarration(sc, a)
		if i == 0 {
			n.Title = f.Title
		}
		n.Text = n.Text.Join(f.Text)
		if i < len(as)-1 {
			n.Text = n.Text.Join(Text{JA: " ", EN: " "})
		}
	}
	return n
}

// playError says which program line a rehearsal could not play: the
// first of the client's lines that reads as the action refused (a
// statement the model does not play is read, and refused when played).
func (lab *Lab) playError(d *Scenario, b Build, err error) error {
	var ae *ActionError
	if !errors.As(err, &ae) {
		return &BuildError{Part: "build", Msg: err.Error(), JA: err.Error()}
	}
	be := &BuildError{Part: "program " + ae.Action.Who, Msg: ae.Msg, JA: orElse(ae.JA, ae.Msg)}
	for i, line := range b.Programs[ae.Action.Who] {
		if a, err := lab.action(d, b, ae.Action.Who, line); err == nil && a.Source == ae.Action.Source {
			be.Index = i + 1
			break
		}
	}
	return be
}

func orElse(s, or string) string {
	if s != "" {
		return s
	}
	return or
}
