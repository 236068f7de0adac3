package demo_test

import (
	"fmt"
	"strconv"
	"strings"

	. "github.com/distlock/fencing-demo/demo"
)

// writeDatabase writes the state block of a database frame: each connection
// as pg_stat_activity and pg_locks would show it, the wait-for graph, the
// advisory locks, the rows, and the verdict.
func writeDatabase(b *strings.Builder, f *Frame) {
	sc, db := f.Scenario, f.Database
	// The lock service beside the database, once it has lent the lock.
	switch {
	case f.Holder != "":
		fmt.Fprintf(b, "  lock: %s holds token %d, lease until %s\n", f.Holder, f.Token, clock(sc, f.Expiry))
	case f.Expiry > 0:
		fmt.Fprintf(b, "  lock: free (last lease until %s)\n", clock(sc, f.Expiry))
	}
	for _, s := range db.Sessions {
		line := fmt.Sprintf("  conn %s (pid %d", s.Name, s.Pid)
		if s.Client != "" && s.Client != s.Name {
			line += ", client " + s.Client
		}
		line += "): " + s.State
		if s.Waiting != "" {
			line += fmt.Sprintf(", waiting for %s since %s", s.Waiting, clock(sc, s.Since))
		}
		if len(s.Locks) > 0 {
			line += ", holds " + strings.Join(s.Locks, ", ")
		}
		if len(s.Next) > 0 {
			line += "; then sends: " + strings.Join(s.Next, "; ")
		}
		b.WriteString(line + "\n")
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
			b.WriteString(line + "\n")
		}
	}
	if len(f.Violations) == 0 {
		b.WriteString("verdict: safe\n")
	}
	for _, v := range f.Violations {
		at := clock(sc, v.At)
		switch v.Kind {
		case LostUpdate:
			fmt.Fprintf(b, "verdict: %s: %s committed %s at %s, computed from a read older than %s's commit, which set %s\n", v.Kind, v.Client, v.Value, at, v.Other, v.Before)
		case Deadlock:
			fmt.Fprintf(b, "verdict: %s: %s and %s wait for each other from %s", v.Kind, v.Client, v.Other, at)
			if v.Value != "" {
				ms, _ := strconv.Atoi(v.Before)
				fmt.Fprintf(b, "; the detector aborted %s at %s", v.Value, clock(sc, ms))
			}
			b.WriteString("\n")
		case QueuedBehind:
			fmt.Fprintf(b, "verdict: %s: %s waited %sms behind %s for %s, then took another row at %s\n", v.Kind, v.Client, v.Before, v.Other, v.Value, at)
		case WaitsOnItself:
			fmt.Fprintf(b, "verdict: %s: %s waits for %s, which it holds itself, from %s\n", v.Kind, v.Client, v.Value, at)
		case StaleWrite:
			fmt.Fprintf(b, "verdict: %s: %s's lease had run out, yet its write %q landed at %s over %s's %q\n", v.Kind, v.Client, v.Value, at, v.Other, v.Before)
		case Contained:
			fmt.Fprintf(b, "verdict: %s: %s and %s both believed they held the lock from %s; the table turned %s's write away (token %d < max_token %d)\n", v.Kind, v.Client, v.Other, at, v.Client, v.Token, v.Max)
		case Overlap:
			fmt.Fprintf(b, "verdict: %s: %s worked on past its lease while %s held the lock, from %s\n", v.Kind, v.Client, v.Other, at)
		case TwoHolders:
			fmt.Fprintf(b, "verdict: %s: %s and %s hold the lock at once, from %s\n", v.Kind, v.Other, v.Client, at)
		default:
			fmt.Fprintf(b, "verdict: %s: %s at %s\n", v.Kind, v.Client, at)
		}
	}
}
