package script

import (
	"errors"
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/distlock/fencing-demo/demo"
)

// The file's shape. These types mirror demo's, with the names scenarios.yaml
// uses; the engine's own types carry no YAML at all. The same types read a
// file (Load) and write one (Marshal), so that what is written is what is
// read: a field added here is read and written at once. Their order is the
// order a scenario is written in.

type document struct {
	Scenarios []*scenario `yaml:"scenarios"`
}

type text struct {
	JA string `yaml:"ja"`
	EN string `yaml:"en"`
}

func (t text) demo() demo.Text { return demo.Text{JA: t.JA, EN: t.EN} }

func textOf(t demo.Text) text { return text{JA: t.JA, EN: t.EN} }

// optional converts a text that one position may replace: nil stays nil.
func optional(t *text) *demo.Text {
	if t == nil {
		return nil
	}
	d := demo.Text{JA: t.JA, EN: t.EN}
	return &d
}

func optionalOf(t *demo.Text) *text {
	if t == nil {
		return nil
	}
	o := textOf(*t)
	return &o
}

type narration struct {
	Title text `yaml:"title,omitempty"`
	Text  text `yaml:"text,omitempty"`
}

func (n narration) demo() demo.Narration {
	return demo.Narration{Title: n.Title.demo(), Text: n.Text.demo()}
}

func fromNarration(n demo.Narration) narration {
	return narration{Title: textOf(n.Title), Text: textOf(n.Text)}
}

type scenario struct {
	ID            string    `yaml:"id"`
	Seed          string    `yaml:"seed,omitempty"`
	Title         text      `yaml:"title"`
	Summary       text      `yaml:"summary"`
	Lesson        text      `yaml:"lesson"`
	Sources       []source  `yaml:"sources"`
	Purpose       string    `yaml:"purpose"`
	Topology      string    `yaml:"topology"`
	Store         string    `yaml:"store,omitempty"`
	Nodes         int       `yaml:"nodes,omitempty"`
	Latency       int       `yaml:"latency,omitempty"`
	Timeout       int       `yaml:"timeout,omitempty"`
	Appendfsync   string    `yaml:"appendfsync,omitempty"`
	Pool          int       `yaml:"pool,omitempty"`
	MaxConns      int       `yaml:"max-connections,omitempty"`
	Switch        string    `yaml:"switch"`
	SwitchAliases words     `yaml:"switch-aliases,omitempty"`
	SwitchLabel   text      `yaml:"switch-label"`
	Default       bool      `yaml:"default,omitempty"`
	Fencing       string    `yaml:"fencing,omitempty"`
	Resource      string    `yaml:"resource"`
	Clients       words     `yaml:"clients"`
	Property      string    `yaml:"property,omitempty"`
	Sometimes     string    `yaml:"sometimes,omitempty"`
	TimeBound     int       `yaml:"time-bound,omitempty"`
	TimeSteps     []int     `yaml:"time-steps,omitempty,flow"`
	Expect        expect    `yaml:"expect,omitempty"`
	Lab           *lab      `yaml:"lab,omitempty"`
	Challenges    tasks     `yaml:"challenges,omitempty"`
	Scripts       scripts   `yaml:"scripts,omitempty"`
	Setup         []action  `yaml:"setup,omitempty"`
	Initial       narration `yaml:"initial"`
	Moves         []move    `yaml:"moves"`
}

// words is a list of names, written on one line: [A, B].
type words []string

// MarshalYAML writes the list on one line.
func (w words) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, s := range w {
		n.Content = append(n.Content, scalar(s))
	}
	return n, nil
}

// source is one primary text the lesson rests on.
type source struct {
	Title text   `yaml:"title"`
	URL   string `yaml:"url"`
}

// move is one step as written. Where a position changes what a client does,
// title-on/title-off and text-on/text-off replace the title and the text
// for that position.
type move struct {
	Narration narration `yaml:",inline"`
	TitleOn   *text     `yaml:"title-on,omitempty"`
	TitleOff  *text     `yaml:"title-off,omitempty"`
	TextOn    *text     `yaml:"text-on,omitempty"`
	TextOff   *text     `yaml:"text-off,omitempty"`
	Do        []action  `yaml:"do"`
	Predict   *predict  `yaml:"predict,omitempty"`
}

// scenario converts the file's scenario to the engine's, unchecked: its
// actions are read once its store's family is known (checkStore).
func (s *scenario) scenario() *demo.Scenario {
	sc := &demo.Scenario{
		ID: s.ID, Seed: s.Seed, Title: s.Title.demo(), Summary: s.Summary.demo(), Lesson: s.Lesson.demo(),
		Purpose: s.Purpose, Topology: s.Topology,
		Switch: s.Switch, SwitchAliases: s.SwitchAliases, SwitchLabel: s.SwitchLabel.demo(), Default: s.Default,
		Store: demo.StoreKind(s.Store), Nodes: s.Nodes, Latency: s.Latency, Timeout: s.Timeout, Pool: s.Pool, Appendfsync: s.Appendfsync,
		MaxConns: s.MaxConns,
		Resource: s.Resource, Fencing: s.Fencing, Clients: s.Clients,
		Initial: s.Initial.demo(), Property: s.Property, Sometimes: s.Sometimes, TimeBound: s.TimeBound, TimeSteps: s.TimeSteps,
		Expect: s.Expect.pos, Guide: s.Expect.guide,
		Lab:     s.Lab.demo(),
		Scripts: s.Scripts.demo(),
	}
	sc.Challenges = s.Challenges.demo(sc)
	for _, src := range s.Sources {
		sc.Sources = append(sc.Sources, demo.Source{Title: src.Title.demo(), URL: src.URL})
	}
	for _, m := range s.Moves {
		sc.Moves = append(sc.Moves, demo.Move{
			Narration: m.Narration.demo(),
			TitleOn:   optional(m.TitleOn), TitleOff: optional(m.TitleOff),
			TextOn: optional(m.TextOn), TextOff: optional(m.TextOff),
			Predict: m.Predict.demo(),
		})
	}
	return sc
}

