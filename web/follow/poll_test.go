package follow

import (
	"context"
	"errors"
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
				if err := ps.Answer(ctx, fid, a.id, a.voter, a.option); !errors.Is(err, a.err) {
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
			if err := ps.Answer(ctx, fid, p.ID, "frank", 0); !errors.Is(err, ErrClosed) {
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
