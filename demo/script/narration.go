package script

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// A narration says what a move does, and a lecturer may project it in either
// switch position. checkNarration plays the scenario in both positions and
// holds each move's English title and text against the events the move
// really produced: a sentence that has a client write, send a token, unlock,
// wait or ask for the lock must be borne out by an event of that client in
// that frame. It reads the prose as plain sentences, so it knows little
// grammar: a clause with a negation ("nobody", "not", "without") claims
// nothing, and a clause that names no client is borne out by any client.

// claim is one kind of action a narration can name.
type claim struct {
	what  string   // in the error message
	stems []string // one of them is in every clause the words match: a cheap first look
	words *regexp.Regexp
	deed  demo.Deed // what an event must show (demo.Doer)
}

var claims = []claim{
	{"a write", []string{"writes"}, regexp.MustCompile(`\b(writes|rewrites|writes back)\b`), demo.Wrote},
	{"a token sent with a write", []string{" token"}, regexp.MustCompile(`\b(with (its|the)( old| new)? token|carrying the token|as the token)\b`), demo.SentToken},
	{"an unlock", []string{"releases", "unlocks", "unlock()", "deletes its node"}, regexp.MustCompile(`\b(releases|unlocks|calls unlock\(\)|deletes its node)\b`), demo.Unlocked},
	{"a wait", []string{"waits"}, regexp.MustCompile(`\bwaits\b`), demo.Waited},
	{"a request for the lock", []string{"asks for the lock"}, regexp.MustCompile(`\basks for the lock\b`), demo.Asked},
}

// negationStems are in every clause the negation matches, lower-cased.
var negationStems = []string{"nobody", "no one", "not", "never", "without", "nothing", "cannot", "instead of", "n't"}

func containsAny(s string, stems []string) bool {
	for _, st := range stems {
		if strings.Contains(s, st) {
			return true
		}
	}
	return false
}

// did reports whether e shows its client doing d.
func did(e demo.Event, d demo.Deed) bool {
	doer, ok := e.(demo.Doer)
	return ok && doer.Deeds()&d != 0
}

var (
	negation = regexp.MustCompile(`(?i)\b(nobody|no one|not|never|without|nothing|cannot|instead of)\b|n't\b`)
	clauses  = regexp.MustCompile(`[.;:!?](\s|$)`)
	brackets = regexp.MustCompile(`\([^)]*\)`)
)

// narrationOf finds, in r's frame, a narration that names an action the
// frame does not contain; nil when every claim is borne out.
func narrationOf(sc *demo.Scenario, r *demo.Run) *checkError {
	m := sc.Moves[r.Index()-2]
	n := r.Narration()
	for _, part := range []struct{ what, prose string }{{"title", n.Title.EN}, {"text", n.Text.EN}} {
		if msg := unborne(sc, part.prose, r.Latest()); msg != "" {
			line := 0
			if len(m.Do) > 0 {
				line = m.Do[0].Line
			}
			return fail(line, "move %d %s with the switch %s: %s", r.Index()-1, part.what, demo.OnOff(r.On()), msg)
		}
	}
	return nil
}

// unborne returns what prose claims that events do not show, or "".
func unborne(sc *demo.Scenario, prose string, events []demo.Event) string {
	if !slices.ContainsFunc(claims, func(c claim) bool { return containsAny(prose, c.stems) }) {
		return "" // it claims nothing a frame must bear out
	}
	for _, clause := range clauses.Split(prose, -1) {
		// The regular expressions are the test; the plain look for their
		// words first keeps a start's check of every narration cheap.
		if containsAny(strings.ToLower(clause), negationStems) && negation.MatchString(clause) {
			continue
		}
		for _, c := range claims {
			if !containsAny(clause, c.stems) {
				continue
			}
			loc := c.words.FindStringIndex(clause)
			if loc == nil {
				continue
			}
			who := subject(sc, clause[:loc[0]])
			if !slices.ContainsFunc(events, func(e demo.Event) bool {
				return (who == "" || e.Header().Client == who) && did(e, c.deed)
			}) {
				by := "any client"
				if who != "" {
					by = who
				}
				return fmt.Sprintf("%q names %s by %s, and the frame has none", strings.TrimSpace(clause), c.what, by)
			}
		}
	}
	return ""
}

// subject is who does what the clause names before the verb: the first
// client named since the last comma, or else the first named in the clause,
// outside brackets; "" for none. A capital A followed by a word that is no
// verb ("A plain SELECT") is the article.
func subject(sc *demo.Scenario, before string) string {
	before = brackets.ReplaceAllString(before, " ")
	if i := strings.LastIndex(before, ","); i >= 0 {
		if who := firstClient(sc, before[i+1:]); who != "" {
			return who
		}
	}
	return firstClient(sc, before)
}

func firstClient(sc *demo.Scenario, s string) string {
	words := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' })
	for i, w := range words {
		w = strings.TrimSuffix(w, "'s")
		if !slices.Contains(sc.Clients, w) {
			continue
		}
		if words[i] == "A" && i+1 < len(words) && !strings.HasSuffix(words[i+1], "s") {
			continue
		}
		return w
	}
	return ""
}
