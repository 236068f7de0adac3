package script

import (
	"fmt"

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
	Resource      string    `yaml:"resource"`
	Fencing       string    `yaml:"fencing"`
	Clients       []string  `yaml:"clients"`
	Setup         []action  `yaml:"setup"`
	Initial       narration `yaml:"initial"`
	Moves         []move    `yaml:"moves"`
}

type move struct {
	Narration narration `yaml:",inline"`
	TextOn    *text     `yaml:"text-on"`
	TextOff   *text     `yaml:"text-off"`
	Do        []action  `yaml:"do"`
}

// scenario converts the file's scenario to the engine's, unchecked.
func (s *scenario) scenario() *demo.Scenario {
	sc := &demo.Scenario{
		ID: s.ID, Title: s.Title.demo(), Summary: s.Summary.demo(), Lesson: s.Lesson.demo(),
		Purpose: s.Purpose, Topology: s.Topology,
		Switch: s.Switch, SwitchAliases: s.SwitchAliases, SwitchLabel: s.SwitchLabel.demo(), Default: s.Default,
		Store: demo.StoreKind(s.Store), Nodes: s.Nodes, Latency: s.Latency, Timeout: s.Timeout, Pool: s.Pool,
		Resource: s.Resource, Fencing: s.Fencing, Clients: s.Clients,
		Setup: actions(s.Setup), Initial: s.Initial.demo(),
	}
	for _, m := range s.Moves {
		dm := demo.Move{Narration: m.Narration.demo(), Do: actions(m.Do)}
		if m.TextOn != nil {
			t := m.TextOn.demo()
			dm.TextOn = &t
		}
		if m.TextOff != nil {
			t := m.TextOff.demo()
			dm.TextOff = &t
		}
		sc.Moves = append(sc.Moves, dm)
	}
	return sc
}

// action is one action as written: a line of text, or a one-entry map
// {if-on: ACTION} or {if-off: ACTION}.
type action struct{ demo.Action }

func actions(as []action) []demo.Action {
	if as == nil {
		return nil
	}
	out := make([]demo.Action, len(as))
	for i, a := range as {
		out[i] = a.Action
	}
	return out
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
	parsed, err := ParseAction(s)
	if err != nil {
		// The YAML library does not know the line of an error we return, so the
		// error carries it.
		return &lineError{line: line, msg: err.Error()}
	}
	parsed.Line, parsed.When = line, when
	a.Action = parsed
	return nil
}
