package demo_test

import (
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
					t.Errorf("%s %s: the answer to %q is %q, want %q (scenarios.yaml:%d)", sc.ID, OnOff(on), p.Ask.EN, got, want, x.AnswersLine)
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
