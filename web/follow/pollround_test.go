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

// A second round remembers the first's counts, starts from none, takes one
// vote per voter again, and cannot be asked a third time, in memory and in
// Redis alike.
func TestPollSecondRound(t *testing.T) {
	stores := map[string]func(t *testing.T) Polls{
		"memory": func(*testing.T) Polls { return NewMemPolls(10, time.Hour) },
		"redis": func(t *testing.T) Polls {
			if testing.Short() {
				t.Skip("starts redis-server: not with -short")
			}
			rd := realserver.StartRedis(t, "rounds")
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
			ps, ctx := open(t), context.Background()
			at := At{Sc: gcPause(t), On: true, Step: 6}
			p, err := ps.Ask(ctx, "f", at, 3)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range []string{"a", "b", "c"} {
				if err := ps.Answer(ctx, "f", p.ID, v, "10.0.0.1", i%2); err != nil {
					t.Fatal(err)
				}
			}
			p2, err := ps.Again(ctx, "f", p.ID)
			if err != nil {
				t.Fatal(err)
			}
			if p2.Round() != 2 || !slices.Equal(p2.First(), []int64{2, 1, 0}) || p2.Total() != 0 || !p2.Open {
				t.Fatalf("second round %+v: round %d, first %v; want 2, [2 1 0], no answers, open", p2, p2.Round(), p2.First())
			}
			if err := ps.Answer(ctx, "f", p.ID, "a", "10.0.0.1", 2); !errors.Is(err, ErrClosed) {
				t.Fatalf("an answer to the first round after the second was asked: %v", err)
			}
			for _, v := range []string{"a", "a", "b"} {
				if err := ps.Answer(ctx, "f", p2.ID, v, "10.0.0.1", 2); err != nil {
					t.Fatal(err)
				}
			}
			got, _, err := ps.Get(ctx, "f")
			if err != nil || !slices.Equal(got.Counts, []int64{0, 0, 2}) || !slices.Equal(got.First(), []int64{2, 1, 0}) {
				t.Fatalf("after the second vote: %+v (%v), want counts [0 0 2] and the first [2 1 0]", got, err)
			}
			if _, err := ps.Again(ctx, "f", p2.ID); !errors.Is(err, ErrClosed) {
				t.Fatalf("a third round: %v, want ErrClosed", err)
			}
		})
	}
}
