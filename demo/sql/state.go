package sql

import (
	"encoding/binary"
	"slices"

	"github.com/distlock/fencing-demo/demo"
)

// Key is the database's whole state for the finder: every row with its
// values, version, writer, locker, waiters, the columns its client's
// program gave and the version each client read of it; every connection
// with its transaction, timeouts, locks and the statement it waits in; the
// advisory locks; the pooler; each client's variables, beliefs, and blocked
// and queued statements; and the lock service beside it. Connections are
// named by their place in the list and rows by table and place, so two
// runs that did the same in a different order share a key. The diagram's
// spans are history, not state, and are left out. It is written with
// appends alone, by client in the order of the scenario's clients, sorted,
// and maps in the order of their keys: the finder writes a key for every
// state it tries, so the parts that seldom change (a row's values and
// name, a client's variables) are written when they change.
func (d *database) Key(b []byte, now int) []byte {
	for _, t := range d.tables {
		for _, w := range t.rows {
			b = d.appendRow(append(b, '|'), w)
			b = append(append(b, ' '), w.valuesKey...)
			b = demo.KeyInt(append(b, ' '), int64(w.rev))
			b = append(append(b, ' '), w.writer...)
			b = d.appendBackend(append(b, ' '), w.locker)
			b = append(append(b, ' '), w.pendingKey...)
			for _, x := range w.waiters {
				b = d.appendBackend(append(b, ','), x)
			}
			if w.seen != nil { // each client's version read, 0 for none
				b = append(b, " r"...)
				for _, v := range w.seen {
					b = demo.KeyInt(b, int64(v))
				}
			}
		}
	}
	for _, s := range d.sessions {
		b = append(append(b, '|'), s.name...)
		b = demo.KeyInt(append(b, ' '), int64(s.pid))
		b = append(append(b, ' '), s.client...)
		b = append(b, ' ', demo.KeyBit(s.inTx), demo.KeyBit(s.aborted))
		b = demo.KeyInt(append(b, ' '), int64(s.timeout))
		b = demo.KeyInt(append(b, ' '), int64(s.stmt))
		b = demo.KeyInt(append(b, ' '), int64(s.back-now))
		for _, w := range s.rows {
			b = d.appendRow(append(b, ' '), w)
		}
		if w := s.wait; w != nil {
			b = d.appendWait(append(b, " wait "...), w, now)
		}
	}
	for _, a := range d.advisory {
		b = demo.KeyInt(append(b, "|adv "...), a.key)
		b = d.appendBackend(append(b, ' '), a.owner)
		b = demo.KeyInt(append(b, ' '), int64(a.session))
		b = demo.KeyInt(append(b, ' '), int64(a.xact))
		for _, x := range a.waiters {
			b = d.appendBackend(append(b, ','), x)
		}
	}
	b = demo.KeyInt(append(b, '|'), int64(d.pool))
	b = append(b, ' ', demo.KeyBit(d.pooled))
	b = demo.KeyInt(append(b, ' '), int64(d.released))
	b = demo.KeyInt(append(b, ' '), int64(d.committed))
	b = d.appendPrograms(b)
	for _, s := range d.woken {
		b = d.appendBackend(append(b, ",w"...), s)
	}
	if d.lease != nil {
		b = d.lease.Key(append(b, '|'), now)
	}
	return b
}

// appendPrograms writes what the database keeps of each client's program,
// by client: its variables, its statement that waits, what it queued
// behind it, and how many advisory locks it believes it holds.
func (d *database) appendPrograms(b []byte) []byte {
	for i, v := range d.vars {
		if v.m != nil {
			b = append(append(append(b, "|v "...), d.clients[i]...), v.key...)
		}
	}
	for i, s := range d.blocked {
		if s != nil {
			b = d.appendBackend(append(append(b, "|b "...), d.clients[i]...), s)
		}
	}
	for i, q := range d.queued {
		if q != nil { // emptied is not the same as never queued
			b = append(append(b, "|q "...), d.clients[i]...)
			for _, a := range q {
				b = append(append(b, ','), a.Source...)
			}
		}
	}
	b = append(b, '|')
	for i, n := range d.beliefs {
		if n >= 0 {
			b = demo.KeyInt(append(append(b, d.clients[i]...), '='), int64(n))
			b = append(b, ' ')
		}
	}
	return b
}

