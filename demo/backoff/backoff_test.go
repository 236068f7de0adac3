package backoff_test

import (
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/backoff"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// The herd's cost, as the lecture quotes it: in lockstep every refused
// client comes back in the same slot, one gets the lock each time, and the
// last of twenty waits for the nineteenth round; with full jitter the same
// twenty are done in a tenth of the time with under a third of the calls.
func TestHerdCost(t *testing.T) {
	for _, c := range []struct {
		on                     bool
		calls, finish, busiest int
	}{
		{false, 210, 3700, 19},
		{true, 62, 375, 7},
	} {
		f := testkit.LastFrame(t, "backoff-jitter", c.on)
		s, ok := backoff.Of(f)
		if !ok {
			t.Fatalf("jitter %s: the frame has no crowd", demo.OnOff(c.on))
		}
		if s.Calls != c.calls || s.Finish != c.finish || s.Busiest.Retries != c.busiest || s.Done != 20 {
			t.Errorf("jitter %s: calls=%d finish=%d busiest=%d done=%d, want %d, %d, %d, 20",
				demo.OnOff(c.on), s.Calls, s.Finish, s.Busiest.Retries, s.Done, c.calls, c.finish, c.busiest)
		}
		sum := 0
		for _, sl := range s.Slots {
			sum += sl.Calls
		}
		if sum != s.Calls {
			t.Errorf("jitter %s: the chart's slots add up to %d calls, the count says %d", demo.OnOff(c.on), sum, s.Calls)
		}
	}
}

// Every frame is recomputable from its address: two runs of the same
// place draw the same slots.
func TestSeededFramesRepeat(t *testing.T) {
	sc, _ := testkit.Catalog(t).Get("backoff-jitter")
	for step := 1; step <= sc.Frames(); step++ {
		a, errA := demo.Place{Sc: sc, On: true, Step: step}.Frame()
		b, errB := demo.Place{Sc: sc, On: true, Step: step}.Frame()
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		sa, _ := backoff.Of(a)
		sb, _ := backoff.Of(b)
		if len(sa.Slots) != len(sb.Slots) || sa.Calls != sb.Calls {
			t.Fatalf("frame %d: %d slots, %d calls; then %d slots, %d calls", step, len(sa.Slots), sa.Calls, len(sb.Slots), sb.Calls)
		}
		for i := range sa.Slots {
			if sa.Slots[i] != sb.Slots[i] {
				t.Fatalf("frame %d slot %d: %+v, then %+v", step, i, sa.Slots[i], sb.Slots[i])
			}
		}
	}
}

// A paused client makes no call while it is stopped: its retry waits for
// it to run again.
func TestPausedClientHoldsItsCall(t *testing.T) {
	sc, _ := testkit.Catalog(t).Get("backoff-jitter")
	p := demo.Place{Sc: sc, On: false, Step: 2} // C2..C20 were refused at t=0
	for _, src := range []string{"C2 pause", "tick 100"} {
		a, err := demo.ParseFree(sc, src)
		if err != nil {
			t.Fatal(err)
		}
		p = p.Then(a)
	}
	f, err := p.Frame()
	if err != nil {
		t.Fatal(err)
	}
	s, _ := backoff.Of(f)
	if got := s.Slots[len(s.Slots)-1]; got.At != 100 || got.Retries != 18 {
		t.Errorf("the slot at 100 ms: %+v, want 18 retries (C2 paused)", got)
	}
}

// By hand: two clients call at once, one gets the lock, and the other
// retries on its own timer as the clock moves; calling again is offered
// disabled, with the reason.
func TestFreePlayCalls(t *testing.T) {
	sc, _ := testkit.Catalog(t).Get("backoff-jitter")
	p := demo.Place{Sc: sc, On: false, Step: 1}
	for _, src := range []string{"C1 call", "C2 call", "tick 100"} {
		a, err := demo.ParseFree(sc, src)
		if err != nil {
			t.Fatal(err)
		}
		p = p.Then(a)
	}
	f, err := p.Frame()
	if err != nil {
		t.Fatal(err)
	}
	s, _ := backoff.Of(f)
	if s.Calls != 3 || s.Done != 2 || s.Finish != -1 {
		t.Errorf("calls=%d done=%d finish=%d, want 3 calls (C2's retry at 100 ms), 2 done, and 18 clients not calling yet", s.Calls, s.Done, s.Finish)
	}
	offers, err := p.Offers()
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range offers {
		if o.Action.Source == "C2 call" && (o.Enabled() || o.Why.JA == "") {
			t.Errorf("C2 call after C2 had the lock: %+v, want it disabled with the reason", o)
		}
	}
}
