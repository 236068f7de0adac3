package demo

import (
	"slices"
	"strconv"
)

// Prediction is a question put to the reader before a move: what will the
// model do? Learners who commit to an answer before they watch learn more
// than those who only watch, so a scenario may ask one before its crucial
// move. The question and its options are prose; which option is right is
// never written down: Answer computes it from the frame the move leads to,
// so the question stays true when the scenario or its switch changes.
//
// A question's premise is prose about the frame it is asked on and the move
// it asks about, and the switch may change both, as it may a move's
// narration: AskOn or AskOff replaces Ask in one position, and an option's
// words may differ by position the same way. Posed gives the question as a
// reader sees it in one position.
type Prediction struct {
	Ask           Text
	AskOn, AskOff *Text // the question in one position, where it differs
	Kind          AskKind
	Who           string // AskEvent: whose outcome is asked for
	Of            Kind   // AskCount: which events are counted
	Options       []Option
}

// AskKind is what a prediction asks about the frame the move leads to.
type AskKind string

// The kinds of question. Each reads one thing every family's frame has, so
// a question works the same on a lock service, Redis or a database.
const (
	// AskEvent: the kind of Who's last event in the move ("what does the
	// resource do with this write?": accepted, rejected or write-skipped).
	AskEvent AskKind = "event"
	// AskVerdict: the verdict after the move (mutual-exclusion-held,
	// stale-write, two-holders, lost-update...).
	AskVerdict AskKind = "verdict"
	// AskHolders: how many clients believe they hold the lock after the move.
	AskHolders AskKind = "holders"
	// AskCount: how many events of kind Of the move has ("how many clients
	// get woken?").
	AskCount AskKind = "count"
)

// AskKinds lists the kinds, for a loader's message.
var AskKinds = []AskKind{AskEvent, AskVerdict, AskHolders, AskCount}

// Option is one answer a reader may pick. Value is the outcome it names, in
// the model's terms (an event kind, a verdict's name, a number); Tempting
// says in a line why a reader might pick it, shown when it is wrong. The
// -On and -Off texts replace Label or Tempting in one position.
type Option struct {
	Value                   string
	Label                   Text
	LabelOn, LabelOff       *Text
	Tempting                Text
	TemptingOn, TemptingOff *Text
}

// Posed is the question as it is asked with the switch on or off: Ask,
// and each option's Label and Tempting, are the position's own, and the
// per-position texts are gone. The outcomes and their order are the same
// in both positions, so a room's answers count the same either way. A nil
// question stays nil.
func (p *Prediction) Posed(on bool) *Prediction {
	if p == nil {
		return nil
	}
	q := &Prediction{Ask: inPosition(on, p.Ask, p.AskOn, p.AskOff), Kind: p.Kind, Who: p.Who, Of: p.Of,
		Options: make([]Option, len(p.Options))}
	for i, o := range p.Options {
		q.Options[i] = Option{Value: o.Value,
			Label:    inPosition(on, o.Label, o.LabelOn, o.LabelOff),
			Tempting: inPosition(on, o.Tempting, o.TemptingOn, o.TemptingOff)}
	}
	return q
}

// inPosition is both's text, unless the position's own replaces it.
func inPosition(on bool, both Text, ifOn, ifOff *Text) Text {
	t := ifOff
	if on {
		t = ifOn
	}
	if t != nil {
		return *t
	}
	return both
}

// Answer is the value of the right option for the frame f that the move
// leads to, and the events that show it (none for a verdict or a count of
// holders, which the frame shows whole). ok is false when the frame has
// nothing to answer with (an AskEvent whose client did nothing).
func (p *Prediction) Answer(f *Frame) (value string, because []Event, ok bool) {
	switch p.Kind {
	case AskEvent:
		latest := f.Latest()
		for i := len(latest) - 1; i >= 0; i-- {
			if e := latest[i]; e.Header().Client == p.Who {
				return e.Kind().String(), []Event{e}, true
			}
		}
		return "", nil, false
	case AskVerdict:
		return f.Verdict().Kind.String(), nil, true
	case AskHolders:
		n := 0
		for _, c := range f.Clients {
			if c.Holds {
				n++
			}
		}
		return strconv.Itoa(n), nil, true
	case AskCount:
		for _, e := range f.Latest() {
			if e.Kind() == p.Of {
				because = append(because, e)
			}
		}
		return strconv.Itoa(len(because)), because, true
	}
	return "", nil, false
}

// Option returns the option whose value is v.
func (p *Prediction) Option(v string) (Option, bool) {
	i := slices.IndexFunc(p.Options, func(o Option) bool { return o.Value == v })
	if i < 0 {
		return Option{}, false
	}
	return p.Options[i], true
}

// Asked returns the prediction asked on frame index (before the move that
// leaves it), or nil: the question of move index-1, counted from 0.
func (sc *Scenario) Asked(index int) *Prediction {
	if index < 1 || index > len(sc.Moves) {
		return nil
	}
	return sc.Moves[index-1].Predict
}

// Predicted returns the prediction whose move led to frame index, or nil.
func (sc *Scenario) Predicted(index int) *Prediction { return sc.Asked(index - 1) }

// Result is a reader's answer to a prediction, marked against the frame the
// move led to.
type Result struct {
	Q       *Prediction
	Right   Option  // the right option
	Because []Event // the events that show it
	Picked  Option  // what the reader picked; zero when nobody picked
	OK      bool    // Picked is Right
}

// MarkGuess computes the right answer of the prediction that led to f and marks
// guess against it ("" for no guess), in the words of f's position. ok is
// false when no prediction led to f, or guess is not one of its options, or
// the frame has no answer.
func MarkGuess(f *Frame, guess string) (Result, bool) {
	p := f.Scenario.Predicted(f.Index).Posed(f.On)
	if p == nil {
		return Result{}, false
	}
	v, because, ok := p.Answer(f)
	right, found := p.Option(v)
	if !ok || !found {
		return Result{}, false
	}
	res := Result{Q: p, Right: right, Because: because}
	if guess != "" {
		picked, ok := p.Option(guess)
		if !ok {
			return Result{}, false
		}
		res.Picked, res.OK = picked, picked.Value == right.Value
	}
	return res, true
}
