package sql

import (
	"slices"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/lockservice"
)

// What the finder asks of a store beyond demo.Store: a cheap copy, a copy
// into an earlier one's memory and a canonical key (state.go); what the
// run tells it (a client's crash, which closes its connections); and the
// spans its frame draws of row locks and waits.
var (
	_ demo.Cloner     = (*database)(nil)
	_ demo.CopierInto = (*database)(nil)
	_ demo.Keyer      = (*database)(nil)
	_ demo.Crasher    = (*database)(nil)
	_ demo.Spanned    = State{}
)

// Clone is a deep copy for the finder. Rows, connections, waits and
// advisory locks point at one another, so each is copied once and every
// pointer is moved to its copy. A row's committed and pending values, its
// given columns and the versions its clients read are shared, as are each
// client's variables and beliefs: the database replaces those maps and
// slices, never changes one in place.
func (d *database) Clone() demo.Store {
	n := &database{}
	d.copyInto(n, database{})
	return n
}

// CopyInto is Clone into dst, an earlier copy that nothing else uses: its
// rows, tables, connections, locks, waits and lists are filled again
// rather than allocated for every step the finder tries.
func (d *database) CopyInto(dst demo.Store) bool {
	n, ok := dst.(*database)
	if !ok || n == d {
		return false
	}
	d.copyInto(n, *n)
	return true
}

// buffers are the arrays a copy's tables, rows, connections and advisory
// locks live in, kept for CopyInto to fill again.
type buffers struct {
	tables   []table
	rows     []row
	tableOf  []*table
	rowOf    []*row
	sessions []backend
	open     []*backend
	spares   []spare
	locks    []advisoryLock
	lockOf   []*advisoryLock
	waits    []*wait // waits of statements answered, which nothing names (newWait)
	blocked  []*backend
	queued   [][]demo.Action
	updates  [8]update // the versions UPDATE statements made last (updated)
	next     int       // where the next one made goes
}

// newWait is a wait for a statement to send, or for a copy's connection to
// fill: the one the buffers keep from a statement already answered, if
// any, else a new one. Most statements never wait, and one allocated for
// each step the finder tries was a fifth of what it allocated.
func (b *buffers) newWait() *wait {
	if b == nil || len(b.waits) == 0 {
		return new(wait)
	}
	w := b.waits[len(b.waits)-1]
	b.waits = b.waits[:len(b.waits)-1]
	return w
}

