package eventlog

import (
	"maps"
	"slices"
	"strconv"

	"github.com/distlock/fencing-demo/demo"
)

// offers are the script's requests, by either handler (they run the same
// code, so each may read, write back or append what the other does), and
// the consumer applying the next event.
func offers(r *demo.Run) []demo.Offer { return demo.ScriptOffers(r, true) }

// What the finder asks of a store beyond demo.Store: a cheap copy and a
// canonical key.
var (
	_ demo.Cloner = (*account)(nil)
	_ demo.Keyer  = (*account)(nil)
)

// Clone copies the account for the finder; the log's entries are values,
// so a copy of the slice is enough.
func (a *account) Clone() demo.Store {
	c := *a
	c.log = append([]Entry(nil), a.log...)
	c.reads = maps.Clone(a.reads)
	c.seen = maps.Clone(a.seen)
	return &c
}

// Key is the account's canonical state: the balance, its version, the
// last writer, the log and how far it is applied, and what each handler
// last read (sorted by name: a map's order would differ run to
// run). Nothing here is a time, so now plays no part.
func (a *account) Key(b []byte, _ int) []byte {
	b = strconv.AppendInt(b, a.balance, 10)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(a.rev), 10)
	b = append(b, '/')
	b = append(b, a.writer...)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(a.applied), 10)
	for _, e := range a.log {
		b = append(b, ' ')
		b = append(b, e.Client...)
		b = strconv.AppendInt(b, e.Change.Delta(), 10)
	}
	for _, who := range sortedKeys(a.reads) {
		b = append(b, ';')
		b = append(b, who...)
		b = strconv.AppendInt(b, int64(a.reads[who]), 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, a.seen[who], 10)
	}
	return b
}

func sortedKeys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// keep writes the balance to the resource, the account the scenario names,
// so that the resource's value is the balance, as on every other store's
// page.
func (a *account) keep(r *demo.Run) {
	r.Resource().Write(0, strconv.FormatInt(a.balance, 10))
}
