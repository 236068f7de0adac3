package follow

// Places: who may follow. A follower's stream holds one of the lecture's
// places, one of the server's and one of its address's; at a bound a
// newcomer takes the place of a stream from an address holding more.

import (
	"context"
	"slices"
	"time"
)

// Follower is one open stream. wake holds at most one signal meaning "there
// is something newer than what you sent": however many moves happen while the
// follower is busy, it wakes once and reads the latest.
type Follower struct {
	sess *Session
	addr string
	wake chan struct{}
	gone chan struct{} // closed when the follower's place is given to another (Subscribe)
	// lease names the follower's place among its address's streams in the
	// shared Redis; "" without one.
	lease string
	// Probe, when set (TuneConn), tells whether the follower's machine has
	// taken what was sent, so a follower that stopped reading is found
	// out at the next heartbeat, not when the buffers on both sides are full.
	Probe Probe
}

// Probe reports how many bytes of a connection the other end has
// acknowledged, and how many the server has handed to its kernel; ok is false
// when the connection cannot tell.
type Probe func() (delivered, handed uint64, ok bool)

// most (evict), as long as that address would still hold at least as many
// as addr: so near the bound every address gets its share, and a few
// addresses cannot keep a whole room out by coming first. ErrFull when the
// address is at its own bound, or nobody holds more than addr.
func (b *Broker) Subscribe(ctx context.Context, fid, addr string) (*Follower, error) {
	lease, ok := b.holdPlace(ctx, addr)
	if !ok {
		return nil, ErrFull
	}
	f, err := b.subscribe(ctx, fid, addr)
	if err != nil {
		b.letGo(addr, lease)
		return nil, err
	}
	f.lease = lease
	return f, nil
}

// holdPlace takes one of addr's MaxPerAddr places across every replica, in
// the shared Redis; without one, or when Redis does not answer in time, the
// bound is this server's alone (ok, and no lease) rather than a refusal.
func (b *Broker) holdPlace(ctx context.Context, addr string) (lease string, ok bool) {
	if b.shared == nil {
		return "", true
	}
	ctx, cancel := context.WithTimeout(ctx, relayWait)
	defer cancel()
	lease, ok, err := b.shared.hold(ctx, addr, b.MaxPerAddr, b.leaseTTL())
	if err != nil {
		b.log.Warn("follow: counting an address's streams in redis", "err", err)
		return "", true
	}
	return lease, ok
}

// leaseTTL is how long a shared place outlives its stream's last heartbeat:
// a replica killed with its streams open gives their places back by then.
func (b *Broker) leaseTTL() time.Duration { return 3*b.Heartbeat + b.HeartWait }

// letGo gives a shared place back, without making anyone wait for Redis.
func (b *Broker) letGo(addr, lease string) {
	if lease == "" || b.shared == nil {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), relayWait)
		defer cancel()
		_ = b.shared.release(ctx, addr, lease)
	}()
}

// renewPlace keeps f's shared place for another leaseTTL, at each heartbeat.
func (b *Broker) renewPlace(f *Follower) {
	if f.lease == "" || b.shared == nil {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), relayWait)
		defer cancel()
		_ = b.shared.renew(ctx, f.addr, f.lease, b.leaseTTL())
	}()
}

