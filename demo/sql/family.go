// Package sql is the database family: one PostgreSQL server with its
// connections, transactions, row locks and advisory locks, its deadlock
// detector, and a transaction-mode pooler in front of it. Its clients send
// real SQL, which the conformance suite sends to a real PostgreSQL. A lesson
// whose table checks fencing tokens borrows the chapter's lock service
// beside it (package lockservice's verbs).
package sql

import (
	"errors"
	"fmt"
	"strings"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/lockservice"
)

// DatabaseStore is the store: value of a scenario played on PostgreSQL.
const DatabaseStore demo.StoreKind = "database"

// SQL is the family's own verb: one statement on the client's connection.
const SQL demo.Verb = "sql"

// Disconnect closes the client's connection: the server rolls back its
// open transaction and frees its locks and its place among max_connections.
const Disconnect demo.Verb = "disconnect"

// Args is one statement: "$col" stands for what the client last read,
// "$token" for its token; Conn is which of the client's own connections it
// goes on, from 1 (0 is the first).
type Args struct {
	SQL  string
	Conn int
}

// Verbs is the family's verb table: the statement, and the lock service's
// calls for a table that checks its tokens.
var Verbs = append([]demo.VerbSpec{
	{Verb: SQL, Form: "[conn N] STATEMENT", Help: "one SQL statement, sent on the client's connection (its Nth)", Parse: parseSQLArgs},
	{Verb: Disconnect, Form: "", Help: "the client closes its connection"},
}, lockservice.Verbs...)

// Family is the database's entry in the registry.
var Family = &demo.Family{
	Name:         "sql",
	Kinds:        []demo.StoreKind{DatabaseStore},
	Unit:         "ms",
	Verbs:        Verbs,
	New:          func(sc *demo.Scenario) demo.Store { return newDatabase(sc) },
	Offers:       offers,
	Short:        true,
	OwnsResource: true,                // its tables
	Narrate:      lockservice.Narrate, // its statements take the engine's wording
	Nodes:        func(*demo.Scenario) []string { return []string{"postgres"} },
	Lanes: func(sc *demo.Scenario) []demo.Lane {
		var lanes []demo.Lane
		// A lesson that takes the chapter's lock service beside the
		// database draws the lease on a lane of its own, above it.
		if UsesLockService(sc) {
			lanes = append(lanes, demo.Lane{Key: "", Word: "lockservice"})
		}
		return append(lanes, demo.Lane{Key: "postgres", Label: "postgres"})
	},
	Check: func(sc *demo.Scenario) error {
		if sc.Pool < 0 || sc.Pool > 9 {
			return fmt.Errorf("pool: %d; a pooler of 1 to 9 server connections is for the database store only", sc.Pool)
		}
		if sc.MaxConns < 0 || sc.MaxConns > 9 || sc.MaxConns > 0 && sc.Pool > 0 {
			return fmt.Errorf("max-connections: %d; 1 to 9 connections, for clients with connections of their own (no pool)", sc.MaxConns)
		}
		if sc.Nodes != 0 || sc.Latency != 0 || sc.Timeout != 0 {
			return errors.New("nodes, latency and timeout are for the redlock store only")
		}
		return nil
	},
	Transcript: transcript,
	Failures:   []demo.ViolationKind{QueuedBehind, Deadlock, WaitsOnItself, Oversold, ChargedTwice, TooManyClients},
	Properties: properties,
	Words:      words,
}

// UsesLockService reports whether the scenario takes the chapter's lock
// service beside the database, so that its tokens can be checked by a
// table.
func UsesLockService(sc *demo.Scenario) bool {
	for _, m := range sc.Moves {
		for _, a := range m.Do {
			if a.Verb == lockservice.Acquire {
				return true
			}
		}
	}
	return false
}

// Of returns the database's state in f, if f has one.
func Of(f demo.Frame) (State, bool) {
	s, ok := f.Store.(State)
	return s, ok
}

// LockService is the lock service beside the database.
func (s State) LockService() (lockservice.State, bool) { return s.Lock, true }

