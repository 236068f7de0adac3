package follow

// A lecture's latest move, read from Redis for a follower who arrives on a
// replica that has not seen it: one question however many arrive at once
// (lookup), and every lecture read again after the relay subscribes anew.

import (
	"context"
	"time"
)

// lookup is one question to Redis for a lecture's latest move, shared by
// every follower who asks while it is under way.
type lookup struct {
	done chan struct{}
	at   At
	v    uint64
	ok   bool
}

// Seek readies lecture fid for a follower who just arrived, from Redis: its
// latest move there, with Redis's version, never this replica's own idea of
// the run, which a round-robin balancer leaves behind whenever the
// lecturer's clicks went to another replica. The session is made before the
// question is asked, so a move relayed meanwhile is not lost. Only when
// Redis has no move or does not answer is the lecture opened from local,
// the run this replica holds, at version 1, which any move Redis hands out
// outranks. Without a relay it is Open.
func (b *Broker) Seek(ctx context.Context, fid string, local func() (At, bool)) {
	if b.relay == nil {
		if !b.Has(fid) {
			if at, ok := local(); ok {
				b.Open(fid, at)
			}
		}
		return
	}
	b.mu.Lock()
	s := b.byID[fid]
	if s == nil {
		s = b.add(fid)
	}
	b.mu.Unlock()
	if s == nil {
		return
	}
	if _, v := s.latest(); v > 0 {
		return // kept up to date by the relay since it was made
	}
	if at, v, ok := b.lookup(ctx, fid); ok {
		s.set(at, v)
	} else if at, ok := local(); ok {
		s.set(at, 1)
	}
}

// lookupWait is as long as a follower's first page or stream waits for
// Redis: longer than a click's relayWait, as one question serves every
// follower who arrives meanwhile.
const lookupWait = 2 * time.Second

// lookup asks Redis for lecture fid's latest move, once however many
// followers ask at the same moment: a room opening the link together costs
// one round trip per replica, not one per student.
func (b *Broker) lookup(ctx context.Context, fid string) (At, uint64, bool) {
	b.mu.Lock()
	if s := b.byID[fid]; s != nil {
		// A question answered a moment ago has left its answer in the
		// session: a follower who checked before that must not ask again.
		if at, v := s.latest(); v > 0 {
			b.mu.Unlock()
			return at, v, true
		}
	}
	l := b.lookups[fid]
	if l == nil {
		l = &lookup{done: make(chan struct{})}
		b.lookups[fid] = l
		b.Lookups.Add(1)
		go func() {
			rctx, cancel := context.WithTimeout(context.Background(), lookupWait)
			at, v, ok, err := b.relay.Latest(rctx, fid)
			cancel()
			if err != nil {
				b.log.Warn("follow: asking for a lecture's latest move", "err", err)
			}
			l.at, l.v, l.ok = at, v, ok && err == nil
			if l.ok {
				// Into the lecture's session (if it has one) before the
				// question is forgotten, so a follower who comes after
				// finds the answer there rather than ask again.
				b.apply(fid, at, v, false)
			}
			b.mu.Lock()
			delete(b.lookups, fid)
			b.mu.Unlock()
			close(l.done)
		}()
	}
	b.mu.Unlock()
	select {
	case <-l.done:
		return l.at, l.v, l.ok
	case <-ctx.Done():
		return At{}, 0, false
	}
}

// Subscribe adds a follower from client address addr to lecture fid. A
// lecture with no move yet is made, to wait for one. A lecture or a server
// at its bound makes room by closing a stream of the address that holds the
// resync brings every lecture followed here up to Redis's latest move: after
// the relay (re)subscribed, since moves published while it was away were
// never delivered.
func (b *Broker) resync(ctx context.Context) {
	b.mu.Lock()
	ids := make([]string, 0, len(b.byID))
	for id := range b.byID {
		ids = append(ids, id)
	}
	b.mu.Unlock()
	for _, id := range ids {
		at, v, ok, err := b.relay.Latest(ctx, id)
		if err != nil {
			return
		}
		if ok {
			b.apply(id, at, v, false)
		}
	}
}