// rekey writes the parts of a row's key that its maps make: its committed
// values, and its pending version with the columns its client gave. The
// maps are replaced, never changed in place, and in few of the states the
// finder tries: written for every key, they were a tenth of a search.
func (w *row) rekey() {
	var keys [16]string
	var buf [256]byte // written here, then copied once into the string
	w.valuesKey = string(appendCols(buf[:0], w.values, w.t.cols, keys[:0]))
	w.rekeyPending()
}

// rekeyPending is rekey for a change to the pending version alone (an
// UPDATE), which leaves the committed values' part as it is.
func (w *row) rekeyPending() {
	var keys [16]string
	var buf [256]byte
	b := appendCols(buf[:0], w.pending, w.t.cols, keys[:0])
	w.pendingKey = string(appendGiven(b, w.given, w.t.cols, keys[:0]))
}

// appendWait writes a statement that waits for a lock.
func (d *database) appendWait(b []byte, w *wait, now int) []byte {
	// The text by its hash, worked out when it was parsed (textKey).
	b = binary.LittleEndian.AppendUint64(b, w.st.text)
	b = append(append(b, ' '), w.client...)
	b = demo.KeyInt(append(b, ' '), int64(w.sent-now))
	b = demo.KeyInt(append(b, ' '), int64(w.from-now))
	b = append(b, ' ', demo.KeyBit(w.checked), demo.KeyBit(w.started), demo.KeyBit(w.implicit), ' ')
	b = d.appendRow(append(b, ' '), w.row)
	b = d.appendRow(append(b, ' '), w.first)
	b = d.appendRow(append(b, ' '), w.freed)
	b = append(append(b, ' '), w.firstBy...)
	if w.adv != nil {
		b = demo.KeyInt(append(b, " adv "...), w.adv.key)
	}
	for _, g := range w.got {
		b = d.appendRow(append(b, ' '), g)
	}
	return b
}

// appendRow names a row by its table and its place there, written when it
// was inserted; "-" for none.
func (d *database) appendRow(b []byte, w *row) []byte {
	if w == nil {
		return append(b, '-')
	}
	return append(b, w.ref...)
}

// appendBackend names a connection by its place in the list; -1 for none
// or one already closed.
func (d *database) appendBackend(b []byte, s *backend) []byte {
	if s == nil {
		return append(b, '-')
	}
	return demo.KeyInt(b, int64(slices.Index(d.sessions, s)))
}

// appendCols writes a row's values in the order of its table's columns,
// which saves sorting the map's keys for every state tried.
func appendCols(b []byte, m map[string]string, cols, keys []string) []byte {
	found := 0
	for _, c := range cols {
		if v, ok := m[c]; ok {
			b = append(append(append(b, c...), '='), v...)
			b = append(b, ';')
			found++
		}
	}
	if found < len(m) { // a column the table does not name: all of them
		b = appendStrings(append(b, '+'), m, keys)
	}
	return b
}

// appendGiven writes the columns a client's program gave, in the table's
// order as appendCols does.
func appendGiven(b []byte, given map[string]bool, cols, keys []string) []byte {
	found := 0
	for _, c := range cols {
		if given[c] {
			b = append(append(b, ' ', 'g'), c...)
			found++
		}
	}
	if found < len(given) {
		for _, c := range demo.SortedKeys(given, keys) {
			b = append(append(b, ' ', '+'), c...)
		}
	}
	return b
}

// appendStrings writes a map's entries in the order of their keys.
func appendStrings(b []byte, m map[string]string, keys []string) []byte {
	for _, k := range demo.SortedKeys(m, keys) {
		b = append(append(append(append(b, k...), '='), m[k]...), ';')
	}
	return b
}
