package script

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/distlock/fencing-demo/demo"
)

// A scenario's challenges as the file writes them (demo.Challenge):
//
//	challenges:
//	  - id: gc-pause-break
//	    kind: break
//	    from: 1
//	    position: "off"
//	    moves: 6
//	    title: {ja: ..., en: ...}
//	    task: {ja: ..., en: ...}
//	  - id: gc-pause-fix
//	    kind: fix
//	    title: ...
//	    task: ...
type challenge struct {
	ID       string `yaml:"id"`
	Kind     string `yaml:"kind"`
	From     int    `yaml:"from,omitempty"`
	Position string `yaml:"position,omitempty"`
	Moves    int    `yaml:"moves,omitempty"`
	Title    text   `yaml:"title"`
	Task     text   `yaml:"task"`
	line     int
}

// UnmarshalYAML reads a challenge and keeps its line.
func (c *challenge) UnmarshalYAML(node *yaml.Node) error {
	type plain challenge
	if err := node.Decode((*plain)(c)); err != nil {
		return err
	}
	c.line = node.Line
	switch {
	case c.Position != "" && c.Position != "on" && c.Position != "off":
		return &lineError{line: c.line, msg: fmt.Sprintf("challenge %s: position %q: want on or off", c.ID, c.Position)}
	case c.Kind == string(demo.FixIt) && (c.From != 0 || c.Position != "" || c.Moves != 0):
		return &lineError{line: c.line, msg: fmt.Sprintf("challenge %s: a fix starts from the lab's starter: it has no from, position or moves", c.ID)}
	}
	return nil
}

// tasks are a scenario's challenges as the file writes them.
type tasks []challenge

// demo converts the file's challenges of sc, unchecked (checkChallenges
// and UnmarshalYAML check them).
func (cs tasks) demo(sc *demo.Scenario) []demo.Challenge {
	var out []demo.Challenge
	for _, c := range cs {
		on := sc.Default
		if c.Position != "" {
			on = c.Position == "on"
		}
		out = append(out, demo.Challenge{
			ID: c.ID, Kind: demo.ChallengeKind(c.Kind), Title: c.Title.demo(), Task: c.Task.demo(),
			From: c.From, On: on, Moves: c.Moves, Line: c.line, Sc: sc,
		})
	}
	return out
}

// tasksOf is the file's form of cs, as Marshal writes it: a break's
// position always written, so that it reads the same whatever the
// scenario's default.
func tasksOf(cs []demo.Challenge) tasks {
	var out tasks
	for _, c := range cs {
		w := challenge{ID: c.ID, Kind: string(c.Kind), Title: textOf(c.Title), Task: textOf(c.Task)}
		if c.Kind == demo.BreakIt {
			w.From, w.Position, w.Moves = c.From, demo.OnOff(c.On), c.Moves
		}
		out = append(out, w)
	}
	return out
}

// MaxMoves is the most actions a break may be given: the finder's depth
// bound of an expectation.
const MaxMoves = 20

// checkChallenges: each challenge has an id of the address's letters, a
// kind, a title and a task in both languages; a break starts at a frame of
// the script, in a position, where the property is not yet broken, and is
// given 1 to MaxMoves actions; a fix is of a scenario with a lab. Whether
// moves is at least the finder's shortest is the check command's and the
// tests' to hold (a search), as a lab's tries are. The ids are unique in
// the file (checkChallengeIDs).
func checkChallenges(sc *demo.Scenario) *checkError {
	for i := range sc.Challenges {
		c := &sc.Challenges[i]
		if !validID(c.ID) {
			return fail(c.Line, "challenge %q: the id must be lower-case letters, digits and dashes", c.ID)
		}
		for what, t := range map[string]demo.Text{"title": c.Title, "task": c.Task} {
			if msg := complete("challenge "+c.ID+" "+what, t); msg != "" {
				return fail(c.Line, "%s", msg)
			}
		}
		var err *checkError
		switch c.Kind {
		case demo.BreakIt:
			err = checkBreak(sc, c)
		case demo.FixIt:
			if sc.Lab == nil {
				err = fail(c.Line, "challenge %s: a fix is made in the scenario's lab, and it has none", c.ID)
			}
		default:
			err = fail(c.Line, "challenge %s: kind %q: want break or fix", c.ID, c.Kind)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// checkBreak checks a break's start and bound.
func checkBreak(sc *demo.Scenario, c *demo.Challenge) *checkError {
	switch {
	case sc.Property == "":
		return fail(c.Line, "challenge %s: a break breaks the scenario's property, and it names none", c.ID)
	case sc.Family.Offers == nil:
		return fail(c.Line, "challenge %s: the scenario's store has no free play to break it in", c.ID)
	case c.From < 1 || c.From > sc.Frames():
		return fail(c.Line, "challenge %s: from %d: the scenario has frames 1 to %d", c.ID, c.From, sc.Frames())
	case c.Moves < 1 || c.Moves > MaxMoves:
		return fail(c.Line, "challenge %s: moves %d: want 1 to %d", c.ID, c.Moves, MaxMoves)
	case c.Broken():
		return fail(c.Line, "challenge %s: frame %d with %s %s already breaks %s: nothing is left to break", c.ID, c.From, sc.Switch, demo.OnOff(c.On), sc.Property)
	}
	return nil
}

// checkChallengeIDs: no two challenges of the file share an id, as an
// address names one by its id alone.
func checkChallengeIDs(file string, scenarios []*demo.Scenario) error {
	seen := map[string]string{}
	for _, sc := range scenarios {
		for _, c := range sc.Challenges {
			if other, dup := seen[c.ID]; dup {
				return &LoadError{File: file, Line: c.Line, ID: sc.ID, Msg: fmt.Sprintf("scenario %q: challenge %s: the id is already a challenge of %q", sc.ID, c.ID, other)}
			}
			seen[c.ID] = sc.ID
		}
	}
	return nil
}
