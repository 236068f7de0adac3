package conformance

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/conformance/history"
	"github.com/distlock/fencing-demo/internal/realserver"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// TestConformanceLabTries replays every try of every lab of a Redis
// scenario in scenarios.yaml (its reference solutions and the classic
// wrong tries) on real redis-server processes, as the lab's page plays
// them: the built scenario's script, the judge's break and the judge's
// example of the good thing (history.Labs). Each script a try writes is
// sent with EVAL, the same text, and every reply and every frame's keys,
// values and expiries are compared with the page's, as TestConformanceRedis
// compares a scenario's (play). A history the suite cannot reproduce is
// not replayed, and the test says why in a line.
func TestConformanceLabTries(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real redis-server processes: not under -short")
	}
	realserver.Binary(t, "redis-server", "redis-server")
	redis.SetLogger(quiet{})
	tl := history.NewTally("redis labs")
	t.Cleanup(func() { tl.Report(t) })
	history.EachLabTry(t, testkit.Catalog(t).Scenarios, onRedis, tl, func(sc *demo.Scenario, try history.Try) {
		for _, h := range try.Histories {
			t.Run(sc.ID+"/"+try.Name+"/"+string(h.Kind), func(t *testing.T) {
				t.Parallel()
				if why := unplayableAt(t, h); why != "" {
					tl.Add("not replayed", 1)
					t.Logf("not replayed: %s: %s", h, why)
					return
				}
				t.Logf("history: %s", h)
				play(t, h, tl)
			})
		}
	})
}

// unplayableAt says why the suite cannot play h on real servers, or "".
func unplayableAt(t *testing.T, h history.History) string {
	as, err := h.History()
	if err != nil {
		t.Fatal(err)
	}
	return unplayable(as)
}
