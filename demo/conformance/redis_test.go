package conformance

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/distlock/fencing-demo/demo"
	model "github.com/distlock/fencing-demo/demo/redis"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/internal/realserver"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// family is every scenario played on Redis. TestConformanceCoversFamily keeps
// the list honest: a new Redis scenario that is not here fails it.
var family = []string{
	"no-lease", "setnx-expire", "release-other", "watchdog",
	"redis-failover",
	"redlock-quorum", "redlock-clock-jump", "redlock-gc-pause",
	"naive-renewal", "incr-token", "redlock-restart",
}

// knownDiffs lists where the page is known to differ from real Redis 7.0,
// keyed by "scenario/position/frame N/node WHAT", WHAT being the command's
// name or "state" for the keys a frame shows, with the reason. Each is
// reported to the lead and goes once the model is fixed; an entry that starts
// to agree fails the suite, so the table cannot go stale. It is empty: the
// page's down node (a 50 ms timeout, now a refused connection) and its
// monotonic clock (now a clock that may only slew) were the last.
var knownDiffs = map[string]string{}

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

func TestConformanceCoversFamily(t *testing.T) {
	for _, sc := range testkit.Catalog(t).Scenarios {
		redis := sc.Store == model.SingleStore || sc.Store == model.ReplicatedStore || sc.Store == model.RedlockStore
		if redis && !slices.Contains(family, sc.ID) {
			t.Errorf("scenario %q runs on Redis (store %s) but the conformance suite does not play it", sc.ID, sc.Store)
		}
	}
}

// TestConformanceRedis plays every Redis scenario in both switch positions
// against real redis-server processes and compares every reply the page
// shows, and at every frame the keys and TTLs the page shows on each node.
func TestConformanceRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real redis-server processes: not under -short")
	}
	realserver.Binary(t, "redis-server", "redis-server")
	redis.SetLogger(quiet{})
	c := testkit.Catalog(t)
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
	t.Run("wait-blocked", func(t *testing.T) {
		t.Parallel()
		play(t, waitBlocked(t), true)
	})
}

// waitBlocked is a scenario of the suite's own: no scenario of the catalog
// leaves a client blocked in WAIT, so this one does, to check that the page
// blocks where real Redis would (A's WAIT 1 0 after the only replica died),
// and that the WAIT answers 1 once the replica is back and has synced.
func waitBlocked(t *testing.T) *demo.Scenario {
	src := testkit.YAML("wait-blocked",
		"A set lock:row-1 NX PX 30000",
		"tick 1000",
		"replica down",
		"tick 1000",
		"A wait 1 0",
	) + `      - title: {ja: レプリカが戻る, en: The replica is back}
        text: {ja: 本文, en: Text}
        do:
          - tick 1000
          - replica up
`
	src = testkit.Replace(t, src, "topology: consensus", "topology: replicated")
	src = testkit.Replace(t, src, "    fencing: switch\n", "")
	src = testkit.OnStore(t, "replicated", src)
	c, err := script.Load("wait-blocked.yaml", []byte(testkit.File(src)))
	if err != nil {
		t.Fatalf("Load: %v\n%s", err, testkit.Numbered(src))
	}
	return c.Scenarios[0]
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
	offset map[string]int              // node -> ms its emulated clock runs ahead (jumps)
	server string                      // the redis_version the suite ran against
}

