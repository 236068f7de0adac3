package demo

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
)

// Text is one piece of prose in both of the demo's languages.
type Text struct {
	JA string `yaml:"ja"`
	EN string `yaml:"en"`
}

// In returns the text in lang ("ja" or "en"); anything else gets English.
func (t Text) In(lang string) string {
	if lang == "ja" {
		return t.JA
	}
	return t.EN
}

// Scenario is one script of the lesson, read from scenarios.yaml. It names its
// cast and lists the moves; it never states an outcome, because the outcome is
// whatever the model computes when the moves are played.
type Scenario struct {
	ID       string `yaml:"id"`
	Title    Text   `yaml:"title"`
	Summary  Text   `yaml:"summary"`
	Lesson   Text   `yaml:"lesson"`   // shown at the last frame
	Switch   string `yaml:"switch"`   // the one switch the scenario flips: its name in the URL
	Default  bool   `yaml:"default"`  // the switch's position when the URL does not say
	Resource string `yaml:"resource"` // the protected resource's name
	Clients  []string
	Initial  Narration `yaml:"initial"` // narration of frame 1, before any move
	Moves    []Move    `yaml:"moves"`

	// Horizon is the latest time the scenario's diagram reaches in either
	// switch position, worked out by Load, so a drawing can keep one scale.
	Horizon int `yaml:"-"`
}

// Narration is the title and text shown with a frame.
type Narration struct {
	Title Text `yaml:"title"`
	Text  Text `yaml:"text"`
}

// Move is one click of the Step button: narration plus the actions it plays.
type Move struct {
	Narration `yaml:",inline"`
	Do        []Action `yaml:"do"`
}

// Frames is the number of frames: the initial one plus one per move.
func (sc *Scenario) Frames() int { return len(sc.Moves) + 1 }

// Verb is what an action does.
type Verb string

const (
	Tick    Verb = "tick"    // tick N: the clock moves N forward
	Acquire Verb = "acquire" // C acquire LEASE
	Renew   Verb = "renew"   // C renew LEASE
	Release Verb = "release" // C release
	Write   Verb = "write"   // C write VALUE: with the token C believes it holds
	Pause   Verb = "pause"   // C pause: a stop-the-world GC, say; C does nothing until resume
	Resume  Verb = "resume"  // C resume: C carries on, believing what it believed before
)

// Action is one line of a move, such as "A acquire 10" or "tick 3". Line is its
// line in scenarios.yaml, so that a mistake can be reported where it is.
type Action struct {
	Client string
	Verb   Verb
	N      int    // the lease or the tick
	Value  string // what a write writes
	Line   int
	Source string // the line as written
}

func (a Action) String() string { return a.Source }

// UnmarshalYAML reads an action from its one-line form and keeps the line number.
func (a *Action) UnmarshalYAML(node ast.Node) error {
	var s string
	if err := yaml.NodeToValue(node, &s); err != nil {
		return err
	}
	line := node.GetToken().Position.Line
	parsed, err := parseAction(s)
	if err != nil {
		// The YAML library does not know the line of an error we return, so the
		// error carries it.
		return &lineError{line: line, msg: err.Error()}
	}
	parsed.Line = line
	*a = parsed
	return nil
}

func parseAction(s string) (Action, error) {
	f := strings.Fields(s)
	a := Action{Source: strings.Join(f, " ")}
	if len(f) == 0 {
		return a, errors.New("empty action")
	}
	if f[0] == string(Tick) {
		if len(f) != 2 {
			return a, fmt.Errorf("%q: want \"tick N\"", s)
		}
		n, err := strconv.Atoi(f[1])
		if err != nil || n < 0 {
			return a, fmt.Errorf("%q: the tick must be a whole number of 0 or more", s)
		}
		a.Verb, a.N = Tick, n
		return a, nil
	}
	if len(f) < 2 {
		return a, fmt.Errorf("%q: want \"CLIENT VERB ...\" or \"tick N\"", s)
	}
	a.Client, a.Verb = f[0], Verb(f[1])
	args := f[2:]
	switch a.Verb {
	case Acquire, Renew:
		if len(args) != 1 {
			return a, fmt.Errorf("%q: want \"%s %s LEASE\"", s, a.Client, a.Verb)
		}
		n, err := strconv.Atoi(args[0])
		if err != nil {
			return a, fmt.Errorf("%q: the lease %q is not a whole number", s, args[0])
		}
		a.N = n
	case Write:
		if len(args) != 1 {
			return a, fmt.Errorf("%q: want \"%s write VALUE\" (one word)", s, a.Client)
		}
		a.Value = args[0]
	case Release, Pause, Resume:
		if len(args) != 0 {
			return a, fmt.Errorf("%q: %s takes no arguments", s, a.Verb)
		}
	default:
		return a, fmt.Errorf("%q: unknown action %q (known: tick, acquire, renew, release, write, pause, resume)", s, a.Verb)
	}
	return a, nil
}

// Catalog is every scenario of scenarios.yaml, in the file's order.
type Catalog struct {
	Scenarios []*Scenario
	byID      map[string]*Scenario
}

// Get returns the scenario with the given id.
func (c *Catalog) Get(id string) (*Scenario, bool) {
	sc, ok := c.byID[id]
	return sc, ok
}