// resize is s with n elements, in s's memory when it has room.
func resize[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// copyInto makes n a copy of d; old is what n was, whose buffers and lock
// service are reused.
func (d *database) copyInto(n *database, old database) {
	*n = *d
	n.buf = old.buf
	if n.buf == nil {
		n.buf = &buffers{}
	}
	c := &copier{buf: n.buf}
	n.tables = c.tables(d.tables)
	n.sessions = c.sessions(d.sessions)
	n.advisory = c.locks(d.advisory)
	// Now that every row and lock has its copy, the pointers move, the
	// lists of waiters into the memory of the earlier copy's (tables, locks).
	for i, t := range d.tables {
		for j, w := range t.rows {
			cw := n.tables[i].rows[j]
			cw.locker, cw.waiters = c.backend(w.locker), c.backendsInto(cw.waiters, w.waiters)
		}
	}
	for i, a := range d.advisory {
		ca := n.advisory[i]
		ca.owner, ca.waiters = c.backend(a.owner), c.backendsInto(ca.waiters, a.waiters)
	}
	n.blocked = resize(n.buf.blocked, len(d.blocked))
	n.buf.blocked = n.blocked
	for i, s := range d.blocked {
		n.blocked[i] = c.backend(s)
	}
	n.woken = c.backendList(d.woken)
	// Every connection copied, closed ones too.
	for i, s := range c.open.to {
		c.movePointers(s, n.buf.spares[i])
	}
	for _, s := range c.closed.to {
		c.movePointers(s, spare{})
	}
	c.copyMaps(n, d)
	switch {
	case d.lease == nil:
	case old.lease != nil && d.lease.CopyInto(old.lease):
		n.lease = old.lease
	default:
		n.lease = d.lease.Clone().(*lockservice.Store)
	}
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
	buf      *buffers
	src, dst []*table
	open     pairs[backend] // the connections in the list
	closed   pairs[backend] // those closed that something still names
	advisory pairs[advisoryLock]
}

// tables copies every table and row, into the copier's buffers.
func (c *copier) tables(src []*table) []*table {
	count := 0
	for _, t := range src {
		count += len(t.rows)
	}
	b := c.buf
	b.tableOf, b.tables = resize(b.tableOf, len(src)), resize(b.tables, len(src))
	b.rowOf, b.rows = resize(b.rowOf, count), resize(b.rows, count)
	dst, rows, ptrs := b.tableOf, b.rows, b.rowOf
	for i, t := range src {
		ct := &b.tables[i]
		// Capped at its length, so that an INSERT moves the table's rows
		// rather than write over the next table's.
		*ct = table{name: t.name, cols: t.cols, rows: ptrs[:len(t.rows):len(t.rows)]}
		ptrs = ptrs[len(t.rows):]
		for j, w := range t.rows {
			cw := &rows[j]
			spare := cw.waiters // the earlier copy's, for copyInto to fill
			*cw = *w
			cw.t, cw.waiters = ct, spare
			ct.rows[j] = cw
		}
		rows = rows[len(t.rows):]
		dst[i] = ct
	}
	c.src, c.dst = src, dst
	return dst[:len(dst):len(dst)]
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

// sessions copies the open connections, into the copier's buffers.
func (c *copier) sessions(src []*backend) []*backend {
	b := c.buf
	b.open, b.sessions = resize(b.open, len(src)), resize(b.sessions, len(src))
	out := b.open[:len(src):len(src)] // capped: a new connection moves the list
	b.spares = resize(b.spares, len(src))
	for i, s := range src {
		b.spares[i] = spare{b.sessions[i].rows, b.sessions[i].wait}
		b.sessions[i] = *s
		out[i] = &b.sessions[i]
	}
	c.open = pairs[backend]{src, out}
	return out
}

// locks copies the advisory locks, into the copier's buffers.
func (c *copier) locks(src []*advisoryLock) []*advisoryLock {
	b := c.buf
	b.lockOf, b.locks = resize(b.lockOf, len(src)), resize(b.locks, len(src))
	out := b.lockOf[:len(src):len(src)]
	for i, a := range src {
		spare := b.locks[i].waiters // the earlier copy's, for copyInto to fill
		b.locks[i] = *a
		b.locks[i].waiters = spare
		out[i] = &b.locks[i]
	}
	c.advisory = pairs[advisoryLock]{src, out}
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
	return c.backendsInto(nil, ss)
}

// backendsInto is the copies of ss, in out's memory when it has room.
// An empty list keeps out's memory, as nothing tells it from none.
func (c *copier) backendsInto(out, ss []*backend) []*backend {
	if ss == nil && out == nil {
		return nil
	}
	out = out[:0]
	for _, s := range ss {
		out = append(out, c.backend(s))
	}
	return out
}

// rowsInto is the copies of ws, in out's memory when it has room; an empty
// list keeps it too.
func (c *copier) rowsInto(out, ws []*row) []*row {
	if ws == nil && out == nil {
		return nil
	}
	out = out[:0]
	for _, w := range ws {
		out = append(out, c.row(w))
	}
	return out
}

// movePointers moves a copied connection's rows and wait to their copies,
// in the memory of prev, what the earlier copy's connection had, if any.
func (c *copier) movePointers(s *backend, prev spare) {
	s.rows = c.rowsInto(prev.rows, s.rows)
	if s.wait == nil {
		if prev.wait != nil && len(c.buf.waits) < 4 {
			c.buf.waits = append(c.buf.waits, prev.wait) // for a statement or a later copy
		}
		return
	}
	w := prev.wait
	if w == nil {
		w = c.buf.newWait()
	}
	got := w.got
	*w = *s.wait
	w.row, w.first, w.freed, w.got = c.row(w.row), c.row(w.first), c.row(w.freed), c.rowsInto(got, w.got)
	if w.adv != nil {
		w.adv = c.advisory.get(w.adv)
	}
	s.wait = w
}

// spare is what an earlier copy's connection kept, to fill again.
type spare struct {
	rows []*row
	wait *wait
}

// copyMaps copies the clients' queues and the diagram's spans, which are
// changed in place. The variables of each client are shared: a change
// replaces a client's map (setVars).
func (c *copier) copyMaps(n, d *database) {
	n.vars = d.vars
	n.queued = resize(n.buf.queued, len(d.queued))
	n.buf.queued = n.queued
	for i, as := range d.queued {
		n.queued[i] = slices.Clip(as) // an append moves it; the rest only pops its head
	}
	// The beliefs and the diagram's spans are shared too: a change copies
	// them first (setBelief, stopWaiting, trace), and a clipped slice moves
	// when it is appended to.
	n.beliefs = d.beliefs
	n.holds, n.waits = slices.Clip(d.holds), slices.Clip(d.waits)
}
