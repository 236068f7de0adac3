package script_test

import (
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// question is a prediction on the test scenario's one move, with options
// whose outcomes are given.
func question(kind, extra string, values ...string) string {
	var b strings.Builder
	b.WriteString("        predict:\n          ask: {ja: 問い, en: What now}\n          kind: " + kind + "\n" + extra + "          options:\n")
	for _, v := range values {
		b.WriteString("            - is: " + v + "\n              label: {ja: 答え, en: Answer}\n              tempting: {ja: 誘惑, en: Tempting}\n")
	}
	return b.String()
}

// The loader holds every question against the model in both positions: the
// computed answer must be among the options, so a question whose scenario
// changes under it fails to load rather than mark a right reader wrong.
func TestLoadPredictions(t *testing.T) {
	moves := []string{"A acquire 10", "tick 2", "A write x"}
	ok := testkit.File(testkit.YAML("one", moves...) + question("event", "          who: A\n", "accepted", "rejected"))
	c, err := script.Load("test.yaml", []byte(ok))
	if err != nil {
		t.Fatalf("Load: %v\n%s", err, ok)
	}
	sc, _ := c.Get("one")
	if p := sc.Asked(1); p == nil || len(p.Options) != 2 || p.Ask.EN != "What now" {
		t.Fatalf("frame 1 asks %+v, want the question", p)
	}
	for _, tc := range []struct {
		name, predict, want string
	}{
		{"answer missing", question("event", "          who: A\n", "rejected", "write-skipped"),
			`the model's answer is "accepted", which is not among the options (rejected, write-skipped)`},
		{"holders missing", question("holders", "", "0", "2"), `the model's answer is "1"`},
		{"verdict missing", question("verdict", "", "stale-write", "two-holders"), `the model's answer is "mutual-exclusion-held"`},
		{"no event", question("event", "          who: B\n", "accepted", "rejected"), "B has no event in this move"},
		{"bad kind", question("guess", "", "a", "b"), `kind "guess": want one of event, verdict, holders, count`},
		{"who for a verdict", question("verdict", "          who: A\n", "a", "b"), "who: an event question names one of the clients"},
		{"unknown who", question("event", "          who: Z\n", "a", "b"), "who: an event question names one of the clients (A, B)"},
		{"count without of", question("count", "", "0", "1"), "of: a count question names the kind of event it counts"},
		{"one option", question("holders", "", "1"), "1 options; a question has 2 to 5"},
		{"same outcome twice", question("holders", "", "1", "1"), "option 2: each option names a different outcome"},
		{"misspelt event", question("event", "          who: A\n", "accepted", "rejectd"),
			`move 1 predict: option 2 is: "rejectd": no event of this kind happens in the scenario in either position; want one of accepted, rejected, write-skipped`},
		{"event kind's spelling", question("event", "          who: A\n", "accepted", "Rejected"),
			`move 1 predict: option 2 is: "Rejected": an event question's outcome is an event kind`},
		{"unknown verdict", question("verdict", "", "mutual-exclusion-held", "stale-writes"),
			`move 1 predict: option 2 is: "stale-writes": no verdict has this name; want one of mutual-exclusion-held, stale-write,`},
		{"holders past the cast", question("holders", "", "1", "3"),
			`move 1 predict: option 2 is: "3": a holders question's outcome is how many clients hold the lock, 0 to 2`},
		{"holders not a number", question("holders", "", "1", "one"), `option 2 is: "one": a holders question's outcome`},
		{"negative count", question("count", "          of: accepted\n", "1", "-1"),
			`move 1 predict: option 2 is: "-1": a count question's outcome is a number of events, 0 or more`},
		{"no Japanese", strings.Replace(question("holders", "", "0", "1"), "tempting: {ja: 誘惑, en: Tempting}", "tempting: {en: Tempting}", 1),
			`move 1 predict option "0" tempting has no Japanese (ja)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := testkit.File(testkit.YAML("one", moves...) + tc.predict)
			le := loadError(t, src)
			if !strings.Contains(le.Msg, tc.want) {
				t.Fatalf("error %q, want it to say %q", le.Msg, tc.want)
			}
			if got, want := le.Line, testkit.LineOf(t, src, "A acquire 10"); got != want {
				t.Fatalf("error on line %d, want %d (the move's)", got, want)
			}
		})
	}
}

// Every scenario's crucial move asks a question, and each question's
// options are complete in both languages (the loader's own checks say the
// rest).
func TestEveryScenarioAsks(t *testing.T) {
	for _, sc := range testkit.Catalog(t).Scenarios {
		n := 0
		for _, m := range sc.Moves {
			if m.Predict != nil {
				n++
			}
		}
		if n == 0 {
			t.Errorf("%s asks no question before its crucial move", sc.ID)
		}
	}
}
