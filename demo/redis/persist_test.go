package redis_test

import (
	"testing"

	"github.com/distlock/fencing-demo/demo"
	. "github.com/distlock/fencing-demo/demo/redis"
	"github.com/distlock/fencing-demo/demo/redis/redistest"
)

// With appendfsync always (a lab's setting), a replica that had A's token
// and restarts while the primary is down keeps the counter, and the
// promoted replica hands B the next token; without it, the replica comes
// back empty and hands A's token out again. The node's events say which.
func TestAppendfsyncKeepsKeysThroughARestart(t *testing.T) {
	for fsync, want := range redistest.RestartTokens {
		r, err := redistest.RestartHistory(t, fsync).Run()
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
