// Package follow is follow-along: a lecturer steps through a scenario at the
// projector, and the students in the room watch the same frame on their own
// screens, live. The lecturer's page links to /follow/<id> from the first
// move, and a stream of server-sent events brings every move to each
// follower. The session behind the link is made only when its first follower
// arrives (Open, or Subscribe to wait): most lectures are a visitor on their
// own and never have one, and a move of a lecture nobody follows here costs
// this server nothing.
//
// A follow id belongs to a lecture, not to a run or to a server. It is
// derived from the lecturer's secret run key (LectureID), so it is the same
// for every scenario the lecturer opens, and the same after a restart or a
// deploy: the lecturer's next click, which carries the key, brings the
// lecture back under the same id. A follow id lets its holder watch, never
// drive, and the key cannot be worked out from it, so the lecturer can put it
// on the projector.
//
// A follower of a lecture that has no move yet (the server just restarted, or
// the link was opened early) waits: its stream opens and stays quiet until
// the lecturer's next move. So a restart costs followers only a reconnect.
//
// With a Relay (relay.go: Redis pub/sub), every replica behind a load
// balancer sees every move, and the latest move of each lecture is kept in
// Redis, so a follower on any replica sees the lecturer's clicks on any other.
package follow

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/distlock/fencing-demo/demo"
)

// The follow-along limits. A lecture costs a few hundred bytes, a follower a
// goroutine and a connection; the limits keep a script from opening streams
// until the server runs out of either, and keep one address (however many
// streams it opens) from taking a lecture's places.
const (
	MaxFollowers = 2000 // followers of one lecture at once: a lecture hall, with room to spare
	MaxPerAddr   = 600  // streams from one client address: 500 students behind one NAT
	MaxStreams   = 6000 // followers of all lectures at once, on this server

	Heartbeat   = 15 * time.Second // a comment line, so proxies and browsers keep an idle stream open
	HeartWait   = 5 * time.Second  // a follower whose machine has not taken the last heartbeat this long after it was sent is dropped
	WriteWait   = 10 * time.Second // a follower that has not taken an event this long after it was sent is dropped
	Retry       = 3 * time.Second  // how long EventSource waits before it reconnects
	LectureIdle = 6 * time.Hour    // a lecture nobody follows and nobody moves is forgotten after this
)

// At is all a follower needs to draw the lecturer's screen: which frame it
// shows. The frame itself is computed again from these three, as the model
// is deterministic.
type At = demo.Place

var (
	// ErrFull is a lecture, an address or a server with no room for one
	// more follower.
	ErrFull = errors.New("follow: too many followers")
)

// Render draws one move for followers in one language: the HTML that the
// event carries. The broker calls it once per language per version.
type Render func(fid string, at At, version uint64, lang string) ([]byte, error)

// Broker keeps, per lecture, only the latest frame and its version. It never
// queues frames: a follower that falls behind skips straight to the latest,
// so a move costs the same whether one student is watching or a thousand,
// and never waits for any of them.
type Broker struct {
	// MaxSessions bounds the lectures kept at once; past it, the one moved
	// least recently that nobody follows is forgotten.
	MaxSessions int
	// MaxFollowers, MaxPerAddr and MaxStreams are the limits above; tests
	// lower them.
	MaxFollowers, MaxPerAddr, MaxStreams int
	// Heartbeat, HeartWait, WriteWait and Idle are the constants above;
	// tests shorten them.
	Heartbeat, HeartWait, WriteWait, Idle time.Duration

	// Evicted counts the streams closed to give their place to a follower
	// from an address holding fewer; Stalled, those dropped for not taking
	// a heartbeat in time.
	Evicted, Stalled atomic.Int64

	// Clock is the wall clock that versions start from; tests stop it, and
	// then versions count moves from 1.
	Clock func() time.Time

	render Render
	relay  Relay  // nil: this server alone
	shared *Redis // with replicas, where the streams per address are counted (shared.go)
	log    *slog.Logger

	mu      sync.Mutex
	byID    map[string]*Session               // follow id -> lecture
	streams int                               // followers connected, all lectures together
	perAddr map[string]map[*Follower]struct{} // followers connected, by client address
	closed  chan struct{}                     // closed by Close: every stream returns
	isShut  bool
	lookups map[string]*lookup // Redis lookups under way, by follow id
	// unrelayed is, per follow id, the number (counted in moves) of its
	// latest move Redis did not take, while relayLater tries it again.
	unrelayed map[string]uint64
	moves     uint64

	// Lookups counts the questions put to Redis for a lecture's latest move.
	Lookups atomic.Int64
}

