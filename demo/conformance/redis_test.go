package conformance

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/realserver"
)

// family is every scenario played on Redis. TestConformanceCoversFamily keeps
// the list honest: a new Redis scenario that is not here fails it.
var family = []string{
	"no-lease", "setnx-expire", "release-other", "watchdog",
	"redis-failover",
	"redlock-quorum", "redlock-clock-jump", "redlock-gc-pause",
}

// knownDiffs lists where the page is known to differ from real Redis 7.0,
// keyed by "scenario/position/frame N/node WHAT", WHAT being the command's
// name or "state" for the keys a frame shows. Each is reported to the lead
// and goes once the model is fixed; an entry that starts to agree fails the
// suite, so the table cannot go stale.
var knownDiffs = map[string]string{}

func init() {
	// A node that is down refuses the connection at once; the page shows
	// the client waiting out its 50 ms timeout, as if packets were dropped.
	refused := "a down node refuses the connection; the page shows a 50 ms timeout"
	for _, k := range []string{
		"redlock-quorum/off/frame 4/redis4 SET", "redlock-quorum/off/frame 4/redis5 SET",
		"redlock-quorum/off/frame 6/redis4 EVAL", "redlock-quorum/off/frame 6/redis5 EVAL",
		"redlock-quorum/on/frame 4/redis3 SET", "redlock-quorum/on/frame 4/redis4 SET", "redlock-quorum/on/frame 4/redis5 SET",
		"redlock-quorum/on/frame 6/redis3 EVAL", "redlock-quorum/on/frame 6/redis4 EVAL", "redlock-quorum/on/frame 6/redis5 EVAL",
	} {
		knownDiffs[k] = refused
	}
	// Redis counts a key's TTL on its wall clock and has no monotonic mode:
	// a clock that jumps 15 s ahead expires the lock key on redis3 in
	// either position, so B's SET there succeeds and redis3 shows B's key.
	monotonic := "Redis has no monotonic expiry: the jump expires the key on redis3 whatever the switch says"
	for _, k := range []string{
		"redlock-clock-jump/on/frame 3/redis3 state", "redlock-clock-jump/on/frame 4/redis3 SET",
		"redlock-clock-jump/on/frame 4/redis3 state", "redlock-clock-jump/on/frame 5/redis3 state",
	} {
		knownDiffs[k] = monotonic
	}
}

// differs reports a difference between the page and real Redis at key
// ("node WHAT" in the current frame), or logs it when knownDiffs lists it.
func (cl *cluster) differs(what, msg string) {
	key := fmt.Sprintf("%s/frame %d/%s", cl.name, cl.frame, what)
	if why, ok := knownDiffs[key]; ok {
		cl.seen[key] = true
		cl.t.Logf("known difference (%s): %s", why, msg)
		return
	}
	cl.t.Errorf("%s: the page is not real Redis (%s):\n%s", cl.name, key, msg)
}

// agrees fails the test when knownDiffs lists key as a difference but the
// page and real Redis agree there.
func (cl *cluster) agrees(what string) {
	key := fmt.Sprintf("%s/frame %d/%s", cl.name, cl.frame, what)
	if _, ok := knownDiffs[key]; ok {
		cl.seen[key] = true
		cl.t.Errorf("knownDiffs[%q]: the page and real Redis now agree: remove the entry", key)
	}
}

// loadCatalog reads the scenarios the server plays.
func loadCatalog(t *testing.T) *demo.Catalog {
	t.Helper()
	data, err := os.ReadFile("../../scenarios.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := demo.Load("scenarios.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestConformanceCoversFamily(t *testing.T) {
	for _, sc := range loadCatalog(t).Scenarios {
		if sc.Store != "lockservice" && !slices.Contains(family, sc.ID) {
			t.Errorf("scenario %q runs on Redis (store %s) but the conformance suite does not play it", sc.ID, sc.Store)
		}
	}
}

// TestConformanceRedis plays every Redis scenario in both switch positions
// against real redis-server processes and compares every reply the page
// shows, and at every frame the keys and TTLs the page shows on each node.
func TestConformanceRedis(t *testing.T) {
	realserver.Binary(t, "redis-server", "redis-server")
	redis.SetLogger(quiet{})
	c := loadCatalog(t)
	for _, id := range family {
		sc, ok := c.Get(id)
		if !ok {
			t.Fatalf("scenario %q is missing from scenarios.yaml", id)
		}
		for _, on := range []bool{false, true} {
			name := fmt.Sprintf("%s/%s-%s", sc.ID, sc.Switch, position(on))
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				play(t, sc, on)
			})
		}
	}
}

