package sql

import (
	"fmt"
	"slices"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/lockservice"
)

// The database as a frame shows it: connections, tables and rows, advisory
// locks and the wait-for graph, copied out of the server's state.

func (d *database) State(r *demo.Run) any {
	db := State{Lock: d.lease.Now()}
	for _, s := range d.sessions {
		ss := BackendState{Name: s.name, Pid: s.pid, Client: s.client, State: "idle"}
		switch {
		case s.wait != nil:
			ss.State = "active"
			ss.Query, ss.Since = s.wait.sql, s.wait.sent
			ss.Waiting = s.wait.lock()
			for _, a := range d.queued[d.who(s.wait.client)] {
				if args, ok := a.Args.(Args); ok {
					ss.Next = append(ss.Next, args.SQL)
				} else {
					ss.Next = append(ss.Next, "Terminate") // disconnect
				}
			}
			if h := s.wait.holder(); h != nil {
				db.Edges = append(db.Edges, WaitEdge{From: s.name, To: h.name, Lock: s.wait.lock(), Since: s.wait.from})
			}
		case s.aborted:
			ss.State = "idle in transaction (aborted)"
		case s.inTx:
			ss.State = "idle in transaction"
		}
		for _, w := range s.rows {
			ss.Locks = append(ss.Locks, w.name())
		}
		for _, a := range d.advisory {
			if a.owner == s {
				ss.Locks = append(ss.Locks, fmt.Sprintf("%s (session %d, xact %d)", a.name(), a.session, a.xact))
			}
		}
		db.Sessions = append(db.Sessions, ss)
	}
	for _, t := range d.tables {
		ts := TableState{Name: t.name, Cols: t.cols}
		for _, w := range t.rows {
			rs := RowState{Rev: w.rev}
			for _, c := range t.cols {
				rs.Values = append(rs.Values, w.values[c])
				if w.pending != nil {
					rs.Pending = append(rs.Pending, w.pending[c])
				}
			}
			if w.locker != nil {
				rs.LockedBy = w.locker.name
			}
			for _, s := range w.waiters {
				rs.Waiters = append(rs.Waiters, s.name)
			}
			ts.Rows = append(ts.Rows, rs)
		}
		db.Tables = append(db.Tables, ts)
	}
	for _, a := range d.advisory {
		as := AdvisoryState{Key: a.key, Session: a.session, Xact: a.xact}
		if a.owner != nil {
			as.Holder = a.owner.name
		}
		for _, s := range a.waiters {
			as.Waiters = append(as.Waiters, s.name)
		}
		db.Advisory = append(db.Advisory, as)
	}
	db.Holds, db.Waits = slices.Clone(d.holds), slices.Clone(d.waits)
	return db
}

// State is the database as a frame shows it: the connections, what each
// holds and waits for, the rows, and the wait-for graph; and the lock
// service beside it, for a lesson whose table checks its tokens.
type State struct {
	Lock     lockservice.State
	Sessions []BackendState
	Tables   []TableState
	Advisory []AdvisoryState
	Edges    []WaitEdge  // who waits for whom: the picture of a deadlock
	Holds    []demo.Span // on each client's lane, when its connection held locks
	Waits    []demo.Span // on each client's lane, when it waited for a lock
}

// BackendState is one connection, as pg_stat_activity and pg_locks show it.
type BackendState struct {
	Name    string
	Pid     int
	Client  string   // who uses it now; "" when idle in the pool
	State   string   // pg_stat_activity.state: idle, idle in transaction, active, ...
	Query   string   // active: the statement waiting
	Since   int      // active: when it was sent
	Waiting string   // active: the lock it waits for
	Locks   []string // the locks it holds
	Next    []string // what its client will send once the waiting statement returns
}

// TableState is one table with its rows.
type TableState struct {
	Name string
	Cols []string
	Rows []RowState
}

// RowState is one row: its committed values, the uncommitted ones of the
// transaction that changed it, who holds its lock and who waits for it.
type RowState struct {
	Values   []string
	Pending  []string // nil when nobody changed it
	Rev      int      // committed versions so far
	LockedBy string
	Waiters  []string
}

// AdvisoryState is one advisory lock key.
type AdvisoryState struct {
	Key           int64
	Holder        string
	Session, Xact int // holds at each level
	Waiters       []string
}

// WaitEdge is one arrow of the wait-for graph.
type WaitEdge struct {
	From, To string
	Lock     string
	Since    int
}

// locksOf names the locks session s holds: its rows, and its advisory
// locks.
func (d *database) locksOf(s *backend) []string {
	var out []string
	for _, w := range s.rows {
		out = append(out, w.name())
	}
	for _, a := range d.advisory {
		if a.owner == s {
			out = append(out, a.name())
		}
	}
	return out
}
