// Package saveas writes a free-play history as a scenario of its own, in
// the shape of scenarios.yaml, so a lecturer authors a script by playing
// it: the original's fields, its moves up to the frame where free play
// began, then one move per free-play action with the narration the model
// gave that frame, in both languages and both switch positions.
package saveas

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
)

// The file's shape, as demo/script reads it; only what a saved scenario
// needs, in the file's order.
type (
	document struct {
		Scenarios []scenario `yaml:"scenarios"`
	}
	text struct {
		JA string `yaml:"ja"`
		EN string `yaml:"en"`
	}
	source struct {
		Title text   `yaml:"title"`
		URL   string `yaml:"url"`
	}
	narration struct {
		Title text `yaml:"title"`
		Text  text `yaml:"text"`
	}
	move struct {
		Title    text  `yaml:"title"`
		Text     text  `yaml:"text"`
		TitleOn  *text `yaml:"title-on,omitempty"`
		TitleOff *text `yaml:"title-off,omitempty"`
		TextOn   *text `yaml:"text-on,omitempty"`
		TextOff  *text `yaml:"text-off,omitempty"`
		Do       []any `yaml:"do"` // a line, or {if-on: line} / {if-off: line}
	}
	scenario struct {
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
		Nodes       int       `yaml:"nodes,omitempty"`
		Latency     int       `yaml:"latency,omitempty"`
		Timeout     int       `yaml:"timeout,omitempty"`
		Pool        int       `yaml:"pool,omitempty"`
		Resource    string    `yaml:"resource"`
		Fencing     string    `yaml:"fencing"`
		Clients     []string  `yaml:"clients"`
		Setup       []any     `yaml:"setup,omitempty"`
		Initial     narration `yaml:"initial"`
		Moves       []move    `yaml:"moves"`
	}
)

func textOf(t demo.Text) text { return text{JA: t.JA, EN: t.EN} }

func optional(t *demo.Text) *text {
	if t == nil {
		return nil
	}
	o := textOf(*t)
	return &o
}

// ID is the saved scenario's id: the original's with a mark, so that it
// can stand beside the original in one file.
func ID(sc *demo.Scenario) string { return sc.ID + "-free" }

// YAML writes place p's history as a scenario: a whole scenarios file
// holding that one scenario, which -scenarios loads as it is and whose list
// item pastes under scenarios: in scenarios.yaml. Its switch starts in the
// position the history was played in. Where the other position cannot play
// the whole history, the actions from the first it refuses on are played
// only in p's position, and the other position's narration says so.
func YAML(p demo.Place) ([]byte, error) {
	sc := p.Sc
	p.Step = min(max(p.Step, 1), sc.Frames())
	free, err := freeMoves(p)
	if err != nil {
		return nil, err
	}
	s := scenario{
		ID:          ID(sc),
		Title:       text{JA: sc.Title.JA + " (自由操作から)", EN: sc.Title.EN + " (from free play)"},
		Summary:     textOf(sc.Summary),
		Lesson:      textOf(sc.Lesson),
		Purpose:     sc.Purpose,
		Topology:    sc.Topology,
		Switch:      sc.Switch,
		SwitchLabel: textOf(sc.SwitchLabel),
		Default:     p.On,
		Store:       string(sc.Store),
		Nodes:       sc.Nodes, Latency: sc.Latency, Timeout: sc.Timeout, Pool: sc.Pool,
		Resource: sc.Resource,
		Fencing:  sc.Fencing,
		Clients:  sc.Clients,
		Setup:    lines(sc.Setup),
		Initial:  narration{Title: textOf(sc.Initial.Title), Text: textOf(sc.Initial.Text)},
	}
	for _, src := range sc.Sources {
		s.Sources = append(s.Sources, source{Title: textOf(src.Title), URL: src.URL})
	}
	for _, m := range sc.Moves[:p.Step-1] {
		s.Moves = append(s.Moves, move{
			Title: textOf(m.Title), Text: textOf(m.Text),
			TitleOn: optional(m.TitleOn), TitleOff: optional(m.TitleOff),
			TextOn: optional(m.TextOn), TextOff: optional(m.TextOff),
			Do: lines(m.Do),
		})
	}
	s.Moves = append(s.Moves, free...)
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Saved from free play in %q with %s %s: the first %d moves are the script's,\n"+
		"# the last %d the actions played. The title, the summary and the lesson are the\n"+
		"# original's: rewrite them for this script before you show it.\n",
		sc.ID, sc.Switch, demo.OnOff(p.On), p.Step-1, len(free))
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(document{Scenarios: []scenario{s}}); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// lines writes actions as a script does: each its line, a conditional one
// as {if-on: line} or {if-off: line}.
func lines(as []demo.Action) []any {
	var out []any
	for _, a := range as {
		out = append(out, line(a.Source, a.When))
	}
	return out
}

