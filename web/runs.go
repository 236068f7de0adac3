package main

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"

	"github.com/distlock/fencing-demo/demo"
)

// runs keeps each visitor's live run: its own LockService and Resource, moved
// one step at a time. It is a cache, not the truth: the URL always names the
// scenario, the switch and the frame, so a run that was evicted, expired or
// lost in a restart is played again from scratch up to that frame.
type runs struct {
	cache *expirable.LRU[string, *liveRun]
}

// liveRun guards one run; two requests for the same run take turns.
type liveRun struct {
	mu  sync.Mutex
	run *demo.Run
}

// newRuns keeps at most max runs, each for idle after its last use.
func newRuns(max int, idle time.Duration) *runs {
	return &runs{cache: expirable.NewLRU[string, *liveRun](max, nil, idle)}
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

// goTo brings the run id (or a new one, when id is "" or unknown) to frame of
// sc with the switch on or off, and returns the run's id and that frame. One
// step forward plays a single move on the live model; anything else (back, a
// reset, the switch flipped, a run we no longer have) plays a fresh run. A
// repeated request finds the run already there and changes nothing, which is
// what makes a double click advance one step, not two.
func (rs *runs) goTo(id string, sc *demo.Scenario, on bool, frame int) (string, demo.Frame, error) {
	lr, ok := rs.cache.Get(id)
	if !ok {
		id, lr = newRunID(), &liveRun{}
	}
	lr.mu.Lock()
	defer lr.mu.Unlock()
	r := lr.run
	switch {
	case r != nil && r.Scenario() == sc && r.On() == on && r.Index() == frame:
		// Already there: a duplicate of the request that brought it here.
	case r != nil && r.Scenario() == sc && r.On() == on && r.Index() == frame-1:
		r.Step()
	default:
		var err error
		if r, err = demo.Replay(sc, on, frame); err != nil {
			return "", demo.Frame{}, err
		}
		lr.run = r
	}
	if err := r.Err(); err != nil {
		return "", demo.Frame{}, err
	}
	rs.cache.Add(id, lr) // also restarts the idle clock
	return id, r.Frame(), nil
}

// Len returns how many runs are live.
func (rs *runs) Len() int { return rs.cache.Len() }
