package backoff_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/backoff"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// The seed's own jitter is added to the backoff (2**attempt*0.1 +
// uniform(0, 0.5) s): with "plus 500" no retry comes sooner than the
// backoff after a refusal, nor 500 ms later than it; the retries spread,
// with fewer calls than full jitter and a later finish. backoff-additive's
// lesson quotes the figures of both scenarios, which the model computes.
func TestAddedJitter(t *testing.T) {
	crowd := func(id string, on bool) backoff.State {
		s, ok := backoff.Of(testkit.LastFrame(t, id, on))
		if !ok {
			t.Fatalf("%s: no crowd", id)
		}
		return s
	}
	added, full, lockstep := crowd("backoff-additive", true), crowd("backoff-jitter", true), crowd("backoff-additive", false)
	if added.Plus != 500 || added.Done != 20 || added.Busiest.Retries*2 >= added.Clients {
		t.Fatalf("backoff-additive on: plus %d, %d done, busiest %d retries; want 500, 20 and a spread", added.Plus, added.Done, added.Busiest.Retries)
	}
	if added.Calls >= full.Calls || added.Finish <= full.Finish {
		t.Errorf("added jitter: %d calls, done at %d ms; full jitter: %d, %d ms; want fewer calls and a later finish", added.Calls, added.Finish, full.Calls, full.Finish)
	}
	lesson := testkit.Scenario(t, "backoff-additive").Lesson
	for _, n := range []int{lockstep.Finish, lockstep.Calls, added.Calls, added.Finish, full.Calls, full.Finish} {
		if s := strconv.Itoa(n); !strings.Contains(lesson.EN, s) || !strings.Contains(lesson.JA, s) {
			t.Errorf("the lesson does not quote the model's %s", s)
		}
	}
	// Each retry after the first refusal comes 100 to 600 ms after t=0.
	f := testkit.Frame(t, testkit.Scenario(t, "backoff-additive"), true, 3)
	for _, e := range f.Latest() {
		if b, ok := e.(backoff.Burst); ok && (b.At < 100 || b.At >= 600) {
			t.Errorf("a first retry at %d ms, want 100 to 600", b.At)
		}
	}
}

// The policy's added spread is read as "plus SPREAD", and nothing else.
func TestPolicyPlus(t *testing.T) {
	for _, tt := range []struct{ policy, msg string }{
		{"lock policy 100 200 10 5fd39d5d plus", "BASE CAP HOLD SEED"},
		{"lock policy 100 200 10 5fd39d5d and 500", "BASE CAP HOLD SEED"},
		{"lock policy 100 200 10 5fd39d5d plus 0", "SPREAD is a positive time in ms"},
	} {
		src := testkit.File(testkit.OnStore(t, "backoff", testkit.Replace(t, testkit.YAML("s", "cron wake"), "    clients: [A, B]\n", "    clients: [A, B]\n    setup:\n      - "+tt.policy+"\n")))
		_, err := script.Load("test.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%q: %v, want %q", tt.policy, err, tt.msg)
		}
	}
	if _, ok := backoff.Of(demo.Frame{}); ok {
		t.Error("a frame with no crowd has one")
	}
}
