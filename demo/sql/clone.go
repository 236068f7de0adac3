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
	c := &copier{
		rows:     map[*row]*row{},
		backends: make(map[*backend]*backend, len(d.sessions)),
		advisory: make(map[*advisoryLock]*advisoryLock, len(d.advisory)),
	}
	n.tables = make([]*table, len(d.tables))
	for i, t := range d.tables {
		n.tables[i] = c.table(t)
	}
	n.sessions = make([]*backend, len(d.sessions))
	for i, s := range d.sessions {
		n.sessions[i] = c.backend(s)
	}
	n.advisory = make([]*advisoryLock, len(d.advisory))
	for i, a := range d.advisory {
		ca := *a
		n.advisory[i], c.advisory[a] = &ca, &ca
	}
	// Now that every row and lock has its copy, the pointers move.
	for _, t := range n.tables {
		for _, w := range t.rows {
			w.locker, w.waiters = c.backend(w.locker), c.backendList(w.waiters)
		}
	}
	for _, a := range n.advisory {
		a.owner, a.waiters = c.backend(a.owner), c.backendList(a.waiters)
	}
	n.blocked = make(map[string]*backend, len(d.blocked))
	for name, s := range d.blocked {
		n.blocked[name] = c.backend(s)
	}
	n.woken = c.backendList(d.woken)
	for _, s := range c.backends { // every connection copied, closed ones too
		c.movePointers(s)
	}
	c.copyMaps(&n, d)
	if d.lease != nil {
		n.lease = d.lease.Clone().(*lockservice.Store)
	}
	return &n
}

// copier remembers the copy of each row, connection and advisory lock.
type copier struct {
	rows     map[*row]*row
	backends map[*backend]*backend
	advisory map[*advisoryLock]*advisoryLock
}

func (c *copier) table(t *table) *table {
	ct := &table{name: t.name, cols: t.cols, rows: make([]*row, len(t.rows))}
	for j, w := range t.rows {
		cw := *w
		cw.t, cw.given = ct, maps.Clone(w.given)
		ct.rows[j], c.rows[w] = &cw, &cw
	}
	return ct
}

// backend is the copy of s, made at the first call: a connection already
// closed that something still names is copied all the same, so the copy
// shares nothing.
func (c *copier) backend(s *backend) *backend {
	if s == nil {
		return nil
	}
	cs, ok := c.backends[s]
	if !ok {
		copied := *s
		cs = &copied
		c.backends[s] = cs
	}
	return cs
}

func (c *copier) backendList(ss []*backend) []*backend {
	if ss == nil {
		return nil
	}
	out := make([]*backend, len(ss))
	for i, s := range ss {
		out[i] = c.backend(s)
	}
	return out
}

func (c *copier) rowsOf(ws []*row) []*row {
	if ws == nil {
		return nil
	}
	out := make([]*row, len(ws))
	for i, w := range ws {
		out[i] = c.rows[w]
	}
	return out
}

// movePointers moves a copied connection's rows and wait to their copies.
func (c *copier) movePointers(s *backend) {
	s.rows = c.rowsOf(s.rows)
	if s.wait == nil {
		return
	}
	w := *s.wait
	w.row, w.first, w.freed, w.got = c.rows[w.row], c.rows[w.first], c.rows[w.freed], c.rowsOf(w.got)
	if w.adv != nil {
		w.adv = c.advisory[w.adv]
	}
	s.wait = &w
}

// copyMaps copies the clients' variables, queues, reads and beliefs, and
// the diagram's spans, which are changed in place.
func (c *copier) copyMaps(n, d *database) {
	n.vars = make(map[string]map[string]string, len(d.vars))
	for name, vs := range d.vars {
		n.vars[name] = maps.Clone(vs)
	}
	n.queued = make(map[string][]demo.Action, len(d.queued))
	for name, as := range d.queued {
		n.queued[name] = slices.Clone(as)
	}
	n.reads = make(map[string]map[*row]int, len(d.reads))
	for name, rs := range d.reads {
		m := make(map[*row]int, len(rs))
		for w, v := range rs {
			m[c.rows[w]] = v
		}
		n.reads[name] = m
	}
	n.beliefs = maps.Clone(d.beliefs)
	n.holds, n.waits = slices.Clone(d.holds), slices.Clone(d.waits)
}
