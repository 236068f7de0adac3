package demo

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Free play: from any frame a visitor plays actions of their own choosing,
// one a frame, instead of the script's moves. The history is a list of
// action lines in the form scenarios.yaml writes them, so that a history in
// an address means what the same lines mean in a script, and a history
// saved as YAML plays the same frames.

// The bounds on a history, so that no address can make a server play for
// long: a lecture's free play is a few dozen actions of a few words.
const (
	MaxPlay = 200 // actions in one history
	MaxLine = 160 // bytes in one action line
)

// Free plays a as a free-play frame of its own after the frame shown now.
// An action that cannot be played (a paused client's write, a verb the store
// does not take) is an *ActionError, and changes nothing (as Apply).
func (r *Run) Free(a Action) error {
	if r.err != nil {
		return r.err
	}
	played := len(r.free)
	if r.lean && r.base > 0 {
		played = r.frame - r.base // a lean run counts its history without keeping it
	}
	if played >= MaxPlay {
		return fmt.Errorf("a free-play history takes at most %d actions", MaxPlay)
	}
	if a.Verb == ProgramStep {
		var err error
		if a, err = step(r.sc, r.on, a); err != nil { // a program's step, as this position spells it
			return err
		}
	}
	base, was := r.base, r.was
	if r.base == 0 {
		r.base = r.frame
	}
	r.frame++
	r.was = r.now
	err := r.apply(&a)
	if err == nil {
		err = r.err // a store that failed on the way has stopped the run
	}
	if err != nil {
		r.frame--
		r.base, r.was = base, was
		return err
	}
	if !r.lean {
		r.free = append(r.free, a)
	}
	r.checkStuck()
	return nil
}

// Played returns the free-play actions played so far, in order.
func (r *Run) Played() []Action { return r.free }

// HistoryError is the first free-play action of a history that cannot be
// read or played; the Index-1 before it are valid, so a page can offer the
// way back to them.
type HistoryError struct {
	Index int // from 1
	Line  string
	Err   error
}

func (e *HistoryError) Error() string {
	return fmt.Sprintf("free-play action %d, %q: %v", e.Index, e.Line, e.Err)
}

func (e *HistoryError) Unwrap() error { return e.Err }

// ParseHistory plays the free-play history play from the place (sc, on,
// step) and says how many of its leading actions are valid and playable,
// and, when not all of them are, why the first one that is not is not (a
// *HistoryError).
func ParseHistory(sc *Scenario, on bool, step int, play string) (valid int, err error) {
	_, err = Place{Sc: sc, On: on, Step: step, Play: play}.Run()
	var he *HistoryError
	switch {
	case errors.As(err, &he):
		return he.Index - 1, err
	case err != nil:
		return 0, err
	case play == "":
		return 0, nil
	}
	return strings.Count(play, "\n") + 1, nil
}

// ProgramStep is a free-play action of a family whose client actions are
// long (Family.Short, a database's statements): "W1 step 2" is W1's second
// call in its program, as the script writes that program in the position
// played. Each position spells a step its own way (with FOR UPDATE or
// without, the other lock order), so the switch replays the same history
// with the other code. The run reads the step in its own position (Run.Free).
const ProgramStep Verb = "step"

// StepArgs is a program step: Step, from 1; or, from an address written
// before steps, Stmt, the scenario's Stmt-th statement (Statements), which
// stands for the step of the client's program that says it.
type StepArgs struct{ Step, Stmt int }

// ParseFree reads one free-play line for sc: an action in the form a script
// writes it, or, for a family whose actions are long (a database's
// statements), "WHO step K", the Kth call of WHO's program (ProgramStep).
// "WHO stmt N", the scenario's Nth distinct statement, is how an address
// wrote it before: it is read as the step of WHO's program that says it.
// The action's Source is its canonical form.
func ParseFree(sc *Scenario, line string) (Action, error) {
	if len(line) > MaxLine {
		return Action{}, fmt.Errorf("an action line has at most %d bytes", MaxLine)
	}
	f := strings.Fields(line)
	if len(f) == 3 && (strings.EqualFold(f[1], "step") || strings.EqualFold(f[1], "stmt")) {
		return parseStep(sc, f)
	}
	a, err := ParseAction(sc.Family, sc.Store, line)
	if err != nil {
		return a, err
	}
	a.When, a.Line = "", 0
	a.Source = Canonical(sc, a)
	return a, nil
}

// parseStep reads "WHO step K" or "WHO stmt N" (f, its words).
func parseStep(sc *Scenario, f []string) (Action, error) {
	word := strings.ToLower(f[1])
	n, err := Number(f[2], map[string]string{"step": "step number", "stmt": "statement number"}[word])
	if err == nil && word == "stmt" {
		if st := Statements(sc); n < 1 || n > len(st) {
			err = fmt.Errorf("the scenario has statements 1 to %d", len(st))
		}
	}
	if err == nil && word == "step" {
		if k := max(len(Program(sc, false, f[0])), len(Program(sc, true, f[0]))); n < 1 || n > k {
			err = fmt.Errorf("%s's program has steps 1 to %d", f[0], k)
		}
	}
	if err != nil {
		return Action{}, fmt.Errorf("%q: %w", strings.Join(f, " "), err)
	}
	a := Action{Who: f[0], Verb: ProgramStep, Args: StepArgs{Step: n}, Source: f[0] + " " + word + " " + f[2]}
	if word == "stmt" {
		a.Args = StepArgs{Stmt: n}
	}
	return a, nil
}

