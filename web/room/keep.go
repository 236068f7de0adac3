package room

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Redis runs without persistence, so a restart of it would forget every
// room open. Each replica therefore keeps what it wrote itself (the rooms
// it saw, the learners it let join, the challenges they opened and the
// submissions it counted, with their keys) and writes it back when it
// finds the room gone, or written back by another replica since it last
// looked: the room's epoch, a random id made when the room is opened or
// written back, tells. Writing back is idempotent: a learner joins once,
// a submission counts once by its key, so however many replicas write
// back, in whatever order, each submission is counted once. A room closed
// is forgotten by every replica (the close is announced), and a room idle
// past the limit too: nothing about a learner outlives the room.

// keptRoom is what this replica wrote of one room.
type keptRoom struct {
	room     Room
	epoch    string // the room's epoch as this replica last wrote or read it
	seen     time.Time
	learners map[string][2]string // id -> nickname, address
	tries    map[string][]int     // id -> challenges opened
	subs     []Submission
	mu       sync.Mutex // held while writing back
}

// keep is this replica's copy of the rooms it wrote.
type keep struct {
	mu    sync.Mutex
	idle  time.Duration
	rooms map[string]*keptRoom
}

func newKeep(idle time.Duration) *keep { return &keep{idle: idle, rooms: map[string]*keptRoom{}} }

// of is room id's copy, made when missing and rm is given; nil otherwise.
// Copies idle past the limit are forgotten first.
func (k *keep) of(id string, rm *Room) *keptRoom {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := time.Now()
	for x, kr := range k.rooms {
		if now.Sub(kr.seen) > k.idle {
			delete(k.rooms, x)
		}
	}
	kr := k.rooms[id]
	if kr == nil && rm != nil {
		kr = &keptRoom{room: *rm, learners: map[string][2]string{}, tries: map[string][]int{}}
		k.rooms[id] = kr
	}
	if kr != nil {
		kr.seen = now
	}
	return kr
}

func (k *keep) forget(id string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.rooms, id)
}

// note records, under k.mu, a change to room id's copy, if it has one.
func (k *keep) note(id string, f func(kr *keptRoom)) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if kr := k.rooms[id]; kr != nil {
		f(kr)
	}
}

// epochOf is the epoch this replica last knew of room id.
func (k *keep) epochOf(id string) (string, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	kr := k.rooms[id]
	if kr == nil {
		return "", false
	}
	return kr.epoch, true
}

// snapshot is a copy of kr's records, to write back without holding k.mu.
func (k *keep) snapshot(kr *keptRoom) (learners map[string][2]string, tries map[string][]int, subs []Submission) {
	k.mu.Lock()
	defer k.mu.Unlock()
	learners, tries = make(map[string][2]string, len(kr.learners)), make(map[string][]int, len(kr.tries))
	for id, l := range kr.learners {
		learners[id] = l
	}
	for id, t := range kr.tries {
		tries[id] = append([]int(nil), t...)
	}
	return learners, tries, append([]Submission(nil), kr.subs...)
}

// writeBack writes this replica's copy of room id into Redis again: the
// room (unless another replica did first: then under its epoch), then
// every learner, challenge opened and submission. It returns the epoch.
func (r *Redis) writeBack(ctx context.Context, kr *keptRoom) error {
	kr.mu.Lock()
	defer kr.mu.Unlock()
	epoch, err := r.reopen(ctx, kr.room)
	if err != nil {
		return err
	}
	r.keep.note(kr.room.ID, func(kr *keptRoom) { kr.epoch = epoch })
	learners, tries, subs := r.keep.snapshot(kr)
	for id, l := range learners {
		if err := r.join(ctx, kr.room.ID, id, l[0], l[1], false); err != nil && !errors.Is(err, ErrFull) && !errors.Is(err, ErrAddr) {
			return err
		}
	}
	for id, cs := range tries {
		for _, c := range cs {
			if err := r.try(ctx, kr.room, id, c); err != nil {
				return err
			}
		}
	}
	for _, s := range subs {
		if _, _, err := r.submit(ctx, kr.room, s); err != nil {
			return err
		}
	}
	r.log.Info("room: written back into redis", "room", kr.room.ID[:8], "learners", len(learners), "submissions", len(subs))
	return nil
}
