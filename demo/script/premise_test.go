package script_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// asking is a question with the given ask, kind and outcomes, each option's
// temptation tempting.
func asking(ask, tempting, kind, extra string, values ...string) string {
	var b strings.Builder
	b.WriteString("        predict:\n          ask: {ja: 問い, en: \"" + ask + "\"}\n          kind: " + kind + "\n" + extra + "          options:\n")
	for _, v := range values {
		b.WriteString("            - is: \"" + v + "\"\n              label: {ja: 答え, en: Answer}\n              tempting: {ja: 誘惑, en: \"" + tempting + "\"}\n")
	}
	return b.String()
}

// second is a second move doing do, for a scenario of testkit.YAML.
func second(do ...string) string {
	s := "      - title: {ja: 二手, en: Second move}\n        text: {ja: 本文, en: Text}\n        do:\n"
	for _, a := range do {
		s += "          - " + a + "\n"
	}
	return s
}

// onDatabase puts a testkit.YAML scenario on the database store with the
// tables the tests use: accounts 1 and 2, and a charge under req-1.
func onDatabase(t *testing.T, sc string) string {
	t.Helper()
	sc = testkit.OnStore(t, "database", sc)
	return testkit.Replace(t, sc, "    clients: [A, B]\n", "    clients: [A, B]\n    setup:\n"+
		"      - A sql INSERT INTO accounts (id, balance) VALUES (1, 100)\n"+
		"      - A sql INSERT INTO accounts (id, balance) VALUES (2, 100)\n"+
		"      - A sql INSERT INTO charges (request_id, amount) VALUES ('req-1', 5)\n")
}

var (
	lockB    = "B sql SELECT balance FROM accounts WHERE id = 1 FOR UPDATE"
	lockA    = "A sql SELECT balance FROM accounts WHERE id = 1 FOR UPDATE"
	readTwo  = "A sql SELECT balance FROM accounts WHERE id = 2"
	chargeMe = "A sql INSERT INTO charges (request_id, amount) VALUES ('req-1', 5) ON CONFLICT (request_id) DO NOTHING"
)

