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
	base, was := r.base, r.was
	if r.base == 0 {
		r.base = r.frame
	}
	r.frame++
	r.was = r.now
	err := r.Apply(a)
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

// ParseFree reads one free-play line for sc: an action in the form a script
// writes it, or, for a family whose actions are long (a database's
// statements), "WHO stmt N", the scenario's Nth distinct statement (see
// Statements) said by WHO. The action's Source is its canonical form.
func ParseFree(sc *Scenario, line string) (Action, error) {
	if len(line) > MaxLine {
		return Action{}, fmt.Errorf("an action line has at most %d bytes", MaxLine)
	}
	f := strings.Fields(line)
	if len(f) == 3 && strings.EqualFold(f[1], "stmt") {
		n, err := Number(f[2], "statement number")
		st := Statements(sc)
		if err == nil && (n < 1 || n > len(st)) {
			err = fmt.Errorf("the scenario has statements 1 to %d", len(st))
		}
		if err != nil {
			return Action{}, fmt.Errorf("%q: %w", strings.Join(f, " "), err)
		}
		a := st[n-1]
		a.Who, a.When, a.Line, a.Source = f[0], "", 0, f[0]+" stmt "+strconv.Itoa(n)
		return a, nil
	}
	a, err := ParseAction(sc.Family, sc.Store, line)
	if err != nil {
		return a, err
	}
	a.When, a.Line = "", 0
	a.Source = Canonical(sc, a)
	return a, nil
}

// Canonical is a's one form in a free-play history: the verb in lower case,
// one space between words, and for a family with Short actions the
// statement's number instead of its words.
func Canonical(sc *Scenario, a Action) string {
	f := strings.Fields(a.Source)
	if a.Verb == Tick {
		return "tick " + strconv.Itoa(a.Args.(TickArgs).Forward)
	}
	if len(f) == 3 && strings.EqualFold(f[1], "stmt") {
		return f[0] + " stmt " + f[2]
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

// Longhand is a in the words a script writes it: a statement written by
// its number ("A stmt 3") is written out, so that a history can be pasted
// into scenarios.yaml as a scenario's moves.
func Longhand(sc *Scenario, a Action) string {
	f := strings.Fields(a.Source)
	if len(f) == 3 && f[1] == "stmt" {
		if n, err := strconv.Atoi(f[2]); err == nil {
			if st := Statements(sc); n >= 1 && n <= len(st) {
				return f[0] + " " + statementTail(st[n-1])
			}
		}
	}
	return a.Source
}
