package redis

import (
	"slices"

	"github.com/distlock/fencing-demo/demo"
)

// What the finder asks of a store beyond demo.Store: a cheap copy, a copy
// into an earlier one's memory, and a canonical key.
var (
	_ demo.Cloner     = (*redisNodes)(nil)
	_ demo.CopierInto = (*redisNodes)(nil)
	_ demo.Keyer      = (*redisNodes)(nil)
)

// Clone is a deep copy for the finder: each node with its keys and
// backlog, each client's attempts and cut-off nodes.
func (s *redisNodes) Clone() demo.Store {
	n := *s
	n.nodes = make([]*Node, len(s.nodes))
	for i, node := range s.nodes {
		c := *node
		c.keys, c.backlog = slices.Clone(node.keys), slices.Clone(node.backlog)
		n.nodes[i] = &c
	}
	n.clients = slices.Clone(s.clients)
	for i := range n.clients {
		n.clients[i].cut = slices.Clone(s.clients[i].cut)
	}
	return &n
}

// CopyInto is Clone into dst, an earlier copy, reusing its nodes, their
// lists of keys and its clients, for the finder's scratch run.
func (s *redisNodes) CopyInto(dst demo.Store) bool {
	d, ok := dst.(*redisNodes)
	if !ok || d == s || len(d.nodes) != len(s.nodes) || len(d.clients) != len(s.clients) {
		return false
	}
	nodes, clients := d.nodes, d.clients
	for i, node := range s.nodes {
		c := nodes[i]
		if c == node {
			return false // shares a node with s: not a copy
		}
		keys, backlog := c.keys[:0], c.backlog[:0]
		*c = *node
		c.keys, c.backlog = append(keys, node.keys...), append(backlog, node.backlog...)
	}
	if len(clients) > 0 && &clients[0] == &s.clients[0] {
		return false // shares its clients with s
	}
	for i, k := range s.clients {
		cut := clients[i].cut[:0]
		clients[i] = k
		clients[i].cut = append(cut, k.cut...)
	}
	*d = *s
	d.nodes, d.clients = nodes, clients
	return true
}

// Key is every node's role, liveness, clock and keys (with their TTLs as
// set: expiry is judged from them and the run's time), its backlog, and
// what each client keeps.
func (s *redisNodes) Key(b []byte, now int) []byte {
	for _, n := range s.nodes {
		b = append(b, '|')
		b = append(b, n.Role...)
		b = append(b, demo.KeyBit(n.Up))
		for _, v := range []int{n.Offset, n.slewLeft, n.slewRate, int(n.slewNano), n.held(now)} {
			b = append(b, ',')
			b = demo.KeyInt(b, int64(v))
		}
		b = appendEntries(append(b, 'k'), n.keys, now)
		b = appendEntries(append(b, 'b'), n.backlog, now)
	}
	for i, name := range s.sc.Clients {
		k := &s.clients[i]
		b = append(b, '|')
		b = append(b, name...)
		for _, v := range []int{k.tries, k.lease, k.unlocks} {
			b = append(b, ',')
			b = demo.KeyInt(b, int64(v))
		}
		b = append(b, demo.KeyBit(k.watchdog), demo.KeyBit(k.renewed))
		if k.unconfirmed {
			// The lease it will trust, relative to now as the keys' are.
			b = demo.KeyInt(append(b, 'u'), int64(k.until-now))
			if k.until < 0 {
				b = append(b, 'n')
			}
		}
		for _, c := range k.cut {
			b = append(b, ',')
			b = append(b, c...)
		}
	}
	return b
}

func appendEntries(b []byte, es []entry, now int) []byte {
	for _, e := range es {
		b = append(b, ';')
		b = append(b, e.key...)
		b = append(b, '=')
		b = append(b, e.value...)
		b = demo.KeyInt(append(b, ','), int64(e.ttl))
		b = demo.KeyInt(append(b, ','), int64(e.count))
		// The node's wall clock may run behind true time: a plain
		// difference, which may be below zero.
		b = demo.KeyInt(append(b, ','), int64(e.setAt-now))
		b = demo.KeyInt(append(b, ','), int64(e.wallAt-now))
		b = append(b, demo.KeyBit(e.hash))
		b = append(b, demo.KeyBit(e.gone))
	}
	return b
}