// scenarioOf is the file's form of sc, as Marshal writes it: the converse
// of scenario, so that a scenario written and read again is the same.
func scenarioOf(sc *demo.Scenario) *scenario {
	s := &scenario{
		ID: sc.ID, Seed: sc.Seed, Title: textOf(sc.Title), Summary: textOf(sc.Summary), Lesson: textOf(sc.Lesson),
		Purpose: sc.Purpose, Topology: sc.Topology,
		Store: string(sc.Store), Nodes: sc.Nodes, Latency: sc.Latency, Timeout: sc.Timeout, Pool: sc.Pool, Appendfsync: sc.Appendfsync,
		MaxConns: sc.MaxConns,
		Switch:   sc.Switch, SwitchAliases: sc.SwitchAliases, SwitchLabel: textOf(sc.SwitchLabel), Default: sc.Default,
		Fencing: sc.Fencing, Resource: sc.Resource, Clients: sc.Clients,
		Property: sc.Property, Sometimes: sc.Sometimes, TimeBound: sc.TimeBound, TimeSteps: sc.TimeSteps,
		Expect: expect{pos: sc.Expect, guide: sc.Guide}, Lab: labOf(sc.Lab),
		Scripts: scriptsOf(sc.Scripts),
		Setup:   actionsOf(sc.Setup),
		Initial: fromNarration(sc.Initial),
	}
	s.Challenges = tasksOf(sc.Challenges)
	for _, src := range sc.Sources {
		s.Sources = append(s.Sources, source{Title: textOf(src.Title), URL: src.URL})
	}
	for _, m := range sc.Moves {
		s.Moves = append(s.Moves, move{
			Narration: fromNarration(m.Narration),
			TitleOn:   optionalOf(m.TitleOn), TitleOff: optionalOf(m.TitleOff),
			TextOn: optionalOf(m.TextOn), TextOff: optionalOf(m.TextOff),
			Do:      actionsOf(m.Do),
			Predict: predictOf(m.Predict),
		})
	}
	return s
}

// actionsOf writes actions as a script does: each its line, a conditional
// one as {if-on: line} or {if-off: line}.
func actionsOf(as []demo.Action) []action {
	var out []action
	for _, a := range as {
		out = append(out, action{text: a.Source, when: a.When})
	}
	return out
}

// actions reads the scenario's actions with its family's verbs: the setup's,
// then each move's.
func (s *scenario) actions(reg *demo.Registry, sc *demo.Scenario) *checkError {
	var err *checkError
	if sc.Setup, err = parseActions(reg, sc, s.Setup); err != nil {
		return err
	}
	for i, m := range s.Moves {
		if sc.Moves[i].Do, err = parseActions(reg, sc, m.Do); err != nil {
			return err
		}
	}
	return nil
}

func parseActions(reg *demo.Registry, sc *demo.Scenario, as []action) ([]demo.Action, *checkError) {
	if len(as) == 0 {
		return nil, nil
	}
	out := make([]demo.Action, len(as))
	for i, a := range as {
		parsed, err := ParseAction(reg, sc.Family, sc.Store, a.text)
		var fv *foreignVerb
		if errors.As(err, &fv) && fv.spec.Node && parsed.Who != "all" && !slices.Contains(sc.NodeNames(), parsed.Who) {
			// A node's verb by someone who is no node of this store: the
			// name is the mistake, not the verb.
			return nil, fail(a.line, "%q: unknown node %q (nodes: %s)", parsed.Source, parsed.Who, orNone(sc.NodeNames()))
		}
		if err != nil {
			return nil, fail(a.line, "%s", err)
		}
		parsed.Line, parsed.When = a.line, a.when
		out[i] = parsed
	}
	return out, nil
}

// action is one action as written: a line of text, or a one-entry map
// {if-on: ACTION} or {if-off: ACTION}. Its words are read once the
// scenario's store is known.
type action struct {
	text, when string
	line       int
}

// UnmarshalYAML reads an action and keeps its line number.
func (a *action) UnmarshalYAML(node *yaml.Node) error {
	line := node.Line
	var s, when string
	switch {
	case node.Kind == yaml.ScalarNode:
		s = node.Value
	case node.Kind == yaml.MappingNode && len(node.Content) == 2 && node.Content[1].Kind == yaml.ScalarNode:
		switch k := node.Content[0].Value; k {
		case "if-on":
			when = "on"
		case "if-off":
			when = "off"
		default:
			return &lineError{line: line, msg: fmt.Sprintf("%q: a conditional action is if-on or if-off", k)}
		}
		s = node.Content[1].Value
	default:
		return &lineError{line: line, msg: "an action is one line of text, or {if-on: ACTION} or {if-off: ACTION}"}
	}
	a.text, a.when, a.line = s, when, line
	return nil
}

// MarshalYAML writes an action as it is read: its line, or {if-on: line}.
func (a action) MarshalYAML() (any, error) {
	if a.when == "" {
		return scalar(a.text), nil
	}
	return &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{scalar("if-" + a.when), scalar(a.text)}}, nil
}

// scalar is a string as a node the encoder quotes where YAML needs it.
func scalar(s string) *yaml.Node {
	n := &yaml.Node{}
	n.SetString(s)
	return n
}
