package web

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/follow"
)

// runs keeps each visitor's live run: its own LockService and Resource, moved
// one step at a time. It is a cache, not the truth: the URL always names the
// scenario, the switch and the frame, so a run that was evicted, expired or
// lost in a restart is played again from scratch up to that frame, under the
// same run key.
//
// The run key is the visitor's secret: it rides in the click's form and in
// an HttpOnly cookie (act.go), never in an address or a log. It also names
// the visitor's lecture: the follow id is derived from it
// (follow.LectureID), so the follow link is the same for every scenario the
// lecturer opens and after any restart, and every move is told to the
// lecture's followers.
type runs struct {
	cache  *expirable.LRU[string, *liveRun]
	follow *follow.Broker
}

// liveRun guards one run; two requests for the same run take turns.
type liveRun struct {
	mu  sync.Mutex
	run *demo.Run
}

// moved is where goTo left a run: its key, the frame it shows and its follow
// link.
type moved struct {
	run    string
	frame  demo.Frame
	follow string
}

// newRuns keeps at most max runs, each for idle after its last use.
func newRuns(max int, idle time.Duration, b *follow.Broker) *runs {
	return &runs{cache: expirable.NewLRU[string, *liveRun](max, nil, idle), follow: b}
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

// goTo brings the run with key id (a new key when id is "") to there, and
// tells the lecture's followers. One step forward plays a single move on the
// live model; anything else (back, a reset, the switch flipped, another
// scenario, a run we no longer have) plays a fresh run. A repeated request
// finds the run already there and changes nothing, which is what makes a
// double click advance one step, not two. A key this server does not know
// (the run was evicted, or the server restarted) is kept, so its lecture's
// followers see this move under the same follow id.
func (rs *runs) goTo(id string, there views.Place) (moved, error) {
	sc, on, step := there.Sc, there.On, there.Step
	if id == "" {
		id = newRunID()
	}
	lr, ok := rs.cache.Get(id)
	if !ok {
		lr = &liveRun{}
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
	rs.cache.Add(id, lr) // also restarts the idle clock, and may let another run go
	fid := follow.LectureID(id)
	rs.follow.Publish(fid, follow.At{Sc: sc, On: on, Step: step})
	return moved{run: id, frame: r.Frame(), follow: views.FollowURL(fid)}, nil
}

// lectureLink is the follow link of the lecture with run key id, or "" when
// the visitor has no key yet (their first click makes one).
func lectureLink(id string) string {
	if id == "" {
		return ""
	}
	return views.FollowURL(follow.LectureID(id))
}

// has reports whether run id is live, without making it more recently used.
func (rs *runs) has(id string) bool {
	_, ok := rs.cache.Peek(id)
	return ok
}

// Len returns how many runs are live.
func (rs *runs) Len() int { return rs.cache.Len() }
