package find_test

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/demo/sql"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// A copy is independent of its original: playing every offer on a clone
// leaves the original's key as it was, at every frame of every scenario.
func TestCloneLeavesOriginalAlone(t *testing.T) {
	for _, sc := range testkit.Catalog(t).Scenarios {
		for _, on := range []bool{false, true} {
			for step := 1; step <= sc.Frames(); step++ {
				r, err := demo.Replay(sc, on, step)
				if err != nil {
					t.Fatal(err)
				}
				before := r.Key(nil)
				offers, _ := r.Offers()
				for _, o := range offers {
					if c, ok := r.Clone(); ok {
						_ = c.Free(o.Action)
					}
				}
				if after := r.Key(nil); !bytes.Equal(before, after) {
					t.Fatalf("%s frame %d: playing on clones changed the original", testkit.Name(sc, on), step)
				}
			}
		}
	}
}

// The key is the state, not the history: time passing in two pieces in
// either order, or after the lock service was asked nothing, is one state;
// a lease taken is another.
func TestKeyIsTheState(t *testing.T) {
	sc, _ := testkit.Catalog(t).Get("gc-pause")
	key := func(play string) string {
		r, err := demo.Place{Sc: sc, Step: 1, Play: play}.Run()
		if err != nil {
			t.Fatal(err)
		}
		return string(r.Key(nil))
	}
	if key("tick 1\ntick 2") != key("tick 2\ntick 1") {
		t.Error("tick 1, tick 2 and tick 2, tick 1 have different keys")
	}
	if key("A acquire 10") != key("tick 3\nA acquire 10") {
		t.Error("a lease taken at t=3 is not the same state, relative to now, as one taken at t=0")
	}
	if key("A acquire 10") == key("tick 3") {
		t.Error("a lease taken and time passing have the same key")
	}
	if key("A acquire 10\ntick 3") == key("A acquire 10") {
		t.Error("a lease 3 ticks older has the same key")
	}
}

// A consensus session's key keeps only what its times can still decide: the
// keep-alives fall on the same instants a whole timeout later, and a session
// that has ended is ended whenever it ended. A keep-alive's phase does count.
func TestSessionKeyIsItsFuture(t *testing.T) {
	sc, _ := testkit.Catalog(t).Get("zookeeper-session-expiry")
	key := func(play string) string {
		r, err := demo.Place{Sc: sc, Step: 1, Play: play}.Run()
		if err != nil {
			t.Fatal(err)
		}
		return string(r.Key(nil))
	}
	if key("") != key("tick 10000") {
		t.Error("the sessions a timeout (10 s) later are not the same state")
	}
	if key("A pause\ntick 10000") != key("A pause\ntick 10000\ntick 10000") {
		t.Error("a session ended 10 s ago is not the same state as one ended just now")
	}
	if key("") == key("tick 1000") {
		t.Error("sessions 1 s into their keep-alive period have the key of sessions at its start")
	}
	if key("A pause") == key("A pause\ntick 9000") {
		t.Error("a paused client's session 9 s nearer its deadline has the same key")
	}
}

// Where the store judges nothing before the moment it is keyed at
// (demo.PastByOrder: the consensus services and the lock service), a
// holding's past moments go by their order, not by how long ago they were:
// A's lease that ran out 10 s or 20 s ago, with A still paused and
// believing, is one state; one that runs out just now is another. So a
// search that lets time pass with nothing happening runs out of new
// states, and the judge of a lab can try every history.
func TestPastGoesByOrder(t *testing.T) {
	key := func(id, play string) string {
		sc, _ := testkit.Catalog(t).Get(id)
		r, err := demo.Place{Sc: sc, Step: 1, Play: play}.Run()
		if err != nil {
			t.Fatal(err)
		}
		return string(r.Key(nil))
	}
	const held = "A lock /locks/row-42\nA pause\ntick 10000"
	if key("zookeeper-session-expiry", held+"\ntick 10000") != key("zookeeper-session-expiry", held+"\ntick 10000\ntick 10000") {
		t.Error("a lease that ran out 10 s ago and one that ran out 20 s ago have different keys")
	}
	if key("zookeeper-session-expiry", held) == key("zookeeper-session-expiry", held+"\ntick 10000") {
		t.Error("a lease that runs out now and one that ran out 10 s ago share a key")
	}
	if key("gc-pause", "A acquire 10\ntick 20") != key("gc-pause", "A acquire 10\ntick 20\ntick 20") {
		t.Error("the lock service's lease that ran out 10 and 30 ago have different keys")
	}
	if key("gc-pause", "A acquire 10\ntick 10") == key("gc-pause", "A acquire 10\ntick 8") {
		t.Error("a lease that runs out now and one with 2 left share a key")
	}
}

