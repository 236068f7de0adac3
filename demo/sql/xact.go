package sql

import (
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// A transaction's end: commit or rollback, what it makes of the rows, and
// the locks it frees.

// end finishes s's transaction: commit makes its changes the rows' new
// versions; either way its row locks and transaction-level advisory locks
// go, and the statements waiting for them try again.
func (d *database) end(r *demo.Run, s *backend, commit bool, at int) {
	if commit && !s.aborted {
		for _, w := range s.rows {
			if w.pending == nil {
				continue
			}
			d.commitRow(r, s, w, at)
			if s.client != "" {
				d.committed |= 1 << d.who(s.client)
			}
		}
	}
	d.release(r, s, at)
	s.inTx, s.aborted = false, false
	// A transaction-level advisory lock ends with the transaction, and so
	// does the client's belief in it.
	if s.client != "" {
		if c := r.Client(s.client); c != nil && c.Holds && d.belief(s.client) > 0 && !d.holdsSession(s) {
			d.setBelief(s.client, 0)
			r.LetGo(c)
		}
	}
}

// commitRow makes the pending version of w current, and looks for a lost
// update: the writer's client read w at a version that another client's
// commit has replaced since, so its write is based on a value that is gone.
func (d *database) commitRow(r *demo.Run, s *backend, w *row, at int) {
	client := s.client
	given := false
	for _, c := range w.t.cols {
		given = given || w.given[c] && w.values[c] != w.pending[c]
	}
	if seen := w.seenBy(d.who(client)); seen > 0 && seen < w.rev && w.writer != client && given && !r.StaleNow(client, at) {
		before, after := w.changes()
		r.Violate(demo.Violation{Kind: demo.LostUpdate, At: at, Client: client, Other: w.writer,
			Value: strings.Join(after, ", "), Before: strings.Join(before, ", ")})
	}
	if w.t.name == d.resource {
		d.oversold(r, client, w, at)
	}
	w.values, w.pending, w.given = w.pending, nil, nil
	w.rekey()
	w.rev++
	w.writer = client
	d.read(client, w)
}

// changes are the columns the pending version changes, as col=value,
// before and after, for a lost update's verdict.
func (w *row) changes() (before, after []string) {
	for _, c := range w.t.cols {
		if w.values[c] != w.pending[c] {
			before = append(before, c+"="+w.values[c])
			after = append(after, c+"="+w.pending[c])
		}
	}
	return before, after
}

// oversold looks at a commit to the resource that takes a count below zero:
// more was sold (or paid out) than there was. The row's first such commit
// is the violation; a later one that goes further only brings its count up
// to date, so the verdict says where the count ended.
func (d *database) oversold(r *demo.Run, client string, w *row, at int) {
	for _, c := range w.t.cols[1:] {
		old, ok1 := number(w.values[c])
		now, ok2 := number(w.pending[c])
		if !ok1 || !ok2 || now >= 0 || now >= old {
			continue
		}
		where := w.name() + " " + c
		if r.Amend(func(v *demo.Violation) bool {
			if v.Kind != Oversold || v.Before != where {
				return false
			}
			v.Other, v.Value = client, w.pending[c]
			return true
		}) {
			continue
		}
		r.Violate(demo.Violation{Kind: Oversold, At: at, Client: client, Other: client, Value: w.pending[c], Before: where})
	}
}

// release drops s's row locks and transaction-level advisory locks.
func (d *database) release(r *demo.Run, s *backend, at int) {
	for _, w := range s.rows {
		w.locker, w.pending, w.given, w.pendingKey = nil, nil, nil, ""
		d.woken = append(d.woken, w.waiters...)
		w.waiters = w.waiters[:0] // its memory kept for the next: a copy's own (copyInto)
	}
	s.rows = s.rows[:0]
	for _, a := range d.advisory {
		if a.owner == s && a.xact > 0 {
			a.xact = 0
			if a.session == 0 {
				a.owner = nil
				d.woken = append(d.woken, a.waiters...)
				a.waiters = a.waiters[:0]
			}
		}
	}
}

// wake lets each waiter of a lock that was just freed, first come first
// served, run its statement again: the first takes the lock, the others find
// it held again and go on waiting. It runs after the answer that freed the
// lock has been logged, so the story reads in order.
func (d *database) wake(r *demo.Run, at int) {
	for len(d.woken) > 0 {
		s := d.woken[0]
		d.woken = d.woken[1:]
		w := s.wait
		if w == nil {
			continue
		}
		w.freed, w.row, w.adv = w.row, nil, nil
		w.from, w.checked = at, false
		if d.run(r, s, w, at); s.wait != w {
			d.spareWait(w)
		}
	}
}
