package redis_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// Only a node that is down comes back up: on a running node "up" is
// offered disabled, with the reason, and a history that plays it is
// refused, rather than logging a node-up that did nothing (redlock-quorum,
// A holding on redis1, redis2 and redis3, redis4 and redis5 down).
func TestUpOnlyForANodeThatIsDown(t *testing.T) {
	sc := testkit.Scenario(t, "redlock-quorum")
	p := demo.Place{Sc: sc, On: false, Step: 4}
	offers, err := p.Offers()
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range offers {
		if o.Action.Verb != "up" {
			continue
		}
		down := o.Who == "redis4" || o.Who == "redis5"
		if o.Enabled() != down {
			t.Errorf("%q: enabled=%v, want it enabled only for a node that is down", o.Action.Source, o.Enabled())
		}
		if !down && (!strings.Contains(o.Why.EN, "is up already") || !strings.Contains(o.Why.JA, "すでに稼働")) {
			t.Errorf("%q: why %+v, want that the node is up already", o.Action.Source, o.Why)
		}
	}
	if _, err := demo.ParseHistory(sc, false, 4, "redis1 up"); err == nil {
		t.Error("redis1 up, on a running redis1, was played")
	}
}

// redlock-quorum has a second client, B, that runs A's code, so a student
// can make two holders by hand: a node that restarts without persistence
// forgets A's key, the two nodes that were down come back, and B's Redlock
// wins its own majority while A's validity runs.
func TestRedlockQuorumTwoHoldersByHand(t *testing.T) {
	sc := testkit.Scenario(t, "redlock-quorum")
	play := []string{"redis1 down", "redis1 up", "redis4 up", "redis5 up", "B redlock lock:row-42 PX 10000 retry 1"}
	f, err := demo.Place{Sc: sc, On: false, Step: 4, Play: strings.Join(play, "\n")}.Frame()
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Verdict(); got.Kind != demo.TwoHolders || got.Client != "B" || got.Other != "A" {
		t.Errorf("verdict %+v, want A and B holding at once", got)
	}
}

// The finder runs B as it runs A, from the start: the overlap it meets on
// the way is B taking the lock after A's ran out, and no history of eight
// steps makes two holders without a node forgetting its keys, which the
// finder leaves to free play.
func TestRedlockQuorumFinderRunsB(t *testing.T) {
	sc := testkit.Scenario(t, "redlock-quorum")
	prop, _ := sc.Promise()
	depth := 8
	if testing.Short() {
		depth = 5
	}
	res, err := find.Find(demo.Place{Sc: sc, On: false, Step: 1}, prop, find.Options{Depth: depth, MaxStates: 2_000_000})
	if err != nil {
		t.Fatal(err)
	}
	if res.Found {
		t.Fatalf("found %v", res.Trace)
	}
	for _, m := range res.Others {
		if m.Violation.Kind == demo.Overlap && slices.ContainsFunc(m.Trace, func(a demo.Action) bool { return a.Who == "B" && a.Verb == "redlock" }) {
			return
		}
	}
	t.Errorf("the finder met no overlap by B's Redlock: %+v", res.Others)
}