// The partial fix's way around that the texts name is in the model too:
// with the watchdog on, a pause past the lock's remaining TTL stops the
// renewals, B takes the lock, and A's late write lands over B's.
func TestWatchdogPausePastTheTTL(t *testing.T) {
	sc, _ := testkit.Catalog(t).Get("watchdog")
	play := "A rlock lock:row-42 30000\nA pause"
	for range 3 {
		play += "\nA rrenew lock:row-42 30000\ntick 10000"
	}
	play += "\nB rtrylock lock:row-42 30000\nB write B\nA resume\nA write A"
	f, err := demo.Place{Sc: sc, On: true, Step: 1, Play: play}.Frame()
	if err != nil {
		t.Fatal(err)
	}
	prop, _ := sc.Promise()
	for _, v := range f.Violations {
		if prop.Breaks(v, f.Holdings) {
			return
		}
	}
	t.Errorf("violations %v: none breaks %s", f.Violations, prop.Name)
}

// The budget bounds the work, and the answer says it ran out.
func TestBudget(t *testing.T) {
	sc, _ := testkit.Catalog(t).Get("gc-pause")
	prop, _ := sc.Promise()
	res, err := find.Find(demo.Place{Sc: sc, On: true, Step: 1}, prop, find.Options{Depth: 8, MaxStates: 50})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OutOfBudget || res.States > 50 || res.Found {
		t.Errorf("out of budget %v after %d states (found %v), want out of budget within 50", res.OutOfBudget, res.States, res.Found)
	}
	stopped, _ := find.Find(demo.Place{Sc: sc, On: true, Step: 1}, prop, find.Options{Depth: 8, Stop: func() bool { return true }})
	if !stopped.OutOfBudget || stopped.States > 256 {
		t.Errorf("Stop: out of budget %v after %d states, want stopped within 256", stopped.OutOfBudget, stopped.States)
	}
}

// A family without free play has no finder either, and says so.
func TestNoOffersNoSearch(t *testing.T) {
	sc := *testkit.Catalog(t).Scenarios[0]
	fam := *sc.Family
	fam.Offers = nil
	sc.Family = &fam
	_, err := find.Find(demo.Place{Sc: &sc, Step: 1}, demo.EngineProperties[0], find.Options{})
	if _, ok := err.(*demo.NoFreePlayError); !ok {
		t.Errorf("err=%v, want a *demo.NoFreePlayError", err)
	}
}

// A copy plays as the run it was copied from: every offer, and every offer
// after it, played on clones gives the frame a replay of the same history
// gives, at every frame of every scenario whose store copies itself.
func TestClonePlaysAsReplay(t *testing.T) {
	var scratch demo.Run // one for every scenario, as the finder reuses one
	for _, sc := range testkit.Catalog(t).Scenarios {
		for _, on := range []bool{false, true} {
			for step := 1; step <= sc.Frames(); step++ {
				p := demo.Place{Sc: sc, On: on, Step: step}
				r, err := p.Run()
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := r.Clone(); !ok {
					break
				}
				// Under -short: every third frame, two actions deep only
				// from the first.
				if testing.Short() && step%3 != 1 {
					continue
				}
				depth := 2
				if testing.Short() && step > 1 {
					depth = 1
				}
				clonePlays(t, p, r, depth)
				copyPlays(t, p, r, &scratch)
			}
		}
	}
}