// subscribe is Subscribe on this server.
func (b *Broker) subscribe(ctx context.Context, fid, addr string) (*Follower, error) {
	b.mu.Lock()
	if b.isShut || len(b.perAddr[addr]) >= b.MaxPerAddr {
		b.mu.Unlock()
		return nil, ErrFull
	}
	s := b.byID[fid]
	fresh := s == nil
	if fresh {
		if s = b.add(fid); s == nil {
			b.mu.Unlock()
			return nil, ErrFull
		}
	}
	var victims []*Follower
	if len(s.subs) >= b.MaxFollowers {
		v := b.heaviestOf(s, addr)
		if v == nil {
			b.refused(s, fresh)
			return nil, ErrFull
		}
		victims = append(victims, v)
	}
	if b.streams-len(victims) >= b.MaxStreams {
		v := b.heaviestAnywhere(addr, victims)
		if v == nil {
			b.refused(s, fresh)
			return nil, ErrFull
		}
		victims = append(victims, v)
	}
	for _, v := range victims {
		b.detach(v)
		close(v.gone)
		b.Evicted.Add(1)
	}
	f := &Follower{sess: s, addr: addr, wake: make(chan struct{}, 1), gone: make(chan struct{})}
	s.mu.Lock()
	s.subs[f] = struct{}{}
	s.byAddr[addr]++
	s.mu.Unlock()
	b.streams++
	if b.perAddr[addr] == nil {
		b.perAddr[addr] = map[*Follower]struct{}{}
	}
	b.perAddr[addr][f] = struct{}{}
	b.mu.Unlock()
	if fresh && b.relay != nil {
		// The lecture may be moving on another replica: start from its
		// latest move rather than wait for the next.
		if at, v, ok := b.lookup(ctx, fid); ok {
			s.set(at, v)
		}
	}
	return f, nil
}

// refused undoes a session made only for a follower who was then refused,
// and lets b.mu go.
func (b *Broker) refused(s *Session, fresh bool) {
	if fresh && b.byID[s.id] == s {
		delete(b.byID, s.id)
	}
	b.mu.Unlock()
}

// heaviestOf is a follower of lecture s from the address that holds the
// most of its streams, if that address holds at least two more than addr:
// after the swap it still holds as many as addr. b.mu is held, and every
// move of every lecture waits for it, so it looks over the lecture's
// addresses (a handful at a full lecture) and then at that one address's
// streams, never over the lecture's 2,000 followers.
func (b *Broker) heaviestOf(s *Session, addr string) *Follower {
	top, most := "", s.byAddr[addr]+1
	for a, n := range s.byAddr {
		if a != addr && n > most {
			top, most = a, n
		}
	}
	if top == "" {
		return nil
	}
	for f := range b.perAddr[top] {
		if f.sess == s {
			return f
		}
	}
	return nil
}

// heaviestAnywhere is heaviestOf over every lecture on this server. b.mu
// is held.
func (b *Broker) heaviestAnywhere(addr string, skip []*Follower) *Follower {
	var topAddr string
	most := len(b.perAddr[addr]) + 1
	for a, fs := range b.perAddr {
		if a != addr && len(fs) > most {
			topAddr, most = a, len(fs)
		}
	}
	for f := range b.perAddr[topAddr] {
		if !slices.Contains(skip, f) {
			return f
		}
	}
	return nil
}

// detach takes f out of its lecture and the counts, once; b.mu is held.
func (b *Broker) detach(f *Follower) bool {
	s := f.sess
	s.mu.Lock()
	_, ok := s.subs[f]
	if ok {
		delete(s.subs, f)
		if s.byAddr[f.addr]--; s.byAddr[f.addr] <= 0 {
			delete(s.byAddr, f.addr)
		}
	}
	s.mu.Unlock()
	if !ok {
		return false
	}
	b.streams--
	if fs := b.perAddr[f.addr]; fs != nil {
		delete(fs, f)
		if len(fs) == 0 {
			delete(b.perAddr, f.addr)
		}
	}
	return true
}

// Unsubscribe removes a follower whose stream has ended, for whatever reason.
// A lecture with no move and no follower left is forgotten at once: it was
// only made for its followers to wait in.
func (b *Broker) Unsubscribe(f *Follower) {
	b.letGo(f.addr, f.lease)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.detach(f)
	s := f.sess
	s.mu.Lock()
	empty := len(s.subs) == 0 && s.version == 0
	s.mu.Unlock()
	if empty && b.byID[s.id] == s {
		delete(b.byID, s.id)
	}
}
