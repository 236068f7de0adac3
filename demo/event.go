package demo

import "fmt"

// Event is one thing that happened, as the model computed it. Every event has
// the same header; what it carries beyond that depends on its type, and each
// field of a type means one thing. The page draws the space-time diagram from
// events and the transcripts list them: both type-switch on the event.
//
// The Redis commands a client sent are also Commands: Args gives them word
// for word, as a Redis client sends them.
type Event interface {
	Header() Head
	Kind() Kind
	// Wire is the call or command a client sent, as the real system spells
	// it for the screen, and the answer it got; "" for what no client sent.
	Wire() (call, reply string)
}

// Head is what every event has: when, in which frame, who acted and which
// node answered or changed.
type Head struct {
	Frame  int    // the frame the move that caused it leads to
	At     int    // true time
	Client string // who acted, or whose lock it was; "" for a node on its own
	Node   string // the node that answered or changed; "" for the lock service
}

// Header returns the header; every event type embeds Head and so has it.
func (h Head) Header() Head { return h }

// Kind names what an event records: the class a page gives it and the key of
// its sentence. One event type may record more than one kind (a SET that was
// refused, one that was not).
type Kind uint8

// The kinds. The lock service's first, then the Redis family's, then what
// happens to clients, nodes and the resource.
const (
	Acquired       Kind = iota + 1 // AcquireCall, granted
	AcquireDenied                  // AcquireCall, the lock was held
	Renewed                        // RenewCall, extended
	RenewDenied                    // RenewCall, the caller is not the holder
	Released                       // ReleaseCall by the holder
	ReleaseIgnored                 // ReleaseCall by someone who does not hold the lock
	Expired                        // LeaseExpiry

	SetCmd      // SetCommand or SetNXCommand
	ExpireCmd   // ExpireCommand
	DelCmd      // DelCommand
	UnlockCmd   // UnlockScript
	ExtendCmd   // RenewScript
	WaitCmd     // WaitCommand
	NodeTry     // SetCommand sent as one node's part of a Redlock acquisition
	QuorumHeld  // RedlockResult with a quorum and validity left
	QuorumLost  // RedlockResult without
	KeyExpired  // KeyExpiry
	Unreachable // NoAnswer

	Accepted     // WriteResult, taken
	Rejected     // WriteResult, fenced off
	WriteSkipped // SkippedWrite
	Paused       // ClientChange
	Resumed      // ClientChange
	Crashed      // ClientChange
	CutOff       // ClientChange
	Healed       // ClientChange

	NodeDown   // NodeChange
	NodeUp     // NodeChange
	Promoted   // NodeChange
	Replicated // Replication
	ClockJump  // ClockJumped
	ClockSlew  // ClockSlewing

	RLockCmd        // RedissonLock: lock() or tryLock()
	RRenewCmd       // RedissonRenew
	RUnlockCmd      // RedissonUnlock
	LatchDelCmd     // LatchDel
	WatchdogStopped // WatchdogSkipped
	RetryWait       // RetryDelay
	WaitBlocked     // BlockedWait

	SessionOpened // CoordCall: a session or lease
	NodeCreated   // CoordCall: a znode or key made
	ChildrenRead  // CoordCall: getChildren, exists, or a Get that leaves a watch
	NodeDeleted   // CoordCall: a delete or release
	KVAcquired    // CoordCall: Consul's acquire, true
	KVRefused     // CoordCall: Consul's acquire, false
	SessionAlive  // CoordCall: reconnected to a live session
	SessionLost   // CoordCall: reconnected and learned the session had ended
	LockGranted   // LockHeld
	WatchFire     // WatchFired
	SessionEnd    // SessionEnded
)

var kindNames = [...]string{
	Acquired: "acquired", AcquireDenied: "acquire-denied", Renewed: "renewed",
	RenewDenied: "renew-denied", Released: "released", ReleaseIgnored: "release-ignored",
	Expired: "expired",
	SetCmd:  "set", ExpireCmd: "expire", DelCmd: "del", UnlockCmd: "unlock", ExtendCmd: "extend",
	WaitCmd: "wait", NodeTry: "node-try", QuorumHeld: "quorum-held", QuorumLost: "quorum-lost",
	KeyExpired: "key-expired", Unreachable: "unreachable",
	Accepted: "accepted", Rejected: "rejected", WriteSkipped: "write-skipped",
	Paused: "paused", Resumed: "resumed", Crashed: "crashed", CutOff: "cut", Healed: "healed",
	NodeDown: "node-down", NodeUp: "node-up", Promoted: "promoted", Replicated: "replicated",
	ClockJump: "clock-jump", ClockSlew: "clock-slew",
	RLockCmd: "rlock", RRenewCmd: "rrenew", RUnlockCmd: "runlock", LatchDelCmd: "latch-del",
	WatchdogStopped: "watchdog-stopped", RetryWait: "retry-wait", WaitBlocked: "wait-blocked",
	SessionOpened: "session", NodeCreated: "created", ChildrenRead: "read", NodeDeleted: "deleted",
	KVAcquired: "kv-acquired", KVRefused: "kv-refused", SessionAlive: "session-alive", SessionLost: "session-lost",
	LockGranted: "lock-held", WatchFire: "watch-fired", SessionEnd: "session-ended",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	if s, ok := sqlKindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("kind(%d)", k)
}

// pick returns yes when ok, else no: the two kinds of one event type.
func pick(ok bool, yes, no Kind) Kind {
	if ok {
		return yes
	}
	return no
}

