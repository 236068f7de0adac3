package sql

import (
	"maps"
	"slices"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/lockservice"
)

// Clone is a deep copy for the finder. Rows, connections, waits and
// advisory locks point at one another, so each is copied once and every
// pointer is moved to its copy. A row's committed and pending values are
// shared: the database replaces those maps, never changes one in place.
func (d *database) Clone() demo.Store {
	n := *d
	rows := map[*row]*row{}
	backends := make(map[*backend]*backend, len(d.sessions))
	advisory := make(map[*advisoryLock]*advisoryLock, len(d.advisory))
	n.tables = make([]*table, len(d.tables))
	for i, t := range d.tables {
		c := &table{name: t.name, cols: t.cols, rows: make([]*row, len(t.rows))}
		for j, w := range t.rows {
			cw := *w
			cw.t, cw.given = c, maps.Clone(w.given)
			c.rows[j] = &cw
			rows[w] = &cw
		}
		n.tables[i] = c
	}
	n.sessions = make([]*backend, len(d.sessions))
	for i, s := range d.sessions {
		c := *s
		n.sessions[i] = &c
		backends[s] = &c
	}
	n.advisory = make([]*advisoryLock, len(d.advisory))
	for i, a := range d.advisory {
		c := *a
		n.advisory[i] = &c
		advisory[a] = &c
	}
	be := func(s *backend) *backend {
		if s == nil {
			return nil
		}
		c, ok := backends[s]
		if !ok {
			// A connection already closed that something still names:
			// copied all the same, so the copy shares nothing.
			cs := *s
			c, backends[s] = &cs, &cs
		}
		return c
	}
	rw := func(w *row) *row {
		if w == nil {
			return nil
		}
		return rows[w]
	}
	bes := func(ss []*backend) []*backend {
		if ss == nil {
			return nil
		}
		out := make([]*backend, len(ss))
		for i, s := range ss {
			out[i] = be(s)
		}
		return out
	}
	rws := func(ws []*row) []*row {
		if ws == nil {
			return nil
		}
		out := make([]*row, len(ws))
		for i, w := range ws {
			out[i] = rw(w)
		}
		return out
	}
	for _, t := range n.tables {
		for _, w := range t.rows {
			w.locker, w.waiters = be(w.locker), bes(w.waiters)
		}
	}
	for _, a := range n.advisory {
		a.owner, a.waiters = be(a.owner), bes(a.waiters)
	}
	n.blocked = make(map[string]*backend, len(d.blocked))
	for c, s := range d.blocked {
		n.blocked[c] = be(s)
	}
	n.woken = bes(d.woken)
	for _, s := range backends {
		s.rows = rws(s.rows)
		if s.wait != nil {
			w := *s.wait
			w.row, w.first, w.freed, w.got = rw(w.row), rw(w.first), rw(w.freed), rws(w.got)
			if w.adv != nil {
				w.adv = advisory[w.adv]
			}
			s.wait = &w
		}
	}
	n.vars = make(map[string]map[string]string, len(d.vars))
	for c, vs := range d.vars {
		n.vars[c] = maps.Clone(vs)
	}
	n.queued = make(map[string][]demo.Action, len(d.queued))
	for c, as := range d.queued {
		n.queued[c] = slices.Clone(as)
	}
	n.reads = make(map[string]map[*row]int, len(d.reads))
	for c, rs := range d.reads {
		m := make(map[*row]int, len(rs))
		for w, v := range rs {
			m[rw(w)] = v
		}
		n.reads[c] = m
	}
	n.beliefs = maps.Clone(d.beliefs)
	n.holds, n.waits = slices.Clone(d.holds), slices.Clone(d.waits)
	if d.lease != nil {
		n.lease = d.lease.Clone().(*lockservice.Store)
	}
	return &n
}
