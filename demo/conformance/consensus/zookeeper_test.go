// Package consensus checks the page's consensus scenarios against a real
// ZooKeeper (Debian's zookeeper, 3.8) and a real etcd (Debian's
// etcd-server, 3.4): each scenario's script, the finder's traces and a
// sample of free-play histories are replayed with kept client libraries
// (github.com/go-zookeeper/zk, go.etcd.io/etcd/client/v3), sending the
// calls each frame's page prints, and what the page shows (sequence
// numbers, czxids, create revisions, which watch fires, how many
// notifications, when a session or lease ends, and at every frame the
// nodes or keys, the sessions or leases and the counter) is compared with
// what the server answers. Without the servers the tests skip with a
// one-line reason, except under CI.
package consensus

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/conformance/history"
	model "github.com/distlock/fencing-demo/demo/consensus"
	"github.com/distlock/fencing-demo/internal/realserver"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// zkScale is how much faster than the model the ZooKeeper replays run. The
// model's tickTime is 2000 ms, so the server runs with tickTime 400 ms and a
// 10 s session lasts 2 s. The server checks sessions once a tick and ends a
// session up to one tick after its deadline, which bounds the scale: a tick
// must stay well above the machine's scheduling noise, and a session well
// above the longest stall of a client's pings. At 10 (1 s sessions) a
// machine with a load of 17 let a live client's session expire.
const zkScale = 5

// zkLongest is the longest session timeout the server grants, 20 tickTime
// in model ms: the suite's own session's, which must outlive any stall.
const zkLongest = 40000

// zkMargin is how far, in model ms, the moment a session ends may land from
// the model's: one tick (2000 model ms) of the server's bucketed expiry,
// plus 3000 (600 ms of real time) for a busy machine, where the server's
// expiry thread and the suite's look at it both run late.
const zkMargin = 5000

// TestZooKeeperScenarios replays each ZooKeeper scenario's histories. Each
// scenario-position has a server of its own, and its histories play on it
// one after another: a server takes seconds to start, and a busy machine
// could not start one a history at once. The zxids a history's page shows
// are held against the server's from where its setup left the server.
func TestZooKeeperScenarios(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real ZooKeeper servers: not under -short")
	}
	t.Parallel() // beside etcd's
	realserver.Binary(t, "java", "zookeeper")
	tl := history.NewTally("zookeeper")
	t.Cleanup(func() { tl.Report(t) })
	c := testkit.Catalog(t)
	for _, id := range []string{"zookeeper-recipe", "zookeeper-session-expiry"} {
		sc, ok := c.Get(id)
		if !ok {
			t.Fatalf("scenarios.yaml has no %s", id)
		}
		for _, on := range []bool{false, true} {
			hs, err := history.Of(sc, on, zkWalks)
			if err != nil {
				t.Fatal(err)
			}
			t.Run(testkit.Name(sc, on), func(t *testing.T) {
				t.Parallel()
				z := realserver.StartZooKeeper(t, 2000*time.Millisecond/zkScale)
				obs := (&zkReplay{t: t, z: z}).connect("(suite)", zkLongest)
				for _, h := range hs {
					t.Run(h.Name, func(t *testing.T) { zkPlay(t, z, obs, h, tl, stopKnown) })
				}
			})
		}
	}
}

// zkClient is one of the scenario's clients on the real server.
type zkClient struct {
	conn    *zk.Conn
	session <-chan zk.Event
	gate    *gate
	watch   <-chan zk.Event // the one watch it has armed, if any
	id      int64           // its session, as the server numbered it
	paused  bool
	crashed bool
	expired bool               // its library has heard that its session ended
	owed    []model.WatchFired // notifications that came while it was stopped
}

// zkReplay plays one history against a fresh server and checks each answer.
type zkReplay struct {
	t        *testing.T
	h        history.History
	tally    *history.Tally
	z        *realserver.ZooKeeper
	obs      *zkClient // the suite's own session, to look
	clients  map[string]*zkClient
	offset   int64 // the server's zxid less the model's: the suite's own session's transaction
	start    time.Time
	frame    int
	fired    int // watch notifications received
	pausedAt map[string]int
	// window is where, in model ms, the next notification may land when it
	// comes from a session the server ended; see ended.
	window  *[2]int
	behind  int
	stopped string
	// known is what a difference the suite knows of does: stop the
	// history, or skip the test that stands for it (see knownDifference).
	known func(t *testing.T, stop func(string), msg string)
}

