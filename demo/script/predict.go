package script

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// predict is a move's question as written: what is asked, of what kind, and
// the options. Which option is right is not written: the model computes it
// when the move plays (demo.Prediction.Answer), and the loader checks, in
// both switch positions, that the options include it. Where the switch
// changes what the premise may say, ask-on/ask-off replace ask for that
// position, as title-on/title-off do a move's title.
type predict struct {
	Ask     text     `yaml:"ask,omitempty"`
	AskOn   *text    `yaml:"ask-on,omitempty"`
	AskOff  *text    `yaml:"ask-off,omitempty"`
	Kind    string   `yaml:"kind"`
	Who     string   `yaml:"who,omitempty"`
	Of      string   `yaml:"of,omitempty"`
	Options []option `yaml:"options"`
}

// option is one answer: the outcome it names, its words, and why a reader
// might pick it when it is wrong; label-on/label-off and
// tempting-on/tempting-off replace them in one position.
type option struct {
	Is          string `yaml:"is"`
	Label       text   `yaml:"label,omitempty"`
	LabelOn     *text  `yaml:"label-on,omitempty"`
	LabelOff    *text  `yaml:"label-off,omitempty"`
	Tempting    text   `yaml:"tempting,omitempty"`
	TemptingOn  *text  `yaml:"tempting-on,omitempty"`
	TemptingOff *text  `yaml:"tempting-off,omitempty"`
}

func (p *predict) demo() *demo.Prediction {
	if p == nil {
		return nil
	}
	d := &demo.Prediction{Ask: p.Ask.demo(), AskOn: optional(p.AskOn), AskOff: optional(p.AskOff),
		Kind: demo.AskKind(p.Kind), Who: p.Who, Of: demo.Kind(p.Of)}
	for _, o := range p.Options {
		d.Options = append(d.Options, demo.Option{Value: o.Is,
			Label: o.Label.demo(), LabelOn: optional(o.LabelOn), LabelOff: optional(o.LabelOff),
			Tempting: o.Tempting.demo(), TemptingOn: optional(o.TemptingOn), TemptingOff: optional(o.TemptingOff)})
	}
	return d
}

func predictOf(d *demo.Prediction) *predict {
	if d == nil {
		return nil
	}
	p := &predict{Ask: textOf(d.Ask), AskOn: optionalOf(d.AskOn), AskOff: optionalOf(d.AskOff),
		Kind: string(d.Kind), Who: d.Who, Of: string(d.Of)}
	for _, o := range d.Options {
		p.Options = append(p.Options, option{Is: o.Value,
			Label: textOf(o.Label), LabelOn: optionalOf(o.LabelOn), LabelOff: optionalOf(o.LabelOff),
			Tempting: textOf(o.Tempting), TemptingOn: optionalOf(o.TemptingOn), TemptingOff: optionalOf(o.TemptingOff)})
	}
	return p
}

// maxOptions keeps a question to what a phone shows without scrolling.
const maxOptions = 5

// checkPredictions: each question's shape, before anything plays: its kind
// and what that kind needs, its words in both languages, and two to five
// options with distinct outcomes, each with its words and its temptation.
func checkPredictions(sc *demo.Scenario) *checkError {
	for i, m := range sc.Moves {
		p := m.Predict
		if p == nil {
			continue
		}
		line := 0
		if len(m.Do) > 0 {
			line = m.Do[0].Line
		}
		where := fmt.Sprintf("move %d predict", i+1)
		if !slices.Contains(demo.AskKinds, p.Kind) {
			kinds := make([]string, len(demo.AskKinds))
			for j, k := range demo.AskKinds {
				kinds[j] = string(k)
			}
			return fail(line, "%s: kind %q: want one of %s", where, p.Kind, strings.Join(kinds, ", "))
		}
		if (p.Kind == demo.AskEvent) != (p.Who != "") || p.Who != "" && !slices.Contains(sc.Clients, p.Who) {
			return fail(line, "%s: who: an event question names one of the clients (%s), and only it", where, strings.Join(sc.Clients, ", "))
		}
		if (p.Kind == demo.AskCount) != (p.Of != "") {
			return fail(line, "%s: of: a count question names the kind of event it counts, and only it", where)
		}
		if err := positional(where+" ask", p.Ask, p.AskOn, p.AskOff); err != "" {
			return fail(line, "%s", err)
		}
		if len(p.Options) < 2 || len(p.Options) > maxOptions {
			return fail(line, "%s: %d options; a question has 2 to %d", where, len(p.Options), maxOptions)
		}
		for j, o := range p.Options {
			if o.Value == "" || slices.ContainsFunc(p.Options[:j], func(b demo.Option) bool { return b.Value == o.Value }) {
				return fail(line, "%s: option %d: each option names a different outcome under \"is:\"", where, j+1)
			}
			if msg := badOutcome(sc, p, o.Value); msg != "" {
				return fail(line, "%s: option %d is: %q: %s", where, j+1, o.Value, msg)
			}
			for _, t := range []struct {
				what    string
				t       demo.Text
				on, off *demo.Text
			}{{"label", o.Label, o.LabelOn, o.LabelOff}, {"tempting", o.Tempting, o.TemptingOn, o.TemptingOff}} {
				if err := positional(fmt.Sprintf("%s option %q %s", where, o.Value, t.what), t.t, t.on, t.off); err != "" {
					return fail(line, "%s", err)
				}
			}
		}
	}
	return nil
}

