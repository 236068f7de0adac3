package follow

// Places: who may follow. A follower's stream holds one of the lecture's
// places, one of the server's and one of its address's (across replicas,
// counted in Redis: shared.go). When a lecture or the server is full a
// newcomer may take the place of another stream:
//
//   - A stream that shows a ticket (tickets.go: what the follow page hands
//     its visitor) is seated; one that shows none, or the same ticket as a
//     newer stream, is standing. A browser that opened the follow page
//     always shows one; a script that opens streams without reading the
//     page does not. A seated newcomer takes the place of a standing
//     stream, from the address standing most, and an address may stand in
//     only a tenth of its places.
//   - With replicas, the lecture's room is its places on every replica
//     alive: a seated newcomer at a replica whose share is full takes a
//     place beyond it while the seated followers of the lecture, on every
//     replica (counted in Redis), are fewer than the room's places, since
//     a balancer spreads a room unevenly and a dead replica's followers
//     all land on the others.
//   - Otherwise places are shared max-min fairly between addresses: a
//     newcomer takes the place of a stream of its own kind from the address
//     holding the most, as long as that address would still hold at least
//     as many as the newcomer's. A class of 500 behind one school NAT keeps
//     all its places while any other address holds more, however many
//     addresses a squatter has; one holding as many as the heaviest is the
//     one refused.
//
// Max-min rather than an equal share per address (the room's places over
// the addresses present): a share shrinks with every phone that joins, so
// a hall of single students would push the NAT's class down to a handful,
// whereas max-min gives each single student the one place it asks for and
// the NAT all that is left after the heavier addresses are cut down to it.

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// Follower is one open stream. wake holds at most one signal meaning "there
// is something newer than what you sent": however many moves happen while the
// follower is busy, it wakes once and reads the latest.
type Follower struct {
	sess   *Session
	addr   string
	ticket string // the ticket it showed (its id); "" for none
	seated bool   // it holds its ticket's seat; guarded by Broker.mu
	wake   chan struct{}
	gone   chan struct{} // closed when the follower's place is given to another (Subscribe)
	// Probe, when set (TuneConn), tells whether the follower's machine has
	// taken what was sent, so a follower that stopped reading is found
	// out at the next heartbeat, not when the buffers on both sides are full.
	Probe Probe
}

// Probe reports how many bytes of a connection the other end has
// acknowledged, and how many the server has handed to its kernel; ok is false
// when the connection cannot tell.
type Probe func() (delivered, handed uint64, ok bool)

// The ways a stream is refused; both are ErrFull.
var (
	// ErrAddrFull: the stream's address holds all the places it may, here
	// or across replicas. Places come free as its streams end, and within
	// seconds when a replica holding some dies.
	ErrAddrFull = fmt.Errorf("%w: the address holds all its places", ErrFull)
	// ErrRoomFull: the lecture or the server is full, and every other
	// address holds no more than the newcomer's.
	ErrRoomFull = fmt.Errorf("%w: no place to take", ErrFull)
)

// Subscribe adds a follower from client address addr to lecture fid,
// seated if ticket (a checked ticket's id) is not "". A lecture with no
// move yet is made, to wait for one. At a bound it takes another stream's
// place as the comment above says, or is refused: ErrAddrFull or
// ErrRoomFull.
func (b *Broker) Subscribe(ctx context.Context, fid, addr, ticket string) (*Follower, error) {
	b.reserve(addr, fid, ticket != "", 1)
	defer b.reserve(addr, fid, ticket != "", -1)
	ok, room := b.holdPlace(ctx, addr, fid)
	if !ok {
		return nil, ErrAddrFull
	}
	return b.subscribe(ctx, fid, addr, ticket, room)
}

