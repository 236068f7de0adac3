package views

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/distlock/fencing-demo/demo"
)

// A free-play history (demo.Place.Play: script lines joined by "\n") rides
// in the address as one parameter, play. Its lines repeat themselves (the
// same client, the same verbs, the same SQL statement sent again), so the
// history is written compressed (textCodec), with a dictionary of the
// scripts' commonest words. Forty actions, even forty of the longest SQL
// statements, stay well under 2,000 characters (place_test.go measures it).

// PlayParam is the history's name in an address and a click's form. Its
// presence means free play, even with no action yet (play=).
const PlayParam = "play"

// MaxPlayBytes bounds a history as written out: far more than any lesson
// needs, and little enough that reading a hostile one costs nothing.
const MaxPlayBytes = 8 << 10

// plays is the history's codec; its dictionary primes the compressor with
// what histories say most, so even a short history comes out short.
var plays = newTextCodec("tick 1\ntick 2\ntick 5\ntick 10\nA pause\nA resume\nB pause\nB resume\n"+
	"A crash\nB crash\nA write A\nB write B\nA acquire 10\nB acquire 10\nA renew 10\nA release\nB release\n"+
	"A sql BEGIN\nB sql BEGIN\nA sql COMMIT\nB sql COMMIT\nA sql ROLLBACK\n"+
	" sql SELECT * FROM  WHERE id =  FOR UPDATE\n sql UPDATE  SET  = ' WHERE id = 1 AND \n"+
	" set lock nx px  unlock  extend  wait  redlock-lock  lock /lock  session  down\n up\n jump  promote\n replicate\n", MaxPlayBytes)

// errPlayCode is a history that is no output of EncodePlay.
var errPlayCode = errTextCode

// EncodePlay writes play for an address.
func EncodePlay(play string) string { return plays.encode(play) }

// DecodePlay reads what EncodePlay wrote; any other text is an error, and
// so is a history longer than MaxPlayBytes.
func DecodePlay(s string) (string, error) {
	play, err := plays.decode(s)
	if err != nil {
		return "", errPlayCode
	}
	// What EncodePlay is given is lines of a script: no empty line, no line
	// ends but "\n", nothing a form field could not hold.
	if !utf8.ValidString(play) || strings.ContainsAny(play, "\r\x00") || strings.HasPrefix(play, "\n") || strings.HasSuffix(play, "\n") ||
		strings.Contains(play, "\n\n") {
		return "", errPlayCode
	}
	return play, nil
}

// PlayLines splits a history into its lines; none for "".
func PlayLines(play string) []string {
	if play == "" {
		return nil
	}
	return strings.Split(play, "\n")
}

// MaxPlayActions bounds a history: a lecture's worth many times over, and
// few enough that replaying it costs little.
const MaxPlayActions = 200

// readPlay reads the history raw from an address into p (which must be in
// free play from then on), checking that each action plays where it
// stands. A history that is no code of ours is dropped; one that breaks
// off keeps its actions up to the first that cannot be played, so the
// error page's way back is the valid prefix.
func readPlay(p *Place, raw string) *BadPlace {
	if p.Sc.Family.Offers == nil {
		return &BadPlace{Key: "err.play.none", Args: []any{p.Sc.ID}}
	}
	p.FreePlay = true
	play, err := DecodePlay(raw)
	if err != nil {
		return &BadPlace{Key: "err.play.code"}
	}
	lines := PlayLines(play)
	if len(lines) > MaxPlayActions {
		p.Play = strings.Join(lines[:MaxPlayActions], "\n")
		return &BadPlace{Key: "err.play.long", Args: []any{MaxPlayActions, len(lines)}}
	}
	p.Play = play
	var he *demo.HistoryError
	if _, err := p.Place.Run(); errors.As(err, &he) {
		p.Play = strings.Join(lines[:he.Index-1], "\n")
		return &BadPlace{Key: "err.play.action", Args: []any{he.Index, he.Line, whyNot(p.Place, he.Line), he.Index - 1}}
	}
	return nil
}

// whyNot says why line cannot be played at p: the reason its offer gives,
// or that it is not offered there at all.
func whyNot(p demo.Place, line string) demo.Text {
	if offers, err := p.Offers(); err == nil {
		for _, o := range offers {
			if o.Action.Source == line && o.Why != (demo.Text{}) {
				return o.Why
			}
		}
	}
	return Words("err.play.unknown")
}

// PlayablePrefix is as much of p's history as plays at p.
func PlayablePrefix(p demo.Place) string {
	var he *demo.HistoryError
	if _, err := p.Run(); errors.As(err, &he) {
		return strings.Join(PlayLines(p.Play)[:he.Index-1], "\n")
	}
	return p.Play
}

// Words is a message of the table in both languages, for a sentence put
// together before its language is known (an error's details).
func Words(key string) demo.Text {
	m := messages[key]
	return demo.Text{JA: m[0], EN: m[1]}
}

// ScriptLine is a history's line as a script writes it in the position
// on: a database client's "A step 3" (the third call of its program,
// demo.ProgramStep) becomes the statement that position sends, for the
// history's list, the finder's trace and a saved scenario. Any other line
// is one already.
func ScriptLine(sc *demo.Scenario, on bool, line string) string { return demo.Spell(sc, on, line) }
