package demo_test

import (
	"strings"
	"testing"

	. "github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/redis"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// playFailover plays lines as free play from redis-failover's first frame, in the
// position on, and returns the last frame.
func playFailover(t *testing.T, on bool, lines ...string) Frame {
	t.Helper()
	sc := testkit.Scenario(t, "redis-failover")
	p := Place{Sc: sc, On: on, Step: 1}
	for _, l := range lines {
		a, err := ParseFree(sc, l)
		if err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		p = p.Then(a)
	}
	f, err := p.Frame()
	if err != nil {
		t.Fatalf("%v: %v", lines, err)
	}
	return f
}

func holds(f Frame, name string) bool {
	for _, c := range f.Clients {
		if c.Name == name {
			return c.Holds
		}
	}
	return false
}

func twoHolders(f Frame) bool {
	for _, v := range f.Violations {
		if v.Kind == TwoHolders {
			return true
		}
	}
	return false
}

// With WAIT 1 0 on, A trusts the lock only once WAIT has answered that the
// replica has the key, and its lease still runs from its SET; with the
// switch off it trusts it as soon as SET answers OK.
func TestAClientThatWaitsTrustsTheLockOnlyOnceWAITAnswers(t *testing.T) {
	set := "A set lock:row-42 NX PX 30000"
	if f := playFailover(t, true, set); holds(f, "A") {
		t.Fatal("switch on: A holds the lock before its WAIT answered")
	}
	if f := playFailover(t, false, set); !holds(f, "A") {
		t.Fatal("switch off: A does not hold the lock once SET answered OK")
	}
	f := playFailover(t, true, set, "tick 5", "A wait 1 0")
	if !holds(f, "A") || f.Clients[0].Until != 30000 {
		t.Fatalf("switch on, after WAIT answered 1: A=%+v, want it holding until t=30000", f.Clients[0])
	}
	// The failover the off position breaks on: with A waiting, B's SET on
	// the promoted replica makes no second holder, whether A's WAIT came
	// before it (the replica has the key) or not (A never trusts).
	for _, lines := range [][]string{
		{set, "A wait 1 0", "primary down", "replica promote", "B set lock:row-42 NX PX 30000"},
		{set, "primary down", "replica promote", "B set lock:row-42 NX PX 30000"},
	} {
		if f := playFailover(t, true, lines...); twoHolders(f) {
			t.Fatalf("switch on, %v: two holders %+v", lines, f.Violations)
		}
	}
}

// The way around WAIT the docs warn of: the replica that acknowledged
// restarts without persistence. With its primary up it copies the key back
// (a full sync); after the primary died it comes back empty, is promoted so,
// and B takes the lock A trusts.
func TestAReplicaRestartedWithoutPersistenceLosesTheAcknowledgedLock(t *testing.T) {
	set, wait := "A set lock:row-42 NX PX 30000", "A wait 1 0"
	f := playFailover(t, true, set, wait, "replica restart")
	st, _ := redis.Of(f)
	if rep := st.Nodes[1]; len(rep.Keys) != 1 || rep.Keys[0].Owner != "A" {
		t.Fatalf("replica restarted with its primary up: %+v, want A's key back by a full sync", rep)
	}
	f = playFailover(t, true, set, wait, "primary down", "replica restart", "replica promote", "B set lock:row-42 NX PX 30000")
	if !twoHolders(f) || !holds(f, "A") || !holds(f, "B") {
		t.Fatalf("after the acknowledging replica restarted empty and was promoted: violations %+v, want A and B both holding", f.Violations)
	}
}

// Free play words the replica's restart in the family's own voice, in both
// languages, and never as the verb table's bare help.
func TestReplicaRestartNarration(t *testing.T) {
	sc := testkit.Scenario(t, "redis-failover")
	a, err := ParseFree(sc, "replica restart")
	if err != nil {
		t.Fatal(err)
	}
	n := FreeNarration(sc, a)
	if got, want := n.Title.EN, "The replica restarts"; got != want {
		t.Fatalf("title=%q, want %q", got, want)
	}
	for _, text := range []string{n.Text.EN, n.Text.JA} {
		if !strings.Contains(text, "WAIT") {
			t.Fatalf("the narration %q does not say what the restart does to a WAIT's acknowledgement", text)
		}
	}
}
