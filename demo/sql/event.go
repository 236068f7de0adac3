package sql

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// The database's event kinds.
const (
	SQLDone      demo.Kind = "sql"            // SQLStatement answered
	SQLWaiting   demo.Kind = "sql-waiting"    // SQLStatement waiting for a lock
	SQLFailed    demo.Kind = "sql-error"      // SQLStatement answered with an ERROR
	DeadlockSeen demo.Kind = "deadlock-check" // DeadlockCheck that found a cycle
	SQLRefused   demo.Kind = "sql-refused"    // Refused: no connection, past max_connections
	SQLClosed    demo.Kind = "sql-closed"     // Disconnected: a client closed its connection
)

// Refused is a client's connection refused by the server, which already has
// max_connections open: the statement it meant to send never goes out.
type Refused struct {
	demo.Head
	SQL string // what the client meant to send once connected
	Max int    // max_connections
}

func (Refused) Kind() demo.Kind { return SQLRefused }

// Wire is the startup message and the server's FATAL: the connection is over
// before any statement is sent.
func (e Refused) Wire() (string, string) {
	return "connect (StartupMessage)", "FATAL: " + errTooManyClients.Message + " (SQLSTATE " + errTooManyClients.Code + ")"
}

// Disconnected is a client's connection ending: closed by the client (the
// protocol's Terminate message), or, Crashed, by its process dying, when
// the server reads the end of the socket and ends the backend. RolledBack:
// a transaction was open, and rolled back; Freed are the locks the session
// held, which went with it.
type Disconnected struct {
	demo.Head
	Session    string
	Pid        int
	Freed      []string
	RolledBack bool
	Crashed    bool
}

func (Disconnected) Kind() demo.Kind { return SQLClosed }

// Wire is the Terminate message; a process that died sends nothing.
func (e Disconnected) Wire() (string, string) {
	if e.Crashed {
		return "", ""
	}
	return "Terminate", ""
}

// Story is the transcript's line for a connection its dead client left.
func (e Disconnected) Story(*demo.Scenario) string {
	line := fmt.Sprintf("conn %s (pid %d) closed under its dead client: the backend ends", e.Session, e.Pid)
	if e.RolledBack {
		line += ", rolls back its transaction"
	}
	if len(e.Freed) > 0 {
		line += ", frees " + strings.Join(e.Freed, ", ")
	}
	return line
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
	// statement_timeout cancels the statement as a cancel request would.
	errStatementTimeout = &SQLError{"57014", "canceling statement due to statement timeout"}
	// A connection past max_connections is refused with a FATAL.
	errTooManyClients = &SQLError{"53300", "sorry, too many clients already"}
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
	demo.Head
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
	// Resource: an UPDATE of the scenario's resource by a client of the
	// lock service (ToResource), as the chapter's Resource would have
	// taken or turned it away.
	Resource   demo.WriteResult
	ToResource bool
}

// Written is the statement's write to the resource, for a reader of writes
// (demo.ResourceWrite).
func (e SQLStatement) Written() (demo.WriteResult, bool) { return e.Resource, e.ToResource }

func (e SQLStatement) Kind() demo.Kind {
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
	demo.Head
	Session string
	Cycle   []string
}

func (DeadlockCheck) Kind() demo.Kind        { return DeadlockSeen }
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

// Note says how long a statement that had waited waited.
func (e SQLStatement) Note(*demo.Scenario) string {
	if !e.Waiting && e.Waited() > 0 {
		return fmt.Sprintf(" (after waiting %dms)", e.Waited())
	}
	return ""
}

func (e DeadlockCheck) Story(*demo.Scenario) string {
	return fmt.Sprintf("deadlock check after deadlock_timeout finds the cycle %s", strings.Join(append(e.Cycle, e.Cycle[0]), " -> "))
}

