package conformance

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/conformance/history"
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

// walks is how many free-play histories the suite draws for each scenario
// in each position: 2 x 22 scenario-positions, 44 for the family.
const walks = 2

// knownDiffs lists where the page is known to differ from real Redis 7.0,
// keyed by "scenario/position/history/frame N/node WHAT", WHAT being the
// command's name or "state" for the keys a frame shows, with the reason.
// Each is reported to the lead and goes once the model is fixed; an entry
// that starts to agree fails the suite, so the table cannot go stale. It is
// empty.
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
	cl.tally.Add("differences", 1)
	cl.t.Errorf("%s: the page is not real Redis (%s):\n%s\n\thistory: %s", cl.name, key, msg, cl.h)
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

// onRedis says whether sc runs on Redis: one node, replicated or Redlock's.
func onRedis(sc *demo.Scenario) bool {
	return sc.Store == model.SingleStore || sc.Store == model.ReplicatedStore || sc.Store == model.RedlockStore
}

func TestConformanceCoversFamily(t *testing.T) {
	for _, sc := range testkit.Catalog(t).Scenarios {
		if onRedis(sc) && !slices.Contains(family, sc.ID) {
			t.Errorf("scenario %q runs on Redis (store %s) but the conformance suite does not play it", sc.ID, sc.Store)
		}
	}
}

// redisSuite readies a test that replays histories on real redis-server
// processes: not under -short; the server is needed (CI fails without it,
// elsewhere the test skips with the reason); go-redis is quiet; and the
// tally the test counts in, reported when it ends.
func redisSuite(t *testing.T, family string) *history.Tally {
	t.Helper()
	if testing.Short() {
		t.Skip("starts real redis-server processes: not under -short")
	}
	realserver.Binary(t, "redis-server", "redis-server")
	redis.SetLogger(quiet{})
	tl := history.NewTally(family)
	t.Cleanup(func() { tl.Report(t) })
	return tl
}