// IDs returns the scenario ids in the file's order.
func (c *Catalog) IDs() []string {
	ids := make([]string, len(c.Scenarios))
	for i, sc := range c.Scenarios {
		ids[i] = sc.ID
	}
	return ids
}

// LoadError says where scenarios.yaml is wrong.
type LoadError struct {
	File string
	Line int // 0 when the mistake has no one line
	Msg  string
}

func (e *LoadError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Load reads and checks scenarios. file names the source in error messages.
// Besides the shape of the YAML it checks what only a replay shows (an action
// by a client that is paused at that point, say), by playing every scenario to
// its end in both switch positions: a scenario that loads always plays.
func Load(file string, data []byte) (*Catalog, error) {
	var doc struct {
		Scenarios []*Scenario `yaml:"scenarios"`
	}
	if err := yaml.UnmarshalWithOptions(data, &doc, yaml.Strict()); err != nil {
		return nil, yamlError(file, err)
	}
	if len(doc.Scenarios) == 0 {
		return nil, &LoadError{File: file, Msg: "no scenarios: the file needs a list under \"scenarios:\""}
	}
	c := &Catalog{Scenarios: doc.Scenarios, byID: map[string]*Scenario{}}
	for i, sc := range doc.Scenarios {
		if sc == nil {
			return nil, &LoadError{File: file, Msg: fmt.Sprintf("scenario %d is empty", i+1)}
		}
		if err := check(sc); err != nil {
			return nil, &LoadError{File: file, Line: err.line, Msg: fmt.Sprintf("scenario %q: %s", sc.ID, err.msg)}
		}
		if _, dup := c.byID[sc.ID]; dup {
			return nil, &LoadError{File: file, Msg: fmt.Sprintf("scenario id %q appears twice", sc.ID)}
		}
		c.byID[sc.ID] = sc
	}
	return c, nil
}

type checkError struct {
	line int
	msg  string
}

func check(sc *Scenario) *checkError {
	fail := func(line int, format string, args ...any) *checkError {
		return &checkError{line: line, msg: fmt.Sprintf(format, args...)}
	}
	if !validID(sc.ID) {
		return fail(0, "the id must be lower-case letters, digits and dashes")
	}
	if sc.Switch == "" || !validID(sc.Switch) {
		return fail(0, "the switch needs a name of lower-case letters, digits and dashes")
	}
	if sc.Resource == "" {
		return fail(0, "no resource")
	}
	if len(sc.Clients) == 0 {
		return fail(0, "no clients")
	}
	for i, c := range sc.Clients {
		if c == string(Tick) || strings.ContainsAny(c, " \t") || slices.Contains(sc.Clients[:i], c) {
			return fail(0, "client %q: names must be unique, one word, and not \"tick\"", c)
		}
	}
	for _, t := range []struct {
		what string
		text Text
	}{
		{"title", sc.Title}, {"summary", sc.Summary}, {"lesson", sc.Lesson},
		{"initial title", sc.Initial.Title}, {"initial text", sc.Initial.Text},
	} {
		if err := complete(t.what, t.text); err != "" {
			return fail(0, "%s", err)
		}
	}
	if len(sc.Moves) == 0 {
		return fail(0, "no moves")
	}
	for i, m := range sc.Moves {
		line := 0
		if len(m.Do) > 0 {
			line = m.Do[0].Line
		}
		for _, t := range []struct {
			what string
			text Text
		}{{"title", m.Title}, {"text", m.Text}} {
			if err := complete(fmt.Sprintf("move %d %s", i+1, t.what), t.text); err != "" {
				return fail(line, "%s", err)
			}
		}
		if len(m.Do) == 0 {
			return fail(0, "move %d does nothing: it needs a \"do:\" list", i+1)
		}
		for _, a := range m.Do {
			if a.Verb != Tick && !slices.Contains(sc.Clients, a.Client) {
				return fail(a.Line, "%q: unknown client %q (clients: %s)", a.Source, a.Client, strings.Join(sc.Clients, ", "))
			}
		}
	}
	for _, on := range []bool{true, false} {
		// Every frame counts for the horizon: a lease released early shows
		// its planned expiry in the frames before the release.
		r := NewRun(sc, on)
		for {
			f := r.Frame()
			sc.Horizon = max(sc.Horizon, f.Timeline().End)
			if !r.Step() {
				break
			}
		}
		if err := r.Err(); err != nil {
			var ae *ActionError
			if errors.As(err, &ae) {
				return fail(ae.Action.Line, "%s", ae.Error())
			}
			return fail(0, "%s", err)
		}
	}
	return nil
}

func complete(what string, t Text) string {
	switch {
	case t.JA == "" && t.EN == "":
		return what + " is missing"
	case t.JA == "":
		return what + " has no Japanese (ja)"
	case t.EN == "":
		return what + " has no English (en)"
	}
	return ""
}

func validID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// lineError is a mistake found while decoding, with the line it is on.
type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string { return e.msg }

// yamlError turns the YAML library's error into a LoadError with the line.
func yamlError(file string, err error) error {
	var le *lineError
	if errors.As(err, &le) {
		return &LoadError{File: file, Line: le.line, Msg: le.msg}
	}
	var ye yaml.Error
	if errors.As(err, &ye) {
		line := 0
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			line = tk.Position.Line
		}
		return &LoadError{File: file, Line: line, Msg: ye.GetMessage()}
	}
	return &LoadError{File: file, Msg: err.Error()}
}