// checkCycle follows the wait-for graph from s, which has just begun to
// wait: if the path comes back to s, the transactions on it are deadlocked
// now, though PostgreSQL will not look until deadlock_timeout has passed.
func (d *database) checkCycle(r *demo.Run, s *backend, at int) {
	seen := map[*backend]bool{}
	for h := s.wait.holder(); h != nil && !seen[h]; {
		if h == s {
			other := s.wait.holder().client
			if r.Amend(func(v *demo.Violation) bool {
				return v.Kind == Deadlock && v.Value == "" && (v.Client == s.client || v.Other == s.client)
			}) {
				return // the same cycle, still unbroken
			}
			r.Violate(demo.Violation{Kind: Deadlock, At: at, Client: s.client, Other: other})
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
func brokeDeadlock(r *demo.Run, victim, other string, at int) {
	if r.Amend(func(v *demo.Violation) bool {
		if v.Kind != Deadlock || v.Value != "" || v.Client != victim && v.Other != victim {
			return false
		}
		v.Value, v.Before = victim, strconv.Itoa(at)
		return true
	}) {
		return
	}
	r.Violate(demo.Violation{Kind: Deadlock, At: at, Client: victim, Other: other, Value: victim, Before: strconv.Itoa(at)})
}

// Deeds is what a statement shows its client doing: an UPDATE or INSERT
// writes (with the token where it sends one), and records when it changed
// a row; an advisory unlock or the end of a transaction lets locks go, a
// statement blocked on a lock waits, and an advisory lock or FOR UPDATE
// asks for one, and takes it when it is answered with the lock.
func (e SQLStatement) Deeds() demo.Deed {
	var d demo.Deed
	answered := !e.Waiting && e.Err == nil
	if sqlIs(e.SQL, "UPDATE", "INSERT") {
		d |= demo.Wrote
		if strings.Contains(e.SQL, "token") {
			d |= demo.SentToken
		}
		if answered && e.Affected() > 0 {
			d |= demo.Recorded
		}
	}
	if answered && e.tookLock() {
		d |= demo.Got
	}
	if strings.Contains(e.SQL, "advisory_unlock") || sqlIs(e.SQL, "COMMIT", "ROLLBACK") {
		d |= demo.Unlocked
	}
	if e.Waiting {
		d |= demo.Waited
	}
	if strings.Contains(e.SQL, "advisory_lock") || strings.Contains(e.SQL, "advisory_xact_lock") || strings.Contains(e.SQL, "FOR UPDATE") {
		d |= demo.Asked
	}
	return d
}

// tookLock reports whether an answered statement took the lock it asked
// for: an advisory lock, a pg_try_advisory_lock that answered t, or a FOR
// UPDATE that returned a row.
func (e SQLStatement) tookLock() bool {
	switch {
	case strings.Contains(e.SQL, "pg_try_advisory"):
		return len(e.Rows) == 1 && len(e.Rows[0]) == 1 && e.Rows[0][0] == "t"
	case strings.Contains(e.SQL, "advisory_lock") || strings.Contains(e.SQL, "advisory_xact_lock"):
		return true
	case strings.Contains(e.SQL, "FOR UPDATE"):
		return len(e.Rows) > 0
	}
	return false
}

// sqlIs reports whether sql is a statement of one of the kinds.
func sqlIs(sql string, kinds ...string) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(sql), " ")
	return slices.Contains(kinds, strings.ToUpper(first))
}

// Draw marks a statement that read or changed rows on its client's lane,
// with its command tag ("SELECT 1", "UPDATE 0"), and a refused one with its
// SQLSTATE: with no lock to draw (optimistic locking, a conditional
// UPDATE), the statements and their counts are the story.
func (e SQLStatement) Draw(d *demo.Drawing) {
	switch {
	case e.Waiting:
	case e.Err != nil:
		d.Mark(demo.Mark{Lane: e.Client, At: e.At, What: "statement", Label: "ERROR " + e.Err.Code})
	case dataTag(e.Tag):
		d.Mark(demo.Mark{Lane: e.Client, At: e.At, What: "statement", Label: e.Tag})
	}
}

// dataTag reports whether a command tag is a statement's that reads or
// writes rows, not one that begins or ends a transaction or sets a lock.
func dataTag(tag string) bool {
	verb, _, _ := strings.Cut(tag, " ")
	switch verb {
	case "SELECT", "UPDATE", "INSERT", "DELETE":
		return true
	}
	return false
}
