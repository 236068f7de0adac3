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
// wait, ask for the lock, take it, renew it or record a row must be borne
// out by an event of that client in that frame. It reads the prose as plain
// sentences, so it knows little grammar: a clause with a negation
// ("nobody", "not", "without") claims nothing, and a clause that names no
// client is borne out by any client. A question's premise is held the same
// way (premise.go).

// claim is one kind of action a narration can name.
type claim struct {
	what  string   // in the error message
	stems []string // one of them is in every clause the words match: a cheap first look
	words *regexp.Regexp
	deed  demo.Deed // what an event must show (demo.Doer)
}

var claims = []claim{
	{"a write", []string{"writes", "updates"}, regexp.MustCompile(`\b(writes|rewrites|writes back|updates)\b`), demo.Wrote},
	{"a token sent with a write", []string{" token"}, regexp.MustCompile(`\b(with (its|the)( old| new)? token|carrying the token|as the token)\b`), demo.SentToken},
	{"an unlock", []string{"releases", "unlocks", "unlock()", "deletes its node"}, regexp.MustCompile(`\b(releases|unlocks|calls unlock\(\)|deletes its node)\b`), demo.Unlocked},
	{"a wait", []string{"wait"}, regexp.MustCompile(`\b(waits|wait|is waiting|are waiting)\b`), demo.Waited},
	{"a request for the lock", []string{"asks for the lock"}, regexp.MustCompile(`\basks for the lock\b`), demo.Asked},
	{"the lock taken", []string{" lock"}, regexp.MustCompile(`\b(takes|took|gets|got) the( same)?( advisory)? lock\b`), demo.Got},
	{"a renewal that took", []string{"renew"}, regexp.MustCompile(`\b(renews|renewed)\b`), demo.Renewed},
	{"a row recorded", []string{"records", "inserts"}, regexp.MustCompile(`\b(records|inserts)\b`), demo.Recorded},
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
	events := r.Latest()
	bears := func(who string, c claim, _ tense) bool {
		return slices.ContainsFunc(events, func(e demo.Event) bool {
			return (who == "" || e.Header().Client == who) && did(e, c.deed)
		})
	}
	for _, part := range []struct{ what, prose string }{{"title", n.Title.EN}, {"text", n.Text.EN}} {
		if msg := unborne(sc, part.prose, nil, bears); msg != "" {
			return fail(moveLine(m), "move %d %s with the switch %s: %s, and the frame has none", r.Index()-1, part.what, demo.OnOff(r.On()), msg)
		}
	}
	return nil
}

func moveLine(m demo.Move) int {
	if len(m.Do) > 0 {
		return m.Do[0].Line
	}
	return 0
}

// tense is when a clause says its deed happened: a narration's are all in
// its frame, but a question's premise speaks of the move ("A writes"), of
// what has just happened ("A's renewal thread has renewed the TTL"), or of
// what happened before ("A renewed its lease before the pause").
type tense int

const (
	present tense = iota
	perfect       // has, have or had, and the participle
	past
)

var (
	perfectAux = regexp.MustCompile(`\b(has|have|had)\s+$`)
	pastForm   = regexp.MustCompile(`^(\w+ed|took|got)\b`)
)

// tenseOf is the tense of the claim's words found at loc in clause.
func tenseOf(clause string, loc []int) tense {
	switch {
	case perfectAux.MatchString(clause[:loc[0]]):
		return perfect
	case pastForm.MatchString(clause[loc[0]:loc[1]]):
		return past
	}
	return present
}

// unborne returns what prose claims that bears does not bear out, or "".
// A clause with a negation claims nothing, nor one with a hedge (stems and
// words, for a premise: "if", "seems") where hedge is given. bears is asked
// about each client the clause names as its subject, or "" for any client,
// and told the tense the clause says it in.
func unborne(sc *demo.Scenario, prose string, hedge *hedging, bears func(who string, c claim, t tense) bool) string {
	if !slices.ContainsFunc(claims, func(c claim) bool { return containsAny(prose, c.stems) }) {
		return "" // it claims nothing a frame must bear out
	}
	for _, clause := range clauses.Split(prose, -1) {
		// The regular expressions are the test; the plain look for their
		// words first keeps a start's check of every narration cheap.
		lower := strings.ToLower(clause)
		if containsAny(lower, negationStems) && negation.MatchString(clause) ||
			hedge != nil && containsAny(lower, hedge.stems) && hedge.words.MatchString(clause) {
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
			who := subjects(sc, clause[:loc[0]])
			if len(who) == 0 {
				who = []string{""}
			}
			for _, w := range who {
				if !bears(w, c, tenseOf(clause, loc)) {
					by := "any client"
					if w != "" {
						by = w
					}
					return fmt.Sprintf("%q names %s by %s", strings.TrimSpace(clause), c.what, by)
				}
			}
		}
	}
	return ""
}

// subjects are who do what the clause names before the verb: the first
// client named since the last comma, or else the first named in the
// clause, outside brackets, with any joined to it by "and" ("B and C
// wait"); none for none. A capital A followed by a word that is no verb ("A
// plain SELECT") is the article.
func subjects(sc *demo.Scenario, before string) []string {
	before = brackets.ReplaceAllString(before, " ")
	if i := strings.LastIndex(before, ","); i >= 0 {
		if who := clientsFrom(sc, before[i+1:]); len(who) > 0 {
			return who
		}
	}
	return clientsFrom(sc, before)
}

// clientsFrom is the first client named in s, with the clients joined to
// it by "and".
func clientsFrom(sc *demo.Scenario, s string) []string {
	words := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' })
	client := func(i int) string {
		if i >= len(words) {
			return ""
		}
		w := strings.TrimSuffix(words[i], "'s")
		if !slices.Contains(sc.Clients, w) {
			return ""
		}
		if words[i] == "A" && i+1 < len(words) && !strings.HasSuffix(words[i+1], "s") && words[i+1] != "and" {
			return "" // the article
		}
		return w
	}
	for i := range words {
		first := client(i)
		if first == "" {
			continue
		}
		who := []string{first}
		for j := i + 1; j+1 < len(words) && words[j] == "and"; j += 2 {
			next := client(j + 1)
			if next == "" {
				break
			}
			who = append(who, next)
		}
		return who
	}
	return nil
}
