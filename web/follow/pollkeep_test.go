package follow

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/realserver"
)

// A Redis restart (no persistence) while a question is open keeps its
// totals: each replica writes back the answers it took when its relay
// subscribes again, one voter counted once however many replicas kept them,
// the newer of a voter's choices winning, and a revealed question staying
// revealed. Two replicas, each with its broker's relay, against a real
// redis-server stopped and started mid-question.
func TestPollsSurviveRedisRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server: not with -short")
	}
	rd := realserver.StartRedis(t, "polls-restart")
	sc := gcPause(t)
	replica := func() *RedisPolls {
		r, err := NewRedis("redis://"+rd.Addr()+"/0", time.Hour, func(id string) (*demo.Scenario, bool) { return sc, id == sc.ID })
		if err != nil {
			t.Fatal(err)
		}
		ps := r.Polls() // before UseRelay: the first subscription already writes back
		b, _ := testBroker(t, 10)
		ctx, cancel := context.WithCancel(context.Background())
		b.UseRelay(ctx, r, slog.New(slog.NewTextHandler(io.Discard, nil)))
		t.Cleanup(func() { cancel(); r.Close() })
		return ps
	}
	a, b, reader := replica(), replica(), replica()
	ctx := context.Background()
	fid := "0123456789abcdef0123456789abcdef"
	at := At{Sc: sc, On: true, Step: 6}
	q, err := a.Ask(ctx, fid, at, 3)
	if err != nil {
		t.Fatal(err)
	}
	answer := func(ps *RedisPolls, voter string, option int) {
		t.Helper()
		if err := ps.Answer(ctx, fid, q.ID, voter, "192.0.2.1", option); err != nil {
			t.Fatalf("%s's answer %d: %v", voter, option, err)
		}
	}
	answer(a, "alice", 0)
	answer(b, "bob", 1)
	answer(a, "carol", 2)
	answer(b, "carol", 1) // carol changed her mind on the other replica: both keep her
	answer(b, "dave", 2)
	want := []int64{1, 2, 1}

	rd.Stop()
	rd.Start()
	got := waitPoll(t, reader, fid, func(p Poll) bool { return p.Open && slices.Equal(p.Counts, want) })
	if got.ID != q.ID || got.At != at {
		t.Fatalf("after the restart the poll is %+v, want question %q at frame 6", got, q.ID)
	}
	if mine, _ := reader.Mine(ctx, fid, q.ID, "carol"); mine != 1 {
		t.Fatalf("carol's answer after the restart %d, want her latest, 1", mine)
	}
	// Answers go on after the restart, and a voter who answered before it
	// is still one voter.
	answer(reader, "alice", 1)
	answer(reader, "erin", 0)
	if p, _, _ := reader.Get(ctx, fid); !slices.Equal(p.Counts, []int64{1, 3, 1}) {
		t.Fatalf("counts after answers past the restart %v, want [1 3 1]", p.Counts)
	}

	// b reveals; a never hears of it and still keeps the question open.
	if _, err := b.Reveal(ctx, fid, q.ID); err != nil {
		t.Fatal(err)
	}
	rd.Stop()
	rd.Start()
	// The reader wrote its own answers back too: alice's latest and erin's.
	waitPoll(t, reader, fid, func(p Poll) bool { return slices.Equal(p.Counts, []int64{1, 3, 1}) && !p.Open })
	if err := reader.Answer(ctx, fid, q.ID, "frank", "192.0.2.1", 0); !errors.Is(err, ErrClosed) {
		t.Fatalf("an answer to the revealed question after the restart: %v, want ErrClosed", err)
	}

	// A later question is never overwritten by an earlier one's copy.
	q2, err := b.Ask(ctx, fid, at, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.reseed(ctx, fid); err != nil {
		t.Fatal(err)
	}
	if p, _, _ := reader.Get(ctx, fid); p.ID != q2.ID || p.Total() != 0 || !p.Open {
		t.Fatalf("after an earlier question's write-back the poll is %+v, want the new question %q with no answers", p, q2.ID)
	}
}

// waitPoll reads the lecture's poll until ok says it is what the test waits
// for, or fails after 10 s with the last one read.
func waitPoll(t *testing.T, ps Polls, fid string, ok func(Poll) bool) Poll {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		p, found, err := ps.Get(context.Background(), fid)
		if err == nil && found && ok(p) {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("poll %+v (found %v, %v): not what the test waits for after 10 s", p, found, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
