package redis

import (
	"fmt"

	"github.com/distlock/fencing-demo/demo"
)

// The Redis family's event kinds: the commands a client sent, then what the
// nodes do on their own.
const (
	SetCmd      demo.Kind = "set"         // SetCommand or SetNXCommand
	ExpireCmd   demo.Kind = "expire"      // ExpireCommand
	IncrCmd     demo.Kind = "incr"        // IncrCommand
	DelCmd      demo.Kind = "del"         // DelCommand
	UnlockCmd   demo.Kind = "unlock"      // UnlockScript
	ExtendCmd   demo.Kind = "extend"      // RenewScript
	WaitCmd     demo.Kind = "wait"        // WaitCommand
	NodeTry     demo.Kind = "node-try"    // SetCommand sent as one node's part of a Redlock acquisition
	QuorumHeld  demo.Kind = "quorum-held" // RedlockResult with a quorum and validity left
	QuorumLost  demo.Kind = "quorum-lost" // RedlockResult without
	KeyExpired  demo.Kind = "key-expired" // KeyExpiry
	Unreachable demo.Kind = "unreachable" // NoAnswer

	CutOff demo.Kind = "cut"    // Partition: the network drops the client's packets to some nodes
	Healed demo.Kind = "healed" // Partition: it reaches every node again

	NodeDown demo.Kind = "node-down" // NodeChange
	NodeUp   demo.Kind = "node-up"   // NodeChange
	// With appendfsync always the node's keys are on disk: it goes down
	// with them and comes back with them.
	NodeDownKept demo.Kind = "node-down-kept" // NodeChange
	NodeUpKept   demo.Kind = "node-up-kept"   // NodeChange
	Promoted     demo.Kind = "promoted"       // NodeChange
	Replicated   demo.Kind = "replicated"     // Replication
	ClockJump    demo.Kind = "clock-jump"     // ClockJumped
	ClockSlew    demo.Kind = "clock-slew"     // ClockSlewing

	RLockCmd        demo.Kind = "rlock"            // RedissonLock: lock() or tryLock()
	RRenewCmd       demo.Kind = "rrenew"           // RedissonRenew
	RUnlockCmd      demo.Kind = "runlock"          // RedissonUnlock
	LatchDelCmd     demo.Kind = "latch-del"        // LatchDel
	WatchdogStopped demo.Kind = "watchdog-stopped" // WatchdogSkipped
	RetryWait       demo.Kind = "retry-wait"       // RetryDelay
	WaitBlocked     demo.Kind = "wait-blocked"     // BlockedWait
)

// KeyExpiry is a lock key's TTL running out on a node; Client is whose lock
// it was ("" when nobody's value).
type KeyExpiry struct {
	demo.Head
	Key, Value string
}

func (KeyExpiry) Kind() demo.Kind { return KeyExpired }

func (e KeyExpiry) Story(*demo.Scenario) string {
	return fmt.Sprintf("%s expired (%s's lock)", e.Key, e.Client)
}

func (e KeyExpiry) Draw(d *demo.Drawing) {
	d.Stop(e.Node, e.Client, e.At)
	d.Mark(demo.Mark{Lane: e.Node, At: e.At, What: "key-expiry"})
}

// RedlockResult is the client's count after asking every node: Quorum holds
// the arithmetic, and Expiry the end of the validity when the lock is held.
type RedlockResult struct {
	demo.Head
	Key, Value string
	Quorum     Quorum
	Expiry     int
}

func (e RedlockResult) Kind() demo.Kind { return demo.Pick(e.Quorum.Held(), QuorumHeld, QuorumLost) }

func (e RedlockResult) Story(sc *demo.Scenario) string {
	q := e.Quorum
	verdict := "holds the lock"
	if !q.Held() {
		verdict = "fails"
	}
	return fmt.Sprintf("%d/%d nodes (quorum %d), validity = %d - %d - %d = %d ms: %s",
		q.Locked, len(sc.NodeNames()), q.Need, q.TTL, q.Elapsed, q.Drift, q.Validity, verdict)
}

// Quorum is the arithmetic of one Redlock acquisition, as the client does it.
type Quorum struct {
	Locked   int // nodes that said OK
	Need     int // N/2+1
	TTL      int
	Elapsed  int // T2 - T1
	Drift    int // 0.01 x TTL + 2 ms, as the reference implementations
	Validity int // TTL - elapsed - drift
}

// Held reports whether the client got the lock: a quorum, with time left.
func (q Quorum) Held() bool { return q.Locked >= q.Need && q.Validity > 0 }

// NodeChange is a node going down or up, or being promoted.
type NodeChange struct {
	demo.Head
	What demo.Kind // NodeDown, NodeUp, their Kept kinds, or Promoted
}

func (e NodeChange) Kind() demo.Kind { return e.What }

func (e NodeChange) Draw(d *demo.Drawing) {
	switch e.What {
	case NodeDown:
		d.Stop(e.Node, "", e.At)
		d.Mark(demo.Mark{Lane: e.Node, At: e.At, What: "down"})
	case NodeDownKept:
		// The key stays on disk: the span goes on, and the node comes
		// back with it.
		d.Mark(demo.Mark{Lane: e.Node, At: e.At, What: "down"})
	case NodeUp, NodeUpKept:
		d.Mark(demo.Mark{Lane: e.Node, At: e.At, What: "up"})
	case Promoted:
		d.Mark(demo.Mark{Lane: e.Node, At: e.At, What: "promoted"})
	}
}

// ClockJumped is a node's wall clock jumping forward by By ms.
type ClockJumped struct {
	demo.Head
	By int
}

