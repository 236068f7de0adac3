package script

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/distlock/fencing-demo/demo"
)

// A question's premise is a claim about the model too: "While B and C wait,
// D comes", "A's renewal thread has renewed the TTL, and A writes", "W2
// records the charge". The loader holds it, in each position, to the frame
// the question is asked on and to the move it asks about, the way a
// narration is held to its frame's events (narration.go): its ask, and each
// option's temptation, which the reader is shown as a reason. A premise
// reads stricter than a narration. Its tense says where to look: the move
// for what a client does ("A writes"), the frame's own move for what has
// just happened ("has renewed"), and anything before for the past ("A
// renewed its lease before the pause"). A write it names must have gone
// out: a client that did not write because it holds no lock, or whose
// statement still waits, has not written. A wait it names must still be
// going on where the question is asked, or happen in the move. And a
// clause that only supposes ("if", "seems", "feels", "should") claims
// nothing, as one with a negation does not.

// hedging is what makes a clause claim nothing beyond a negation.
type hedging struct {
	stems []string
	words *regexp.Regexp
}

var supposes = &hedging{
	stems: []string{"if", "seem", "feel", "should", "would", "could", "might", "may ", "must", "whether", "sound", "look", "tempting"},
	words: regexp.MustCompile(`(?i)\b(if|seems?|feels?|should|would|could|might|may|must|whether|sounds?|looks?|tempting)\b`),
}

// asked is what the frame a question is asked on shows of its clients: the
// events of the move that led to it, every event before, and who still
// waits there.
type asked struct {
	latest, before []demo.Event
	waiting        []string
	spanned        bool // the store draws its waits: waiting is the whole truth
}

// premises keeps, for each run of a scenario, the frame its next question
// is asked on, until the move that answers it has played.
type premises map[*demo.Run]*asked

// note keeps r's frame if the next move asks a question.
func (p premises) note(sc *demo.Scenario, r *demo.Run) {
	if i := r.Index() - 1; i >= len(sc.Moves) || sc.Moves[i].Predict == nil {
		return
	}
	f := r.Frame()
	_, spanned := f.Store.(demo.Spanned)
	p[r] = &asked{latest: f.Latest(), before: f.Events, waiting: waitingAt(f), spanned: spanned}
}

// waitingAt is who still waits at f: a connection's open wait for a lock,
// where the store draws its waits (demo.Spanned).
func waitingAt(f demo.Frame) []string {
	s, ok := f.Store.(demo.Spanned)
	if !ok {
		return nil
	}
	_, waits := s.Spans()
	var who []string
	for _, w := range waits {
		if w.Open {
			who = append(who, w.Owner)
		}
	}
	return who
}

// premiseOf holds the question of the move that led to r's frame to the
// frame it was asked on and to the move's events, in r's position.
func (p premises) premiseOf(sc *demo.Scenario, r *demo.Run) *checkError {
	i := r.Index() - 2
	q := sc.Moves[i].Predict
	if q == nil {
		return nil
	}
	at := p[r]
	delete(p, r)
	if at == nil {
		// The first frame: nothing has happened yet, and nobody waits.
		_, spanned := r.Frame().Store.(demo.Spanned)
		at = &asked{spanned: spanned}
	}
	move := r.Latest()
	bears := func(who string, c claim, t tense) bool {
		by := func(e demo.Event) bool { return who == "" || e.Header().Client == who }
		shows := func(e demo.Event) bool { return by(e) && did(e, c.deed) }
		if c.deed == demo.Wrote {
			shows = func(e demo.Event) bool {
				return by(e) && did(e, demo.Wrote) && !did(e, demo.Waited) && e.Kind() != demo.WriteSkipped
			}
		}
		switch {
		case t == perfect:
			return slices.ContainsFunc(at.latest, shows)
		case t == past:
			return slices.ContainsFunc(at.before, shows)
		case c.deed == demo.Waited:
			still := slices.ContainsFunc(at.waiting, func(w string) bool { return who == "" || w == who })
			if !at.spanned {
				// A store that draws no waits: a wait the frame's move began.
				still = slices.ContainsFunc(at.latest, shows)
			}
			return still || slices.ContainsFunc(move, shows)
		}
		return slices.ContainsFunc(move, shows)
	}
	posed := q.Posed(r.On())
	texts := []struct{ what, prose string }{{"ask", posed.Ask.EN}}
	for _, o := range posed.Options {
		texts = append(texts, struct{ what, prose string }{fmt.Sprintf("option %q tempting", o.Value), o.Tempting.EN})
	}
	for _, t := range texts {
		if msg := unborne(sc, t.prose, supposes, bears); msg != "" {
			return fail(moveLine(sc.Moves[i]), "move %d predict %s with the switch %s: %s, and neither the frame it is asked on nor the move shows one",
				i+1, t.what, demo.OnOff(r.On()), msg)
		}
	}
	return nil
}
