package web

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"

	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/follow"
)

// runs keeps each visitor's live run: where it stands (the scenario, the
// switch and the frame) and the run's follow-along session. It is a cache,
// not the truth: the URL always names the scenario, the switch and the frame,
// so a run that was evicted, expired or lost in a restart starts again from
// that frame. A run keeps no model: a scripted frame is a pure function of
// the scenario, the switch and the step (demo.Replay plays it, and the answer
// cache, answers.go, keeps it drawn), so a run is only its place, which keeps
// a visitor to a few hundred bytes.
//
// A run's follow link is there from its first move, but the session behind
// it is made only when a follower opens the link (openSession): most runs
// are never followed, and a session would cost each of them more than the
// run itself. The link's id is the run id encrypted with a key of this
// process (followID), so the cache keeps nothing for it and a follower
// cannot work back to the run id. The session shares the run's lifetime:
// the cache releases it when it lets the run go (follow.Broker.Release says
// what becomes of a session with followers still watching).
type runs struct {
	cache     *expirable.LRU[string, *liveRun]
	idle      time.Duration
	follow    *follow.Broker
	followKey cipher.Block // run id <-> follow id
}

// liveRun guards one run; two requests for the same run take turns.
type liveRun struct {
	mu sync.Mutex
	at follow.At // where the run stands; no Sc before its first move
	// moves counts the frames the run has shown, a repeat of the same one
	// not counted: the version a follow session opened later starts from.
	moves uint64
	// Read without mu when the cache lets the run go: the cache calls back
	// under its own lock, which a request holding mu may be waiting for.
	session atomic.Pointer[follow.Session]
	used    atomic.Int64 // when the run was last moved, in Unix nanoseconds
}

// moved is where goTo left a run: its id and its follow link ("" when it
// has none).
type moved struct {
	run    string
	follow string
}

// newRuns keeps at most max runs, each for idle after its last use.
func newRuns(max int, idle time.Duration, b *follow.Broker) *runs {
	var key [16]byte
	_, _ = rand.Read(key[:]) // crypto/rand.Read never fails on supported platforms
	block, err := aes.NewCipher(key[:])
	if err != nil {
		panic(err) // cannot happen: the key has a valid length
	}
	rs := &runs{idle: idle, follow: b, followKey: block}
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
// and tells the run's followers. A repeated request finds the run already
// there and changes nothing, which is what makes a double click advance one
// step, not two (the click's form says which frame it was made on).
func (rs *runs) goTo(id string, there views.Place) moved {
	at := follow.At{Sc: there.Sc, On: there.On, Step: there.Step}
	prev := id
	lr, ok := rs.cache.Get(id)
	if !ok {
		id, lr = newRunID(), &liveRun{}
	}
	lr.mu.Lock()
	defer lr.mu.Unlock()
	if lr.at != at {
		lr.at = at
		lr.moves++
	}
	lr.used.Store(time.Now().UnixNano())
	rs.cache.Add(id, lr) // also restarts the idle clock, and may let another run go
	sess := lr.session.Load()
	if sess == nil && prev != "" && prev != id {
		// The lecturer's click came from a run the cache lost: a session
		// its followers kept alive carries on with the new run.
		sess = rs.keep(id, lr, rs.follow.Adopt(prev))
	}
	if sess == nil {
		return moved{run: id, follow: rs.unopenedLink(id)}
	}
	sess.Set(at)
	return moved{run: id, follow: views.FollowURL(sess.ID())}
}

// keep makes sess (if any) run id's session. lr.mu is held.
func (rs *runs) keep(id string, lr *liveRun, sess *follow.Session) *follow.Session {
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

// openSession makes sure follow id fid has a session when its run is live:
// the first follower to open a run's link makes it, at the run's frame.
func (rs *runs) openSession(fid string) {
	if _, _, ok := rs.follow.Current(fid); ok {
		return
	}
	id, ok := rs.runOf(fid)
	if !ok {
		return
	}
	lr, ok := rs.cache.Peek(id)
	if !ok {
		return
	}
	lr.mu.Lock()
	defer lr.mu.Unlock()
	if lr.session.Load() != nil || lr.at.Sc == nil {
		return // another follower was first, or the run has not moved yet
	}
	rs.keep(id, lr, rs.follow.Open(fid, lr.at, lr.moves))
}

// followID is run id's follow id: the run id encrypted, so that it says
// nothing about the run id to whoever holds it.
func (rs *runs) followID(id string) string {
	var b [aes.BlockSize]byte
	if _, err := hex.Decode(b[:], []byte(id)); err != nil {
		return ""
	}
	rs.followKey.Encrypt(b[:], b[:])
	return hex.EncodeToString(b[:])
}

// runOf is the run id whose follow id is fid.
func (rs *runs) runOf(fid string) (string, bool) {
	var b [aes.BlockSize]byte
	if len(fid) != 2*aes.BlockSize {
		return "", false
	}
	if _, err := hex.Decode(b[:], []byte(fid)); err != nil {
		return "", false
	}
	rs.followKey.Decrypt(b[:], b[:])
	return hex.EncodeToString(b[:]), true
}

// followLink is live run id's follow link, or "" when it is not live.
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
	return rs.unopenedLink(id)
}

// unopenedLink is the follow link of run id, which has no session yet. At
// the broker's bound no session could be opened: the run then goes without
// a follow link rather than show one that fails.
func (rs *runs) unopenedLink(id string) string {
	if rs.follow.Len() >= rs.follow.MaxSessions {
		return ""
	}
	return views.FollowURL(rs.followID(id))
}

// has reports whether run id is live, without making it more recently used.
func (rs *runs) has(id string) bool {
	_, ok := rs.cache.Peek(id)
	return ok
}

// Len returns how many runs are live.
func (rs *runs) Len() int { return rs.cache.Len() }
