package follow

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/realserver"
)

// The two stores of a lecture's poll count alike: one answer per voter, the
// latest replacing the earlier, none for another question or once revealed,
// and asking again starts from nothing. Redis's is checked against a real
// redis-server (not with -short).
func TestPolls(t *testing.T) {
	stores := map[string]func(t *testing.T) Polls{
		"memory": func(*testing.T) Polls { return NewMemPolls(10, time.Hour) },
		"redis": func(t *testing.T) Polls {
			if testing.Short() {
				t.Skip("starts redis-server: not with -short")
			}
			rd := realserver.StartRedis(t, "polls")
			sc := gcPause(t)
			r, err := NewRedis("redis://"+rd.Addr()+"/0", time.Hour, func(id string) (*demo.Scenario, bool) { return sc, id == sc.ID })
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close() })
			return r.Polls()
		},
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			ps := open(t)
			ctx := context.Background()
			sc := gcPause(t)
			fid := "0123456789abcdef0123456789abcdef"
			if _, ok, err := ps.Get(ctx, fid); ok || err != nil {
				t.Fatalf("a poll (%v) before any question", err)
			}
			at := At{Sc: sc, On: true, Step: 6}
			p, err := ps.Ask(ctx, fid, at, 3)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range []struct {
				voter  string
				option int
				id     string
				err    error
			}{
				{"alice", 0, p.ID, nil},
				{"alice", 1, p.ID, nil}, // changed her mind
				{"bob", 1, p.ID, nil},
				{"carol", 2, p.ID, nil},
				{"dave", 3, p.ID, ErrClosed}, // no such option
				{"erin", 0, p.ID + "x", ErrClosed},
			} {
				if err := ps.Answer(ctx, fid, a.id, a.voter, "192.0.2.1", a.option); !errors.Is(err, a.err) {
					t.Fatalf("%s's answer %d: %v, want %v", a.voter, a.option, err, a.err)
				}
			}
			got, ok, err := ps.Get(ctx, fid)
			if err != nil || !ok || !got.Open || got.At != at || !slices.Equal(got.Counts, []int64{0, 2, 1}) {
				t.Fatalf("poll %+v (%v), want open at frame 6 with counts [0 2 1]", got, err)
			}
			if mine, _ := ps.Mine(ctx, fid, p.ID, "alice"); mine != 1 {
				t.Fatalf("alice's answer %d, want 1", mine)
			}
			if _, err := ps.Reveal(ctx, fid, p.ID); err != nil {
				t.Fatal(err)
			}
			if err := ps.Answer(ctx, fid, p.ID, "frank", "192.0.2.1", 0); !errors.Is(err, ErrClosed) {
				t.Fatalf("an answer after the reveal: %v, want ErrClosed", err)
			}
			again, _ := ps.Ask(ctx, fid, at, 3)
			got, _, _ = ps.Get(ctx, fid)
			if again.ID == p.ID || got.Total() != 0 {
				t.Fatalf("asked again: id %q (was %q), %d answers; want a new question with none", again.ID, p.ID, got.Total())
			}
		})
	}
}

// A full question still takes a new voter's answer, in place of the latest
// answer of the address holding the most, while that address keeps at
// least as many as the newcomer's: a script that filled the question first
// cannot keep the room from answering, and the totals hold the room's
// answers. One holding as many as the heaviest is the one turned away.
func TestPollsFullSharedBetweenAddresses(t *testing.T) {
	for name, open := range map[string]func(t *testing.T) Polls{
		"memory": func(*testing.T) Polls {
			ps := NewMemPolls(10, time.Hour)
			ps.MaxVoters = 12
			return ps
		},
		"redis": func(t *testing.T) Polls {
			if testing.Short() {
				t.Skip("starts redis-server: not with -short")
			}
			rd := realserver.StartRedis(t, "polls-full")
			sc := gcPause(t)
			r, err := NewRedis("redis://"+rd.Addr()+"/0", time.Hour, func(id string) (*demo.Scenario, bool) { return sc, id == sc.ID })
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close() })
			ps := r.Polls()
			ps.MaxVoters = 12
			return ps
		},
	} {
		t.Run(name, func(t *testing.T) {
			ps := open(t)
			ctx := context.Background()
			fid := "0123456789abcdef0123456789abcdef"
			p, err := ps.Ask(ctx, fid, At{Sc: gcPause(t), On: true, Step: 6}, 3)
			if err != nil {
				t.Fatal(err)
			}
			answer := func(voter, addr string, option int) error {
				return ps.Answer(ctx, fid, p.ID, voter, addr, option)
			}
			for i := range 12 { // a script from two addresses fills the question with option 0
				if err := answer(fmt.Sprint("bot", i), fmt.Sprint("198.51.100.", i%2), 0); err != nil {
					t.Fatal(err)
				}
			}
			for i := range 6 { // the room: three behind one NAT, three on their own
				addr := fmt.Sprint("203.0.113.", i)
				if i < 3 {
					addr = "192.0.2.1"
				}
				if err := answer(fmt.Sprint("student", i), addr, 1); err != nil {
					t.Fatalf("student %d's answer at a full question: %v, want it counted", i, err)
				}
			}
			got, _, err := ps.Get(ctx, fid)
			if err != nil || !slices.Equal(got.Counts, []int64{6, 6, 0}) {
				t.Fatalf("counts %v (%v), want [6 6 0]: the script's 12 cut to 6, the room's 6 all counted", got.Counts, err)
			}
			if err := answer("bot-again", "198.51.100.0", 2); !errors.Is(err, ErrVoters) {
				t.Fatalf("one more from the script's address: %v, want ErrVoters", err)
			}
			if err := answer("student0", "192.0.2.1", 2); err != nil {
				t.Fatalf("a counted student changing an answer at a full question: %v", err)
			}
			if mine, _ := ps.Mine(ctx, fid, p.ID, "bot11"); mine != -1 {
				t.Fatalf("the script's latest answer reads %d, want dropped (-1)", mine)
			}
		})
	}
}
