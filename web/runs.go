package web

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/follow"
)

// runs keeps each visitor's live run: its own LockService and Resource, moved
// one step at a time, and the run's follow-along session. It is a cache, not
// the truth: the URL always names the scenario, the switch and the frame, so
// a run that was evicted, expired or lost in a restart is played again from
// scratch up to that frame.
//
// A run's follow session shares the run's lifetime: made at its first move,
// released when the cache lets the run go (follow.Broker.Release says what
// becomes of a session with followers still watching).
type runs struct {
	cache  *expirable.LRU[string, *liveRun]
	idle   time.Duration
	follow *follow.Broker
}

// liveRun guards one run; two requests for the same run take turns.
type liveRun struct {
	mu  sync.Mutex
	run *demo.Run
	// Read without mu when the cache lets the run go: the cache calls back
	// under its own lock, which a request holding mu may be waiting for.
	session atomic.Pointer[follow.Session]
	used    atomic.Int64 // when the run was last moved, in Unix nanoseconds
}

// moved is where goTo left a run: its id, the frame it shows and its follow
// link ("" when it has none).
type moved struct {
	run    string
	frame  demo.Frame
	follow string
}

// newRuns keeps at most max runs, each for idle after its last use.
func newRuns(max int, idle time.Duration, b *follow.Broker) *runs {
	rs := &runs{idle: idle, follow: b}
	rs.cache = expirable.NewLRU[string, *liveRun](max, rs.evicted, idle)
	return rs
}

// evicted lets a run's session go with the run: at once when the run was
// idle for the whole idle time (the lecture is over), or, when it was pushed
// out by newer runs, as soon as nobody follows it.
func (rs *runs) evicted(id string, lr *liveRun) {
	if sess := lr.session.Load(); sess != nil {
		expired := time.Since(time.Unix(0, lr.used.Load())) >= rs.idle
		rs.follow.Release(id, sess, expired)
	}
}

// runIDLen is the length of a run id: 128 random bits in hex.
const runIDLen = 32

func newRunID() string {
	var b [runIDLen / 2]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// validRunID reports whether id has the shape of a run id.
func validRunID(id string) bool {
	if len(id) != runIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// goTo brings the run id (or a new one, when id is "" or unknown) to there,
// and tells the run's followers. One step forward plays a single move on the
// live model; anything else (back, a reset, the switch flipped, a run we no
// longer have) plays a fresh run. A repeated request finds the run already
// there and changes nothing, which is what makes a double click advance one
// step, not two.
func (rs *runs) goTo(id string, there views.Place) (moved, error) {
	sc, on, step := there.Sc, there.On, there.Step
	prev := id
	lr, ok := rs.cache.Get(id)
	if !ok {
		id, lr = newRunID(), &liveRun{}
	}
	lr.mu.Lock()
	defer lr.mu.Unlock()
	r := lr.run
	switch {
	case r != nil && r.Scenario() == sc && r.On() == on && r.Index() == step:
		// Already there: a duplicate of the request that brought it here.
	case r != nil && r.Scenario() == sc && r.On() == on && r.Index() == step-1:
		r.Step()
	default:
		var err error
		if r, err = demo.Replay(sc, on, step); err != nil {
			return moved{}, err
		}
		lr.run = r
	}
	if err := r.Err(); err != nil {
		return moved{}, err
	}
	lr.used.Store(time.Now().UnixNano())
	rs.cache.Add(id, lr) // also restarts the idle clock, and may let another run go
	sess := rs.session(prev, id, lr)
	if sess == nil {
		return moved{run: id, frame: r.Frame()}, nil
	}
	sess.Set(follow.At{Sc: sc, On: on, Step: step})
	return moved{run: id, frame: r.Frame(), follow: views.FollowURL(sess.ID())}, nil
}

// session is run id's follow session, made at its first move: the session
// of the run prev that the cache lost, when the lecturer's click came from
// one, else a new one. nil when the broker has no room. lr.mu is held.
func (rs *runs) session(prev, id string, lr *liveRun) *follow.Session {
	if sess := lr.session.Load(); sess != nil {
		return sess
	}
	var sess *follow.Session
	if prev != "" && prev != id {
		sess = rs.follow.Adopt(prev)
	}
	if sess == nil {
		sess = rs.follow.Start()
	}
	if sess == nil {
		return nil
	}
	lr.session.Store(sess)
	// The run may have been let go between Add and Store, before evicted
	// could see the session: then let the session go too. Release twice is
	// harmless.
	if _, ok := rs.cache.Peek(id); !ok {
		rs.follow.Release(id, sess, false)
	}
	return sess
}

// followLink is run id's follow link, or "" when it has none (yet).
func (rs *runs) followLink(id string) string {
	if id == "" {
		return ""
	}
	lr, ok := rs.cache.Peek(id)
	if !ok {
		return ""
	}
	if sess := lr.session.Load(); sess != nil {
		return views.FollowURL(sess.ID())
	}
	return ""
}

// has reports whether run id is live, without making it more recently used.
func (rs *runs) has(id string) bool {
	_, ok := rs.cache.Peek(id)
	return ok
}

// Len returns how many runs are live.
func (rs *runs) Len() int { return rs.cache.Len() }