// Spans are what each connection actually held and waited for, beside
// what the clients believed.
func (s State) Spans() (locks, waits []demo.Span) { return s.Holds, s.Waits }

func parseSQLArgs(w []string) (any, error) {
	var a Args
	// The statement is checked when the scenario is rehearsed: the store
	// reads it, and says which shapes it knows.
	if len(w) >= 2 && w[0] == "conn" {
		// The client's program opens another connection of its own, as a
		// helper that asks the pool for one does.
		if len(w[1]) != 1 || w[1][0] < '1' || w[1][0] > '9' {
			return nil, errors.New(`"conn N": a client has connections 1 to 9`)
		}
		a.Conn, w = int(w[1][0]-'0'), w[2:]
	}
	if len(w) == 0 {
		return nil, errors.New(`want "[conn N] STATEMENT"`)
	}
	a.SQL = strings.Join(w, " ")
	return a, nil
}

// transcript writes the state block of a database frame: each connection
// as pg_stat_activity and pg_locks would show it, the wait-for graph, the
// advisory locks, the rows, and the verdict.
func transcript(b *strings.Builder, f *demo.Frame) bool {
	sc, db := f.Scenario, f.Store.(State)
	// The lock service beside the database, once it has lent the lock.
	switch l := db.Lock; {
	case l.Holder != "":
		fmt.Fprintf(b, "  lock: %s holds token %d, lease until %s\n", l.Holder, l.Token, demo.Clock(sc, l.Expiry))
	case l.Expiry > 0:
		fmt.Fprintf(b, "  lock: free (last lease until %s)\n", demo.Clock(sc, l.Expiry))
	}
	for _, s := range db.Sessions {
		b.WriteString(s.line(sc) + "\n")
	}
	for _, e := range db.Edges {
		fmt.Fprintf(b, "  wait-for: %s -> %s (%s)\n", e.From, e.To, e.Lock)
	}
	for _, a := range db.Advisory {
		holder := "free"
		if a.Holder != "" {
			holder = fmt.Sprintf("held by %s (session %d, xact %d)", a.Holder, a.Session, a.Xact)
		}
		line := fmt.Sprintf("  advisory %d: %s", a.Key, holder)
		if len(a.Waiters) > 0 {
			line += ", waiting: " + strings.Join(a.Waiters, ", ")
		}
		b.WriteString(line + "\n")
	}
	for _, t := range db.Tables {
		for _, r := range t.Rows {
			b.WriteString(r.line(t) + "\n")
		}
	}
	if len(f.Violations) == 0 {
		b.WriteString("verdict: safe\n")
	}
	for _, v := range f.Violations {
		fmt.Fprintf(b, "verdict: %s: %s\n", v.Kind, story(sc, v))
	}
	return true
}

func (s BackendState) line(sc *demo.Scenario) string {
	line := fmt.Sprintf("  conn %s (pid %d", s.Name, s.Pid)
	if s.Client != "" && s.Client != s.Name {
		line += ", client " + s.Client
	}
	line += "): " + s.State
	if s.Waiting != "" {
		line += fmt.Sprintf(", waiting for %s since %s", s.Waiting, demo.Clock(sc, s.Since))
	}
	if len(s.Locks) > 0 {
		line += ", holds " + strings.Join(s.Locks, ", ")
	}
	if len(s.Next) > 0 {
		line += "; then sends: " + strings.Join(s.Next, "; ")
	}
	return line
}

func (r RowState) line(t TableState) string {
	cells := make([]string, len(t.Cols))
	for i, c := range t.Cols {
		cells[i] = c + "=" + r.Values[i]
		if r.Pending != nil && r.Pending[i] != r.Values[i] {
			cells[i] += " (uncommitted " + r.Pending[i] + ")"
		}
	}
	line := fmt.Sprintf("  %s: %s, row version %d", t.Name, strings.Join(cells, " "), r.Rev)
	if r.LockedBy != "" {
		line += ", locked by " + r.LockedBy
	}
	if len(r.Waiters) > 0 {
		line += ", waiting: " + strings.Join(r.Waiters, ", ")
	}
	return line
}