func position(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// cluster is the real side of one run: the nodes the scenario names, and the
// network between clients and nodes as the scenario leaves it.
type cluster struct {
	t      *testing.T
	sc     *demo.Scenario
	name   string // scenario/position, for messages and knownDiffs
	nodes  map[string]*realserver.Redis
	relay  *realserver.Relay   // primary to replica; holds writes the model has not shipped
	cut    map[string][]string // client -> nodes it cannot reach
	hole   string              // where a cut-off client's packets go
	clock  *pacer
	frame  int
	seen   map[string]bool // knownDiffs keys met
	noted  map[string]bool
	conns  map[[2]string]*redis.Client // (client, node): kept connections
	server string                      // the redis_version the suite ran against
}

func play(t *testing.T, sc *demo.Scenario, on bool) {
	cl := &cluster{
		t: t, sc: sc, name: sc.ID + "/" + position(on),
		nodes: map[string]*realserver.Redis{}, cut: map[string][]string{},
		seen: map[string]bool{}, noted: map[string]bool{}, conns: map[[2]string]*redis.Client{},
	}
	t.Cleanup(func() { cl.hangUp("", "") })
	for _, n := range sc.NodeNames() {
		cl.nodes[n] = realserver.StartRedis(t, n)
	}
	if sc.Store == "replicated" {
		// The replica follows the primary through a relay that holds the
		// replication stream: the model ships a write only at WAIT (or an
		// explicit replicate), and a write still in flight when the primary
		// dies is lost, as it is in the model.
		cl.relay = realserver.NewRelay(t, cl.nodes["primary"].Addr())
		cl.nodes["replica"].ReplicaOf(t, cl.relay.Addr())
		cl.relay.Hold()
	}
	cl.server = cl.info(sc.NodeNames()[0], "server", "redis_version")
	t.Logf("real server: redis %s; clock: 1 model s = %v", cl.server, realDuration(1000))

	r := demo.NewRun(sc, on)
	cl.clock = newPacer()
	f := r.Frame()
	cl.setup(f)
	cl.check(f)
	for r.Step() {
		f = r.Frame()
		cl.frame = f.Index
		for _, e := range f.Latest() {
			cl.apply(e, f)
		}
		cl.check(f)
	}
	if err := r.Err(); err != nil {
		t.Fatalf("the model stopped: %v", err)
	}
	for key := range knownDiffs {
		if strings.HasPrefix(key, cl.name+"/") && !cl.seen[key] {
			t.Errorf("knownDiffs lists %q but the page and real Redis now agree there (or the command is gone): remove it", key)
		}
	}
	t.Logf("ran %v behind the scaled clock at the end", realDuration(cl.clock.late(f.Now)))
}

// note records, once, a step that cannot be reproduced here and why.
func (cl *cluster) note(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if !cl.noted[msg] {
		cl.noted[msg] = true
		cl.t.Logf("not reproduced: %s", msg)
	}
}

// setup brings the real nodes to frame 1: the scenario's setup actions ran
// unseen, so only their outcome shows.
func (cl *cluster) setup(f demo.Frame) {
	for _, n := range f.Nodes {
		if !n.Up {
			cl.nodes[n.Name].Kill()
		}
		if n.Monotonic {
			cl.note("%s: %s counts TTLs on a monotonic clock in the model; Redis has no such mode (it stores a key's expiry as an absolute Unix time in ms and compares it with its wall clock), so real Redis plays this position with its wall clock", cl.name, n.Name)
		}
	}
}

// apply plays one model event on the real nodes.
func (cl *cluster) apply(e demo.Event, f demo.Frame) {
	t := cl.t
	if c, ok := commandOf(e); ok {
		cl.send(e, c)
		return
	}
	switch e.Kind {
	case demo.NodeDown:
		// The model's node goes down at an instant and loses what it had
		// not persisted: a crash, not a shutdown that takes its time.
		cl.clock.until(e.At)
		cl.nodes[e.Node].Kill()
		cl.hangUp("", e.Node)
	case demo.NodeUp:
		cl.clock.until(e.At)
		cl.nodes[e.Node].Start()
		cl.hangUp("", e.Node)
	case demo.Promoted:
		cl.clock.until(e.At)
		cl.nodes[e.Node].Promote(t)
	case demo.Replicated:
		cl.clock.until(e.At)
		cl.ship()
	case demo.ClockJump:
		cl.clock.until(e.At)
		cl.jump(e.Node, e.N)
	case demo.CutOff:
		for _, c := range f.Clients {
			if c.Name == e.Client {
				if len(c.Cut) == 0 {
					t.Fatalf("frame %d: %s is cut off, but the frame does not say from which nodes", f.Index, e.Client)
				}
				cl.cut[e.Client] = slices.Clone(c.Cut)
			}
		}
		cl.hangUp(e.Client, "")
		if cl.hole == "" {
			cl.hole = realserver.Blackhole(t)
		}
	case demo.Healed:
		delete(cl.cut, e.Client)
		cl.hangUp(e.Client, "")
	}
}

// ship lets the held replication stream through until the replica has
// everything the primary wrote, then holds it again.
func (cl *cluster) ship() {
	cl.relay.Release()
	defer cl.relay.Hold()
	want := cl.info("primary", "replication", "master_repl_offset")
	deadline := time.Now().Add(5 * time.Second)
	for cl.info("replica", "replication", "slave_repl_offset") != want {
		if time.Now().After(deadline) {
			cl.t.Fatalf("frame %d: the replica did not catch up with the primary in 5 s", cl.frame)
		}
		time.Sleep(time.Millisecond)
	}
}

// jump plays a node's wall clock jumping d model ms forward. The clock of a
// real server cannot be moved here (libfaketime and Redis's jemalloc clash,
// and the host's clock is shared), so the jump is emulated: Redis keeps each
// key's expiry as an absolute Unix time, and a clock d ms ahead reaches every
// such time d ms early, which is what moving every expiry d ms earlier
// (PEXPIREAT) does. TTLs set after the jump are relative and unaffected.
func (cl *cluster) jump(node string, d int) {
	ctx := context.Background()
	rdb := cl.conn("", node)
	keys, err := rdb.Keys(ctx, "*").Result()
	if err != nil {
		cl.t.Fatalf("frame %d: %s: KEYS: %v", cl.frame, node, err)
	}
	for _, k := range keys {
		at, err := rdb.Do(ctx, "PEXPIRETIME", k).Int64()
		if err != nil {
			cl.t.Fatalf("frame %d: %s: PEXPIRETIME %s: %v", cl.frame, node, k, err)
		}
		if at > 0 {
			rdb.Do(ctx, "PEXPIREAT", k, at-realDuration(d).Milliseconds())
		}
	}
	cl.note("%s: %s's wall clock jumping %d ms is emulated by moving each key's absolute expiry %d ms earlier", cl.name, node, d, d)
}

// conn returns client's connection to node ("" for the suite's own), opened
// on first use and kept, as a real client keeps its connection: WAIT counts
// the replicas that acknowledged the writes of its own connection. It goes
// through the black hole when the scenario has cut the client off from the
// node, and is reopened after the node or the network changes, so a node
// that went down refuses the new connection as it would.
func (cl *cluster) conn(client, node string) *redis.Client {
	k := [2]string{client, node}
	if c, ok := cl.conns[k]; ok {
		return c
	}
	addr, wait := cl.nodes[node].Addr(), 5*time.Second
	if slices.Contains(cl.cut[client], node) {
		addr, wait = cl.hole, max(realDuration(cl.sc.Timeout), time.Millisecond)
	}
	c := redis.NewClient(&redis.Options{
		Addr: addr, MaxRetries: -1, PoolSize: 1, Protocol: 2, DisableIdentity: true,
		// One dial, no retry: a refused connection is the answer.
		DialerRetries: 1, DialerRetryTimeout: time.Millisecond,
		DialTimeout: wait, ReadTimeout: wait, WriteTimeout: wait,
	})
	cl.conns[k] = c
	return c
}

// hangUp closes the kept connections of client, or to node ("" for any).
func (cl *cluster) hangUp(client, node string) {
	for k, c := range cl.conns {
		if (client == "" || k[0] == client) && (node == "" || k[1] == node) {
			c.Close()
			delete(cl.conns, k)
		}
	}
}

// send sends the page's command to the real node at the model's time and
// compares the replies.
func (cl *cluster) send(e demo.Event, c command) {
	t := cl.t
	cl.clock.until(e.At)
	args := cl.scaled(c.Args)
	if c.Args[0] == "WAIT" {
		// WAIT n 0 waits for n replicas with no timeout: on a node without
		// them it never returns. The relay lets the held stream through for
		// it, as the model ships the backlog at WAIT.
		want, _ := strconv.Atoi(c.Args[1])
		if live, _ := strconv.Atoi(cl.info(c.Node, "replication", "connected_slaves")); live < want {
			t.Errorf("frame %d: %s: the page shows %s => %s, but %s has fewer live replicas: real Redis would block forever",
				cl.frame, cl.name, strings.Join(c.Args, " "), c.Reply, c.Node)
			return
		}
		if cl.relay != nil {
			cl.relay.Release()
			defer cl.relay.Hold()
		}
	}
	rdb := cl.conn(c.Client, c.Node)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	val, err := rdb.Do(ctx, toAny(args)...).Result()
	cl.clock.mark(e.At)
	got := cl.reply(val, err)
	cl.compare(e, c, args, got)
}

// compare fails the test where the page's reply is not real Redis's, unless
// knownDiffs lists it.
func (cl *cluster) compare(e demo.Event, c command, sent []string, got string) {
	what := c.Node + " " + c.Args[0]
	if got == c.Reply {
		cl.agrees(what)
		return
	}
	cl.differs(what, fmt.Sprintf("frame %d, t=%dms, %s -> %s: %s\n\tpage:        %s\n\tredis %s: %s\n\t(sent: %s)",
		cl.frame, e.At, orSuite(c.Client), c.Node, shortArgs(c.Args), c.Reply, cl.server, got, shortArgs(sent)))
}

// reply spells a real reply the way the page does (redis-cli's way).
func (cl *cluster) reply(val any, err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, redis.Nil):
		return "(nil)"
	case realserver.IsRefused(err):
		return "connection refused"
	case errors.As(err, &ne) && ne.Timeout():
		return fmt.Sprintf("no answer in %d ms", cl.sc.Timeout)
	case err != nil:
		return "(error) " + err.Error()
	}
	switch v := val.(type) {
	case int64:
		return "(integer) " + strconv.FormatInt(v, 10)
	case string:
		return v
	case nil:
		return "(nil)"
	}
	return fmt.Sprint(val)
}