func play(t *testing.T, sc *demo.Scenario, on bool) {
	cl := &cluster{
		t: t, sc: sc, name: sc.ID + "/" + position(on),
		nodes: map[string]*realserver.Redis{}, cut: map[string][]string{},
		seen: map[string]bool{}, noted: map[string]bool{}, conns: map[[2]string]*redis.Client{},
		offset: map[string]int{},
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
	for _, n := range f.Store.(model.State).Nodes {
		if !n.Up {
			cl.nodes[n.Name].Kill()
		}
		if n.Offset != 0 {
			cl.t.Fatalf("%s: %s starts with its clock %d ms off; the suite emulates only jumps and slews played in frames", cl.name, n.Name, n.Offset)
		}
	}
}

// apply plays one model event on the real nodes.
func (cl *cluster) apply(e demo.Event, f demo.Frame) {
	t := cl.t
	if c, want, ok := request(e); ok {
		cl.send(e.Header(), c, want)
		return
	}
	h := e.Header()
	switch e := e.(type) {
	case model.NodeChange:
		cl.clock.until(h.At)
		switch e.What {
		case model.NodeDown:
			// The model's node goes down at an instant and loses what it
			// had not persisted: a crash, not a shutdown that takes its time.
			cl.nodes[h.Node].Kill()
			cl.hangUp("", h.Node)
		case model.NodeUp:
			cl.nodes[h.Node].Start()
			cl.hangUp("", h.Node)
			if cl.relay != nil && h.Node == "replica" {
				// It comes back empty and must follow the primary again: a
				// full sync, through the relay, which holds nothing meanwhile.
				cl.relay.Release()
				cl.nodes[h.Node].ReplicaOf(t, cl.relay.Addr())
				cl.relay.Hold()
			}
		case model.Promoted:
			cl.nodes[h.Node].Promote(t)
		}
	case model.Replication:
		cl.clock.until(h.At)
		cl.ship()
	case model.ClockJumped:
		cl.clock.until(h.At)
		cl.jump(h.Node, e.By)
	case model.ClockSlewing:
		cl.note("%s: %s's clock slewing %d ms at %d ppm is emulated as no change to its keys' absolute expiries: the model's slew moves them by a few ms, far inside the %d ms margin (checked at every frame)",
			cl.name, h.Node, e.By, e.Rate, margin)
	case model.BlockedWait:
		cl.clock.until(h.At)
		cl.blockedWait(e, f)
	case model.Partition:
		switch e.What {
		case model.CutOff:
			if len(e.Nodes) == 0 {
				t.Fatalf("frame %d: %s is cut off, but the frame does not say from which nodes", f.Index, h.Client)
			}
			cl.cut[h.Client] = slices.Clone(e.Nodes)
			cl.hangUp(h.Client, "")
			if cl.hole == "" {
				cl.hole = realserver.Blackhole(t)
			}
		case model.Healed:
			delete(cl.cut, h.Client)
			cl.hangUp(h.Client, "")
		}
	}
}

// blockedWait checks a WAIT the page shows blocked, without sending a WAIT
// that would never return: real Redis must agree that fewer replicas than
// asked for can acknowledge, both by its count of connected replicas and by
// a WAIT with a short timeout on the client's own connection answering fewer.
func (cl *cluster) blockedWait(e model.BlockedWait, f demo.Frame) {
	t, h := cl.t, e.Header()
	blocked := false
	for _, c := range f.Clients {
		blocked = blocked || c.Name == h.Client && c.Blocked
	}
	if !blocked {
		t.Errorf("frame %d: %s: the page logs %s blocked in WAIT, but the frame does not show it blocked", f.Index, cl.name, h.Client)
	}
	// The primary learns that a replica is gone when its link closes, a
	// moment after the replica died.
	live, deadline := 0, time.Now().Add(2*time.Second)
	for {
		live, _ = strconv.Atoi(cl.info(h.Node, "replication", "connected_slaves"))
		if live < e.Replicas || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if cl.relay != nil {
		cl.relay.Release() // let a live replica acknowledge, if there is one
		defer cl.relay.Hold()
	}
	const probe = 100 // real ms
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	acked, err := cl.conn(h.Client, h.Node).Do(ctx, "WAIT", e.Replicas, probe).Int()
	what := h.Node + " WAIT"
	if err != nil || live >= e.Replicas || acked >= e.Replicas {
		cl.differs(what, fmt.Sprintf("frame %d, t=%dms: the page shows %s blocked in WAIT %d 0; real Redis: connected_slaves:%d, WAIT %d %d => %s",
			f.Index, h.At, h.Client, e.Replicas, live, e.Replicas, probe, cl.reply(int64(acked), err)))
		return
	}
	cl.agrees(what)
	t.Logf("frame %d: %s blocked in WAIT %d 0 as on the page: real connected_slaves:%d, WAIT %d %d => (integer) %d",
		f.Index, h.Client, e.Replicas, live, e.Replicas, probe, acked)
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
	cl.offset[node] += d
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
func (cl *cluster) send(h demo.Head, c model.Command, want string) {
	t := cl.t
	cl.clock.until(h.At)
	args, err := scaled(c)
	if err != nil {
		t.Fatalf("frame %d: %s: %v", cl.frame, cl.name, err)
	}
	if w, ok := c.(model.WaitCommand); ok && w.Timeout == 0 && want != refused {
		// WAIT n 0 waits for n replicas with no timeout: on a node without
		// them it never returns. The relay lets the held stream through for
		// it, as the model ships the backlog at WAIT.
		if live, _ := strconv.Atoi(cl.info(h.Node, "replication", "connected_slaves")); live < w.Replicas {
			t.Errorf("frame %d: %s: the page shows %s => %s, but %s has fewer live replicas: real Redis would block forever",
				cl.frame, cl.name, strings.Join(args, " "), want, h.Node)
			return
		}
		if cl.relay != nil {
			cl.relay.Release()
			defer cl.relay.Hold()
		}
	}
	rdb := cl.conn(h.Client, h.Node)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	val, err := rdb.Do(ctx, toAny(args)...).Result()
	cl.clock.mark(h.At)
	got := cl.reply(val, err)
	if left, ok := ttlReply(c); ok {
		// A time left agrees within the margin, counted in model ms.
		if n, isInt := val.(int64); isInt && err == nil && abs(int(n)*scale-left) <= margin {
			got = want
		}
	}
	cl.compare(h, c, want, args, got)
}

// compare fails the test where the page's reply is not real Redis's, unless
// knownDiffs lists it.
func (cl *cluster) compare(h demo.Head, c model.Command, want string, sent []string, got string) {
	what := h.Node + " " + c.Args()[0]
	if got == want {
		cl.agrees(what)
		return
	}
	cl.differs(what, fmt.Sprintf("frame %d, t=%dms, %s -> %s: %s\n\tpage:        %s\n\tredis %s: %s\n\t(sent: %s)",
		cl.frame, h.At, orSuite(h.Client), h.Node, shortArgs(c.Args()), want, cl.server, got, shortArgs(sent)))
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// reply spells a real reply the way the page does (redis-cli's way).
func (cl *cluster) reply(val any, err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, redis.Nil):
		return "(nil)"
	case realserver.IsRefused(err):
		return refused
	case errors.As(err, &ne) && ne.Timeout():
		return noAnswer(cl.sc.Timeout)
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

// check compares the keys and TTLs the page shows on each node with the real
// node's, leaving out keys within margin of their expiry.
func (cl *cluster) check(f demo.Frame) {
	t := cl.t
	cl.clock.until(f.Now)
	for _, n := range f.Store.(model.State).Nodes {
		node := cl.nodes[n.Name]
		if node.Running() != n.Up {
			t.Errorf("frame %d: %s: the page shows %s up=%t, the real node up=%t", f.Index, cl.name, n.Name, n.Up, node.Running())
			continue
		}
		if !n.Up {
			continue
		}
		// What the model's clock moved beyond the emulated jumps is slew,
		// which the real node does not play: it must stay far inside the
		// margin every TTL is compared within.
		if slew := n.Offset - cl.offset[n.Name]; slew != 0 {
			if abs(slew) >= margin/10 {
				t.Errorf("frame %d: %s: %s's clock has slewed %d ms in the model, too much to leave unplayed on the real node", f.Index, cl.name, n.Name, slew)
			}
			t.Logf("frame %d: %s's clock has slewed %d ms in the model; not played on the real node", f.Index, n.Name, slew)
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
func (cl *cluster) keys(f demo.Frame, n model.NodeState) (diffs []string) {
	t, ctx := cl.t, context.Background()
	rdb := cl.conn("", n.Name)
	real, err := rdb.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatalf("frame %d: %s: KEYS: %v", f.Index, n.Name, err)
	}
	// A busy machine runs the suite late, and real time then passes faster
	// than the model's on every key: a real PTTL may fall short of the
	// page's by as much as the suite is behind, never more, and never
	// outlast it by more than the margin.
	slack := margin + max(0, cl.clock.late(f.Now))
	for _, k := range n.Keys {
		if k.TTL >= 0 && k.TTL < slack {
			t.Logf("frame %d: %s %s: TTL %d ms is within %d ms (the margin plus the suite's lateness) of its expiry: not compared", f.Index, n.Name, k.Key, k.TTL, slack)
			real = slices.DeleteFunc(real, func(s string) bool { return s == k.Key })
			continue
		}
		real = slices.DeleteFunc(real, func(s string) bool { return s == k.Key })
		if k.Count > 0 {
			// A Redisson lock: a hash whose one field is the holder's id,
			// holding the count.
			h, err := rdb.HGetAll(ctx, k.Key).Result()
			if want := map[string]string{k.Value: strconv.Itoa(k.Count)}; err != nil || !maps.Equal(h, want) {
				diffs = append(diffs, fmt.Sprintf("page: %s = {%s: %d}; real HGETALL: %v %v", k.Key, demo.Short(k.Value), k.Count, h, err))
				continue
			}
		} else if v, err := rdb.Get(ctx, k.Key).Result(); err != nil || v != k.Value {
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
		if k.TTL < 0 && got != -1 || k.TTL >= 0 && (got < k.TTL-slack || got > k.TTL+margin) {
			diffs = append(diffs, fmt.Sprintf("page: %s TTL %d ms; real PTTL %d (x%d = %d model ms, margin %d, late by %d)", k.Key, k.TTL, pttl, scale, got, margin, slack-margin))
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
		if x, ok := e.(model.KeyExpiry); ok && x.Node == node && x.Key == key {
			return f.Now-x.At < margin
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