// A question's premise is held to the frame it is asked on and to its move,
// in both positions, as a narration is: a renewal that did not take, a wait
// that is over, a row the INSERT did not record, a write that never went
// out, each named as a fact, fails to load with the line of the move; the
// same question loads where the model bears it out, and a clause that only
// supposes claims nothing.
func TestLoadPremiseMustBeTrue(t *testing.T) {
	for _, tt := range []struct {
		name, src, msg string // msg "" for a file that loads
	}{
		{"a renewal that did not take",
			testkit.YAML("s", "A acquire 10", "tick 20", "A renew 10") + second("tick 1") + asking("A has renewed its lease. Who holds it?", "Tempting", "holders", "", "0", "1"),
			`move 2 predict ask with the switch off: "A has renewed its lease" names a renewal that took by A`},
		{"a renewal that took",
			testkit.YAML("s", "A acquire 10", "tick 2", "A renew 10") + second("tick 1") + asking("A has renewed its lease. Who holds it?", "Tempting", "holders", "", "0", "1"), ""},
		{"a renewal that has not happened yet",
			testkit.YAML("s", "A acquire 10", "tick 2") + second("A renew 10") + asking("A has renewed its lease. Who holds it?", "Tempting", "holders", "", "0", "1"),
			`"A has renewed its lease" names a renewal that took by A`},
		{"a renewal in the move",
			testkit.YAML("s", "A acquire 10", "tick 2") + second("A renew 10") + asking("A renews its lease. Who holds it?", "Tempting", "holders", "", "0", "1"), ""},
		{"a temptation's renewal",
			testkit.YAML("s", "A acquire 10", "tick 20", "A renew 10") + second("tick 1") + asking("Who holds it?", "A renewed its lease", "holders", "", "0", "1"),
			`move 2 predict option "0" tempting with the switch off: "A renewed its lease" names a renewal that took`},
		{"a write that never went out",
			testkit.YAML("s", "A write x") + asking("A writes x. What does the resource do?", "Tempting", "event", "          who: A\n", "accepted", "write-skipped"),
			`"A writes x" names a write by A`},
		{"a write only supposed",
			testkit.YAML("s", "A write x") + asking("A writes x if it holds the lock. What does the resource do?", "Tempting", "event", "          who: A\n", "accepted", "write-skipped"), ""},
		{"a wait that is over",
			onDatabase(t, testkit.YAML("s", "A sql BEGIN", lockA, "B sql BEGIN", lockB, "A sql COMMIT")) +
				second("tick 10", readTwo) + asking("While B waits, A reads account 2. What comes of it?", "Tempting", "event", "          who: A\n", "sql", "sql-waiting"),
			`move 2 predict ask with the switch off: "While B waits, A reads account 2" names a wait by B`},
		{"a wait still going on",
			onDatabase(t, testkit.YAML("s", "A sql BEGIN", lockA, "B sql BEGIN", lockB)) +
				second("tick 10", readTwo) + asking("While B waits, A reads account 2. What comes of it?", "Tempting", "event", "          who: A\n", "sql", "sql-waiting"), ""},
		{"two waiters, one of them done",
			onDatabase(t, testkit.YAML("s", "A sql BEGIN", lockA, "B sql BEGIN", lockB)) +
				second("tick 10", readTwo) + asking("While A and B wait, A reads account 2. What comes of it?", "Tempting", "event", "          who: A\n", "sql", "sql-waiting"),
			`names a wait by A`},
		{"a row the INSERT did not record",
			onDatabase(t, testkit.YAML("s", chargeMe)) + asking("A records the charge. What comes of it?", "Tempting", "event", "          who: A\n", "sql", "sql-error"),
			`"A records the charge" names a row recorded by A`},
		{"a lock the statement did not take",
			onDatabase(t, testkit.YAML("s", "A sql BEGIN", lockA, "B sql BEGIN", lockB)) + asking("B takes the lock. Who holds it?", "Tempting", "holders", "", "1", "2"),
			`"B takes the lock" names the lock taken by B`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := testkit.File(tt.src)
			if tt.msg == "" {
				if _, err := script.Load("test.yaml", []byte(src)); err != nil {
					t.Fatalf("Load: %v\n%s", err, testkit.Numbered(src))
				}
				return
			}
			le := loadError(t, src)
			if !strings.Contains(le.Msg, tt.msg) || le.Line == 0 {
				t.Fatalf("LoadError %v: want a line and %q", le, tt.msg)
			}
		})
	}
}

// The questions scenarios.yaml used to ask each state a premise that is
// false in one position; put back, each fails to load, naming the position
// and the clause.
func TestOldPremisesDoNotLoad(t *testing.T) {
	for _, tt := range []struct {
		id, ask, msg string
	}{
		{"naive-renewal", "A's renewal thread has renewed the TTL after the pause, and A goes on and writes. What is the verdict after this write?",
			`predict ask with the switch on: "A's renewal thread has renewed the TTL after the pause, and A goes on and writes" names a`},
		{"pool-exhaustion", "While B and C wait, D comes to read a stock in another table. What comes of D's query?",
			`predict ask with the switch on: "While B and C wait, D comes to read a stock in another table" names a wait by B`},
		{"idempotency-key", "The reply is lost and the client retries; W2 records the charge for the retry. What is the verdict then?",
			`predict ask with the switch on: "W2 records the charge for the retry" names a row recorded by W2`},
		{"fencing-sql", "A writes with its old token. What does the verdict say afterwards?",
			`predict ask with the switch off: "A writes with its old token" names a token sent with a write by A`},
		{"deadlock", "B updates its second row. What has the database got now?",
			`predict ask with the switch off: "B updates its second row" names a write by B`},
		{"advisory-pooler", "B begins a transaction and takes the same advisory lock. How many clients believe they hold it afterwards?",
			`predict ask with the switch on: "B begins a transaction and takes the same advisory lock" names the lock taken by B`},
		{"reentrant", "refresh() takes the same lock while report() holds it. What happens to its call?",
			`predict ask with the switch off: "refresh() takes the same lock while report() holds it" names the lock taken by any client`},
	} {
		t.Run(tt.id, func(t *testing.T) {
			sc := withAsk(t, tt.id, tt.ask)
			out, err := script.Marshal(sc)
			if err != nil {
				t.Fatal(err)
			}
			_, err = script.Load("old.yaml", out)
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("the old question loads or fails otherwise: %v; want %q", err, tt.msg)
			}
		})
	}
}