// scaled returns args with every duration divided by scale: the PX of a SET,
// the seconds of EXPIRE (sent as PEXPIRE, since a scaled second is not a
// whole second), and the renewal script's TTL.
func (cl *cluster) scaled(args []string) []string {
	out := slices.Clone(args)
	div := func(i, unit int) {
		n, err := strconv.Atoi(out[i])
		if err != nil || n*unit%scale != 0 {
			cl.t.Fatalf("frame %d: %s: duration %q does not scale by %d", cl.frame, strings.Join(args, " "), out[i], scale)
		}
		out[i] = strconv.Itoa(n * unit / scale)
	}
	switch strings.ToUpper(out[0]) {
	case "SET":
		if i := slices.Index(out, "PX"); i > 0 {
			div(i+1, 1)
		}
	case "EXPIRE":
		out[0] = "PEXPIRE"
		div(2, 1000)
	case "EVAL":
		if strings.Contains(out[1], "pexpire") && len(out) == 6 {
			div(5, 1)
		}
	}
	return out
}

// check compares the keys and TTLs the page shows on each node with the real
// node's, leaving out keys within margin of their expiry.
func (cl *cluster) check(f demo.Frame) {
	t := cl.t
	cl.clock.until(f.Now)
	for _, n := range f.Nodes {
		node := cl.nodes[n.Name]
		if node.Running() != n.Up {
			t.Errorf("frame %d: %s: the page shows %s up=%t, the real node up=%t", f.Index, cl.name, n.Name, n.Up, node.Running())
			continue
		}
		if !n.Up {
			continue
		}
		if n.Role == "primary" || n.Role == "replica" {
			want := map[string]string{"primary": "master", "replica": "slave"}[n.Role]
			if got := cl.info(n.Name, "replication", "role"); got != want {
				t.Errorf("frame %d: %s: the page shows %s as %s, real Redis says role:%s", f.Index, cl.name, n.Name, n.Role, got)
			}
		}
		if diffs := cl.keys(f, n); len(diffs) > 0 {
			cl.differs(n.Name+" state", fmt.Sprintf("frame %d, t=%dms, %s:\n\t%s", f.Index, f.Now, n.Name, strings.Join(diffs, "\n\t")))
		} else {
			cl.agrees(n.Name + " state")
		}
	}
}

