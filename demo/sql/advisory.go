package sql

import (
	"github.com/distlock/fencing-demo/demo"
)

// Advisory locks: pg_advisory_lock and its kin, at session and
// transaction level, counted per hold.

func (d *database) advisoryLock(key int64) *advisoryLock {
	for _, a := range d.advisory {
		if a.key == key {
			return a
		}
	}
	a := &advisoryLock{key: key}
	d.advisory = append(d.advisory, a)
	return a
}

func (d *database) advisoryCall(r *demo.Run, s *backend, w *wait, e *SQLStatement) *wait {
	st := w.st
	a := d.advisoryLock(st.key)
	e.Cols, e.Tag = []string{st.fn}, "SELECT 1"
	answer := func(v string) { e.Rows = [][]string{{v}} }
	free := a.owner == nil || a.owner == s
	take := func(xact bool) {
		a.owner = s
		if xact {
			a.xact++
		} else {
			a.session++
		}
		// The client now believes it holds the lock: the first take starts
		// its hold, a re-entry only counts.
		if d.setBelief(w.client, d.belief(w.client)+1); d.belief(w.client) == 1 {
			if c := r.Client(w.client); c != nil {
				r.Hold(c, -1)
			}
		}
	}
	switch st.fn {
	case "pg_advisory_lock", "pg_advisory_xact_lock":
		if !free {
			w.adv, w.row = a, nil
			return w
		}
		take(st.fn == "pg_advisory_xact_lock")
		answer("")
	case "pg_try_advisory_lock", "pg_try_advisory_xact_lock":
		if !free {
			answer("f")
			break
		}
		take(st.fn == "pg_try_advisory_xact_lock")
		answer("t")
	case "pg_advisory_unlock":
		if a.owner != s || a.session == 0 {
			e.Warning = warnNotOwned
			answer("f")
		} else {
			a.session--
			answer("t")
			d.settle(r, a, e.At)
		}
		// Either way the client believes it let go of one hold.
		if d.belief(w.client) > 0 {
			if d.setBelief(w.client, d.belief(w.client)-1); d.belief(w.client) == 0 {
				if c := r.Client(w.client); c != nil {
					r.LetGo(c)
				}
			}
		}
	}
	return nil
}

// settle frees an advisory lock whose holds are all released and lets its
// waiters try again.
func (d *database) settle(r *demo.Run, a *advisoryLock, at int) {
	if a.session > 0 || a.xact > 0 || a.owner == nil {
		return
	}
	a.owner = nil
	d.woken = append(d.woken, a.waiters...)
	a.waiters = nil
}

func (d *database) holdsSession(s *backend) bool {
	for _, a := range d.advisory {
		if a.owner == s && a.session > 0 {
			return true
		}
	}
	return false
}