// subscribe is Subscribe on this server. room is how many seated
// followers the lecture has on the other replicas, -1 when that is not
// known.
func (b *Broker) subscribe(ctx context.Context, fid, addr, ticket string, room int) (*Follower, error) {
	b.mu.Lock()
	if b.isShut {
		b.mu.Unlock()
		return nil, ErrRoomFull
	}
	if len(b.perAddr[addr]) >= b.MaxPerAddr || ticket == "" && b.standing.of(addr) >= b.maxStanding() {
		b.mu.Unlock()
		return nil, ErrAddrFull
	}
	s := b.byID[fid]
	fresh := s == nil
	if fresh {
		if s = b.add(fid); s == nil {
			b.mu.Unlock()
			return nil, ErrRoomFull
		}
	}
	seated := ticket != ""
	var victims []*Follower
	v, ok := b.placeIn(s, addr, ticket, room)
	if !ok {
		b.refused(s, fresh)
		return nil, ErrRoomFull
	}
	if v != nil {
		victims = append(victims, v)
	}
	if b.streams-len(victims) >= b.MaxStreams {
		v := b.victim(b.standing, b.seated, addr, seated, func(f *Follower) bool { return !slices.Contains(victims, f) })
		if v == nil {
			b.refused(s, fresh)
			return nil, ErrRoomFull
		}
		victims = append(victims, v)
	}
	for _, v := range victims {
		b.detach(v)
		close(v.gone)
		b.Evicted.Add(1)
	}
	f := &Follower{sess: s, addr: addr, ticket: ticket, wake: make(chan struct{}, 1), gone: make(chan struct{})}
	b.attach(f)
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

// maxStanding bounds the streams without a ticket one address holds on
// this server: a tenth of its places. Every browser that opened the follow
// page shows a ticket, so these are a script's, or a phone's that refuses
// cookies; a script that never reads them would otherwise have each move
// written to hundreds of streams nobody reads, until the buffers between
// fill.
func (b *Broker) maxStanding() int { return max(1, b.MaxPerAddr/10) }

// roomHasRoom reports whether lecture s has room for one more seated
// follower across every replica alive (room seated on the others)
// although this replica's share of it is full: a balancer spreads a room
// unevenly, and the followers of a replica that died all land on the
// others, so a follower with a ticket may take a place beyond this
// replica's share while the room has one for it. Streams without a
// ticket do not count against the room (each replica's share bounds
// them): a seated follower would take their place wherever they are.
// Never without Redis's count. b.mu is held.
func (b *Broker) roomHasRoom(s *Session, room int) bool {
	return b.shared != nil && room >= 0 && room+s.seated.total() < b.MaxFollowers*b.shared.Replicas()
}

// placeIn finds a newcomer from addr a place in lecture s: ok with no
// victim when the lecture has room here, or, for one with a ticket, in the
// room across replicas (roomHasRoom); else the stream whose place it takes
// (its own ticket's older stream, a standing one, or max-min); ok false
// when there is none. b.mu is held.
func (b *Broker) placeIn(s *Session, addr, ticket string, room int) (victim *Follower, ok bool) {
	if len(s.subs) < b.MaxFollowers {
		return nil, true
	}
	seated := ticket != ""
	if old := s.seats[ticket]; seated && old != nil {
		return old, true // the same follower again: its old stream is the one to go
	}
	inLecture := func(f *Follower) bool { return f.sess == s }
	if v := b.standingVictim(s.standing, addr, seated, inLecture); v != nil {
		return v, true
	}
	if !seated {
		return nil, false
	}
	if b.roomHasRoom(s, room) {
		return nil, true
	}
	v := b.seatedVictim(s.seated, addr, inLecture)
	return v, v != nil
}

// victim is the stream whose place a newcomer from addr takes, in the
// tallies given (a lecture's, or the server's) among the streams that fit;
// nil when there is none: a standing one first, then for a seated
// newcomer a seated one. b.mu is held.
func (b *Broker) victim(standing, seated *tally, addr string, isSeated bool, fits func(*Follower) bool) *Follower {
	if v := b.standingVictim(standing, addr, isSeated, fits); v != nil || !isSeated {
		return v
	}
	return b.seatedVictim(seated, addr, fits)
}

// standingVictim is a standing stream that fits, of the address standing
// most: for a seated newcomer any, for a standing one only if that address
// stands in at least two more than addr (max-min). b.mu is held.
func (b *Broker) standingVictim(standing *tally, addr string, isSeated bool, fits func(*Follower) bool) *Follower {
	if top, n := standing.heaviest(""); top != "" && (isSeated || n >= standing.of(addr)+2) {
		return b.streamOf(top, false, fits)
	}
	return nil
}

// seatedVictim is a seated stream that fits, of the address seated most
// other than addr, if it holds at least two more than addr (max-min).
// b.mu is held.
func (b *Broker) seatedVictim(seated *tally, addr string, fits func(*Follower) bool) *Follower {
	if top, n := seated.heaviest(addr); top != "" && n >= seated.of(addr)+2 {
		return b.streamOf(top, true, fits)
	}
	return nil
}

// streamOf is one of addr's streams, seated or not, that fits. It looks
// only at that address's streams (at most MaxPerAddr), never at a full
// lecture's thousands. b.mu is held.
func (b *Broker) streamOf(addr string, seated bool, fits func(*Follower) bool) *Follower {
	for f := range b.perAddr[addr] {
		if f.seated == seated && fits(f) {
			return f
		}
	}
	return nil
}

// refused undoes a session made only for a follower who was then refused,
// and lets b.mu go.
func (b *Broker) refused(s *Session, fresh bool) {
	if fresh && b.byID[s.id] == s {
		delete(b.byID, s.id)
	}
	b.mu.Unlock()
}

// attach counts f in: its lecture, its address, the server; seated if its
// ticket's seat in the lecture is free or held by an older stream, which
// then stands. b.mu is held.
func (b *Broker) attach(f *Follower) {
	s := f.sess
	s.mu.Lock()
	s.subs[f] = struct{}{}
	s.mu.Unlock()
	if f.ticket != "" {
		if old := s.seats[f.ticket]; old != nil {
			b.count(old, -1)
			old.seated = false
			b.count(old, 1)
		}
		s.seats[f.ticket] = f
		f.seated = true
	}
	b.count(f, 1)
	b.streams++
	if b.perAddr[f.addr] == nil {
		b.perAddr[f.addr] = map[*Follower]struct{}{}
	}
	b.perAddr[f.addr][f] = struct{}{}
	b.dirty[counted{addr: f.addr}] = struct{}{}
	b.dirty[counted{fid: s.id}] = struct{}{}
}

// count adds d to f's kind in its lecture's tallies and the server's.
// b.mu is held.
func (b *Broker) count(f *Follower, d int) {
	if f.seated {
		f.sess.seated.add(f.addr, d)
		b.seated.add(f.addr, d)
	} else {
		f.sess.standing.add(f.addr, d)
		b.standing.add(f.addr, d)
	}
}

// detach takes f out of its lecture and the counts, once; b.mu is held.
func (b *Broker) detach(f *Follower) bool {
	s := f.sess
	s.mu.Lock()
	_, ok := s.subs[f]
	delete(s.subs, f)
	s.mu.Unlock()
	if !ok {
		return false
	}
	b.count(f, -1)
	if f.seated && s.seats[f.ticket] == f {
		delete(s.seats, f.ticket)
	}
	b.streams--
	if fs := b.perAddr[f.addr]; fs != nil {
		delete(fs, f)
		if len(fs) == 0 {
			delete(b.perAddr, f.addr)
		}
	}
	b.dirty[counted{addr: f.addr}] = struct{}{}
	b.dirty[counted{fid: s.id}] = struct{}{}
	return true
}

// Unsubscribe removes a follower whose stream has ended, for whatever reason.
// A lecture with no move and no follower left is forgotten at once: it was
// only made for its followers to wait in.
func (b *Broker) Unsubscribe(f *Follower) {
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

// reserve counts a stream of addr to lecture fid (seated or not) being
// admitted (d = 1) or done with (-1), so that what this replica tells
// Redis it holds is never less than it does, even between Redis's count
// and the stream's.
func (b *Broker) reserve(addr, fid string, seated bool, d int) {
	if b.shared == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	keys := []string{addr}
	if seated {
		keys = append(keys, roomPending+fid)
	}
	for _, k := range keys {
		if b.pending[k] += d; b.pending[k] <= 0 {
			delete(b.pending, k)
		}
	}
	b.dirty[counted{addr: addr}] = struct{}{}
	b.dirty[counted{fid: fid}] = struct{}{}
}

// placeWait is as long as a stream waits for Redis's count of its address's
// places: a student opening the follow link does not mind a second, and a
// busy Redis answers within it far more often than within a click's
// relayWait.
const placeWait = time.Second

// holdPlace takes one of addr's MaxPerAddr places across every replica, in
// the shared Redis, and says how many followers lecture fid has on the
// other replicas (-1: not known). When Redis does not answer within
// placeWait, the bound is this replica's share of it (MaxPerAddr over the
// replicas alive at the last count), so a slow Redis never lets one
// address past MaxPerAddr in all, nor shuts the room.
func (b *Broker) holdPlace(ctx context.Context, addr, fid string) (ok bool, room int) {
	if b.shared == nil {
		return true, -1
	}
	b.mu.Lock()
	held := len(b.perAddr[addr]) + b.pending[addr] // this stream's among them (reserve)
	b.readings++
	version := b.readings
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, placeWait)
	defer cancel()
	ok, room, err := b.shared.take(ctx, addr, fid, b.MaxPerAddr, held, version)
	if err == nil {
		return ok, room
	}
	if b.warned.allow(time.Now()) {
		b.log.Warn("follow: counting an address's streams in redis; each replica allows its share", "err", err)
	}
	share := b.shared.share(b.MaxPerAddr)
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.perAddr[addr])+b.pending[addr]-1 < share, -1
}
