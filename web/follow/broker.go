// Package follow is follow-along: a lecturer steps through a scenario at the
// projector, and the students in the room watch the same frame on their own
// screens, live. A run's page links to /follow/<id> from its first move; the
// session behind the link is made when its first follower arrives (most runs
// never have one), and a stream of server-sent events brings every later
// move to each follower.
//
// The follow id is not the run id. A run id is a capability to drive a run;
// a follow id only lets its holder watch, so the lecturer can put it on the
// projector.
//
// A session lives as long as its run: the run cache (web/runs.go) opens it
// for the run's first follower and releases it when the run goes. The broker keeps
// no list or timers of its own; it only finds sessions by follow id and
// counts followers.
package follow

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
	"time"

	"github.com/distlock/fencing-demo/demo"
)

// The follow-along limits. A session costs a few hundred bytes, a follower a
// goroutine and a connection; the limits keep a script from opening streams
// until the server runs out of either.
const (
	MaxFollowers = 1000 // followers of one session at once: a lecture hall
	MaxStreams   = 5000 // followers of all sessions at once, on this server

	Heartbeat = 15 * time.Second // a comment line, so proxies and browsers keep an idle stream open
	WriteWait = 10 * time.Second // a follower that takes longer than this to take one event is dropped
	Retry     = 3 * time.Second  // how long EventSource waits before it reconnects
)

// At is all a follower needs to draw the lecturer's screen: which frame it
// shows. The frame itself is computed again from these three, as the model
// is deterministic.
type At struct {
	Sc   *demo.Scenario
	On   bool
	Step int
}

var (
	// ErrGone is a follow id with no session: ended, or never made here.
	ErrGone = errors.New("follow: no such session")
	// ErrFull is a session or a server with no room for one more follower.
	ErrFull = errors.New("follow: too many followers")
)

// Render draws one move for followers in one language: the HTML that the
// event carries. The broker calls it once per language per version.
type Render func(fid string, at At, version uint64, lang string) ([]byte, error)

// Broker keeps, per session, only the latest frame and a version number that
// counts the lecturer's moves. It never queues frames: a follower that falls
// behind skips straight to the latest, so a move costs the same whether one
// student is watching or a thousand, and never waits for any of them.
type Broker struct {
	// MaxSessions bounds the sessions at once. The run cache bounds the runs,
	// and so their sessions; only a followed session whose run was pushed
	// out (see Release) can take one more, and at the bound a new run goes
	// without a follow link rather than end a lecture being watched.
	MaxSessions int
	// MaxFollowers and MaxStreams are the limits above; tests lower them.
	MaxFollowers, MaxStreams int
	// Heartbeat and WriteWait are the constants above; tests shorten them.
	Heartbeat, WriteWait time.Duration

	render Render

	mu      sync.Mutex
	byID    map[string]*Session // follow id -> session
	orphans map[string]*Session // run id -> a followed session whose run was pushed out
	streams int                 // followers connected, all sessions together
	closed  bool
}

// Session is one run as its followers see it.
type Session struct {
	id   string
	done chan struct{} // closed when the session ends

	// Guarded by Broker.mu.
	orphanOf string // the run id that lost it; "" while its run lives
	ended    bool

	mu      sync.Mutex
	at      At
	version uint64
	subs    map[*Follower]struct{}
	renders map[string]*rendered // lang -> the current version, drawn
}

// Follower is one open stream. wake holds at most one signal meaning "there
// is something newer than what you sent": however many moves happen while the
// follower is busy, it wakes once and reads the latest.
type Follower struct {
	sess *Session
	wake chan struct{}
}

// rendered is one version drawn in one language. The first follower to ask
// draws it; the others wait for that drawing and share its bytes.
type rendered struct {
	version uint64
	at      At
	once    sync.Once
	event   []byte
	err     error
}

// NewBroker returns a broker of at most maxSessions sessions that draws
// moves with render.
func NewBroker(maxSessions int, render Render) *Broker {
	return &Broker{
		MaxSessions:  max(maxSessions, 1),
		MaxFollowers: MaxFollowers,
		MaxStreams:   MaxStreams,
		Heartbeat:    Heartbeat,
		WriteWait:    WriteWait,
		render:       render,
		byID:         map[string]*Session{},
		orphans:      map[string]*Session{},
	}
}

// Start makes a session with a new follow id, or nil when the broker is
// closed or full.
func (b *Broker) Start() *Session { return b.Open(newID(), At{}, 0) }