// look runs one of the suite's own requests, again while its library has
// lost the connection (a stall of the machine), for up to 5 s.
func (p *zkReplay) look(req func() error) error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := req()
		if !errors.Is(err, zk.ErrNoServer) && !errors.Is(err, zk.ErrConnectionClosed) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(20 * time.Millisecond) // the library reconnects meanwhile
	}
}

// stop ends the comparison of the history with the reason.
func (p *zkReplay) stop(why string) { p.stopped = why }

func (p *zkReplay) model(at int) time.Time {
	return p.start.Add(time.Duration(at) * time.Millisecond / zkScale)
}

// sleepUntil waits for the real moment of model time at.
// A busy machine runs the replay late: the calls that make a
// notification go out late, and the notification comes late with them.
// behind is the most the replay has been late, in model ms, at a moment
// it meant to act, by which the latest moment a notification may come
// moves.
func (p *zkReplay) sleepUntil(at int) {
	if d := time.Until(p.model(at)); d > 0 {
		time.Sleep(d)
	}
	p.behind = max(p.behind, p.now()-at)
}

// now is the model time it is on the real server.
func (p *zkReplay) now() int { return int(time.Since(p.start).Milliseconds()) * zkScale }

func zkPlay(t *testing.T, z *realserver.ZooKeeper, obs *zkClient, h history.History, tl *history.Tally, known func(*testing.T, func(string), string)) {
	fs := frames(t, h)
	p := &zkReplay{t: t, h: h, tally: tl, z: z, obs: obs, known: known, clients: map[string]*zkClient{}, pausedAt: map[string]int{}}
	defer p.teardown()
	p.setup(fs[0].Frame.Frame)
	p.start = time.Now()
	replay(t, h, tl, fs, p)
}

func (p *zkReplay) at(frame int) { p.frame = frame }
func (p *zkReplay) why() string  { return p.stopped }

// teardown leaves the server as the next history needs it: no session but
// the suite's (a stopped client's ends with its timeout), and no znode.
func (p *zkReplay) teardown() {
	var wg sync.WaitGroup
	for _, c := range p.clients {
		c.gate.to(gateDead)
		wg.Go(c.conn.Close) // a closed session ends at once; a stopped one at its timeout
	}
	wg.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for len(p.alive()) > 1 {
		if time.Now().After(deadline) {
			p.t.Fatalf("the history's sessions still live 10 s after it ended: %v", p.alive())
		}
		time.Sleep(50 * time.Millisecond) // polling the server, not waiting for an outcome
	}
	var clear func(string)
	clear = func(path string) {
		var kids []string
		p.look(func() (err error) { kids, _, err = p.obs.conn.Children(path); return err })
		for _, k := range kids {
			if child := strings.TrimSuffix(path, "/") + "/" + k; child != "/zookeeper" {
				clear(child)
				if err := p.look(func() error { return p.obs.conn.Delete(child, -1) }); err != nil {
					p.t.Fatalf("clearing the server: delete %s: %v", child, err)
				}
			}
		}
	}
	clear("/")
}

// connect opens a session for name with the timeout asked for, through a
// gate of its own.
func (p *zkReplay) connect(name string, timeout int) *zkClient {
	t := p.t
	g := newGate()
	conn, ev, err := zk.Connect([]string{p.z.Addr()}, time.Duration(timeout)*time.Millisecond/zkScale,
		zk.WithDialer(g.dial), zk.WithLogInfo(false), zk.WithLogger(quiet{}))
	if err != nil {
		t.Fatalf("%s: connect: %v", name, err)
	}
	t.Cleanup(conn.Close)
	t.Cleanup(func() { g.to(gateDead) }) // first: a library held at the gate lets go
	for e := range ev {
		if e.State == zk.StateHasSession {
			break
		}
	}
	return &zkClient{conn: conn, session: ev, gate: g, id: conn.SessionID()}
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}

// setup plays the scenario's unseen setup, the sessions and the parents,
// and notes how far the server's zxid runs ahead of the model's.
func (p *zkReplay) setup(first demo.Frame) {
	sc := first.Scenario
	for _, a := range sc.Setup {
		switch a.Verb {
		case model.Session:
			p.clients[a.Who] = p.connect(a.Who, a.Args.(model.SessionArgs).TTL)
		case model.Create:
			if _, err := p.clients[a.Who].conn.Create(a.Args.(model.PathArgs).Path, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
				p.t.Fatalf("setup %q: %v", a.Source, err)
			}
		}
	}
	p.offset = p.lastZxid() - first.Store.(model.State).Zxid
}