// lookup is one question to Redis for a lecture's latest move, shared by
// every follower who asks while it is under way.
type lookup struct {
	done chan struct{}
	at   At
	v    uint64
	ok   bool
}

// Session is one lecture as its followers see it.
type Session struct {
	id string

	// Guarded by Broker.mu.
	used time.Time // the last move, or when the session was made

	mu      sync.Mutex
	at      At
	version uint64 // 0: no move yet; followers wait
	// subs and byAddr change only with Broker.mu held as well, so the
	// broker may read them under its own lock alone.
	subs    map[*Follower]struct{}
	byAddr  map[string]int       // followers of this lecture, by client address
	renders map[string]*rendered // lang -> the current version, drawn
}

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

// rendered is one version drawn in one language. The first follower to ask
// draws it; the others wait for that drawing and share its bytes.
type rendered struct {
	version uint64
	at      At
	once    sync.Once
	event   []byte
	err     error
}

// NewBroker returns a broker of at most maxSessions lectures that draws moves
// with render, for this server alone.
func NewBroker(maxSessions int, render Render) *Broker {
	return &Broker{
		MaxSessions:  max(maxSessions, 1),
		MaxFollowers: MaxFollowers,
		MaxPerAddr:   MaxPerAddr,
		MaxStreams:   MaxStreams,
		Heartbeat:    Heartbeat,
		HeartWait:    HeartWait,
		WriteWait:    WriteWait,
		Idle:         LectureIdle,
		render:       render,
		log:          slog.New(slog.DiscardHandler),
		Clock:        time.Now,
		byID:         map[string]*Session{},
		perAddr:      map[string]map[*Follower]struct{}{},
		closed:       make(chan struct{}),
		lookups:      map[string]*lookup{},
		unrelayed:    map[string]uint64{},
	}
}

// LectureID is the public follow id of the lecture whose secret run key is
// key: a one-way hash, so the id can be shown to a room and the key not
// worked out from it, and the same id for the same key on every replica and
// after every restart.
func LectureID(key string) string {
	sum := sha256.Sum256([]byte("fencing-demo follow\x00" + key))
	return hex.EncodeToString(sum[:16])
}

// Publish makes at the lecture fid's frame and wakes its followers, on this
// server and, with a relay, on every other. A lecture with no session here
// (nobody follows it here) is left without one: the run cache opens it at
// the run's frame for its first follower (Open). It never waits for a
// follower; with a relay it waits for Redis at most relayWait, and a Redis
// that does not answer costs the other replicas' followers this move, never
// the click.
func (b *Broker) Publish(fid string, at At) { b.publish(fid, at, false) }

// Touch is Publish of the frame the lecture already shows, drawn again for
// every follower: for what changed beside the frame (a question asked).
func (b *Broker) Touch(fid string, at At) { b.publish(fid, at, true) }

