package conformance

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/distlock/fencing-demo/internal/realserver"
)

// The redlock-restart scenario's lesson names two fixes; the scenario plays
// the delayed restart. This checks the other on a real node: with every
// write fsynced to the append-only file, a node killed at once (SIGKILL, as
// the scenario's crash) still has A's lock key when it restarts, so B's SET
// NX is refused, where the suite's nodes, which persist nothing, come back
// empty and say OK.
func TestConformanceRestartWithFsync(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real redis-server: not under -short")
	}
	realserver.Binary(t, "redis-server", "redis-server")
	redis.SetLogger(quiet{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, tc := range []struct {
		name   string
		extra  []string
		answer string // B's SET NX after the restart
	}{
		{"no persistence", nil, "OK"},
		{"appendfsync always", []string{"appendonly yes", "appendfsync always"}, "(nil)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			node := realserver.StartRedis(t, "redis3", tc.extra...)
			rdb := node.Client(t)
			if err := rdb.Do(ctx, "SET", "lock:row-42", "a-value", "NX", "PX", "60000").Err(); err != nil {
				t.Fatalf("A's SET NX PX 60000: %v", err)
			}
			node.Kill()
			node.Start()
			rdb = node.Client(t)
			val, err := rdb.Do(ctx, "SET", "lock:row-42", "b-value", "NX", "PX", "60000").Result()
			got := fmt.Sprint(val)
			switch {
			case errors.Is(err, redis.Nil):
				got = "(nil)"
			case err != nil:
				got = "(error) " + err.Error()
			}
			if got != tc.answer {
				t.Errorf("after a SIGKILL and a restart with %s, B's SET NX answered %s, want %s", tc.name, got, tc.answer)
			}
		})
	}
}