// withAsk is a copy of scenario id whose question asks ask in both
// positions, in English, as it used to.
func withAsk(t *testing.T, id, ask string) *demo.Scenario {
	t.Helper()
	sc := *testkit.Scenario(t, id)
	sc.Moves = slices.Clone(sc.Moves)
	for i, m := range sc.Moves {
		if m.Predict == nil {
			continue
		}
		p := *m.Predict
		p.Ask, p.AskOn, p.AskOff = demo.Text{JA: "問い", EN: ask}, nil, nil
		sc.Moves[i].Predict = &p
		return &sc
	}
	t.Fatalf("%s asks no question", id)
	return nil
}

// A question may ask, and label and tempt, in words of each position's own;
// the page shows each position its own (demo.Prediction.Posed), and the
// loader wants both languages of each.
func TestLoadPredictionPerPosition(t *testing.T) {
	predict := "        predict:\n" +
		"          ask-on: {ja: 書く, en: A writes with its token}\n" +
		"          ask-off: {ja: 書かない, en: A does not write}\n" +
		"          kind: event\n          who: A\n          options:\n" +
		"            - is: accepted\n              label: {ja: 受理, en: Taken}\n" +
		"              tempting-on: {ja: 有, en: On}\n              tempting-off: {ja: 無, en: Off}\n" +
		"            - is: write-skipped\n              label-on: {ja: 飛ばす, en: Skipped on}\n              label-off: {ja: 飛ばす, en: Skipped off}\n" +
		"              tempting: {ja: 誘惑, en: Tempting}\n"
	src := testkit.File(testkit.YAML("s", "A acquire 10", "if-on: A write x", "if-off: A write y") + predict)
	c, err := script.Load("test.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Load: %v\n%s", err, testkit.Numbered(src))
	}
	sc, _ := c.Get("s")
	for _, tt := range []struct {
		on                    bool
		ask, tempting, second string
	}{{true, "A writes with its token", "On", "Skipped on"}, {false, "A does not write", "Off", "Skipped off"}} {
		q := sc.Asked(1).Posed(tt.on)
		if q.Ask.EN != tt.ask || q.Options[0].Tempting.EN != tt.tempting || q.Options[1].Label.EN != tt.second || q.Options[0].Label.EN != "Taken" {
			t.Errorf("on=%v: %+v, want %q, %q and %q", tt.on, q, tt.ask, tt.tempting, tt.second)
		}
	}
	for _, tt := range []struct{ name, from, to, msg string }{
		{"no ask for one position", "          ask-off: {ja: 書かない, en: A does not write}\n", "", "move 1 predict ask is missing"},
		{"no Japanese", "ask-on: {ja: 書く, en:", "ask-on: {ja: \"\", en:", "move 1 predict ask-on has no Japanese (ja)"},
		{"a label for one position", "              label-off: {ja: 飛ばす, en: Skipped off}\n", "", `option "write-skipped" label is missing`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			le := loadError(t, testkit.Replace(t, src, tt.from, tt.to))
			if !strings.Contains(le.Msg, tt.msg) {
				t.Fatalf("LoadError %v, want %q", le, tt.msg)
			}
		})
	}
}
