package consensus

import (
	"fmt"
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// Op is one request a client of a consensus service sends.
type Op uint8

// The requests. Each store spells them as its own client does.
const (
	OpSession     Op = iota + 1 // ZooKeeper connect, etcd Grant, Consul session/create
	OpCreate                    // ZooKeeper create (persistent, or -e -s)
	OpChildren                  // ZooKeeper getChildren (ls, ls -w)
	OpExists                    // ZooKeeper exists with a watch (stat -w)
	OpDelete                    // ZooKeeper delete, etcd Delete
	OpTxnLock                   // etcd concurrency.Mutex's Txn
	OpWaitDeletes               // etcd Get of the newest older key, and a Watch on it
	OpAcquire                   // Consul PUT ?acquire=
	OpRelease                   // Consul PUT ?release=
	OpReconnect                 // the client hears from the service after a silence
)

// Call is a request a client sent to a consensus service and the
// service's answer. Each field means one thing; each op sets the fields its
// comment in Op names.
type Call struct {
	demo.Head
	Store      demo.StoreKind
	Op         Op
	Path       string   // the node, key or prefix named
	Session    string   // the session or lease id
	Asked, TTL int      // session: the timeout asked for and the one agreed, ms
	Delay      int      // Consul session: LockDelay, ms
	Watch      bool     // a watch was left
	Sequential bool     // create -e -s
	Created    string   // create: the node made ("" when it existed)
	Zxid       int64    // czxid or create revision of what was made; Consul's LockIndex
	Rev        int64    // the counter after the call
	Children   []string // getChildren: the names, in order
	Owner      string   // etcd: the oldest key (Txn) or the key watched; Consul: who holds it
	OwnerZxid  int64
	DelayUntil int    // Consul: refused because of lock-delay until then
	Known      string // reconnect: what the client's library now reports
	OK         bool
}

func (e Call) Kind() demo.Kind {
	switch e.Op {
	case OpSession:
		return SessionOpened
	case OpCreate, OpTxnLock:
		return NodeCreated
	case OpChildren, OpExists, OpWaitDeletes:
		return ChildrenRead
	case OpDelete, OpRelease:
		return NodeDeleted
	case OpAcquire:
		return demo.Pick(e.OK, KVAcquired, KVRefused)
	}
	return demo.Pick(e.OK, SessionAlive, SessionLost)
}

// Wire spells the call as the client library or command line names it.
func (e Call) Wire() (string, string) {
	switch e.Store {
	case ZooKeeperStore:
		return e.zkWire()
	case EtcdStore:
		return e.etcdWire()
	}
	return e.consulWire()
}

// ZooKeeper: the zkCli commands (create -e -s, ls -w, stat -w, delete) and
// what zkCli prints.
func (e Call) zkWire() (string, string) {
	switch e.Op {
	case OpSession:
		return fmt.Sprintf("new ZooKeeper(connectString, %d, watcher)", e.Asked),
			fmt.Sprintf("SyncConnected: session %s, timeout %d ms", e.Session, e.TTL)
	case OpCreate:
		call := "create " + e.Path
		if e.Sequential {
			call = "create -e -s " + e.Path
		}
		if e.Created == "" {
			return call, "Node already exists: " + e.Path
		}
		return call, "Created " + e.Created
	case OpChildren:
		call := "ls " + e.Path
		if e.Watch {
			call = "ls -w " + e.Path
		}
		return call, "[" + strings.Join(e.Children, ", ") + "]"
	case OpExists:
		return "stat -w " + e.Path, fmt.Sprintf("cZxid = 0x%x", e.Zxid)
	case OpDelete:
		if !e.OK {
			return "delete " + e.Path, "Node does not exist: " + e.Path
		}
		return "delete " + e.Path, ""
	}
	if e.OK {
		return "(reconnect, session " + e.Session + ")", "SyncConnected"
	}
	return "(reconnect, session " + e.Session + ")", "Expired: Curator reports SUSPENDED, then LOST"
}

// etcd: the clientv3 calls that concurrency.NewSession and Mutex make.
func (e Call) etcdWire() (string, string) {
	switch e.Op {
	case OpSession:
		return fmt.Sprintf("Grant(ctx, %d)", e.Asked/1000), fmt.Sprintf("ID %s, TTL %d", e.Session, e.TTL/1000)
	case OpTxnLock:
		return fmt.Sprintf("Txn If(CreateRevision(%q) = 0) Then(Put(%[1]q, \"\", WithLease(%s)), Get(%q, WithFirstCreate()))",
				e.Path, e.Session, parentOf(e.Path)+"/"),
			fmt.Sprintf("succeeded, revision %d; oldest %s (CreateRevision %d)", e.Rev, e.Owner, e.OwnerZxid)
	case OpWaitDeletes:
		call := fmt.Sprintf("Get(%q, WithLastCreate(), WithMaxCreateRev(%d))", e.Path, e.Zxid)
		if !e.Watch {
			return call, "no older key"
		}
		return call + fmt.Sprintf("; Watch(%q, WithRev(%d))", e.Owner, e.Rev),
			fmt.Sprintf("%s (CreateRevision %d); watching for DELETE", e.Owner, e.OwnerZxid)
	case OpDelete:
		if !e.OK {
			return fmt.Sprintf("Delete(%q)", e.Path), "deleted 0"
		}
		return fmt.Sprintf("Delete(%q)", e.Path), fmt.Sprintf("deleted 1, revision %d", e.Rev)
	}
	if e.OK {
		return "LeaseKeepAlive(" + e.Session + ")", "TTL renewed"
	}
	return "LeaseKeepAlive(" + e.Session + ")", "TTL 0 (lease not found): Session.Done() is closed"
}

// Consul: the HTTP API.
func (e Call) consulWire() (string, string) {
	switch e.Op {
	case OpSession:
		return fmt.Sprintf(`PUT /v1/session/create {"TTL": "%ds", "LockDelay": "%ds", "Behavior": "release"}`, e.TTL/1000, e.Delay/1000),
			fmt.Sprintf(`{"ID": "%s"}`, e.Session)
	case OpAcquire:
		return fmt.Sprintf("PUT /v1/kv/%s?acquire=%s", e.Path, demo.Short(e.Session)), fmt.Sprint(e.OK)
	case OpRelease:
		return fmt.Sprintf("PUT /v1/kv/%s?release=%s", e.Path, demo.Short(e.Session)), fmt.Sprint(e.OK)
	}
	if e.OK {
		return "PUT /v1/session/renew/" + demo.Short(e.Session), "200"
	}
	return "PUT /v1/session/renew/" + demo.Short(e.Session), "404 Session id not found"
}

// LockHeld is a client's lock recipe concluding that it holds the lock: its
// node or key is the oldest, or Consul said true. Token is what it can fence
// with: the czxid, the create revision, or Consul's LockIndex.
type LockHeld struct {
	demo.Head
	Store   demo.StoreKind
	Path    string
	Session string
	Token   int64
}

func (LockHeld) Kind() demo.Kind        { return LockGranted }
func (LockHeld) Wire() (string, string) { return "", "" }

// WatchFired is a one-shot watch delivering its one notification: ZooKeeper's
// WatchedEvent, or an etcd WatchResponse. Rev is the counter at the change.
type WatchFired struct {
	demo.Head
	Store demo.StoreKind
	Path  string
	Type  string // NodeDeleted, NodeChildrenChanged, or etcd's DELETE
	Rev   int64
}

func (WatchFired) Kind() demo.Kind        { return WatchFire }
func (WatchFired) Wire() (string, string) { return "", "" }

// Notice is the notification as the client library prints it.
func (e WatchFired) Notice() string {
	if e.Store == EtcdStore {
		return fmt.Sprintf("WatchResponse: %s %s (revision %d)", e.Type, e.Path, e.Rev)
	}
	return fmt.Sprintf("WatchedEvent state:SyncConnected type:%s path:%s", e.Type, e.Path)
}

// SessionEnded is the service ending a session whose keep-alives stopped:
// ZooKeeper deletes its ephemeral nodes, etcd revokes the lease and deletes
// its keys, Consul releases its locks (and starts the lock-delay).
type SessionEnded struct {
	demo.Head
	Store      demo.StoreKind
	Session    string
	Deleted    []string
	Released   []string
	DelayUntil int
	Rev        int64
}

func (SessionEnded) Kind() demo.Kind        { return SessionEnd }
func (SessionEnded) Wire() (string, string) { return "", "" }

// Claims: the recipe's conclusion says the client holds the lock, with its
// token, at that moment.
func (e LockHeld) Claims() []demo.Claim {
	return []demo.Claim{{Fact: demo.HoldsValid, Client: e.Client, At: e.At}, {Fact: demo.TokenGiven, Client: e.Client, Token: e.Token}}
}
