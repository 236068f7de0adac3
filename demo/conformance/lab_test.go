package conformance

import (
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/conformance/history"
	"github.com/distlock/fencing-demo/demo/redis/redistest"
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
	tl := redisSuite(t, "redis labs")
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

// TestConformanceRestartWithAppendfsync replays, on real nodes that fsync
// every write (appendfsync always, as incr-token's lab may set them), the
// history where the replica that acknowledged A's token restarts while the
// primary is down and is then promoted: the page says it comes back with
// the counter, so B's token is 2, not A's 1 again. Without the setting the
// same history hands out 1 twice; both are compared with real Redis, every
// reply and every frame's keys.
func TestConformanceRestartWithAppendfsync(t *testing.T) {
	tl := redisSuite(t, "redis appendfsync")
	for _, fsync := range []string{"no", "always"} {
		t.Run("appendfsync "+fsync, func(t *testing.T) {
			p := redistest.RestartHistory(t, fsync)
			r, err := p.Run()
			if err != nil {
				t.Fatal(err)
			}
			if got, want := r.Client("B").Token, redistest.RestartTokens[fsync]; got != want {
				t.Fatalf("with appendfsync %s the page gives B token %d, want %d", fsync, got, want)
			}
			play(t, history.History{Place: p, Kind: history.Walk, Name: "restart-" + fsync}, tl)
		})
	}
}