func line(s, when string) any {
	if when == "" {
		return s
	}
	return map[string]string{"if-" + when: s}
}

// freeMoves is one move per free-play action of p. Each position's
// narration is its own frame's, as the model tells it; a position that
// cannot play an action from some point on plays nothing from there, and
// says that the move was played with the switch in the other position.
func freeMoves(p demo.Place) ([]move, error) {
	acts := strings.Split(p.Play, "\n")
	if p.Play == "" {
		return nil, nil
	}
	other := p.Switched()
	otherPlays := len(acts) // how many of the actions the other position plays
	var he *demo.HistoryError
	if _, err := other.Run(); err != nil {
		if !errors.As(err, &he) {
			return nil, err
		}
		otherPlays = he.Index - 1
	}
	var out []move
	for i, act := range acts {
		here, err := frameAfter(p, acts[:i+1])
		if err != nil {
			return nil, err
		}
		written := views.ScriptLine(p.Sc, p.On, act) // a statement's words, not its step's number
		m := move{Do: []any{written}}
		var there demo.Narration
		if i < otherPlays {
			if there, err = frameAfter(other, acts[:i+1]); err != nil {
				return nil, err
			}
			if spelled := views.ScriptLine(p.Sc, !p.On, act); spelled != written {
				// The same step of the client's program, which the other
				// position spells its own way.
				m.Do = []any{line(written, demo.OnOff(p.On)), line(spelled, demo.OnOff(!p.On))}
			}
		} else {
			m.Do = []any{line(written, demo.OnOff(p.On))}
			there = demo.Narration{
				Title: note(p.Sc, !p.On, "%s%sでは何も起きない", "Nothing happens with %s %s"),
				Text:  note(p.Sc, p.On, "この手は%s%sで遊んだもの。このスイッチ位置では何も起きない。", "This move was played with %s %s; in this position nothing happens."),
			}
		}
		m.Title, m.Text = textOf(here.Title), textOf(here.Text)
		if there != here {
			on, off := here, there
			if !p.On {
				on, off = there, here
			}
			m.TitleOn, m.TitleOff = optional(&on.Title), optional(&off.Title)
			m.TextOn, m.TextOff = optional(&on.Text), optional(&off.Text)
		}
		out = append(out, m)
	}
	return out, nil
}

// note is a sentence in both languages about sc's switch in position on:
// ja and en take its label and its position.
func note(sc *demo.Scenario, on bool, ja, en string) demo.Text {
	pos := map[bool][2]string{true: {"有", "on"}, false: {"無", "off"}}[on]
	return demo.Text{
		JA: fmt.Sprintf(ja, sc.SwitchLabel.JA, pos[0]),
		EN: fmt.Sprintf(en, sc.SwitchLabel.EN, pos[1]),
	}
}

// frameAfter is the narration of the frame after the given actions.
func frameAfter(p demo.Place, acts []string) (demo.Narration, error) {
	p.Play = strings.Join(acts, "\n")
	f, err := p.Frame()
	if err != nil {
		return demo.Narration{}, err
	}
	return f.Narration, nil
}
