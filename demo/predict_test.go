package demo_test

import (
	"testing"

	. "github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// The right answer of each scenario's question, as the model computes it in
// each switch position: the table a lecturer would check the scenarios
// against. A change to a scenario that changes an answer shows up here.
func TestPredictionAnswers(t *testing.T) {
	want := map[string][2]string{ // id -> answer with the switch off, on
		"gc-pause":                 {"accepted", "rejected"},
		"no-lease":                 {"write-skipped", "accepted"},
		"setnx-expire":             {"write-skipped", "accepted"},
		"release-other":            {"accepted", "write-skipped"},
		"redis-failover":           {"2", "1"},
		"redlock-quorum":           {"1", "0"},
		"redlock-clock-jump":       {"2", "1"},
		"redlock-gc-pause":         {"accepted", "accepted"},
		"watchdog":                 {"accepted", "write-skipped"},
		"lost-update":              {"lost-update", "mutual-exclusion-held"},
		"deadlock":                 {"deadlock", "mutual-exclusion-held"},
		"job-queue":                {"sql-waiting", "sql"},
		"advisory-pooler":          {"2", "1"},
		"optimistic-version":       {"lost-update", "mutual-exclusion-held"},
		"reentrant":                {"sql-waiting", "sql"},
		"fencing-sql":              {"stale-write", "contained"},
		"zookeeper-session-expiry": {"accepted", "rejected"},
		"zookeeper-recipe":         {"4", "1"},
		"etcd-lease":               {"accepted", "rejected"},
		"lock-delay":               {"accepted", "write-skipped"},
		"naive-renewal":            {"stale-write", "overlap-no-write"},
		"incr-token":               {"accepted", "rejected"},
		"lease-length":             {"accepted", "write-skipped"},
		"redlock-restart":          {"2", "1"},
		"flash-sale":               {"oversold", "mutual-exclusion-held"},
		"idempotency-key":          {"charged-twice", "mutual-exclusion-held"},
		"pool-exhaustion":          {"sql-refused", "sql"},
		"event-log":                {"lost-update", "mutual-exclusion-held"},
		"backoff-jitter":           {"thundering-herd", "spread"},
	}
	c := testkit.Catalog(t)
	for id, answers := range want {
		sc, ok := c.Get(id)
		if !ok {
			t.Fatalf("no scenario %q", id)
		}
		asked := 0
		for k := 1; k < sc.Frames(); k++ {
			p := sc.Asked(k)
			if p == nil {
				continue
			}
			asked++
			for i, on := range []bool{false, true} {
				f, err := Place{Sc: sc, On: on, Step: k + 1}.Frame()
				if err != nil {
					t.Fatal(err)
				}
				res, ok := MarkGuess(&f, "")
				if !ok {
					t.Fatalf("%s %s: no answer at frame %d", id, OnOff(on), k+1)
				}
				if got := res.Right.Value; got != answers[i] {
					t.Errorf("%s %s: the answer to %q is %q, want %q", id, OnOff(on), p.Ask.EN, got, answers[i])
				}
			}
		}
		if asked != 1 {
			t.Errorf("%s asks %d questions, want 1 (its crucial move's)", id, asked)
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
