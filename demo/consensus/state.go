package consensus

import (
	"slices"

	"github.com/distlock/fencing-demo/demo"
)

// What the finder asks of a store beyond demo.Store: a cheap copy, a copy
// into an earlier one's memory, a canonical key, and past moments keyed by
// their order.
var (
	_ demo.Cloner      = (*service)(nil)
	_ demo.CopierInto  = (*service)(nil)
	_ demo.Keyer       = (*service)(nil)
	_ demo.PastByOrder = (*service)(nil)
)

// Clone is a deep copy for the finder: znodes point at sessions, so each
// copied znode points at the copy of its session.
func (s *service) Clone() demo.Store {
	n := *s
	copies := make(map[*session]*session, len(s.sessions))
	n.sessions = make([]*session, len(s.sessions))
	for i, ss := range s.sessions {
		c := *ss
		n.sessions[i], copies[ss] = &c, &c
	}
	n.entries = make(znodes, len(s.entries))
	for i, z := range s.entries {
		c := *z
		if z.owner != nil {
			c.owner = copies[z.owner]
		}
		n.entries[i] = &c
	}
	n.cversion = slices.Clone(s.cversion)
	n.watches = slices.Clone(s.watches)
	n.spare = nil // s's own, to reuse
	return &n
}

// CopyInto is Clone into dst, an earlier copy, reusing its sessions, znodes
// and maps, for the finder's scratch run: a copy per step tried then
// allocates nothing once the copies have grown to the state's size.
func (s *service) CopyInto(dst demo.Store) bool {
	d, ok := dst.(*service)
	if !ok || d == s {
		return false
	}
	sessions, spare := d.sessions, append(d.spare, d.entries...)
	for len(sessions) < len(s.sessions) {
		sessions = append(sessions, new(session))
	}
	sessions = sessions[:len(s.sessions)]
	for i, ss := range s.sessions {
		if sessions[i] == ss {
			return false // shares a session with s: not a copy
		}
		*sessions[i] = *ss
	}
	entries := d.entries[:0]
	for _, z := range s.entries {
		var c *znode
		if n := len(spare); n > 0 {
			c, spare = spare[n-1], spare[:n-1]
		} else {
			c = new(znode)
		}
		*c = *z
		if i := s.place(z.owner); z.owner != nil {
			c.owner = nil // as Clone: an owner no longer listed is no session of the copy's
			if i >= 0 {
				c.owner = sessions[i]
			}
		}
		entries = append(entries, c)
	}
	cversion := append(d.cversion[:0], s.cversion...)
	watches := append(d.watches[:0], s.watches...)
	*d = *s
	d.sessions, d.entries, d.cversion, d.watches, d.spare = sessions, entries, cversion, watches, spare
	return true
}

// Key is the service's whole state, the sessions in order and the znodes by
// path, with each znode's owner by its session's place in the list. The
// counts of notifications and reads change nothing that follows, and are
// left out. It is written with appends alone: the finder writes a key for
// every state it tries.
func (s *service) Key(b []byte, now int) []byte {
	b = demo.KeyInt(b, s.zxid)
	for _, ss := range s.sessions {
		// The client by its place: a session's id is made from its client's
		// name, so it adds nothing to tell states apart.
		b = ss.key(append(b, '|', byte(ss.who)), now)
	}
	return s.keyRest(b, now, nil)
}

// Renames: ZooKeeper's clients differ only by name. Its lock nodes are
// numbered in queue order, sessions that end at one instant end in that
// order (Elapse), and no rule reads a session's id, which is made from its
// client's name. etcd's keys carry the id, and a Consul lock's sessions
// that end at once end in the order they were opened.
func (s *service) Renames() bool { return s.kind == ZooKeeperStore }

// ClientKeys appends each client's sessions to its part, in the order
// they were opened, without its name or their ids (an id is made from the
// client's name).
func (s *service) ClientKeys(alone [][]byte, now int) {
	for _, ss := range s.sessions {
		alone[ss.who] = ss.key(append(alone[ss.who], '|'), now)
	}
}

// KeyShared is the rest of the state renamed by n: each znode's owner by
// its client's place and the session's among the client's, each watch's
// client by its place.
func (s *service) KeyShared(b []byte, now int, n *demo.Renaming) []byte {
	return s.keyRest(demo.KeyInt(b, s.zxid), now, n)
}

