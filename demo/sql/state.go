package sql

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// Key is the database's whole state for the finder: every row with its
// values, version, writer, locker and waiters; every connection with its
// transaction, locks and the statement it waits in; the advisory locks; the
// pooler; each client's variables, reads, beliefs and queued statements;
// and the lock service beside it. Connections are named by their place in
// the list and rows by table and place, so two runs that did the same in a
// different order share a key. The diagram's spans are history, not
// state, and are left out. The database does not copy itself (its rows and
// connections point at one another): the finder replays it instead.
func (d *database) Key(b []byte, now int) []byte {
	be := func(s *backend) int { return slices.Index(d.sessions, s) }
	rw := func(w *row) string {
		if w == nil {
			return "-"
		}
		return w.t.name + "/" + strconv.Itoa(slices.Index(w.t.rows, w))
	}
	for _, t := range d.tables {
		for _, w := range t.rows {
			b = fmt.Appendf(b, "|%s %v %d %s %d %v", rw(w), sortedPairs(w.values), w.rev, w.writer, be(w.locker), sortedPairs(w.pending))
			for _, x := range w.waiters {
				b = fmt.Appendf(b, ",%d", be(x))
			}
		}
	}
	for _, s := range d.sessions {
		b = fmt.Appendf(b, "|%s %d %s %v %v %d %d", s.name, s.pid, s.client, s.inTx, s.aborted, s.timeout, s.back-now)
		for _, w := range s.rows {
			b = append(b, ' ')
			b = append(b, rw(w)...)
		}
		if w := s.wait; w != nil {
			b = fmt.Appendf(b, " wait %q %s %d %d %v %s %s %v %v %v %s", w.sql, w.client, w.sent-now, w.from-now, w.checked,
				rw(w.row), rw(w.first), w.firstBy, w.started, w.implicit, rw(w.freed))
			if w.adv != nil {
				b = fmt.Appendf(b, " adv %d", w.adv.key)
			}
			for _, g := range w.got {
				b = append(b, ' ')
				b = append(b, rw(g)...)
			}
		}
	}
	for _, a := range d.advisory {
		b = fmt.Appendf(b, "|adv %d %d %d %d", a.key, be(a.owner), a.session, a.xact)
		for _, x := range a.waiters {
			b = fmt.Appendf(b, ",%d", be(x))
		}
	}
	b = fmt.Appendf(b, "|%d %v %d", d.pool, d.pooled, d.released)
	for _, c := range slices.Sorted(maps.Keys(d.vars)) {
		b = fmt.Appendf(b, "|v %s %v", c, sortedPairs(d.vars[c]))
	}
	for _, c := range slices.Sorted(maps.Keys(d.blocked)) {
		b = fmt.Appendf(b, "|b %s %d", c, be(d.blocked[c]))
	}
	for _, c := range slices.Sorted(maps.Keys(d.queued)) {
		b = fmt.Appendf(b, "|q %s", c)
		for _, a := range d.queued[c] {
			b = append(b, ',')
			b = append(b, a.Source...)
		}
	}
	for _, c := range slices.Sorted(maps.Keys(d.reads)) {
		var rs []string
		for w, n := range d.reads[c] {
			rs = append(rs, rw(w)+"="+strconv.Itoa(n))
		}
		slices.Sort(rs)
		b = fmt.Appendf(b, "|r %s %v", c, rs)
	}
	b = fmt.Appendf(b, "|%v", sortedPairs(d.beliefs))
	for _, s := range d.woken {
		b = fmt.Appendf(b, ",w%d", be(s))
	}
	if d.lease != nil {
		b = d.lease.Key(append(b, '|'), now)
	}
	return b
}

// sortedPairs is a map's entries in the order of their keys, for a key
// that does not depend on the map's order.
func sortedPairs[V any](m map[string]V) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, fmt.Sprintf("%s=%v", k, m[k]))
	}
	return out
}