// positional checks a text that may differ by position: the text for both
// is needed in both languages unless -on and -off both replace it, and each
// that is given is needed in both languages.
func positional(what string, both demo.Text, on, off *demo.Text) string {
	if on == nil || off == nil || both != (demo.Text{}) {
		if err := complete(what, both); err != "" {
			return err
		}
	}
	for _, t := range []struct {
		suffix string
		t      *demo.Text
	}{{"-on", on}, {"-off", off}} {
		if t.t == nil {
			continue
		}
		if err := complete(what+t.suffix, *t.t); err != "" {
			return err
		}
	}
	return ""
}

// answerOf checks the question of the move that led to r's frame, if it has
// one: the model's answer there must be one of its options, so that a
// question is never asked whose right answer cannot be picked (a mistake);
// and it must be the answer the scenario states, if it states one (a
// difference).
func answerOf(sc *demo.Scenario, r *demo.Run) (mistake, differs *checkError) {
	i := r.Index() - 2
	p := sc.Moves[i].Predict
	if p == nil {
		return nil, nil
	}
	line := 0
	if len(sc.Moves[i].Do) > 0 {
		line = sc.Moves[i].Do[0].Line
	}
	f := r.Frame()
	v, _, ok := p.Answer(&f)
	if !ok {
		return fail(line, "move %d predict: with the switch %s, %s has no event in this move to ask about", i+1, demo.OnOff(r.On()), p.Who), nil
	}
	if _, ok := p.Option(v); !ok {
		values := make([]string, len(p.Options))
		for j, o := range p.Options {
			values[j] = o.Value
		}
		return fail(line, "move %d predict: with the switch %s the model's answer is %q, which is not among the options (%s)", i+1, demo.OnOff(r.On()), v, strings.Join(values, ", ")), nil
	}
	q := 0 // the question's place among the scenario's
	for _, m := range sc.Moves[:i] {
		if m.Predict != nil {
			q++
		}
	}
	return nil, answerStated(sc, r, q, v)
}

// badOutcome says what is wrong with v as an outcome of p's kind, before
// anything plays: a verdict's name, a number of clients for holders, a
// count of 0 or more, an event kind's spelling (checkEventOutcomes checks,
// once the plays are done, that it is a kind the scenario has); "" when
// nothing is.
func badOutcome(sc *demo.Scenario, p *demo.Prediction, v string) string {
	switch p.Kind {
	case demo.AskVerdict:
		if names := demo.VerdictNames(); !slices.Contains(names, v) {
			return "no verdict has this name; want one of " + strings.Join(names, ", ")
		}
	case demo.AskHolders:
		if n, err := strconv.Atoi(v); err != nil || n < 0 || n > len(sc.Clients) || strconv.Itoa(n) != v {
			return fmt.Sprintf("a holders question's outcome is how many clients hold the lock, 0 to %d", len(sc.Clients))
		}
	case demo.AskCount:
		if n, err := strconv.Atoi(v); err != nil || n < 0 || strconv.Itoa(n) != v {
			return "a count question's outcome is a number of events, 0 or more"
		}
	case demo.AskEvent:
		if !validID(v) {
			return "an event question's outcome is an event kind, such as accepted or rejected"
		}
	}
	return ""
}

// engineKinds are the events every scenario can have, whatever its store:
// a write taken, fenced off or skipped, a client paused, resumed or crashed.
var engineKinds = []demo.Kind{demo.Accepted, demo.Rejected, demo.WriteSkipped, demo.Paused, demo.Resumed, demo.Crashed}

// eventKinds collects the kinds of the events of every run it is shown, for
// checkEventOutcomes: each run's events are read once, as they come.
type eventKinds struct {
	seen map[demo.Kind]bool
	read map[*demo.Run]int
}

func (k *eventKinds) add(r *demo.Run) {
	evs := r.Events()
	for _, e := range evs[k.read[r]:] {
		k.seen[e.Kind()] = true
	}
	k.read[r] = len(evs)
}

// checkEventOutcomes: an event question's options each name a kind of
// event the engine or the scenario's store has (one that happens in some
// frame in either switch position), so that a misspelt kind, which no
// answer could ever be, fails to load.
func checkEventOutcomes(sc *demo.Scenario, k *eventKinds) *checkError {
	for i, m := range sc.Moves {
		p := m.Predict
		if p == nil || p.Kind != demo.AskEvent {
			continue
		}
		for j, o := range p.Options {
			kind := demo.Kind(o.Value)
			if k.seen[kind] || slices.Contains(engineKinds, kind) {
				continue
			}
			line := 0
			if len(m.Do) > 0 {
				line = m.Do[0].Line
			}
			return fail(line, "move %d predict: option %d is: %q: no event of this kind happens in the scenario in either position; want one of %s",
				i+1, j+1, o.Value, strings.Join(k.names(), ", "))
		}
	}
	return nil
}

func (k *eventKinds) names() []string {
	var names []string
	for _, e := range engineKinds {
		names = append(names, string(e))
	}
	for kind := range k.seen {
		if !slices.Contains(engineKinds, kind) {
			names = append(names, string(kind))
		}
	}
	slices.Sort(names[len(engineKinds):])
	return names
}

// asksEvent reports whether one of sc's questions is about an event.
func asksEvent(sc *demo.Scenario) bool {
	return slices.ContainsFunc(sc.Moves, func(m demo.Move) bool { return m.Predict != nil && m.Predict.Kind == demo.AskEvent })
}
