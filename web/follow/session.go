package follow

// A lecture as its followers see it: the latest frame and its version, and
// that frame drawn once per language for every follower to share.

import (
	"sync"
	"time"
)

// Session is one lecture as its followers see it.
type Session struct {
	id string

	// Guarded by Broker.mu.
	used time.Time // the last move, or when the session was made

	mu      sync.Mutex
	at      At
	version uint64 // 0: no move yet; followers wait
	// subs changes only with Broker.mu held as well, so the broker may
	// read it under its own lock alone.
	subs    map[*Follower]struct{}
	renders map[string]*rendered // lang -> the current version, drawn

	// Guarded by Broker.mu: the followers by address, seated and
	// standing (places.go), and the stream holding each ticket's seat.
	seated, standing *tally
	seats            map[string]*Follower
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