// lastZxid asks the server its last zxid (the four-letter word srvr).
func (p *zkReplay) lastZxid() int64 {
	out := p.z.FourLetter(p.t, "srvr")
	for line := range strings.Lines(out) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "Zxid: 0x"); ok {
			var z int64
			if _, err := fmt.Sscanf(v, "%x", &z); err == nil {
				return z
			}
		}
	}
	p.t.Fatalf("srvr gave no Zxid:\n%s", out)
	return 0
}

func (p *zkReplay) event(f demo.Frame, ev demo.Event, line history.Line) {
	h := ev.Header()
	switch e := ev.(type) {
	case model.Call:
		p.sleepUntil(h.At)
		p.call(p.clients[h.Client], e, line)
	case demo.ClientChange:
		p.sleepUntil(h.At)
		p.change(f, h.Client, e.What, h.At)
	case model.WatchFired:
		p.fire(e)
	case model.SessionEnded:
		p.ended(f, e)
	}
}

// change plays a client stopping (a pause: its connection drops and it
// sends nothing), dying (for good) or going on (its library reconnects at
// once, and hears the notifications it missed, if its session lives).
func (p *zkReplay) change(f demo.Frame, client string, what demo.Kind, at int) {
	c := p.clients[client]
	switch what {
	case demo.Paused:
		c.paused = true
		c.gate.to(gateClosed)
		// The session's clock starts from the real pause: on a busy
		// machine the test reaches it late, and the server counts from
		// then, so the expiry window moves with it.
		p.pausedAt[client] = at + max(0, p.now()-at)
	case demo.Crashed:
		c.crashed = true
		c.gate.to(gateDead)
		if !c.paused {
			p.pausedAt[client] = at + max(0, p.now()-at)
		}
	case demo.Resumed:
		c.paused = false
		if s, ok := sessionOf(f, client); !ok || s.Ended >= 0 {
			return // it hears that its session ended when it reconnects
		}
		c.gate.to(gateOpen)
		p.await(c, client, zk.StateHasSession)
		for _, w := range c.owed {
			p.receive(c, client, w, true)
		}
		c.owed = nil
	}
}

// await waits for the client's library to report state.
func (p *zkReplay) await(c *zkClient, client string, state zk.State) {
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev := <-c.session:
			if ev.State == state {
				return
			}
			if ev.State == zk.StateExpired {
				p.stopped = fmt.Sprintf("%s's session had ended on the real server when it came back, where the page's lives: the server ended it within a window of the page's moment", client)
				c.gate.to(gateDead)
				return
			}
		case <-deadline:
			p.t.Fatalf("frame %d: %s: no %v from its library within 5 s", p.frame, client, state)
		}
	}
}

func wire(e demo.Event) string { call, _ := e.Wire(); return call }

// ZooKeeper numbers a sequential node by how many children its parent has
// had created (its sequence counter), not by creates and deletes: in
// zookeeper-recipe, A's lock node and its delete, then B's lock, is
// lock-0000000001 on ZooKeeper 3.8. The model counts the delete too and
// shows lock-0000000002: a known difference, reported, for the model to fix.
// Until then this test skips with that reason, and fails under CI; it
// passes once the model numbers as the server does.
func TestZooKeeperSequenceAfterDelete(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real ZooKeeper: not under -short")
	}
	t.Parallel()
	realserver.Binary(t, "java", "zookeeper")
	sc := testkit.Scenario(t, "zookeeper-recipe")
	h := history.History{Place: demo.Place{Sc: sc, On: true, Step: 1,
		Play: "A lock /locks/row-42\nA unlock /locks/row-42\nB lock /locks/row-42"}, Kind: history.Walk, Name: "delete-then-lock"}
	z := realserver.StartZooKeeper(t, 2000*time.Millisecond/zkScale)
	obs := (&zkReplay{t: t, z: z}).connect("(suite)", zkLongest)
	tl := history.NewTally("zookeeper, a lock after a delete")
	zkPlay(t, z, obs, h, tl, failKnown)
	if n := tl.Count("frames checked"); n != 4 {
		t.Errorf("checked %d frames of %s, want 4", n, h)
	}
}
