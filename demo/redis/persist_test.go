package redis_test

import (
	"testing"

	"github.com/distlock/fencing-demo/demo"
	. "github.com/distlock/fencing-demo/demo/redis"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// With appendfsync always (a lab's setting), a replica that had A's token
// and restarts while the primary is down keeps the counter, and the
// promoted replica hands B the next token; without it, the replica comes
// back empty and hands A's token out again. The node's events say which.
func TestAppendfsyncKeepsKeysThroughARestart(t *testing.T) {
	sc := testkit.Scenario(t, "incr-token")
	for fsync, want := range map[string]int64{"no": 1, "always": 2} {
		built, err := demo.Apply(sc, demo.Build{
			Programs: map[string][]string{
				"A": {"eval token lock:row-42:token", "wait 1 0", "set lock:row-42 NX PX 10000", "write $me"},
				"B": {"eval token lock:row-42:token", "set lock:row-42 NX PX 10000", "write $me"},
			},
			Settings: map[string]string{"appendfsync": fsync},
		})
		if err != nil {
			t.Fatal(err)
		}
		p := demo.Place{Sc: built, On: built.Default, Step: 1}
		for _, line := range []string{"A eval token lock:row-42:token", "A wait 1 0", "primary down", "replica restart", "replica promote", "B eval token lock:row-42:token"} {
			a, err := demo.ParseAction(built.Family, built.Store, line)
			if err != nil {
				t.Fatal(err)
			}
			p = p.Then(a)
		}
		r, err := p.Run()
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Client("B").Token; got != want {
			t.Errorf("appendfsync %s: B's token is %d, want %d", fsync, got, want)
		}
		down := map[string]demo.Kind{"no": NodeDown, "always": NodeDownKept}[fsync]
		seen := false
		for _, e := range r.Events() {
			if c, ok := e.(NodeChange); ok && c.Node == "replica" {
				seen = seen || c.What == down
			}
		}
		if !seen {
			t.Errorf("appendfsync %s: the replica's restart is not told as %s", fsync, down)
		}
	}
}
