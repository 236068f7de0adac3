package script

import (
	"fmt"

	"github.com/distlock/fencing-demo/demo"
	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
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
	ID          string    `yaml:"id"`
	Title       text      `yaml:"title"`
	Summary     text      `yaml:"summary"`
	Lesson      text      `yaml:"lesson"`
	Sources     []source  `yaml:"sources"`
	Purpose     string    `yaml:"purpose"`
	Topology    string    `yaml:"topology"`
	Switch      string    `yaml:"switch"`
	SwitchLabel text      `yaml:"switch-label"`
	Default     bool      `yaml:"default"`
	Store       string    `yaml:"store"`
	Nodes       int       `yaml:"nodes"`
	Latency     int       `yaml:"latency"`
	Timeout     int       `yaml:"timeout"`
	Pool        int       `yaml:"pool"`
	Resource    string    `yaml:"resource"`
	Fencing     string    `yaml:"fencing"`
	Clients     []string  `yaml:"clients"`
	Setup       []action  `yaml:"setup"`
	Initial     narration `yaml:"initial"`
	Moves       []move    `yaml:"moves"`
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
}

// scenario converts the file's scenario to the engine's, unchecked.
func (s *scenario) scenario() *demo.Scenario {
	sc := &demo.Scenario{
		ID: s.ID, Title: s.Title.demo(), Summary: s.Summary.demo(), Lesson: s.Lesson.demo(),
		Purpose: s.Purpose, Topology: s.Topology,
		Switch: s.Switch, SwitchLabel: s.SwitchLabel.demo(), Default: s.Default,
		Store: demo.StoreKind(s.Store), Nodes: s.Nodes, Latency: s.Latency, Timeout: s.Timeout, Pool: s.Pool,
		Resource: s.Resource, Fencing: s.Fencing, Clients: s.Clients,
		Setup: actions(s.Setup), Initial: s.Initial.demo(),
	}
	for _, src := range s.Sources {
		sc.Sources = append(sc.Sources, demo.Source{Title: src.Title.demo(), URL: src.URL})
	}
	for _, m := range s.Moves {
		sc.Moves = append(sc.Moves, demo.Move{
			Narration: m.Narration.demo(), Do: actions(m.Do),
			TitleOn: optional(m.TitleOn), TitleOff: optional(m.TitleOff),
			TextOn: optional(m.TextOn), TextOff: optional(m.TextOff),
		})
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
func (a *action) UnmarshalYAML(node ast.Node) error {
	line := node.GetToken().Position.Line
	var s, when string
	if err := yaml.NodeToValue(node, &s); err != nil {
		var m map[string]string
		if err := yaml.NodeToValue(node, &m); err != nil || len(m) != 1 {
			return &lineError{line: line, msg: "an action is one line of text, or {if-on: ACTION} or {if-off: ACTION}"}
		}
		for k, v := range m {
			switch k {
			case "if-on":
				when = "on"
			case "if-off":
				when = "off"
			default:
				return &lineError{line: line, msg: fmt.Sprintf("%q: a conditional action is if-on or if-off", k)}
			}
			s = v
		}
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