func (b *Broker) publish(fid string, at At, touch bool) {
	if b.relay == nil && !b.kept(fid) {
		return
	}
	floor := b.nextVersion(fid)
	version := floor
	if b.relay != nil {
		ctx, cancel := context.WithTimeout(context.Background(), relayWait)
		v, err := b.relay.Publish(ctx, fid, at, floor, touch)
		cancel()
		if err != nil {
			b.log.Warn("follow: telling the other replicas", "err", err)
			b.relayLater(fid, at, floor, touch)
		} else {
			version = v
			b.mu.Lock()
			delete(b.unrelayed, fid) // any older move still being retried is stale now
			b.mu.Unlock()
		}
	}
	b.applyTouch(fid, at, version, false, touch)
}

// relayLater tells the other replicas of a move Redis did not take in time
// (it is restarting, or the connection was lost), trying again every
// relayRetry for relayRetries, unless the lecturer moves again first: so
// the followers on the other replicas catch up once Redis is back rather
// than at the lecturer's next click.
func (b *Broker) relayLater(fid string, at At, floor uint64, touch bool) {
	b.mu.Lock()
	b.moves++
	seq := b.moves
	b.unrelayed[fid] = seq
	b.mu.Unlock()
	current := func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.unrelayed[fid] == seq
	}
	go func() {
		for range relayRetries {
			select {
			case <-time.After(relayRetry):
			case <-b.closed:
				return
			}
			if !current() {
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), relayWait)
			v, err := b.relay.Publish(ctx, fid, at, floor, touch)
			cancel()
			if err == nil {
				b.mu.Lock()
				if b.unrelayed[fid] == seq {
					delete(b.unrelayed, fid)
				}
				b.mu.Unlock()
				b.applyTouch(fid, at, v, false, touch)
				return
			}
		}
	}()
}

// How a move Redis did not take is tried again: for half a minute.
const (
	relayRetry   = 200 * time.Millisecond
	relayRetries = 150
)

// Open makes lecture fid's session, at frame at, if it has none or one with
// no move yet: for the first follower of a lecture whose run is live here.
func (b *Broker) Open(fid string, at At) {
	b.apply(fid, at, b.nextVersion(fid), true)
}

// kept reports whether lecture fid has a session here, with a move or with
// followers waiting for one.
func (b *Broker) kept(fid string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.byID[fid] != nil
}

// Has reports whether lecture fid has a session here with a move.
func (b *Broker) Has(fid string) bool {
	b.mu.Lock()
	s := b.byID[fid]
	b.mu.Unlock()
	if s == nil {
		return false
	}
	_, v := s.latest()
	return v > 0
}

// relayWait is as long as a click waits for Redis.
const relayWait = 250 * time.Millisecond

// nextVersion is the least version the next move of fid may take: past the
// one this server knows, and past the clock, so that versions keep rising
// across a restart, which forgets them (a reconnecting follower says which
// version it has).
func (b *Broker) nextVersion(fid string) uint64 {
	v := uint64(max(b.Clock().UnixMilli(), 1))
	b.mu.Lock()
	s := b.byID[fid]
	b.mu.Unlock()
	if s != nil {
		if _, cur := s.latest(); cur >= v {
			v = cur + 1
		}
	}
	return v
}

// apply sets fid's frame to at if version is newer than what it shows. A move
// for a lecture this server does not keep is made a session only when local
// (its first follower opened it here); a move for a lecture nobody follows
// here is none of this server's business.
func (b *Broker) apply(fid string, at At, version uint64, local bool) {
	b.applyTouch(fid, at, version, local, false)
}

// applyTouch is apply; touch draws the frame again even when it is the one
// shown.
func (b *Broker) applyTouch(fid string, at At, version uint64, local, touch bool) {
	b.mu.Lock()
	s := b.byID[fid]
	if s == nil && local {
		s = b.add(fid)
	}
	if s != nil {
		s.used = b.Clock()
	}
	b.mu.Unlock()
	if s != nil {
		s.setTouch(at, version, touch)
	}
}

