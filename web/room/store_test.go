package room

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/internal/realserver"
)

func stores() map[string]func(t *testing.T, l Limits) Store {
	return map[string]func(t *testing.T, l Limits) Store{
		"memory": func(_ *testing.T, l Limits) Store { return NewMem(l) },
		"redis": func(t *testing.T, l Limits) Store {
			if testing.Short() {
				t.Skip("starts redis-server: not with -short")
			}
			rd := realserver.StartRedis(t, "rooms")
			r, err := NewRedis("redis://"+rd.Addr()+"/0", l, slog.Default())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Stop() })
			return r
		},
	}
}

func twoChallenges() Room {
	return Room{ID: NewID(), Secret: NewID(), Run: NewID(), Challenges: []Challenge{
		{Kind: Break, Scenario: "gc-pause", Step: 1, Moves: 8, Par: 5},
		{Kind: Fix, Scenario: "gc-pause", Step: 1},
	}}
}

// Each submission is counted once, however often it is sent and from
// however many goroutines at once, and the board's counts are the
// submissions'.
func TestRoomCountsEachSubmissionOnce(t *testing.T) {
	for name, open := range stores() {
		t.Run(name, func(t *testing.T) {
			s := open(t, Limits{Rooms: 10, Learners: 10, PerAddr: 3, Idle: time.Hour})
			ctx := context.Background()
			rm := twoChallenges()
			if err := s.Open(ctx, rm); err != nil {
				t.Fatal(err)
			}
			for i, l := range []string{NewID(), NewID(), NewID()} {
				if err := s.Join(ctx, rm.ID, l, "", "10.0.0.1"); err != nil {
					t.Fatal(err)
				}
				if err := s.Join(ctx, rm.ID, l, "again", "10.0.0.1"); err != nil { // a rejoin is no new learner
					t.Fatal(err)
				}
				sub := Submission{Learner: l, Key: NewID(), Challenge: 0, Kind: Break, Solved: i > 0, Moves: 5 + i, AtPar: i == 1}
				var wg sync.WaitGroup
				var counted sync.Map
				for range 8 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						got, ok, err := s.Submit(ctx, rm.ID, sub)
						if err != nil {
							t.Error(err)
						}
						if ok {
							counted.Store(got.ID, true)
						}
					}()
				}
				wg.Wait()
				n := 0
				counted.Range(func(any, any) bool { n++; return true })
				if n != 1 {
					t.Fatalf("one submission sent 8 times was counted %d times", n)
				}
			}
			if err := s.Join(ctx, rm.ID, NewID(), "", "10.0.0.1"); !errors.Is(err, ErrAddr) {
				t.Fatalf("a fourth learner from one address: %v, want ErrAddr", err)
			}
			b, err := s.Board(ctx, rm)
			if err != nil {
				t.Fatal(err)
			}
			want := Tally{Tried: 3, Broke: 2, AtPar: 1, Submissions: 3, Moves: map[int]int{6: 1, 7: 1}}
			got := b.Challenges[0]
			if b.Joined != 3 || b.Submissions != 3 || got.Tried != want.Tried || got.Broke != want.Broke ||
				got.AtPar != want.AtPar || got.Submissions != want.Submissions || len(got.Moves) != 2 || got.Moves[6] != 1 || got.Moves[7] != 1 {
				t.Fatalf("board %+v, challenge 0 %+v; want 3 joined, 3 submissions, %+v", b, got, want)
			}
			if b.Challenges[1].Tried != 0 || len(b.Shown) != 3 || b.Shown[2].Solved {
				t.Fatalf("board %+v: want nothing on the fix and the 3 tries offered to the projector, the first not solved", b)
			}
			sub, err := s.Submission(ctx, rm.ID, b.Shown[0].ID)
			if err != nil || sub.Moves != 7 {
				t.Fatalf("the latest break: %+v, %v", sub, err)
			}
			if err := s.Close(ctx, rm.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Get(ctx, rm.ID); !errors.Is(err, ErrGone) {
				t.Fatalf("a closed room: %v, want ErrGone", err)
			}
			if _, _, err := s.Submit(ctx, rm.ID, Submission{Learner: NewID(), Key: NewID()}); !errors.Is(err, ErrGone) {
				t.Fatalf("a submission to a closed room: %v, want ErrGone", err)
			}
		})
	}
}

// The limits on rooms and learners hold.
func TestRoomLimits(t *testing.T) {
	for name, open := range stores() {
		t.Run(name, func(t *testing.T) {
			s := open(t, Limits{Rooms: 1, Learners: 2, PerAddr: 5, Idle: time.Hour})
			ctx := context.Background()
			rm := twoChallenges()
			if err := s.Open(ctx, rm); err != nil {
				t.Fatal(err)
			}
			if err := s.Open(ctx, twoChallenges()); !errors.Is(err, ErrRooms) {
				t.Fatalf("a second room past a limit of one: %v", err)
			}
			for i := range 3 {
				err := s.Join(ctx, rm.ID, NewID(), "", "10.0.0."+string(rune('1'+i)))
				if i < 2 && err != nil || i == 2 && !errors.Is(err, ErrFull) {
					t.Fatalf("learner %d of a room of 2: %v", i+1, err)
				}
			}
		})
	}
}

// A learner's token is good in its own room only.
func TestTokenIsTheRoomsOwn(t *testing.T) {
	a, b := twoChallenges(), twoChallenges()
	l := NewID()
	if got, ok := a.LearnerOf(a.Token(l)); !ok || got != l {
		t.Fatalf("a's own token: %q %v", got, ok)
	}
	if _, ok := b.LearnerOf(a.Token(l)); ok {
		t.Fatal("room b took room a's learner token")
	}
	if _, ok := a.LearnerOf(l + ".00"); ok {
		t.Fatal("a forged token was taken")
	}
}

// A room nobody uses is forgotten after the idle limit, learners and all;
// one in use is kept.
func TestRoomIdle(t *testing.T) {
	m := NewMem(Limits{Rooms: 10, Learners: 10, PerAddr: 10, Idle: time.Hour})
	now := time.Unix(0, 0)
	m.clock = func() time.Time { return now }
	ctx := context.Background()
	used, idle := twoChallenges(), twoChallenges()
	for _, rm := range []Room{used, idle} {
		if err := m.Open(ctx, rm); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		now = now.Add(40 * time.Minute)
		if _, err := m.Get(ctx, used.ID); err != nil {
			t.Fatalf("a room in use was forgotten: %v", err)
		}
	}
	if _, err := m.Get(ctx, idle.ID); !errors.Is(err, ErrGone) {
		t.Fatalf("a room idle for 2 h past a limit of 1 h: %v", err)
	}
}
