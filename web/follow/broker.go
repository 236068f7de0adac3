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
	// seated and standing count the server's followers of each kind by
	// address (places.go).
	seated, standing *tally
	// pending counts, per address, the streams being admitted, and dirty
	// the addresses whose count this replica has not told Redis yet
	// (shared.go).
	pending  map[string]int // by address, and by roomPending+fid
	dirty    map[counted]struct{}
	readings uint64        // numbers each reading of the counts told to Redis
	warned   rarely        // a slow Redis is logged at most once a second
	closed   chan struct{} // closed by Close: every stream returns
	isShut   bool
	lookups  map[string]*lookup // Redis lookups under way, by follow id
	// unrelayed is, per follow id, the number (counted in moves) of its
	// latest move Redis did not take, while relayLater tries it again.
	unrelayed map[string]uint64
	moves     uint64

	// Lookups counts the questions put to Redis for a lecture's latest move.
	Lookups atomic.Int64
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
		seated:       newTally(),
		standing:     newTally(),
		pending:      map[string]int{},
		dirty:        map[counted]struct{}{},
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
	s := &Session{id: fid, used: b.Clock(), subs: map[*Follower]struct{}{}, renders: map[string]*rendered{},
		seated: newTally(), standing: newTally(), seats: map[string]*Follower{}}
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
