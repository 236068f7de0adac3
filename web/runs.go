package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"

	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/follow"
)

// runs keeps each visitor's live run: where it stands (the scenario, the
// switch and the frame). It is a cache, not the truth: the URL always names
// the scenario, the switch and the frame, so a run that was evicted, expired
// or lost in a restart starts again from that frame, under the same run key.
// A run keeps no model: a scripted frame is a pure function of the scenario,
// the switch and the step (demo.Replay plays it, and the answer cache,
// internal/respond, keeps it drawn), so a run is only its place, which keeps a
// visitor to a few hundred bytes.
//
// The run key is the visitor's secret: it rides in the click's form and in
// an HttpOnly cookie (act.go), never in an address or a log. It also names
// the visitor's lecture: the follow id is derived from it
// (follow.LectureID), so the follow link is the same for every scenario the
// lecturer opens and after any restart. The cache is keyed by that follow
// id, not by the key: the first follower to open a link finds the run's
// place by it (openSession), and the lecture's session in the broker is made
// only then, since most runs are never followed and a session would cost
// each of them more than the run itself.
type runs struct {
	cache  *expirable.LRU[string, *liveRun] // follow id -> run
	follow *follow.Broker
}

// liveRun guards one run; two requests for the same run take turns.
type liveRun struct {
	mu sync.Mutex
	at follow.At // where the run stands; no Sc before its first move
	// The last move that changed the place: by which action, and when.
	action  string
	movedAt time.Time
}

// doubleClick is the longest gap between the two presses of a double
// click (the common desktop default).
const doubleClick = 500 * time.Millisecond

// echoes says whether a relative move (step, back, switch) from here is the
// second press of a double click whose first press moved the run to here:
// the same action, on the run's own place, within a double click's gap.
func (rs *runs) echoes(id string, here views.Place, action string, now time.Time) bool {
	if id == "" || (action != "step" && action != "back" && action != "switch") {
		return false
	}
	lr, ok := rs.cache.Peek(follow.LectureID(id))
	if !ok {
		return false
	}
	lr.mu.Lock()
	defer lr.mu.Unlock()
	return lr.action == action && now.Sub(lr.movedAt) < doubleClick &&
		lr.at == here.Place
}

// echoesElsewhere is echoes for a double click whose first press another
// replica took (a balancer spreads one browser's posts): the relay keeps
// the lecture's latest place and its version, the milliseconds of the
// clock it moved at. A relative move from that very place within a double
// click's gap is the first press's echo, unless this replica made that
// move itself, where echoes, which knows the control, has answered.
func (rs *runs) echoesElsewhere(ctx context.Context, id string, here views.Place, action string, now time.Time) bool {
	if id == "" || !rs.follow.Relayed() || (action != "step" && action != "back" && action != "switch") {
		return false
	}
	fid := follow.LectureID(id)
	at, v, ok := rs.follow.Current(ctx, fid)
	if !ok || at != here.Place {
		return false
	}
	movedAt := time.UnixMilli(int64(v))
	if now.Sub(movedAt) >= doubleClick || now.Sub(movedAt) < -doubleClick {
		return false
	}
	if lr, ok := rs.cache.Peek(fid); ok {
		lr.mu.Lock()
		mine := lr.at == at && !lr.movedAt.Before(movedAt.Add(-time.Millisecond))
		lr.mu.Unlock()
		return !mine
	}
	return true
}

// moved is the run goTo moved: its key and its lecture's follow id, the
// ids its answer carries.
type moved struct {
	run    string
	follow string
}

// newRuns keeps at most max runs, each for idle after its last use.
func newRuns(max int, idle time.Duration, b *follow.Broker) *runs {
	return &runs{cache: expirable.NewLRU[string, *liveRun](max, nil, idle), follow: b}
}

func newRunID() string {
	var b [views.RunIDLen / 2]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// goTo brings the run with key id (a new key when id is "") to there, and
// tells the lecture's followers, if it has any. A repeated request finds the
// run already there and changes nothing, which is what makes a double click
// advance one step, not two (the click's form says which frame it was made
// on). A key this server does not know (the run was evicted, or the server
// restarted) is kept, so its lecture's followers see this move under the
// same follow id.
func (rs *runs) goTo(id string, there views.Place, action string, now time.Time) moved {
	at := there.Place
	if id == "" {
		id = newRunID()
	}
	fid := follow.LectureID(id)
	lr, ok := rs.cache.Get(fid)
	if !ok {
		lr = &liveRun{}
	}
	lr.mu.Lock()
	defer lr.mu.Unlock()
	if lr.at != at {
		lr.action, lr.movedAt = action, now
	}
	lr.at = at
	rs.cache.Add(fid, lr) // also restarts the idle clock, and may let another run go
	// Under lr.mu, so that a first follower opening the lecture at the same
	// time (openSession) sees either this move or its session gets it.
	rs.follow.Publish(fid, at)
	return moved{run: id, follow: fid}
}

// openSession readies lecture fid for its first follower here
// (follow.Broker.Seek): alone, from the run this server holds, at its frame;
// with replicas, from Redis, which this replica's run cache may trail. A
// lecture whose run nobody has (a restart, a run gone idle) is left to wait
// for the lecturer's next click.
func (rs *runs) openSession(ctx context.Context, fid string) {
	if !rs.follow.Relayed() {
		if rs.follow.Has(fid) {
			return
		}
		lr, ok := rs.cache.Peek(fid)
		if !ok {
			return
		}
		// Under lr.mu, so that a move at the same moment (goTo) either
		// comes before this and is what opens, or after and reaches the
		// session.
		lr.mu.Lock()
		defer lr.mu.Unlock()
		if lr.at.Sc != nil {
			rs.follow.Open(fid, lr.at)
		}
		return
	}
	rs.follow.Seek(ctx, fid, func() (follow.At, bool) {
		lr, ok := rs.cache.Peek(fid)
		if !ok {
			return follow.At{}, false
		}
		lr.mu.Lock()
		defer lr.mu.Unlock()
		return lr.at, lr.at.Sc != nil
	})
}

// lectureLink is the follow link of the lecture with run key id, or "" when
// the visitor has no key yet (their first click makes one).
func lectureLink(id string) string {
	if id == "" {
		return ""
	}
	return views.FollowURL(follow.LectureID(id))
}

// has reports whether the run with key id is live, without making it more
// recently used.
func (rs *runs) has(id string) bool {
	_, ok := rs.cache.Peek(follow.LectureID(id))
	return ok
}

// Len returns how many runs are live.
func (rs *runs) Len() int { return rs.cache.Len() }
