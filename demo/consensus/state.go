package consensus

import (
	"fmt"
	"maps"
	"slices"

	"github.com/distlock/fencing-demo/demo"
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
	n.entries = make(map[string]*znode, len(s.entries))
	for p, z := range s.entries {
		c := *z
		if z.owner != nil {
			c.owner = copies[z.owner]
		}
		n.entries[p] = &c
	}
	n.cversion = maps.Clone(s.cversion)
	n.watches = slices.Clone(s.watches)
	return &n
}

// Key is the service's whole state, the sessions in order and the znodes by
// path, with each znode's owner by its session's place in the list. The
// counts of notifications and reads change nothing that follows, and are
// left out.
func (s *service) Key(b []byte, now int) []byte {
	b = fmt.Appendf(b, "%d", s.zxid)
	for _, ss := range s.sessions {
		b = fmt.Appendf(b, "|%s %s %d %d %d %d %s %s %s %v ", ss.client, ss.id, ss.ttl, ss.every, ss.per, ss.lockDelay,
			ss.known, ss.mine, ss.waitOn, ss.herd)
		for _, t := range []int{ss.start, ss.beat, ss.deadline, ss.ended} {
			b = demo.RelTime(append(b, ','), t, now)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(s.entries)) {
		z := s.entries[p]
		owner := slices.Index(s.sessions, z.owner)
		b = fmt.Appendf(b, "|%s,%d,%d,%v,%d,", p, z.zxid, owner, z.ephemeral, z.lockIndex)
		b = demo.RelTime(b, max(z.delayUntil-now, -1)+now, now) // a lock-delay past is no delay
	}
	for _, p := range slices.Sorted(maps.Keys(s.cversion)) {
		b = fmt.Appendf(b, "|%s=%d", p, s.cversion[p])
	}
	return fmt.Appendf(b, "|%v", s.watches)
}