// keys compares the keys on one node with the frame's, and returns the
// differences.
func (cl *cluster) keys(f demo.Frame, n demo.NodeState) (diffs []string) {
	t, ctx := cl.t, context.Background()
	rdb := cl.conn("", n.Name)
	real, err := rdb.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatalf("frame %d: %s: KEYS: %v", f.Index, n.Name, err)
	}
	for _, k := range n.Keys {
		if k.TTL >= 0 && k.TTL < margin {
			t.Logf("frame %d: %s %s: TTL %d ms is within the %d ms margin of its expiry: not compared", f.Index, n.Name, k.Key, k.TTL, margin)
			real = slices.DeleteFunc(real, func(s string) bool { return s == k.Key })
			continue
		}
		real = slices.DeleteFunc(real, func(s string) bool { return s == k.Key })
		v, err := rdb.Get(ctx, k.Key).Result()
		if err != nil || v != k.Value {
			diffs = append(diffs, fmt.Sprintf("page: %s = %s; real GET: %s", k.Key, demo.Short(k.Value), cl.reply(v, err)))
			continue
		}
		pttl, err := rdb.Do(ctx, "PTTL", k.Key).Int()
		if err != nil {
			t.Fatalf("frame %d: %s: PTTL %s: %v", f.Index, n.Name, k.Key, err)
		}
		got := pttl // -1: no expiry
		if pttl > 0 {
			got = pttl * scale
		}
		if k.TTL < 0 && got != -1 || k.TTL >= 0 && (got < k.TTL-margin || got > k.TTL+margin) {
			diffs = append(diffs, fmt.Sprintf("page: %s TTL %d ms; real PTTL %d (x%d = %d model ms, margin %d)", k.Key, k.TTL, pttl, scale, got, margin))
		}
	}
	for _, k := range real {
		if !cl.expiredLately(f, n.Name, k) {
			v, err := rdb.Get(ctx, k).Result()
			diffs = append(diffs, fmt.Sprintf("page: no %s; real GET: %s", k, shortArgs([]string{cl.reply(v, err)})))
		}
	}
	return diffs
}