// The lock service's calls, in the chapter's Go API.

// AcquireCall is Acquire(client, lease): a token and a lease, or a refusal.
type AcquireCall struct {
	Head
	Lease  int   // the lease asked for
	Token  int64 // the token issued; 0 when refused
	Expiry int   // when the lease runs out
	OK     bool
}

func (e AcquireCall) Kind() Kind { return pick(e.OK, Acquired, AcquireDenied) }

// RenewCall is Renew(client, lease), a heartbeat. Token is the one the client
// believes it holds.
type RenewCall struct {
	Head
	Lease  int
	Token  int64
	Expiry int // the new expiry; 0 when refused
	OK     bool
}

func (e RenewCall) Kind() Kind { return pick(e.OK, Renewed, RenewDenied) }

// ReleaseCall is Release(client). Held says whether the caller was the holder;
// anyone else's call does nothing.
type ReleaseCall struct {
	Head
	Token int64 // the token the client believed it held
	Held  bool
}

func (e ReleaseCall) Kind() Kind { return pick(e.Held, Released, ReleaseIgnored) }

// LeaseExpiry is a lease running out while the clock moved; Client was the
// holder, At the instant the lease ended.
type LeaseExpiry struct {
	Head
	Token int64
}

func (LeaseExpiry) Kind() Kind { return Expired }

// What happens on the Redis nodes on their own.

// KeyExpiry is a lock key's TTL running out on a node; Client is whose lock
// it was ("" when nobody's value).
type KeyExpiry struct {
	Head
	Key, Value string
}

func (KeyExpiry) Kind() Kind { return KeyExpired }

// RedlockResult is the client's count after asking every node: Quorum holds
// the arithmetic, and Expiry the end of the validity when the lock is held.
type RedlockResult struct {
	Head
	Key, Value string
	Quorum     Quorum
	Expiry     int
}

func (e RedlockResult) Kind() Kind { return pick(e.Quorum.Held(), QuorumHeld, QuorumLost) }

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

// The resource.

// WriteResult is a write that reached the resource, with the token the writer
// believed current: taken (OK) or fenced off.
type WriteResult struct {
	Head
	Token  int64  // 0 for a Redis lock, whose random value orders nothing
	Value  string // what it wrote
	Before string // the value it replaced, or would have
	Max    int64  // the resource's maxToken before the write
	OK     bool
}

func (e WriteResult) Kind() Kind { return pick(e.OK, Accepted, Rejected) }

// SkippedWrite is a client that does not believe it holds the lock leaving
// the resource alone.
type SkippedWrite struct {
	Head
	Value string
}

func (SkippedWrite) Kind() Kind { return WriteSkipped }

// What happens to clients and nodes.

// ClientChange is a client pausing, resuming, crashing, or being cut off from
// nodes or reaching them again.
type ClientChange struct {
	Head
	What Kind // Paused, Resumed, Crashed, CutOff or Healed
}

func (e ClientChange) Kind() Kind { return e.What }

// NodeChange is a node going down or up, or being promoted.
type NodeChange struct {
	Head
	What Kind // NodeDown, NodeUp or Promoted
}

func (e NodeChange) Kind() Kind { return e.What }

// ClockJumped is a node's wall clock jumping forward by By ms.
type ClockJumped struct {
	Head
	By int
}

func (ClockJumped) Kind() Kind { return ClockJump }

// ClockSlewing is a node's wall clock starting to be corrected by By ms,
// spread out: it runs at most Rate ppm fast (or slow) until the correction
// is made, and never jumps.
type ClockSlewing struct {
	Head
	By, Rate int
}

func (ClockSlewing) Kind() Kind { return ClockSlew }

// WatchdogSkipped is a renewal that did not happen: the client is paused,
// and a stop-the-world pause stops the watchdog's thread with the rest.
type WatchdogSkipped struct{ Head }

func (WatchdogSkipped) Kind() Kind { return WatchdogStopped }

// RetryDelay is a Redlock client waiting a random Delay ms (0 to Max) after a
// failed attempt, so that clients that collided do not collide again.
type RetryDelay struct {
	Head
	Delay, Max int
}

func (RetryDelay) Kind() Kind { return RetryWait }

// BlockedWait is a client blocked in WAIT: fewer than Replicas replicas can
// acknowledge, and a timeout of 0 waits for ever. The WaitCommand follows when
// it returns, if it ever does.
type BlockedWait struct {
	Head
	Replicas int
}

func (BlockedWait) Kind() Kind { return WaitBlocked }

// Replication is the primary shipping Shipped writes to its replica.
type Replication struct {
	Head
	Shipped int
}

func (Replication) Kind() Kind { return Replicated }

// The Wire of what no client sent is empty.

func (LeaseExpiry) Wire() (string, string)     { return "", "" }
func (KeyExpiry) Wire() (string, string)       { return "", "" }
func (RedlockResult) Wire() (string, string)   { return "", "" }
func (SkippedWrite) Wire() (string, string)    { return "", "" }
func (ClientChange) Wire() (string, string)    { return "", "" }
func (NodeChange) Wire() (string, string)      { return "", "" }
func (ClockJumped) Wire() (string, string)     { return "", "" }
func (ClockSlewing) Wire() (string, string)    { return "", "" }
func (WatchdogSkipped) Wire() (string, string) { return "", "" }
func (RetryDelay) Wire() (string, string)      { return "", "" }
func (BlockedWait) Wire() (string, string)     { return "", "" }
func (Replication) Wire() (string, string)     { return "", "" }