// copyPlays is clonePlays one action deep, each copied into the same
// scratch run, whose store a store that can copies itself into.
func copyPlays(t *testing.T, p demo.Place, r *demo.Run, scratch *demo.Run) {
	offers, _ := r.Offers()
	for _, o := range offers {
		if !r.CopyTo(scratch) || scratch.Free(o.Action) != nil {
			continue
		}
		next := p.Then(o.Action)
		want, err := next.Frame()
		if err != nil {
			t.Fatalf("%s after %q: the copy played it, a replay says %v", testkit.Name(p.Sc, p.On), next.Play, err)
		}
		// As printed: a list the copy emptied is an empty list, the
		// replay's never made one is nil.
		if got := scratch.Frame(); fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
			t.Fatalf("%s step %d after %q: the scratch copy's frame differs from a replay's\ncopy:   %+v\nreplay: %+v",
				testkit.Name(p.Sc, p.On), p.Step, next.Play, got, want)
		}
	}
}

func clonePlays(t *testing.T, p demo.Place, r *demo.Run, depth int) {
	offers, err := r.Offers()
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range offers {
		c, _ := r.Clone()
		if err := c.Free(o.Action); err != nil {
			continue // refused: a replay refuses it too (TestOffers)
		}
		next := p.Then(o.Action)
		want, err := next.Frame()
		if err != nil {
			t.Fatalf("%s after %q: the clone played it, a replay says %v", testkit.Name(p.Sc, p.On), next.Play, err)
		}
		if got := c.Frame(); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s step %d after %q: the clone's frame differs from a replay's\nclone:  %+v\nreplay: %+v",
				testkit.Name(p.Sc, p.On), p.Step, next.Play, got.Store, want.Store)
		}
		if depth > 1 {
			clonePlays(t, next, c, depth-1)
		}
	}
}

// The finder's quick question says no exactly where free play gives a
// reason: every offer, and every client's pause, resume and crash, at every
// frame of every scenario.
func TestRefusesAsCannot(t *testing.T) {
	for _, sc := range testkit.Catalog(t).Scenarios {
		for _, on := range []bool{false, true} {
			for step := 1; step <= sc.Frames(); step++ {
				r, err := demo.Replay(sc, on, step)
				if err != nil {
					t.Fatal(err)
				}
				offers, _ := r.Offers()
				var as []demo.Action
				for _, o := range offers {
					as = append(as, o.Action)
				}
				for _, c := range r.Clients() {
					for _, v := range []demo.Verb{demo.Pause, demo.Resume, demo.Crash} {
						as = append(as, demo.Action{Who: c.Name, Verb: v})
					}
				}
				as = append(as, demo.Action{Who: "nobody", Verb: demo.Pause})
				for _, a := range as {
					if got, want := r.Refuses(a), r.Cannot(a) != (demo.Text{}); got != want {
						t.Fatalf("%s frame %d, %s %s: Refuses=%v, but Cannot says %q", testkit.Name(sc, on), step, a.Who, a.Verb, got, r.Cannot(a).EN)
					}
				}
			}
		}
	}
}

// redlock-restart's fix is the operator's delayed restart: with it on, a
// node that went down is refused its way back until the longest TTL has
// passed, with the reason on the offer; with it off it may come back at
// once, which is how B counts it again.
func TestDelayedRestartKeepsTheNodeDown(t *testing.T) {
	sc, _ := testkit.Catalog(t).Get("redlock-restart")
	upWhy := func(on bool, play string) demo.Text {
		offers, err := demo.Place{Sc: sc, On: on, Step: 1, Play: play}.Offers()
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range offers {
			if o.Action.Source == "redis3 up" {
				return o.Why
			}
		}
		t.Fatalf("on=%v after %q: no offer of redis3 up", on, play)
		return demo.Text{}
	}
	if why := upWhy(true, "redis3 down\ntick 9999"); !strings.Contains(why.EN, "delayed restart: 1 ms to go") || !strings.Contains(why.JA, "遅延再起動") {
		t.Errorf("delayed restart on, 9,999 ms after the crash: redis3 up is offered with %q / %q, want it refused with 1 ms to go, in both languages", why.EN, why.JA)
	}
	if why := upWhy(true, "redis3 down\ntick 10000"); why != (demo.Text{}) {
		t.Errorf("delayed restart on, 10 s after the crash: redis3 up is refused: %q", why.EN)
	}
	if why := upWhy(false, "redis3 down"); why != (demo.Text{}) {
		t.Errorf("delayed restart off: redis3 up right after the crash is refused: %q", why.EN)
	}
	if _, err := (demo.Place{Sc: sc, On: true, Step: 1, Play: "redis3 down\nredis3 up"}).Frame(); err == nil {
		t.Error("delayed restart on: a history with redis3 up right after its crash plays")
	}
}

