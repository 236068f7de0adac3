package room

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/internal/realserver"
)

// A Redis restart (it keeps nothing on disk) costs a room nothing: each
// replica writes back what it wrote, the first to find the room gone and
// the others when they see it was written back, and every submission is
// counted once. A room closed on one replica is not written back by
// another after the next restart.
func TestRoomOutlivesRedisRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server: not with -short")
	}
	rd := realserver.StartRedis(t, "rooms-restart")
	limits := Limits{Rooms: 10, Learners: 10, PerAddr: 10, Idle: time.Hour}
	replica := func() *Redis {
		r, err := NewRedis("redis://"+rd.Addr()+"/0", limits, slog.Default())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Stop() })
		return r
	}
	a, b := replica(), replica()
	ctx := context.Background()
	rm := twoChallenges()
	if err := a.Open(ctx, rm); err != nil {
		t.Fatal(err)
	}
	ann, bob := NewID(), NewID()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(a.Join(ctx, rm.ID, ann, "Ann", "10.0.0.1"))
	must(b.Join(ctx, rm.ID, bob, "", "10.0.0.2"))
	must(a.Try(ctx, rm.ID, ann, 1))
	for i, sub := range []struct {
		on      *Redis
		learner string
		c       int
	}{{a, ann, 0}, {a, ann, 0}, {b, bob, 0}, {b, bob, 1}} {
		s := Submission{Key: NewID(), Learner: sub.learner, Challenge: sub.c, Kind: twoChallenges().Challenges[sub.c].Kind, Solved: sub.c == 0, Moves: 5 + i%2}
		if _, counted, err := sub.on.Submit(ctx, rm.ID, s); err != nil || !counted {
			t.Fatalf("submission %d: counted %v, %v", i, counted, err)
		}
	}
	before, err := a.Board(ctx, rm)
	must(err)

	rd.Stop()
	rd.Start()
	if _, err := b.Get(ctx, rm.ID); err != nil { // b finds it gone and writes its part back
		t.Fatal(err)
	}
	if _, err := a.Get(ctx, rm.ID); err != nil { // a sees it written back and writes its part
		t.Fatal(err)
	}
	after, err := b.Board(ctx, rm)
	must(err)
	if after.Joined != before.Joined || after.Submissions != before.Submissions ||
		after.Challenges[0].Broke != before.Challenges[0].Broke || after.Challenges[0].Tried != before.Challenges[0].Tried ||
		after.Challenges[1].Tried != before.Challenges[1].Tried || len(after.Challenges[0].Moves) != len(before.Challenges[0].Moves) {
		t.Fatalf("after a Redis restart the board is %+v, before it was %+v", after, before)
	}
	if nick, ok, _ := b.Nick(ctx, rm.ID, ann); !ok || nick != "Ann" {
		t.Fatalf("Ann after the restart: %q %v", nick, ok)
	}

	must(a.Close(ctx, rm.ID))
	// b hears of the close, or, if it missed the announcement (Redis was
	// away), finds the room's tombstone when it looks: either way it
	// forgets the room and never writes it back.
	if _, err := b.Get(ctx, rm.ID); !errors.Is(err, ErrGone) {
		t.Fatalf("a closed room: %v, want ErrGone", err)
	}
	if b.keep.of(rm.ID, nil) != nil {
		t.Fatal("replica b still keeps a room closed on a")
	}
	rd.Stop()
	rd.Start()
	if _, err := b.Get(ctx, rm.ID); !errors.Is(err, ErrGone) {
		t.Fatalf("a closed room after a Redis restart: %v, want ErrGone", err)
	}
}
