package script

import (
	"errors"
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/distlock/fencing-demo/demo"
)

// The file's shape. These types mirror demo's, with the names scenarios.yaml
// uses; the engine's own types carry no YAML at all.

type document struct {
	Scenarios []*scenario `yaml:"scenarios"`
}

type text struct {
	JA string `yaml:"ja"`
	EN string `yaml:"en"`
}

func (t text) demo() demo.Text { return demo.Text{JA: t.JA, EN: t.EN} }

// optional converts a text that one position may replace: nil stays nil.
func optional(t *text) *demo.Text {
	if t == nil {
		return nil
	}
	d := demo.Text{JA: t.JA, EN: t.EN}
	return &d
}

type narration struct {
	Title text `yaml:"title"`
	Text  text `yaml:"text"`
}

func (n narration) demo() demo.Narration {
	return demo.Narration{Title: n.Title.demo(), Text: n.Text.demo()}
}

type scenario struct {
	ID            string    `yaml:"id"`
	Title         text      `yaml:"title"`
	Summary       text      `yaml:"summary"`
	Lesson        text      `yaml:"lesson"`
	Sources       []source  `yaml:"sources"`
	Purpose       string    `yaml:"purpose"`
	Topology      string    `yaml:"topology"`
	Switch        string    `yaml:"switch"`
	SwitchAliases []string  `yaml:"switch-aliases"`
	SwitchLabel   text      `yaml:"switch-label"`
	Default       bool      `yaml:"default"`
	Store         string    `yaml:"store"`
	Nodes         int       `yaml:"nodes"`
	Latency       int       `yaml:"latency"`
	Timeout       int       `yaml:"timeout"`
	Pool          int       `yaml:"pool"`
	MaxConns      int       `yaml:"max-connections"`
	Resource      string    `yaml:"resource"`
	Fencing       string    `yaml:"fencing"`
	Clients       []string  `yaml:"clients"`
	Setup         []action  `yaml:"setup"`
	Initial       narration `yaml:"initial"`
	Moves         []move    `yaml:"moves"`
	Property      string    `yaml:"property"`
	Expect        expect    `yaml:"expect"`
}

// expect is what the finder finds in each position (demo.Expectation).
type expect struct {
	Off string `yaml:"off"`
	On  string `yaml:"on"`
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
	TitleOn   *text     `yaml:"title-on"`
	TitleOff  *text     `yaml:"title-off"`
	TextOn    *text     `yaml:"text-on"`
	TextOff   *text     `yaml:"text-off"`
	Do        []action  `yaml:"do"`
	Predict   *predict  `yaml:"predict"`
}

// scenario converts the file's scenario to the engine's, unchecked: its
// actions are read once its store's family is known (checkStore).
func (s *scenario) scenario() *demo.Scenario {
	sc := &demo.Scenario{
		ID: s.ID, Title: s.Title.demo(), Summary: s.Summary.demo(), Lesson: s.Lesson.demo(),
		Purpose: s.Purpose, Topology: s.Topology,
		Switch: s.Switch, SwitchAliases: s.SwitchAliases, SwitchLabel: s.SwitchLabel.demo(), Default: s.Default,
		Store: demo.StoreKind(s.Store), Nodes: s.Nodes, Latency: s.Latency, Timeout: s.Timeout, Pool: s.Pool,
		MaxConns: s.MaxConns,
		Resource: s.Resource, Fencing: s.Fencing, Clients: s.Clients,
		Initial: s.Initial.demo(), Property: s.Property,
	}
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
	if as == nil {
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
