package sql

import (
	"maps"
	"slices"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/lockservice"
)

// Clone is a deep copy for the finder. Rows, connections, waits and
// advisory locks point at one another, so each is copied once and every
// pointer is moved to its copy. A row's committed and pending values and
// its given columns are shared, as are each client's variables: the
// database replaces those maps, never changes one in place.
func (d *database) Clone() demo.Store {
	n := *d
	c := &copier{}
	n.tables = c.tables(d.tables)
	n.sessions = c.sessions(d.sessions)
	n.advisory = make([]*advisoryLock, len(d.advisory))
	locks := make([]advisoryLock, len(d.advisory))
	for i, a := range d.advisory {
		locks[i] = *a
		n.advisory[i] = &locks[i]
	}
	c.advisory = pairs[advisoryLock]{d.advisory, n.advisory}
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
	// Every connection copied, closed ones too.
	for _, s := range c.open.to {
		c.movePointers(s)
	}
	for _, s := range c.closed.to {
		c.movePointers(s)
	}
	c.copyMaps(&n, d)
	if d.lease != nil {
		n.lease = d.lease.Clone().(*lockservice.Store)
	}
	return &n
}

// pairs is each original beside its copy. The database has a handful of
// rows, connections and locks, so a look along a slice beats a map, which
// the finder would build and fill for every step it tries.
type pairs[T any] struct{ from, to []*T }

func (p *pairs[T]) get(x *T) *T {
	if i := slices.Index(p.from, x); i >= 0 {
		return p.to[i]
	}
	return nil
}

// copier remembers the copy of each table, connection and advisory lock;
// a row's copy is at its place in its table's copy.
type copier struct {
	src, dst []*table
	open     pairs[backend] // the connections in the list
	closed   pairs[backend] // those closed that something still names
	advisory pairs[advisoryLock]
}

// tables copies every table and row, the rows in one allocation.
func (c *copier) tables(src []*table) []*table {
	count := 0
	for _, t := range src {
		count += len(t.rows)
	}
	dst := make([]*table, len(src))
	ts := make([]table, len(src))
	rows := make([]row, count)
	ptrs := make([]*row, count)
	for i, t := range src {
		ct := &ts[i]
		*ct = table{name: t.name, cols: t.cols, rows: ptrs[:len(t.rows):len(t.rows)]}
		ptrs = ptrs[len(t.rows):]
		for j, w := range t.rows {
			cw := &rows[j]
			*cw = *w
			cw.t = ct
			ct.rows[j] = cw
		}
		rows = rows[len(t.rows):]
		dst[i] = ct
	}
	c.src, c.dst = src, dst
	return dst
}

// row is the copy of w, at w's place in its table's copy.
func (c *copier) row(w *row) *row {
	if w == nil {
		return nil
	}
	i := slices.Index(c.src, w.t)
	if i < 0 {
		return nil
	}
	return c.dst[i].rows[slices.Index(w.t.rows, w)]
}

// sessions copies the open connections, in one allocation.
func (c *copier) sessions(src []*backend) []*backend {
	out := make([]*backend, len(src))
	bs := make([]backend, len(src))
	for i, s := range src {
		bs[i] = *s
		out[i] = &bs[i]
	}
	c.open = pairs[backend]{src, out}
	return out
}

// backend is the copy of s: a connection already closed that something
// still names is copied at the first call all the same, so the copy
// shares nothing.
func (c *copier) backend(s *backend) *backend {
	if s == nil {
		return nil
	}
	if cs := c.open.get(s); cs != nil {
		return cs
	}
	if cs := c.closed.get(s); cs != nil {
		return cs
	}
	copied := *s
	c.closed.from = append(c.closed.from, s)
	c.closed.to = append(c.closed.to, &copied)
	return &copied
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
		out[i] = c.row(w)
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
	w.row, w.first, w.freed, w.got = c.row(w.row), c.row(w.first), c.row(w.freed), c.rowsOf(w.got)
	if w.adv != nil {
		w.adv = c.advisory.get(w.adv)
	}
	s.wait = &w
}

// copyMaps copies the clients' queues, reads and beliefs, and the
// diagram's spans, which are changed in place. The variables of each
// client are shared: a change replaces a client's map (setVars).
func (c *copier) copyMaps(n, d *database) {
	n.vars = maps.Clone(d.vars)
	n.queued = make(map[string][]demo.Action, len(d.queued))
	for name, as := range d.queued {
		n.queued[name] = slices.Clone(as)
	}
	n.reads = make(map[string]map[*row]int, len(d.reads))
	for name, rs := range d.reads {
		m := make(map[*row]int, len(rs))
		for w, v := range rs {
			m[c.row(w)] = v
		}
		n.reads[name] = m
	}
	n.beliefs = maps.Clone(d.beliefs)
	n.holds, n.waits = slices.Clone(d.holds), slices.Clone(d.waits)
}