func (ClockJumped) Kind() demo.Kind { return ClockJump }

func (e ClockJumped) Story(*demo.Scenario) string {
	return fmt.Sprintf("clock jumps %d ms forward", e.By)
}

func (e ClockJumped) Draw(d *demo.Drawing) {
	d.Mark(demo.Mark{Lane: e.Node, At: e.At, What: "jump", By: e.By})
}

// ClockSlewing is a node's wall clock starting to be corrected by By ms,
// spread out: it runs at most Rate ppm fast (or slow) until the correction
// is made, and never jumps.
type ClockSlewing struct {
	demo.Head
	By, Rate int
}

func (ClockSlewing) Kind() demo.Kind { return ClockSlew }

func (e ClockSlewing) Story(*demo.Scenario) string {
	return fmt.Sprintf("clock to be slewed %d ms, at most %d ppm", e.By, e.Rate)
}

// WatchdogSkipped is a renewal that did not happen: the client is paused,
// and a stop-the-world pause stops the watchdog's thread with the rest.
type WatchdogSkipped struct{ demo.Head }

func (WatchdogSkipped) Kind() demo.Kind { return WatchdogStopped }

func (WatchdogSkipped) Story(*demo.Scenario) string { return "paused, its watchdog does not renew" }

// RetryDelay is a Redlock client waiting a random Delay ms (0 to Max) after a
// failed attempt, so that clients that collided do not collide again.
type RetryDelay struct {
	demo.Head
	Delay, Max int
}

func (RetryDelay) Kind() demo.Kind { return RetryWait }

func (e RetryDelay) Story(*demo.Scenario) string {
	return fmt.Sprintf("waits %d ms (random, 0-%d) before trying again", e.Delay, e.Max)
}

// BlockedWait is a client blocked in WAIT: fewer than Replicas replicas can
// acknowledge, and a timeout of 0 waits for ever. The WaitCommand follows when
// it returns, if it ever does.
type BlockedWait struct {
	demo.Head
	Replicas int
}

func (BlockedWait) Kind() demo.Kind { return WaitBlocked }

func (e BlockedWait) Story(*demo.Scenario) string {
	return fmt.Sprintf("blocked in WAIT for %d replica(s)", e.Replicas)
}

// Replication is the primary shipping Shipped writes to its replica.
type Replication struct {
	demo.Head
	Shipped int
}

func (Replication) Kind() demo.Kind { return Replicated }

func (e Replication) Story(*demo.Scenario) string {
	return fmt.Sprintf("shipped %d write(s) to the replica", e.Shipped)
}

// Draw copies the primary's locks onto the other nodes' lanes.
func (e Replication) Draw(d *demo.Drawing) {
	for _, owner := range d.Owners(e.Node) {
		for _, n := range d.Sc.NodeNames() {
			if n != e.Node {
				d.Start(n, owner, e.At, 0, -1)
			}
		}
	}
}

// Partition is a Redlock client cut off from Nodes (CutOff), or reaching
// every node again (Healed).
type Partition struct {
	demo.Head
	What  demo.Kind
	Nodes []string // CutOff: the nodes it cannot reach
}

func (e Partition) Kind() demo.Kind { return e.What }

// The Wire of what no client sent is empty.

func (Partition) Wire() (string, string) { return "", "" }

func (KeyExpiry) Wire() (string, string)       { return "", "" }
func (RedlockResult) Wire() (string, string)   { return "", "" }
func (NodeChange) Wire() (string, string)      { return "", "" }
func (ClockJumped) Wire() (string, string)     { return "", "" }
func (ClockSlewing) Wire() (string, string)    { return "", "" }
func (WatchdogSkipped) Wire() (string, string) { return "", "" }
func (RetryDelay) Wire() (string, string)      { return "", "" }
func (BlockedWait) Wire() (string, string)     { return "", "" }
func (Replication) Wire() (string, string)     { return "", "" }

// What a narration may say of the family's events.

func (UnlockScript) Deeds() demo.Deed   { return demo.Unlocked }
func (DelCommand) Deeds() demo.Deed     { return demo.Unlocked }
func (RedissonUnlock) Deeds() demo.Deed { return demo.Unlocked }
func (RetryDelay) Deeds() demo.Deed     { return demo.Waited }
func (BlockedWait) Deeds() demo.Deed    { return demo.Waited }
func (WaitCommand) Deeds() demo.Deed    { return demo.Waited }
func (NoAnswer) Deeds() demo.Deed       { return demo.Asked }

// A request for the lock that got it, and a renewal that took, say so; a
// Redlock node's own SET is a part of the client's request, not the lock.
func (e SetCommand) Deeds() demo.Deed    { return demo.Asked | got(e.OK && !e.Redlock) }
func (e SetNXCommand) Deeds() demo.Deed  { return demo.Asked | got(e.OK) }
func (e RedlockResult) Deeds() demo.Deed { return demo.Asked | got(e.Quorum.Held()) }
func (e RedissonLock) Deeds() demo.Deed  { return demo.Asked | got(e.OK) }
func (e ExpireCommand) Deeds() demo.Deed { return renewed(e.OK) }
func (e RenewScript) Deeds() demo.Deed   { return renewed(e.OK) }
func (e RedissonRenew) Deeds() demo.Deed { return renewed(e.OK) }

func got(ok bool) demo.Deed {
	if ok {
		return demo.Got
	}
	return 0
}

func renewed(ok bool) demo.Deed {
	if ok {
		return demo.Renewed
	}
	return 0
}

// ReadBack: unblock looks for the client's blocked WAIT again, to answer it.
func (BlockedWait) ReadBack() {}