// pool-exhaustion's promise is about the failure spreading from a lock: a
// connection refused while the others only happen to be open breaks a
// server's limit, not the promise; one refused while they wait for a lock
// breaks it.
func TestNoSpreadNeedsAWaiter(t *testing.T) {
	sc, _ := testkit.Catalog(t).Get("pool-exhaustion")
	prop, _ := sc.Promise()
	stmt := func(who string, n int) string { return fmt.Sprintf("%s stmt %d\n", who, n) }
	for _, tc := range []struct {
		play   string
		breaks bool
	}{
		{stmt("B", 3) + stmt("C", 3) + stmt("D", 6), false},
		{stmt("A", 1) + stmt("A", 2) + stmt("B", 3) + stmt("B", 4) + stmt("C", 3) + stmt("D", 6), true},
	} {
		f, err := demo.Place{Sc: sc, On: true, Step: 1, Play: strings.TrimSpace(tc.play)}.Frame()
		if err != nil {
			t.Fatal(err)
		}
		refused, broke := false, false
		for _, v := range f.Violations {
			refused = refused || v.Kind == sql.TooManyClients
			broke = broke || prop.Breaks(v, f.Holdings)
		}
		if !refused || broke != tc.breaks {
			t.Errorf("after %q: D refused %v, %s broken %v, want refused and broken %v", tc.play, refused, prop.Name, broke, tc.breaks)
		}
	}
}

// A renewal thread runs while its client runs: naive-renewal's renewals
// are background duties, played before time passes in steps of their
// rhythm, so the finder's way to a late write needs the texts' pause, in
// either position, and no lease runs out under a running holder.
func TestRenewalThreadNeedsAPause(t *testing.T) {
	sc := testkit.Scenario(t, "naive-renewal")
	prop, _ := sc.Promise()
	for _, on := range []bool{false, true} {
		res, err := find.Find(demo.Place{Sc: sc, On: on, Step: 1}, prop, find.Options{Depth: 7, MaxStates: 2_000_000})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Found {
			t.Fatalf("%s: nothing found within 7", demo.OnOff(on))
		}
		v := res.Violation
		if !slices.ContainsFunc(res.Trace, func(a demo.Action) bool { return a.Who == v.Client && a.Verb == demo.Pause }) {
			t.Errorf("%s: %s writes late with no pause: %s", demo.OnOff(on), v.Client, sources(res.Trace))
		}
		end, err := res.Place().Frame()
		if err != nil {
			t.Fatal(err)
		}
		if r := res.Running(end); r.Client != "" || !slices.Contains(res.Renewers, "A") || !slices.Contains(res.Renewers, "B") {
			t.Errorf("%s: running past its lease: %+v; renewers %q, want A and B, who lock alike", demo.OnOff(on), r, res.Renewers)
		}
	}
}

// Where nobody renews (lease-length: Renew is there, but no script calls
// it), the finder's way needs no pause, and the answer can say so: the
// holder was running when its lease ran out.
func TestRunningPastTheLease(t *testing.T) {
	sc := testkit.Scenario(t, "lease-length")
	prop, _ := sc.Promise()
	res, err := find.Find(demo.Place{Sc: sc, On: true, Step: 1}, prop, find.Options{Depth: 3})
	if err != nil {
		t.Fatal(err)
	}
	end, err := res.Place().Frame()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Running(end), (find.Running{Client: "A", At: 60}); got != want {
		t.Errorf("running %+v, want %+v (trace %s)", got, want, sources(res.Trace))
	}
}
