package hall

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Room is a lecture's students: a class behind one school NAT, and
// students on their phones, each at an address of its own.
type Room struct {
	Students []*Student
	NAT      string // the class's address
	wg       sync.WaitGroup
}

// NewRoom is nat students behind address natAddr and spread students each
// at an address of its own (127.0.1.1 and up).
func NewRoom(natAddr string, nat, spread int) *Room {
	r := &Room{NAT: natAddr}
	for range nat {
		r.Students = append(r.Students, NewStudent(natAddr))
	}
	for i := range spread {
		r.Students = append(r.Students, NewStudent(SpreadAddr(i)))
	}
	return r
}

// SpreadAddr is the address of the i-th student on its own.
func SpreadAddr(i int) string { return fmt.Sprintf("127.0.%d.%d", 1+i/250, 1+i%250) }

// Follow has every student follow lecture link on base until ctx ends,
// arriving spread over arrive (a room does not connect in one instant).
func (r *Room) Follow(ctx context.Context, base, link string, arrive time.Duration) {
	for i, s := range r.Students {
		delay := time.Duration(i) * arrive / time.Duration(len(r.Students))
		r.wg.Go(func() {
			if Sleep(ctx, delay) {
				s.Follow(ctx, base, link)
			}
		})
	}
}

// Wait waits for every student to stop following (ctx ended).
func (r *Room) Wait() { r.wg.Wait() }

// Admitted is how many students' streams have opened, and the longest any
// of them waited from arriving.
func (r *Room) Admitted() (n int, longest time.Duration) {
	for _, s := range r.Students {
		if d, ok := s.Admitted(); ok {
			n++
			longest = max(longest, d)
		}
	}
	return n, longest
}

// WaitAll waits until ok holds for every student, at most within: how
// long it took, or false with how many it did not hold for.
func (r *Room) WaitAll(ctx context.Context, within time.Duration, ok func(*Student) bool) (time.Duration, int) {
	start := time.Now()
	for {
		behind := 0
		for _, s := range r.Students {
			if !ok(s) {
				behind++
			}
		}
		if behind == 0 {
			return time.Since(start), 0
		}
		if time.Since(start) > within || !Sleep(ctx, 20*time.Millisecond) { // the students' own state: nothing to wait on
			return time.Since(start), behind
		}
	}
}

// Lags says, for the lecturer's moves, how long after each landed every
// student's stream showed it (or a later move, for a student sent
// straight to the latest): the longest over students and moves, the lags
// sorted, and how many times a student never showed a move.
func (r *Room) Lags(moves []Move) (worst time.Duration, lags []time.Duration, missed int) {
	for _, s := range r.Students {
		seen := s.Seen(moves[0].Sent)
		for i := range moves {
			d, ok := caughtUp(seen, moves, i)
			if !ok {
				missed++
				continue
			}
			lags = append(lags, d)
			worst = max(worst, d)
		}
	}
	sort.Slice(lags, func(i, j int) bool { return lags[i] < lags[j] })
	return worst, lags, missed
}

// caughtUp is how long after moves[i] landed seen first showed it or a
// later move's frame, sent before it was shown.
func caughtUp(seen []Seen, moves []Move, i int) (time.Duration, bool) {
	k := sort.Search(len(seen), func(k int) bool { return !seen[k].At.Before(moves[i].Sent) })
	for ; k < len(seen); k++ {
		e := seen[k]
		for j := i; j < len(moves) && !moves[j].Sent.After(e.At); j++ {
			if moves[j].Frame == e.Frame {
				return max(e.At.Sub(moves[i].Landed), 0), true
			}
		}
	}
	return 0, false
}
