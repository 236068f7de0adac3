package demo

import (
	"strconv"
	"strings"
)

// The database store's event kinds and verdicts. Their numbers start far
// from the other kinds', so the two lists can grow apart without clashing.
const (
	SQLDone      Kind = 100 + iota // SQLStatement answered
	SQLWaiting                     // SQLStatement waiting for a lock
	SQLFailed                      // SQLStatement answered with an ERROR
	DeadlockSeen                   // DeadlockCheck that found a cycle
)

var sqlKindNames = map[Kind]string{
	SQLDone: "sql", SQLWaiting: "sql-waiting", SQLFailed: "sql-error", DeadlockSeen: "deadlock-check",
}

const (
	// LostUpdate: a client committed a write based on a read that another
	// transaction's commit had already made stale, and that commit is gone.
	LostUpdate ViolationKind = 100 + iota
	// Deadlock: transactions wait for each other in a cycle. It is a
	// deadlock from the moment the cycle forms (At, between Client, whose
	// wait closed it, and Other); PostgreSQL only finds it once a waiter
	// has waited deadlock_timeout, and then aborts one transaction: Value
	// is that victim and Before the time, in ms, or both "" while nobody
	// has looked yet.
	Deadlock
	// QueuedBehind: a worker waited for a row lock and, once it was free,
	// took a different row: the wait bought nothing, the workers ran one
	// after another.
	QueuedBehind
	// WaitsOnItself: a client waits for a lock that it holds itself on
	// another connection; no deadlock detector can see the cycle.
	WaitsOnItself
)

// A deadlock the server broke and a queue of workers cost time or a retry,
// not data; a lost update and a client waiting on itself are broken.
var sqlViolationClasses = map[ViolationKind]Class{
	LostUpdate: Broken, Deadlock: Warning, QueuedBehind: Warning, WaitsOnItself: Broken,
}

var sqlViolationNames = map[ViolationKind]string{
	LostUpdate: "lost-update", Deadlock: "deadlock", QueuedBehind: "queued", WaitsOnItself: "waits-on-itself",
}

// SQLError is an ERROR as PostgreSQL reports it: the SQLSTATE and the
// message.
type SQLError struct {
	Code    string // SQLSTATE: 55P03, 40P01, 25P02
	Message string
}

// The errors the model raises, with PostgreSQL's codes and messages.
func rowLockUnavailable(table string) *SQLError {
	return &SQLError{"55P03", `could not obtain lock on row in relation "` + table + `"`}
}

var (
	errLockTimeout = &SQLError{"55P03", "canceling statement due to lock timeout"}
	errDeadlock    = &SQLError{"40P01", "deadlock detected"}
	errAborted     = &SQLError{"25P02", "current transaction is aborted, commands ignored until end of transaction block"}
)

// The warnings.
const (
	warnNotOwned = "you don't own a lock of type ExclusiveLock"
	warnNoTx     = "there is no transaction in progress"
)

// SQLStatement is one statement a client sent on a connection and what the
// server answered. Head.Node is the server connection when clients go
// through a pooler; without one each client has its own connection.
//
// A statement that has to wait for a lock is logged twice: once when it
// blocks (Waiting, no answer yet), and again when it is answered, with Sent
// the moment it went out.
type SQLStatement struct {
	Head
	Session string     // the server connection it ran on
	SQL     string     // as sent, with the client's values filled in
	Tag     string     // the command tag: "UPDATE 1", "SELECT 1", "BEGIN"
	Cols    []string   // the columns of the rows returned
	Rows    [][]string // the rows, in PostgreSQL's text form ('t' and 'f' for booleans)
	Warning string     // a WARNING sent with the answer
	Err     *SQLError
	Waiting bool   // blocked: no answer yet
	Sent    int    // when it was sent; At when it did not wait
	Holder  string // waiting: the connection that holds the lock
	Lock    string // waiting: the lock, as pg_locks would name it
}

func (e SQLStatement) Kind() Kind {
	switch {
	case e.Waiting:
		return SQLWaiting
	case e.Err != nil:
		return SQLFailed
	}
	return SQLDone
}

// Reply is the answer as a client library hands it over: the command tag
// and the rows, or the ERROR with its SQLSTATE; a WARNING goes first.
func (e SQLStatement) Reply() string {
	if e.Waiting {
		return "(waiting for " + e.Lock + ")"
	}
	var b strings.Builder
	if e.Warning != "" {
		b.WriteString("WARNING: " + e.Warning + "; ")
	}
	if e.Err != nil {
		b.WriteString("ERROR: " + e.Err.Message + " (SQLSTATE " + e.Err.Code + ")")
		return b.String()
	}
	b.WriteString(e.Tag)
	for i, row := range e.Rows {
		if i == 0 {
			b.WriteString(" ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString("(")
		for j, v := range row {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(e.Cols[j] + "=" + v)
		}
		b.WriteString(")")
	}
	return b.String()
}

func (e SQLStatement) Wire() (string, string) { return e.SQL, e.Reply() }

// Waited is how long the statement waited for its answer.
func (e SQLStatement) Waited() int { return e.At - e.Sent }

// DeadlockCheck is PostgreSQL's deadlock detector running in a backend that
// has waited deadlock_timeout: Cycle lists the connections that wait for
// each other, starting with the one that ran the check, which is aborted.
type DeadlockCheck struct {
	Head
	Session string
	Cycle   []string
}

func (DeadlockCheck) Kind() Kind             { return DeadlockSeen }
func (DeadlockCheck) Wire() (string, string) { return "", "" }

// Row formats the first row of an answer as "col=value, ...".
func (e SQLStatement) Row() string {
	if len(e.Rows) == 0 {
		return ""
	}
	parts := make([]string, len(e.Cols))
	for i, c := range e.Cols {
		parts[i] = c + "=" + e.Rows[0][i]
	}
	return strings.Join(parts, ", ")
}

// Affected is the number at the end of the command tag: rows updated,
// selected or inserted; -1 for a tag without one.
func (e SQLStatement) Affected() int {
	f := strings.Fields(e.Tag)
	if len(f) < 2 {
		return -1
	}
	n, err := strconv.Atoi(f[len(f)-1])
	if err != nil {
		return -1
	}
	return n
}

// checkCycle follows the wait-for graph from s, which has just begun to
// wait: if the path comes back to s, the transactions on it are deadlocked
// now, though PostgreSQL will not look until deadlock_timeout has passed.
func (d *database) checkCycle(r *Run, s *backend, at int) {
	seen := map[*backend]bool{}
	for h := s.wait.holder(); h != nil && !seen[h]; {
		if h == s {
			other := s.wait.holder().client
			for _, v := range r.violations {
				if v.Kind == Deadlock && v.Value == "" && (v.Client == s.client || v.Other == s.client) {
					return // the same cycle, still unbroken
				}
			}
			r.violate(Violation{Kind: Deadlock, At: at, Client: s.client, Other: other})
			return
		}
		seen[h] = true
		if h.wait == nil {
			return
		}
		h = h.wait.holder()
	}
}

// brokeDeadlock records that the detector aborted victim's transaction at at
// to break the cycle it is in with other.
func (r *Run) brokeDeadlock(victim, other string, at int) {
	for i := range r.violations {
		v := &r.violations[i]
		if v.Kind == Deadlock && v.Value == "" && (v.Client == victim || v.Other == victim) {
			v.Value, v.Before = victim, strconv.Itoa(at)
			return
		}
	}
	r.violate(Violation{Kind: Deadlock, At: at, Client: victim, Other: other, Value: victim, Before: strconv.Itoa(at)})
}
