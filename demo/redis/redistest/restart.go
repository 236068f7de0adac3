package redistest

import (
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// RestartTokens is B's token after RestartHistory, by appendfsync: the
// replica that had A's token keeps the counter only on disk.
var RestartTokens = map[string]int64{"no": 1, "always": 2}

// RestartHistory is incr-token's lab built with only A waiting for the
// replica and the nodes' appendfsync as given ("no" or "always"), played
// to the place where the replica that acknowledged A's token has restarted
// while the primary was down, been promoted, and handed B its token.
func RestartHistory(tb testing.TB, appendfsync string) demo.Place {
	tb.Helper()
	sc := testkit.Scenario(tb, "incr-token")
	built, err := demo.Apply(sc, demo.Build{
		Programs: map[string][]string{
			"A": {"eval token lock:row-42:token", "wait 1 0", "set lock:row-42 NX PX 10000", "write $me"},
			"B": {"eval token lock:row-42:token", "set lock:row-42 NX PX 10000", "write $me"},
		},
		Settings: map[string]string{"appendfsync": appendfsync},
	})
	if err != nil {
		tb.Fatal(err)
	}
	p := demo.Place{Sc: built, On: built.Default, Step: 1}
	for _, line := range []string{"A eval token lock:row-42:token", "A wait 1 0", "primary down", "replica restart",
		"replica promote", "B eval token lock:row-42:token"} {
		a, err := demo.ParseAction(built.Family, built.Store, line)
		if err != nil {
			tb.Fatal(err)
		}
		p = p.Then(a)
	}
	return p
}