// Program is client who's calls in sc's script played in position on, in
// order: its family's actions, not the engine's verbs or its nodes'. A
// program step (ProgramStep) names one of them.
func Program(sc *Scenario, on bool, who string) []Action {
	var out []Action
	for _, m := range sc.Moves {
		for _, a := range m.Do {
			if a.Who != who || a.Verb == Tick || a.Verb.Engine() || !a.playsWhen(on) {
				continue
			}
			if spec, _ := sc.Family.Verb(sc.Store, a.Verb); spec.Node {
				continue
			}
			a.When, a.Line = "", 0
			out = append(out, a)
		}
	}
	return out
}

// step reads a program step in the position on: the call of the client's
// program it names, written out ("W1 sql BEGIN"); any other action is
// itself. An old address's statement (Stmt) is the step that says it in
// this position's program, or else in the other's: a history played with
// the switch one way keeps its steps the other way.
func step(sc *Scenario, on bool, a Action) (Action, error) {
	if a.Verb != ProgramStep {
		return a, nil
	}
	args, _ := a.Args.(StepArgs)
	prog := Program(sc, on, a.Who)
	k := args.Step
	if args.Stmt > 0 {
		k = 0
		if st := Statements(sc); args.Stmt <= len(st) {
			tail := statementTail(st[args.Stmt-1])
			k = stepSaying(prog, tail)
			if k == 0 {
				k = stepSaying(Program(sc, !on, a.Who), tail)
			}
		}
		if k == 0 {
			return a, &ActionError{Action: a, Msg: fmt.Sprintf("%s's program never says statement %d", a.Who, args.Stmt),
				JA: fmt.Sprintf("%s のプログラムには文 %d が無い", a.Who, args.Stmt)}
		}
	}
	if k < 1 || k > len(prog) {
		return a, &ActionError{Action: a,
			Msg: fmt.Sprintf("%s's program has %d steps with %s %s", a.Who, len(prog), sc.Switch, OnOff(on)),
			JA:  fmt.Sprintf("%s のプログラムは、スイッチ「%s」が%sでは %d 手しかない", a.Who, sc.SwitchLabel.JA, map[bool]string{true: "有", false: "無"}[on], len(prog))}
	}
	s := prog[k-1]
	s.Source = a.Who + " " + statementTail(s)
	return s, nil
}

// stepSaying is the first step of prog whose words are tail, from 1; 0 for
// none.
func stepSaying(prog []Action, tail string) int {
	for i, a := range prog {
		if statementTail(a) == tail {
			return i + 1
		}
	}
	return 0
}

// Spell is a free-play line as a script writes it in the position on: a
// program step is the call it names, its statement written out, so a
// history can be read, or pasted into scenarios.yaml as a scenario's moves.
// A line that names nothing playable stays as it is.
func Spell(sc *Scenario, on bool, line string) string {
	a, err := ParseFree(sc, line)
	if err != nil || a.Verb != ProgramStep {
		return line
	}
	if s, err := step(sc, on, a); err == nil {
		return s.Source
	}
	return line
}

// Canonical is a's one form in a free-play history: the verb in lower case,
// one space between words, and for a family with Short actions the
// statement's number instead of its words.
func Canonical(sc *Scenario, a Action) string {
	f := strings.Fields(a.Source)
	if a.Verb == Tick {
		return "tick " + strconv.Itoa(a.Args.(TickArgs).Forward)
	}
	if len(f) == 3 && (strings.EqualFold(f[1], "stmt") || strings.EqualFold(f[1], "step")) {
		return f[0] + " " + strings.ToLower(f[1]) + " " + f[2]
	}
	if len(f) < 2 {
		return strings.Join(f, " ")
	}
	f[1] = string(a.Verb)
	if sc.Family.Short && !a.Verb.Engine() {
		tail := strings.Join(f[1:], " ")
		for i, s := range Statements(sc) {
			if statementTail(s) == tail {
				return f[0] + " stmt " + strconv.Itoa(i+1)
			}
		}
	}
	return strings.Join(f, " ")
}

// Statements are the distinct client actions of sc's moves that its family
// plays (not the engine's verbs), in the order they first appear in either
// position: the menu a Short family's free play numbers.
func Statements(sc *Scenario) []Action {
	var out []Action
	var seen []string
	for _, m := range sc.Moves {
		for _, a := range m.Do {
			if a.Verb == Tick || a.Verb.Engine() {
				continue
			}
			if spec, _ := sc.Family.Verb(sc.Store, a.Verb); spec.Node {
				continue
			}
			if t := statementTail(a); !slices.Contains(seen, t) {
				seen, out = append(seen, t), append(out, a)
			}
		}
	}
	return out
}

// statementTail is an action's words after who does it, the verb in lower
// case: what two clients saying the same thing share.
func statementTail(a Action) string {
	f := strings.Fields(a.Source)
	if len(f) < 2 {
		return ""
	}
	f[1] = string(a.Verb)
	return strings.Join(f[1:], " ")
}

// NoFreePlayError is a family that does not offer actions yet: its
// scenarios play as scripts only.
type NoFreePlayError struct{ Family string }

func (e *NoFreePlayError) Error() string {
	return "the " + e.Family + " store has no free play yet"
}

// Longhand is a in the words a script writes it in the position on: a
// program step ("A step 3") is written out, so that a history can be
// pasted into scenarios.yaml as a scenario's moves.
func Longhand(sc *Scenario, on bool, a Action) string { return Spell(sc, on, a.Source) }