// add makes a session for fid, forgetting others to make room; nil when every
// lecture kept has followers. b.mu is held.
func (b *Broker) add(fid string) *Session {
	if b.isShut {
		return nil
	}
	if len(b.byID) >= b.MaxSessions {
		b.sweep()
	}
	if len(b.byID) >= b.MaxSessions {
		return nil
	}
	s := &Session{id: fid, used: b.Clock(), subs: map[*Follower]struct{}{}, byAddr: map[string]int{}, renders: map[string]*rendered{}}
	b.byID[fid] = s
	return s
}

// sweep forgets the lectures idle for b.Idle that nobody follows, and, if
// that frees nothing, the one moved least recently that nobody follows.
// b.mu is held.
func (b *Broker) sweep() {
	var oldest *Session
	for id, s := range b.byID {
		if s.watched() {
			continue
		}
		if b.Clock().Sub(s.used) >= b.Idle {
			delete(b.byID, id)
			continue
		}
		if oldest == nil || s.used.Before(oldest.used) {
			oldest = s
		}
	}
	if len(b.byID) >= b.MaxSessions && oldest != nil {
		delete(b.byID, oldest.id)
	}
}

// Close ends every stream (without telling followers the lecture is over:
// their EventSource reconnects, to this server when it is back or to another
// replica), for a server shutting down, whose Shutdown would otherwise wait
// for streams that never go idle.
func (b *Broker) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.isShut {
		b.isShut = true
		close(b.closed)
	}
}

// Len is how many lectures are kept.
func (b *Broker) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.byID)
}

// Streams is how many followers are connected, all lectures together.
func (b *Broker) Streams() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.streams
}

// Current returns the frame lecture fid shows now and its version; false
// when it has no move yet, here or (with a relay) on any replica.
func (b *Broker) Current(ctx context.Context, fid string) (At, uint64, bool) {
	b.mu.Lock()
	s := b.byID[fid]
	b.mu.Unlock()
	if s != nil {
		if at, v := s.latest(); v > 0 {
			return at, v, true
		}
	}
	if b.relay != nil {
		return b.lookup(ctx, fid)
	}
	return At{}, 0, false
}

// Relayed reports whether moves go through a relay (replicas).
func (b *Broker) Relayed() bool { return b.relay != nil }

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

// ID is the lecture's follow id.
func (s *Session) ID() string { return s.id }

// set makes at the frame at version and wakes every follower, without ever
// waiting for one; a version no newer than the one shown changes nothing,
// so moves arriving twice or out of turn (a relay's redelivery) are
// harmless.
func (s *Session) set(at At, version uint64) { s.setTouch(at, version, false) }

// setTouch is set; touch makes even the frame shown a new version.
func (s *Session) setTouch(at At, version uint64, touch bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if version <= s.version {
		return
	}
	if s.version > 0 && s.at == at && !touch {
		// The same frame again (a double click's duplicate, a replayed
		// request) is not a new move.
		return
	}
	s.at = at
	s.version = version
	for f := range s.subs {
		select {
		case f.wake <- struct{}{}:
		default: // already woken: it will read the latest anyway
		}
	}
}

func (s *Session) latest() (At, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.at, s.version
}

func (s *Session) watched() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.subs) > 0
}

// event returns the session's latest version drawn in lang, framed as a
// server-sent event; nil before the first move. However many followers ask
// at once, each version is drawn once per language; the drawing happens
// outside the session's lock, so a move never waits for it.
func (b *Broker) event(s *Session, lang string) (*rendered, error) {
	s.mu.Lock()
	if s.version == 0 {
		s.mu.Unlock()
		return nil, nil
	}
	r := s.renders[lang]
	if r == nil || r.version != s.version {
		r = &rendered{version: s.version, at: s.at}
		s.renders[lang] = r
	}
	s.mu.Unlock()
	r.once.Do(func() {
		var html []byte
		if html, r.err = b.render(s.id, r.at, r.version, lang); r.err == nil {
			r.event = Event(r.version, html)
		}
	})
	return r, r.err
}

// ValidID reports whether id has the shape of a follow id.
func ValidID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