// TestConformanceRedis replays, for every Redis scenario in both switch
// positions, the script, the finder's traces and a sample of free-play
// histories against real redis-server processes. It sends the command
// lines each frame's page prints, and compares every reply the page shows
// with real Redis's, and at every frame each node's keys, values and
// expiries with the page's panel.
func TestConformanceRedis(t *testing.T) {
	tl := redisSuite(t, "redis")
	c := testkit.Catalog(t)
	for _, id := range family {
		sc, ok := c.Get(id)
		if !ok {
			t.Fatalf("scenario %q is missing from scenarios.yaml", id)
		}
		for _, on := range []bool{false, true} {
			hs, err := history.Of(sc, on, walks)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hs {
				t.Run(testkit.Name(sc, on)+"/"+h.Name, func(t *testing.T) {
					t.Parallel()
					play(t, h, tl)
				})
			}
		}
	}
	t.Run("wait-blocked", func(t *testing.T) {
		t.Parallel()
		sc := waitBlocked(t)
		play(t, history.History{Place: demo.Place{Sc: sc, On: true, Step: sc.Frames()}, Kind: history.Script, Name: "script"}, tl)
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

func position(on bool) string { return demo.OnOff(on) }

// cluster is the real side of one history: the nodes the scenario names,
// and the network between clients and nodes as the history leaves it.
type cluster struct {
	t      *testing.T
	h      history.History
	tally  *history.Tally
	name   string // scenario/position/history, for messages and knownDiffs
	nodes  map[string]*realserver.Redis
	relay  *realserver.Relay   // primary to replica; holds writes the model has not shipped
	cut    map[string][]string // client -> nodes it cannot reach
	hole   string              // where a cut-off client's packets go
	clock  *pacer
	exp    *expiries
	frame  int
	seen   map[string]bool // knownDiffs keys met
	noted  map[string]bool
	conns  map[[2]string]*redis.Client // (client, node): kept connections
	known  map[string][]string         // client -> the values it drew
	offset map[string]int              // node -> ms its emulated clock runs ahead (jumps)
	slew   map[string]int              // node -> ms the model has slewed its clock, which the real node does not play
	server string                      // the redis_version the suite ran against
	// stopped says why the history was not compared to its end: a reply
	// that differed at a moment too close to an expiry to judge.
	stopped string
}

func play(t *testing.T, h history.History, tl *history.Tally) {
	sc := h.Sc
	cl := &cluster{
		t: t, h: h, tally: tl, name: sc.ID + "/" + position(h.On) + "/" + h.Name,
		nodes: map[string]*realserver.Redis{}, cut: map[string][]string{},
		seen: map[string]bool{}, noted: map[string]bool{}, conns: map[[2]string]*redis.Client{},
		known: map[string][]string{}, offset: map[string]int{}, slew: map[string]int{}, exp: newExpiries(),
	}
	t.Cleanup(func() { cl.hangUp("", "") })
	var persist []string
	if sc.Appendfsync == "always" {
		// The scenario's nodes keep every write on disk before they answer.
		persist = []string{"appendonly yes", "appendfsync always"}
	}
	for _, n := range sc.NodeNames() {
		cl.nodes[n] = realserver.StartRedis(t, n, persist...)
	}
	if sc.Store == model.ReplicatedStore {
		// The replica follows the primary through a relay that holds the
		// replication stream: the model ships a write only at WAIT (or an
		// explicit replicate), and a write still in flight when the primary
		// dies is lost, as it is in the model.
		cl.relay = realserver.NewRelay(t, cl.nodes["primary"].Addr())
		cl.nodes["replica"].ReplicaOf(t, cl.relay.Addr())
		cl.relay.Hold()
	}
	if persist != nil {
		cl.rewritten(sc.NodeNames())
	}
	cl.server = cl.info(sc.NodeNames()[0], "server", "redis_version")
	// Every page is rendered before the replay starts, so that the time
	// the real nodes see between two commands is the model's, not the
	// rendering's.
	shown, err := history.Show(h)
	if err != nil {
		t.Fatal(err)
	}
	pages := make([]page, len(shown))
	for i, s := range shown {
		pages[i] = page{Shown: s, panel: nodesPanel(s.Doc)}
	}
	cl.clock = newPacer()
	for _, p := range pages {
		cl.frame = p.Index
		if p.Index == 1 {
			cl.setup(p.Frame.Frame)
		} else {
			cl.move(p)
		}
		if cl.stopped != "" {
			tl.Add("stopped at a close call", 1)
			t.Logf("not compared past frame %d: %s\n\thistory: %s", cl.frame, cl.stopped, h)
			break
		}
		cl.check(p)
	}
	last := pages[len(pages)-1].Frame.Frame
	tl.Played(h, cl.frame)
	tl.Max("widest expiry window (model ms)", cl.exp.width)
	for key := range knownDiffs {
		if strings.HasPrefix(key, cl.name+"/") && !cl.seen[key] {
			t.Errorf("knownDiffs lists %q but the page and real Redis now agree there (or the command is gone): remove it", key)
		}
	}
	t.Logf("real server: redis %s; clock: 1 model s = %v; the keys were moved %v later in all to keep up; %v late at the end",
		cl.server, realDuration(1000), cl.clock.moved, cl.clock.late(last.Now).Round(time.Millisecond))
}

// page is one frame's page and its nodes panel, read.
type page struct {
	history.Shown
	panel map[string]panelNode
}

// move plays the events of the move that led to a frame on the real nodes:
// each command its page prints, as it prints it, and what the world did.
func (cl *cluster) move(p page) {
	for i, e := range p.Latest() {
		if c, want, ok := request(e); ok {
			cl.send(e.Header(), c, want, p.Lines[i])
		} else {
			cl.apply(e, p.Frame.Frame)
		}
		if cl.stopped != "" {
			return
		}
	}
}

// now brings the suite to model time t: it waits for t, and catches up if
// it is late.
func (cl *cluster) now(t int) {
	cl.clock.until(t)
	cl.catchUp(t)
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

// role is node's role in frame f: "primary", "replica", "former-primary"
// or "" for a node that is neither.
func role(f demo.Frame, node string) string {
	for _, n := range f.Store.(model.State).Nodes {
		if n.Name == node {
			return n.Role
		}
	}
	return ""
}

// apply plays one model event that no client sent on the real nodes.
func (cl *cluster) apply(e demo.Event, f demo.Frame) {
	t := cl.t
	h := e.Header()
	switch e := e.(type) {
	case model.NodeChange:
		cl.now(h.At)
		cl.nodeChange(h.Node, e.What, f)
	case model.Replication:
		cl.now(h.At)
		cl.ship()
	case model.ClockJumped:
		cl.now(h.At)
		cl.jump(h.Node, e.By)
	case model.KeyExpiry:
		cl.ended(h.Node, e.Key, h.At)
	case model.ClockSlewing:
		cl.note("%s: %s's clock slewing %d ms at %d ppm is emulated as no change to its keys' absolute expiries: the model's slew moves them by a few ms, which the expiry windows bound (checked at every frame)",
			cl.name, h.Node, e.By, e.Rate)
	case model.BlockedWait:
		cl.now(h.At)
		cl.blockedWait(e, f)
	case demo.ClientChange:
		if e.What == demo.Crashed {
			// A process that dies closes its connections with it.
			cl.hangUp(h.Client, "")
		}
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

// nodeChange plays a node going down (a crash: SIGKILL, losing what it had
// not persisted), coming back (empty; a replica follows its primary again
// when that is up, as the model's full sync), or being promoted.
func (cl *cluster) nodeChange(node string, what demo.Kind, f demo.Frame) {
	switch what {
	case model.NodeDown, model.NodeDownKept:
		cl.nodes[node].Kill()
		cl.hangUp("", node)
	case model.NodeUp, model.NodeUpKept:
		// With appendfsync always it comes back with its append-only
		// file's keys; a replica then follows its primary as below.
		was := cl.nodes[node].Running()
		cl.nodes[node].Start()
		cl.hangUp("", node)
		if was || cl.relay == nil || role(f, node) != "replica" {
			return
		}
		if primary := cl.nodes["primary"]; primary.Running() && role(f, "primary") == "primary" {
			// It comes back empty and must follow the primary again: a
			// full sync, through the relay, which holds nothing meanwhile.
			cl.relay.Release()
			cl.nodes[node].ReplicaOf(cl.t, cl.relay.Addr())
			cl.relay.Hold()
			return
		}
		// Its primary is down: it follows it all the same, as the model's
		// does, and syncs once the primary is back.
		cl.nodes[node].Follow(cl.t, cl.relay.Addr())
	case model.Promoted:
		cl.nodes[node].Promote(cl.t)
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
		at := cl.pexpiretime(node, k)
		if at > 0 {
			to := at - realDuration(d).Milliseconds()
			rdb.Do(ctx, "PEXPIREAT", k, to)
			cl.moved(node, k, at, to, 0)
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
		addr, wait = cl.hole, max(realDuration(cl.h.Sc.Timeout), time.Millisecond)
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

// send sends the command the page prints to the real node at the model's
// time and compares the replies.
func (cl *cluster) send(h demo.Head, c model.Command, want string, line history.Line) {
	t := cl.t
	cl.known[h.Client] = drawn(cl.known[h.Client], c)
	args, diff := readBack(line.Call, c, cl.known[h.Client])
	if diff != "" {
		t.Errorf("frame %d: %s: %s\n\thistory: %s", cl.frame, cl.name, diff, cl.h)
		return
	}
	if line.Reply != want {
		t.Errorf("frame %d: %s: %s: the page shows the reply %q, the model's event says %q", cl.frame, cl.name, line.Call, line.Reply, want)
	}
	sent, err := scaled(c, args)
	if err != nil {
		t.Fatalf("frame %d: %s: %v", cl.frame, cl.name, err)
	}
	cl.now(h.At)
	if w, ok := c.(model.WaitCommand); ok && w.Timeout == 0 && want != refused {
		// WAIT n 0 waits for n replicas with no timeout: on a node without
		// them it never returns. The relay lets the held stream through for
		// it, as the model ships the backlog at WAIT.
		if live, _ := strconv.Atoi(cl.info(h.Node, "replication", "connected_slaves")); live < w.Replicas {
			t.Errorf("frame %d: %s: the page shows %s => %s, but %s has fewer live replicas: real Redis would block forever",
				cl.frame, cl.name, strings.Join(sent, " "), want, h.Node)
			return
		}
		if cl.relay != nil {
			cl.relay.Release()
			defer cl.relay.Hold()
		}
	}
	up := want != refused && !strings.HasPrefix(want, "no answer")
	keys := keysOf(sent)
	close, why := false, ""
	if up {
		cl.before(h.Node, keys)
		cl.expired(h.Node, h.At)
		for _, k := range keys {
			if c, w := cl.close(h.Node, k, h.At); c {
				close, why = true, w
			}
		}
	}
	val, err, out, back := cl.do(h, sent, keys, up)
	cl.tally.Add("commands", 1)
	got := cl.reply(val, err)
	if l, ok := c.(model.RedissonLock); ok && !l.OK && got != want {
		got = cl.timeLeft(h, l, val, err, out, back, want)
	}
	if got != want && close {
		cl.stopped = fmt.Sprintf("%s -> %s: %s => page %s, real %s; too close to call: %s", orSuite(h.Client), h.Node, shortArgs(args), want, got, why)
		return
	}
	cl.compare(h, c, want, sent, got)
}

// do sends a command on the client's own connection and, when the node
// is up, asks in the same round trip the expiry it left on each of its
// keys, which it records.
func (cl *cluster) do(h demo.Head, sent, keys []string, up bool) (val any, err error, out, back time.Time) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rdb := cl.conn(h.Client, h.Node)
	if !up {
		out = time.Now()
		val, err = rdb.Do(ctx, toAny(sent)...).Result()
		return val, err, out, time.Now()
	}
	pipe := rdb.Pipeline()
	cmd := pipe.Do(ctx, toAny(sent)...)
	exps := make([]*redis.Cmd, len(keys))
	for i, k := range keys {
		exps[i] = pipe.Do(ctx, "PEXPIRETIME", k)
	}
	out = time.Now()
	_, _ = pipe.Exec(ctx)
	back = time.Now()
	val, err = cmd.Result()
	for i, k := range keys {
		v, xerr := exps[i].Int64()
		if xerr != nil {
			return val, err, out, back // the command's own error says why
		}
		cl.after(h.Node, k, v, h.At, out, back)
	}
	return val, err, out, back
}

// timeLeft is the reply to Redisson's lock script when another holds the
// lock: the holder's PTTL, which the suite cannot expect in model ms as it
// stands (the real one is counted on the scaled clock from whenever the
// real server ran the script). It is judged as an expiry: the real reply
// must be the time to the key's real end, and the model's time left must
// end the key within that end's window. Agreeing, it returns want.
func (cl *cluster) timeLeft(h demo.Head, l model.RedissonLock, val any, err error, out, back time.Time, want string) string {
	got := cl.reply(val, err)
	n, isInt := val.(int64)
	v, ok := cl.exp.last[[2]string{h.Node, l.Key}]
	if err != nil || !isInt || !ok {
		return got
	}
	// Redis answered v - (when it ran the script), which lies between out
	// and back, in whole ms.
	if ran := v - n; ran < out.UnixMilli()-1 || ran > back.UnixMilli()+1 {
		return got + fmt.Sprintf(" (the key's real end is %d, so it ran at %d, outside [%d, %d])", v, ran, out.UnixMilli(), back.UnixMilli())
	}
	if ok, why := cl.matches(h.Node, v, h.At+l.Left); !ok {
		return got + " (" + why + fmt.Sprintf("; the page's ends at t=%dms)", h.At+l.Left)
	}
	return want
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

// reply spells a real reply the way the page does (redis-cli's way).
func (cl *cluster) reply(val any, err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, redis.Nil):
		return "(nil)"
	case realserver.IsRefused(err):
		return refused
	case errors.As(err, &ne) && ne.Timeout():
		return noAnswer(cl.h.Sc.Timeout)
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

// info returns one field of INFO section on node.
// rewritten waits until no node is rewriting its append-only file. A
// replica rewrites it after its first full sync, and until that is done
// Redis 7.0 does not log the writes it is sent to the file, whatever
// appendfsync says (Redis 7.2's WAITAOF waits for exactly that): the
// model's nodes, which keep every write, stand for nodes past that window.
func (cl *cluster) rewritten(nodes []string) {
	deadline := time.Now().Add(10 * time.Second)
	for _, n := range nodes {
		for cl.info(n, "persistence", "aof_rewrite_in_progress") != "0" || cl.info(n, "persistence", "aof_rewrite_scheduled") != "0" {
			if time.Now().After(deadline) {
				cl.t.Fatalf("%s: still rewriting its append-only file after 10 s", n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

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