// keyRest is the znodes, the child versions and the watches, renamed by n;
// nil renames nobody.
func (s *service) keyRest(b []byte, now int, n *demo.Renaming) []byte {
	// Each list by its length, then its items, each of parts that end
	// themselves: no separators to write.
	b = demo.KeyInt(b, int64(len(s.entries)))
	for _, z := range s.entries { // sorted by path
		b = demo.KeyInt(appendKey(b, z.key), z.zxid)
		b = append(s.appendOwner(b, z.owner, n), demo.KeyBit(z.ephemeral))
		if s.kind == ConsulStore { // only a Consul lock counts its holders and keeps a lock-delay
			b = demo.KeyInt(b, z.lockIndex)
			b = demo.RelTime(b, max(z.delayUntil, now), now) // a lock-delay over, now or before, is no delay
		}
	}
	b = demo.KeyInt(b, int64(len(s.cversion)))
	for _, c := range s.cversion {
		b = demo.KeyInt(appendKey(b, c.key), int64(c.n))
	}
	b = append(b, '|')
	for _, w := range s.watches {
		b = n.AppendName(append(b, ' '), w.client)
		b = append(appendKey(append(b, ','), w.key), demo.KeyBit(w.children))
	}
	return b
}

// appendOwner appends a znode's owner: its session's place in the list, or
// renamed by n, its client's place and the session's among the client's;
// -1 for none.
func (s *service) appendOwner(b []byte, owner *session, n *demo.Renaming) []byte {
	i := s.place(owner)
	if n == nil || i < 0 {
		return demo.KeyInt(b, int64(i))
	}
	return demo.KeyInt(n.AppendClient(b, owner.who), int64(owner.nth))
}

// place is ss's place in the list of sessions, or -1 for none: the place
// it was opened at (sessions are only ever added), checked.
func (s *service) place(ss *session) int {
	if ss != nil && ss.place < len(s.sessions) && s.sessions[ss.place] == ss {
		return ss.place
	}
	return slices.Index(s.sessions, ss)
}

// key appends the session without its client or id.
func (ss *session) key(b []byte, now int) []byte {
	b = appendKey(b, ss.fixed)
	b = appendKnown(b, ss.known, ss.knownKey)
	b = appendKey(appendKey(append(b, ' '), ss.mineKey), ss.waitKey)
	b = append(b, ' ', demo.KeyBit(ss.herd), ' ')
	return ss.keyTimes(b, now)
}

// fixedKey is the part of a session's key that its opening settles, its
// timeout, keep-alive period and rhythm and its lock-delay, as one number
// (settings), worked out once.
func (ss *session) fixedKey() uint64 {
	var buf [32]byte
	b := demo.KeyInt(buf[:0], int64(ss.ttl))
	b = demo.KeyInt(b, int64(ss.every))
	b = demo.KeyInt(b, int64(ss.per))
	return settings.of(string(demo.KeyInt(b, int64(ss.lockDelay))))
}

// knownWords are what a client's library can say of its session, each
// written in a key as one byte rather than its words.
var knownWords = [...]string{"CONNECTED", "keep-alive", "valid", "LOST", "Done()", "invalidated"}

// appendKnown appends what the client knows of its session: one of
// knownWords by its place (k-1, a byte no word starts with; setKnown), any
// other as it is.
func appendKnown(b []byte, known string, k byte) []byte {
	if k > 0 {
		return append(b, ' ', k-1)
	}
	return append(append(b, ' '), known...)
}

// setKnown sets what the client knows of its session, and its place among
// knownWords, looked up once here rather than for every key.
func (ss *session) setKnown(known string) {
	ss.known, ss.knownKey = known, 0
	for i, w := range knownWords {
		if known == w {
			ss.knownKey = byte(i + 1)
		}
	}
}

// keyTimes appends what the session's times can still decide. An ended
// session plays no keep-alive and is never ended again: only that it ended
// counts, not when. A live one's keep-alives fall at start+k*ttl/per, the
// same instants with start moved by a whole ttl (k moves by per), so start
// is written as the last such instant at or before now: sessions opened a
// multiple of the timeout apart, or seen that much later, are one state.
func (ss *session) keyTimes(b []byte, now int) []byte {
	if ss.ended >= 0 {
		return append(b, 'x')
	}
	start := now - (now-ss.start)%ss.ttl
	b = demo.RelTime(append(b, ','), start, now)
	b = demo.RelTime(append(b, ','), ss.beat, now)
	return demo.RelTime(append(b, ','), ss.deadline, now)
}

// PastByOrder: the service plays as of an earlier moment only a session's
// end at its deadline, and a live session's deadline is always later than
// now (Elapse ends the others), so it is later than any moment the run was
// keyed at.
func (s *service) PastByOrder() bool { return true }
