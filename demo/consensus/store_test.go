package consensus_test

import (
	"slices"
	"strconv"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	. "github.com/distlock/fencing-demo/demo/consensus"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// play runs a small consensus scenario (clients A and B) to its end.
func play(t *testing.T, store string, do ...string) demo.Frame {
	t.Helper()
	return testkit.Play(t, testkit.File(testkit.OnStore(t, store, testkit.YAML("s", do...))), true)
}

func calls(f demo.Frame, op Op) []Call {
	var out []Call
	for _, e := range f.Events {
		if c, ok := e.(Call); ok && c.Op == op {
			out = append(out, c)
		}
	}
	return out
}

// ZooKeeper negotiates the session timeout into [2, 20] tickTime.
func TestZooKeeperNegotiatesTheTimeout(t *testing.T) {
	for _, tt := range []struct{ asked, got int }{{1000, 4000}, {10000, 10000}, {60000, 40000}} {
		f := play(t, "zookeeper", "A session "+strconv.Itoa(tt.asked))
		s := calls(f, OpSession)[0]
		if s.TTL != tt.got {
			t.Fatalf("asked %d ms: negotiated %d, want %d", tt.asked, s.TTL, tt.got)
		}
	}
}

// A sequential node's number is the parent's count of child creates, which
// a client's delete leaves alone (as the real ZooKeeper 3.8 numbers them:
// TestZooKeeperSequenceAfterDelete replays it); and every transaction moves
// the zxid forward.
func TestZooKeeperSequenceCountsCreates(t *testing.T) {
	f := play(t, "zookeeper", "A session 10000", "B session 10000", "A create /l",
		"A lock /l", "A unlock /l", "B lock /l")
	got := []string{}
	var zxids []int64
	for _, c := range calls(f, OpCreate) {
		got = append(got, c.Created)
		zxids = append(zxids, c.Zxid)
	}
	if want := []string{"/l", "/l/lock-0000000000", "/l/lock-0000000001"}; !slices.Equal(got, want) {
		t.Fatalf("created %v, want %v", got, want)
	}
	if want := []int64{3, 4, 6}; !slices.Equal(zxids, want) {
		t.Fatalf("czxids %v, want %v (two sessions, then /l, the node, its delete)", zxids, want)
	}
	if b := f.Clients[1]; !b.Holds || b.Token != 6 {
		t.Fatalf("B=%+v, want it to hold with token 6", b)
	}
}

// A watch fires once: after it fired, a second change notifies nobody.
func TestWatchFiresOnce(t *testing.T) {
	f := play(t, "zookeeper", "A session 10000", "B session 10000", "A create /l",
		"A lock /l herd", "B lock /l herd", "tick 1", "A unlock /l", "B unlock /l")
	// A's ls -w fired at B's create; B's at A's delete; B re-armed it, and
	// its own delete fires it once more.
	var who []string
	for _, e := range f.Events {
		if w, ok := e.(WatchFired); ok {
			who = append(who, w.Client)
		}
	}
	if want := []string{"A", "B", "B"}; !slices.Equal(who, want) {
		t.Fatalf("notifications went to %v, want %v", who, want)
	}
	if f.Store.(State).Notified != 3 || len(f.Store.(State).Watches) != 0 {
		t.Fatalf("notified=%d watches=%v, want 3 and none armed", f.Store.(State).Notified, f.Store.(State).Watches)
	}
}

// The herd: with a watch on the parent, one release wakes every waiter and
// each reads the queue; with a watch on the predecessor, one wakes.
func TestHerdCounts(t *testing.T) {
	for _, on := range []bool{true, false} {
		f := testkit.LastFrame(t, "zookeeper-recipe", on)
		var woke []string
		for _, e := range f.Events {
			if w, ok := e.(WatchFired); ok && w.At == 1000 {
				woke = append(woke, w.Client)
			}
		}
		want := []string{"B", "C", "D", "E"}
		if on {
			want = []string{"B"}
		}
		if !slices.Equal(woke, want) {
			t.Fatalf("predecessor-watch %v: A's release woke %v, want %v", on, woke, want)
		}
	}
}

// A session ends when its client has been silent for the timeout, counted
// from the last keep-alive; a running client's keep-alives hold it up.
func TestSessionEndsAfterSilence(t *testing.T) {
	f := play(t, "etcd", "A session 9000", "B session 9000", "A lock /l/", "B lock /l/",
		"tick 4000", "A pause", "tick 20000")
	var ended []SessionEnded
	for _, e := range f.Events {
		if s, ok := e.(SessionEnded); ok {
			ended = append(ended, s)
		}
	}
	// Keep-alives every 3000 ms: the last before the pause at 4000 is at 3000.
	if len(ended) != 1 || ended[0].Client != "A" || ended[0].At != 12000 {
		t.Fatalf("ended=%+v, want A's lease only, at t=12000", ended)
	}
	if b := f.Clients[1]; !b.Holds || b.Token != 3 {
		t.Fatalf("B=%+v, want it to hold with its create revision 3", b)
	}
	if ended[0].Rev != 4 {
		t.Fatalf("revision after the revoke=%d, want 4", ended[0].Rev)
	}
}

// etcd raises a TTL below its minimum of 2 s.
func TestEtcdMinimumTTL(t *testing.T) {
	f := play(t, "etcd", "A session 1000")
	if got := calls(f, OpSession)[0].TTL; got != 2000 {
		t.Fatalf("Grant(1) gave %d ms, want 2000", got)
	}
}

// Consul refuses an acquisition during the lock-delay, and not after.
func TestConsulLockDelay(t *testing.T) {
	f := play(t, "consul", "A session 10000 delay 15000", "B session 10000", "A lock k",
		"A pause", "tick 20000", "B lock k", "tick 15000", "B lock k")
	acq := calls(f, OpAcquire)
	if len(acq) != 3 || !acq[0].OK || acq[1].OK || acq[1].DelayUntil != 35000 || !acq[2].OK || acq[2].Zxid != 2 {
		t.Fatalf("acquisitions=%+v, want true, false (delay until 35000), true with LockIndex 2", acq)
	}
}

// ZooKeeper's sessions that end at one instant end in the order of their
// lock nodes, whichever client opened its session first: B queued first,
// so B's session ends first, and its ending wakes nobody but A's watch.
func TestSessionsEndInQueueOrder(t *testing.T) {
	f := play(t, "zookeeper", "A session 10000", "B session 10000", "A create /l",
		"B lock /l", "A lock /l", "A pause", "B pause", "tick 20000")
	var ended []string
	for _, e := range f.Events {
		if s, ok := e.(SessionEnded); ok {
			ended = append(ended, s.Client)
		}
	}
	if !slices.Equal(ended, []string{"B", "A"}) {
		t.Fatalf("sessions ended %v, want B's then A's (B's node is first in the queue)", ended)
	}
}
