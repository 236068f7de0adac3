package realserver

import (
	"context"
	"testing"
)

// The kit itself: a node answers, refuses connections once stopped, and
// comes back empty; a replica behind a held relay lacks the primary's write.
func TestRedisStopStartAndHeldReplication(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real redis-server processes: not under -short")
	}
	ctx := context.Background()
	primary := StartRedis(t, "primary")
	replica := StartRedis(t, "replica")
	relay := NewRelay(t, primary.Addr())
	replica.ReplicaOf(t, relay.Addr())

	p, r := primary.Client(t), replica.Client(t)
	relay.Hold()
	if err := p.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if n, _ := p.Exists(ctx, "k").Result(); n != 1 {
		t.Fatalf("primary EXISTS k = %d, want 1", n)
	}
	if n, err := r.Exists(ctx, "k").Result(); err != nil || n != 0 {
		t.Fatalf("replica behind a held relay: EXISTS k = %d (%v), want 0", n, err)
	}

	primary.Stop()
	if err := p.Ping(ctx).Err(); !IsRefused(err) {
		t.Fatalf("PING a stopped node: %v, want a refused connection", err)
	}
	replica.Promote(t)
	if n, err := r.Exists(ctx, "k").Result(); err != nil || n != 0 {
		t.Fatalf("promoted replica: EXISTS k = %d (%v), want 0: the held write died with the primary", n, err)
	}

	primary.Start()
	if n, err := p.DBSize(ctx).Result(); err != nil || n != 0 {
		t.Fatalf("restarted node: DBSIZE = %d (%v), want 0 (no persistence)", n, err)
	}
}
