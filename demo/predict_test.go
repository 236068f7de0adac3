package demo_test

import (
	"strings"
	"testing"

	. "github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// Every scenario of scenarios.yaml asks one question, before its crucial
// move, and states its right answer in each switch position (expect:
// answer); the model computes that answer. A scenario that asks none, or
// states no answer, fails here.
func TestPredictionAnswers(t *testing.T) {
	for _, sc := range testkit.Catalog(t).Scenarios {
		asked := 0
		for k := 1; k < sc.Frames(); k++ {
			p := sc.Asked(k)
			if p == nil {
				continue
			}
			asked++
			for i, on := range []bool{false, true} {
				x := sc.Expect[i]
				if len(x.Answers) != 1 {
					t.Fatalf("%s %s: scenarios.yaml states %d answers, want the one question's under expect: %s: answer:", sc.ID, OnOff(on), len(x.Answers), OnOff(on))
				}
				f, err := Place{Sc: sc, On: on, Step: k + 1}.Frame()
				if err != nil {
					t.Fatal(err)
				}
				res, ok := MarkGuess(&f, "")
				if !ok {
					t.Fatalf("%s %s: no answer at frame %d", sc.ID, OnOff(on), k+1)
				}
				if got, want := res.Right.Value, x.Answers[0]; got != want {
					t.Errorf("%s %s: the answer to %q is %q, want %q (scenarios.yaml:%d)", sc.ID, OnOff(on), p.Posed(on).Ask.EN, got, want, x.AnswersLine)
				}
			}
		}
		if asked != 1 {
			t.Errorf("%s asks %d questions, want 1 (its crucial move's)", sc.ID, asked)
		}
	}
}

// A guess is marked against the computed answer, and a guess that is none
// of the options is no mark at all.
func TestMarkGuess(t *testing.T) {
	sc := testkit.Scenario(t, "gc-pause")
	for _, tc := range []struct {
		on     bool
		guess  string
		ok, is bool
	}{
		{true, "rejected", true, true},
		{true, "accepted", true, false},
		{false, "accepted", true, true},
		{false, "write-skipped", true, false},
		{true, "exploded", false, false},
	} {
		f, err := Place{Sc: sc, On: tc.on, Step: 7}.Frame()
		if err != nil {
			t.Fatal(err)
		}
		res, ok := MarkGuess(&f, tc.guess)
		if ok != tc.ok || res.OK != tc.is {
			t.Errorf("%s guess %q: marked ok=%v right=%v, want ok=%v right=%v", OnOff(tc.on), tc.guess, ok, res.OK, tc.ok, tc.is)
		}
		if ok && res.Picked.Value != tc.guess {
			t.Errorf("%s guess %q: picked %q", OnOff(tc.on), tc.guess, res.Picked.Value)
		}
	}
	// No question led to frame 6: nothing to mark.
	f, _ := Place{Sc: sc, On: true, Step: 6}.Frame()
	if _, ok := MarkGuess(&f, ""); ok {
		t.Error("frame 6 of gc-pause has a result, but no question led to it")
	}
	if p := sc.Asked(6); p == nil || p.Kind != AskEvent || p.Who != "A" {
		t.Errorf("gc-pause asks %+v on frame 6, want an event question about A", p)
	}
}

// A question is asked and marked in its position's words: fencing-sql's A
// sends no token with the switch off, and naive-renewal's checked renewal
// reported no success with it on.
func TestQuestionInItsPosition(t *testing.T) {
	for _, tc := range []struct {
		id                        string
		on                        bool
		ask                       string
		option, reason, notReason string
	}{
		{"fencing-sql", true, "A writes with its old token.", "", "", ""},
		{"fencing-sql", false, "A sends the same UPDATE again, with no token.", "", "", ""},
		{"naive-renewal", false, "A's renewal thread has renewed the TTL", "stale-write", "reported success", ""},
		{"naive-renewal", true, "the script answered 0", "stale-write", "went to B while A was stopped", "reported success"},
		{"redlock-gc-pause", false, "A wakes up and writes.", "rejected", "B holds the lock now", "The switch says fencing"},
	} {
		sc := testkit.Scenario(t, tc.id)
		k := 0
		for i := 1; i < sc.Frames(); i++ {
			if sc.Asked(i) != nil {
				k = i
			}
		}
		q := sc.Asked(k).Posed(tc.on)
		if !strings.Contains(q.Ask.EN, tc.ask) {
			t.Errorf("%s %s asks %q, want it to say %q", tc.id, OnOff(tc.on), q.Ask.EN, tc.ask)
		}
		if tc.option == "" {
			continue
		}
		f, err := Place{Sc: sc, On: tc.on, Step: k + 1}.Frame()
		if err != nil {
			t.Fatal(err)
		}
		res, ok := MarkGuess(&f, tc.option)
		if !ok || !strings.Contains(res.Picked.Tempting.EN, tc.reason) || tc.notReason != "" && strings.Contains(res.Picked.Tempting.EN, tc.notReason) {
			t.Errorf("%s %s: %q tempts with %q, want %q", tc.id, OnOff(tc.on), tc.option, res.Picked.Tempting.EN, tc.reason)
		}
		if res.Q.Ask != q.Ask {
			t.Errorf("%s %s: the marked frame asks %q, the question's frame %q", tc.id, OnOff(tc.on), res.Q.Ask.EN, q.Ask.EN)
		}
	}
	if (*Prediction)(nil).Posed(true) != nil {
		t.Error("no question, posed, is a question")
	}
}