// expiredLately reports whether the model let key expire on node within the
// margin before the frame's time: the real key may outlive it by the time
// the test runs late.
func (cl *cluster) expiredLately(f demo.Frame, node, key string) bool {
	for _, e := range slices.Backward(f.Events) {
		if e.Kind == demo.KeyExpired && e.Node == node && e.Key == key {
			return f.Now-e.At < margin
		}
	}
	return false
}

// info returns one field of INFO section on node.
func (cl *cluster) info(node, section, field string) string {
	s, err := cl.conn("", node).Info(context.Background(), section).Result()
	if err != nil {
		cl.t.Fatalf("%s: INFO %s: %v", node, section, err)
	}
	for line := range strings.Lines(s) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), field+":"); ok {
			return v
		}
	}
	return ""
}

func toAny(args []string) []any {
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = a
	}
	return out
}

// shortArgs spells args for a message, with long values shortened as the
// page does.
func shortArgs(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if len(a) == 40 && !strings.ContainsAny(a, " (") {
			a = demo.Short(a)
		} else if len(a) > 40 {
			a = "'" + a[:20] + "…'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

func orSuite(client string) string {
	if client == "" {
		return "(suite)"
	}
	return client
}

// quiet drops go-redis's own log lines: a refused dial is an answer here,
// and the suite reports it itself.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}