// Open returns session fid, made now at version of frame at if there is
// none, or nil when the broker is closed or full. The run cache names the
// session after its run (a follow id it can work out without keeping
// anything) and opens it for the first follower, with the count of moves
// the run has made so far, so that a run that nobody follows costs the
// broker nothing.
func (b *Broker) Open(fid string, at At, version uint64) *Session {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s := b.byID[fid]; s != nil {
		return s
	}
	if b.closed || len(b.byID) >= b.MaxSessions {
		return nil
	}
	s := &Session{id: fid, done: make(chan struct{}), at: at, version: version,
		subs: map[*Follower]struct{}{}, renders: map[string]*rendered{}}
	b.byID[s.id] = s
	return s
}

// Release is the run cache telling the broker that run has gone with its
// session s. A session nobody follows, or whose run went idle (expired), ends
// now, its followers told the lecture is over. A followed session whose run
// was only pushed out by other runs waits for the lecturer's next click
// (Adopt), or ends when its last follower leaves: a lecture being watched is
// never ended by the runs of the students watching it.
func (b *Broker) Release(run string, s *Session, expired bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s.ended {
		return
	}
	if expired || !s.watched() {
		b.end(s)
		return
	}
	s.orphanOf = run
	b.orphans[run] = s
}

// Adopt gives the session that run lost (Release) to the run that replaces
// it, so the students' link keeps working; nil when there is none. Only the
// lecturer knows the old run id, so nobody else can take a session over.
func (b *Broker) Adopt(run string) *Session {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.orphans[run]
	if s == nil {
		return nil
	}
	delete(b.orphans, run)
	s.orphanOf = ""
	return s
}

// end drops a session and tells its followers; b.mu is held.
func (b *Broker) end(s *Session) {
	if s.ended {
		return
	}
	s.ended = true
	delete(b.byID, s.id)
	if s.orphanOf != "" && b.orphans[s.orphanOf] == s {
		delete(b.orphans, s.orphanOf)
	}
	close(s.done)
}

// Close ends every session, so every stream returns: for a server shutting
// down, whose Shutdown would otherwise wait for streams that never go idle.
func (b *Broker) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for _, s := range b.byID {
		b.end(s)
	}
}

// Len is how many sessions are live.
func (b *Broker) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.byID)
}

// Streams is how many followers are connected, all sessions together.
func (b *Broker) Streams() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.streams
}

// Current returns the frame session fid shows now and its version.
func (b *Broker) Current(fid string) (At, uint64, bool) {
	b.mu.Lock()
	s := b.byID[fid]
	b.mu.Unlock()
	if s == nil {
		return At{}, 0, false
	}
	at, version := s.latest()
	return at, version, true
}

// Subscribe adds a follower to session fid.
func (b *Broker) Subscribe(fid string) (*Follower, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.byID[fid]
	if s == nil {
		return nil, ErrGone
	}
	if b.streams >= b.MaxStreams {
		return nil, ErrFull
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.subs) >= b.MaxFollowers {
		return nil, ErrFull
	}
	f := &Follower{sess: s, wake: make(chan struct{}, 1)}
	s.subs[f] = struct{}{}
	b.streams++
	return f, nil
}

// Unsubscribe removes a follower whose stream has ended, for whatever reason.
// A session whose run is gone ends with its last follower.
func (b *Broker) Unsubscribe(f *Follower) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := f.sess
	s.mu.Lock()
	_, ok := s.subs[f]
	delete(s.subs, f)
	left := len(s.subs)
	s.mu.Unlock()
	if ok {
		b.streams--
	}
	if left == 0 && s.orphanOf != "" {
		b.end(s)
	}
}

// ID is the session's follow id.
func (s *Session) ID() string { return s.id }

// Done is closed when the session ends.
func (s *Session) Done() <-chan struct{} { return s.done }

// Set makes at the session's frame and wakes every follower, without ever
// waiting for one. The same frame again (a double click's duplicate, a
// replayed request) is not a new version.
func (s *Session) Set(at At) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.version > 0 && s.at == at {
		return
	}
	s.at = at
	s.version++
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
// server-sent event. However many followers ask at once, each version is
// drawn once per language; the drawing happens outside the session's lock,
// so a move never waits for it.
func (b *Broker) event(s *Session, lang string) (*rendered, error) {
	s.mu.Lock()
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

// newID makes a follow id: 128 random bits in hex, like a run id, so nobody
// can find a lecture by guessing, but drawn apart from it.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
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
