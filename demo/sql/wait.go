package sql

import (
	"slices"
	"strconv"

	"github.com/distlock/fencing-demo/demo"
)

// Waiting: the time that passes while statements wait for locks, the
// deadlock detector, and the wait-for graph.

// check looks at a statement that waited and then got its answer: a worker
// that waited for one row and took another waited for nothing.
func (d *database) check(r *demo.Run, w *wait, e *SQLStatement, at int) {
	if w.first == nil || e.Err != nil || w.st.kind != stSelect {
		return
	}
	if slices.Contains(w.got, w.first) {
		return
	}
	if len(w.got) > 0 {
		r.Violate(demo.Violation{Kind: QueuedBehind, At: at, Client: w.client, Other: w.firstBy,
			Value: w.first.name(), Before: strconv.Itoa(at - w.sent)})
	}
}

// elapse plays, in the order they fall due, the timers of the waiting
// backends: the deadlock check after deadlock_timeout, and lock_timeout.
func (d *database) Elapse(r *demo.Run, since int) {
	d.lease.Elapse(r, since)
	for {
		var next *backend
		var err *SQLError
		due, isCheck := 0, false
		for _, s := range d.sessions {
			w := s.wait
			if w == nil {
				continue
			}
			if !w.checked && (next == nil || w.from+DeadlockTimeout < due) {
				next, due, isCheck = s, w.from+DeadlockTimeout, true
			}
			if s.timeout > 0 && (next == nil || w.from+s.timeout < due) {
				next, due, isCheck, err = s, w.from+s.timeout, false, errLockTimeout
			}
			// statement_timeout counts from when the statement was sent,
			// however many locks it has waited for since.
			if s.stmt > 0 && (next == nil || w.sent+s.stmt < due) {
				next, due, isCheck, err = s, w.sent+s.stmt, false, errStatementTimeout
			}
		}
		if next == nil || due > r.Now() {
			return
		}
		if isCheck {
			d.deadlockCheck(r, next, due)
		} else {
			d.fail(r, next, err, due)
		}
	}
}

// deadlockCheck is what a backend does once it has waited deadlock_timeout:
// follow who waits for whom from itself, and if the path comes back, abort
// its own statement. Which transaction of a cycle is aborted thus depends on
// whose timer runs out first; PostgreSQL promises only that one is.
func (d *database) deadlockCheck(r *demo.Run, s *backend, at int) {
	s.wait.checked = true
	var buf [8]string
	cycle := append(buf[:0], s.name)
	for h := s.wait.holder(); h != nil; {
		if h == s {
			if r.Logs() { // no rule reads the check back
				r.Log(DeadlockCheck{Head: r.HeadAt(at, s.client, d.node(s)), Session: s.name, Cycle: slices.Clone(cycle)})
			}
			var other string
			if o := s.wait.holder(); o != nil {
				other = o.client
			}
			brokeDeadlock(r, s.client, other, at)
			d.fail(r, s, errDeadlock, at)
			return
		}
		if slices.Contains(cycle, h.name) || h.wait == nil {
			return
		}
		cycle = append(cycle, h.name)
		h = h.wait.holder()
	}
}

// fail ends s's waiting statement with err.
func (d *database) fail(r *demo.Run, s *backend, err *SQLError, at int) {
	w := s.wait
	d.unqueue(s)
	e := SQLStatement{Head: r.HeadAt(at, w.client, d.node(s)), Session: s.name, SQL: w.sql, Sent: w.sent, Err: err}
	s.wait = nil
	d.blocked[d.who(w.client)] = nil
	d.stopWaiting(r, w.client, at)
	logStatement(r, e)
	if w.implicit {
		d.end(r, s, false, at) // it was a transaction of its own, now over
	} else {
		// Inside BEGIN the error aborts the transaction: its locks go now,
		// and the other side of a deadlock carries on at once.
		d.release(r, s, at)
		s.aborted = true
	}
	d.answered(r, s, w.client, at)
	d.spareWait(w)
}

// unqueue takes s out of every lock's queue.
func (d *database) unqueue(s *backend) {
	for _, t := range d.tables {
		for _, w := range t.rows {
			w.waiters = slices.DeleteFunc(w.waiters, func(x *backend) bool { return x == s })
		}
	}
	for _, a := range d.advisory {
		a.waiters = slices.DeleteFunc(a.waiters, func(x *backend) bool { return x == s })
	}
}

// stopWaiting closes client's open wait span. A lean run, which shows no
// frame, keeps no spans.
func (d *database) stopWaiting(r *demo.Run, client string, at int) {
	if !r.Logs() || !slices.ContainsFunc(d.waits, func(w demo.Span) bool { return w.Lane == client && w.Open }) {
		return
	}
	d.waits = slices.Clone(d.waits) // the finder's copies share the spans
	for i := range d.waits {
		if w := &d.waits[i]; w.Lane == client && w.Open {
			w.To, w.Open = at, false
		}
	}
}

// trace brings the spans of who holds locks up to date: a lane for each
// client whose connection holds a row or advisory lock, and the server's own
// lane for a pooled connection that holds one with no client at all. A
// lean run, which shows no frame, keeps no spans.
func (d *database) trace(r *demo.Run, at int) {
	if !r.Logs() {
		return
	}
	now := map[string]bool{}
	for _, s := range d.sessions {
		held := len(s.rows) > 0
		for _, a := range d.advisory {
			held = held || a.owner == s
		}
		if !held {
			continue
		}
		lane := s.client
		if lane == "" {
			lane = "postgres"
		}
		now[lane] = true
	}
	if slices.ContainsFunc(d.holds, func(h demo.Span) bool { return h.Open && !now[h.Lane] }) {
		d.holds = slices.Clone(d.holds) // the finder's copies share the spans
	}
	for i := range d.holds {
		if h := &d.holds[i]; h.Open && !now[h.Lane] {
			h.To, h.Open = at, false
		}
	}
	for lane := range now {
		open := false
		for _, h := range d.holds {
			open = open || h.Open && h.Lane == lane
		}
		if !open {
			d.holds = append(d.holds, demo.Span{Lane: lane, Owner: lane, From: at, Open: true, Until: -1})
		}
	}
	from := func(a, b demo.Span) int { return a.From - b.From }
	if !slices.IsSortedFunc(d.holds, from) {
		d.holds = slices.Clone(d.holds)
		slices.SortStableFunc(d.holds, from)
	}
}
