package realserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis is one redis-server on a loopback port. Its config keeps nothing on
// disk, so a node that is stopped and started again comes back empty, which
// is what the demo's model says a node without persistence does.
type Redis struct {
	*Process
	Name string
	Port int
}

// StartRedis starts redis-server (Debian's redis-server package) with a
// minimal config written into a temporary folder. extra lines are appended
// to the config. It is stopped when the test ends.
func StartRedis(tb testing.TB, name string, extra ...string) *Redis {
	tb.Helper()
	bin := Binary(tb, "redis-server", "redis-server")
	dir := tb.TempDir()
	port := FreePort(tb)
	if port == 6379 {
		tb.Fatalf("the kernel handed out 6379, Redis's own port: refusing to use it")
	}
	conf := []string{
		"bind 127.0.0.1",
		fmt.Sprintf("port %d", port),
		"protected-mode no", // loopback only anyway; no surprise refusals
		"daemonize no",
		`save ""`, // no RDB snapshots
		"appendonly no",
		"dir " + dir,
		"logfile " + filepath.Join(dir, "redis.log"),
		// Redis 7 waits up to 10 s at shutdown for lagging replicas; a
		// test that stops a primary wants it gone at once.
		"shutdown-timeout 0",
		// A replica's first sync without a disk file and without delay.
		"repl-diskless-sync yes",
		"repl-diskless-sync-delay 0",
	}
	conf = append(conf, extra...)
	path := filepath.Join(dir, "redis.conf")
	if err := os.WriteFile(path, []byte(strings.Join(conf, "\n")+"\n"), 0o600); err != nil {
		tb.Fatal(err)
	}
	r := &Redis{Name: name, Port: port}
	r.Process = Prepare(tb, Spec{
		Name: name,
		Path: bin,
		Args: []string{path},
		Dir:  dir,
		Log:  filepath.Join(dir, "redis.log"),
		// A fresh client for every try: go-redis's pool, after a run of
		// refused dials, stops dialling for a second, which would hold a
		// restarted node back that long.
		Ready: func(ctx context.Context) error {
			ping := redis.NewClient(&redis.Options{Addr: Addr(port), MaxRetries: -1, DialTimeout: time.Second, PoolSize: 1,
				DialerRetries: 1, DialerRetryTimeout: time.Millisecond})
			defer ping.Close()
			return r.isOwn(ctx, ping)
		},
	})
	r.Start()
	return r
}

// isOwn reports nil when the server answering on r's port is r's own
// process: a port another test's server holds must fail the start, not lend
// that server's keys to this test.
func (r *Redis) isOwn(ctx context.Context, c *redis.Client) error {
	info, err := c.Info(ctx, "server").Result()
	if err != nil {
		return err
	}
	want := fmt.Sprintf("process_id:%d", r.Pid())
	for line := range strings.Lines(info) {
		if strings.TrimSpace(line) == want {
			return nil
		}
	}
	return fmt.Errorf("port %d answers, but not as process %d: another server holds it", r.Port, r.Pid())
}

// Addr returns the node's host:port.
func (r *Redis) Addr() string { return Addr(r.Port) }

// Client returns a go-redis client for the node that does not retry, so a
// refused connection or a timeout reaches the caller as it happened. It is
// closed when the test ends.
func (r *Redis) Client(tb testing.TB) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: r.Addr(), MaxRetries: -1, DialTimeout: time.Second, PoolSize: 2,
		DialerRetries: 1, DialerRetryTimeout: time.Millisecond})
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

// ReplicaOf makes r a replica of the server at addr (REPLICAOF host port)
// and waits until the link is up and the first sync is done.
func (r *Redis) ReplicaOf(tb testing.TB, addr string) {
	tb.Helper()
	host, port, _ := strings.Cut(addr, ":")
	c := r.Client(tb)
	ctx := context.Background()
	if err := c.Do(ctx, "REPLICAOF", host, port).Err(); err != nil {
		tb.Fatalf("%s: REPLICAOF %s: %v", r.Name, addr, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		info, err := c.Info(ctx, "replication").Result()
		if err == nil && strings.Contains(info, "master_link_status:up") && strings.Contains(info, "master_sync_in_progress:0") {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%s: replication link to %s not up after 10 s: %v\n%s", r.Name, addr, err, info)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Follow makes r a replica of the server at addr without waiting for the
// link: a replica whose primary is down keeps trying, and syncs once the
// primary is back.
func (r *Redis) Follow(tb testing.TB, addr string) {
	tb.Helper()
	host, port, _ := strings.Cut(addr, ":")
	if err := r.Client(tb).Do(context.Background(), "REPLICAOF", host, port).Err(); err != nil {
		tb.Fatalf("%s: REPLICAOF %s: %v", r.Name, addr, err)
	}
}

// Promote makes a replica a primary (REPLICAOF NO ONE), as an operator or
// Sentinel does after the primary failed.
func (r *Redis) Promote(tb testing.TB) {
	tb.Helper()
	if err := r.Client(tb).Do(context.Background(), "REPLICAOF", "NO", "ONE").Err(); err != nil {
		tb.Fatalf("%s: REPLICAOF NO ONE: %v", r.Name, err)
	}
}
