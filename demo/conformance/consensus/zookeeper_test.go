// Package consensus checks the page's consensus scenarios against a real
// ZooKeeper (Debian's zookeeper, 3.8) and a real etcd (Debian's
// etcd-server, 3.4): each scenario's wire is replayed with kept client
// libraries (github.com/go-zookeeper/zk, go.etcd.io/etcd/client/v3), and
// what the page shows (sequence numbers, czxids, create revisions, which
// watch fires, how many notifications, when a session or lease ends) is
// compared with what the server answers. Without the servers the tests
// skip with a one-line reason, except under CI.
package consensus

import (
	"errors"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/distlock/fencing-demo/demo"
	model "github.com/distlock/fencing-demo/demo/consensus"
	"github.com/distlock/fencing-demo/internal/realserver"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// zkScale is how much faster than the model the ZooKeeper replays run. The
// model's tickTime is 2000 ms, so the server runs with tickTime 200 ms and a
// 10 s session lasts 1 s. The server checks sessions once a tick and ends a
// session up to one tick after its deadline, which bounds the scale: a tick
// must stay well above the machine's scheduling noise.
const zkScale = 10

// zkMargin is how far, in model ms, the moment a session ends may land from
// the model's: one tick (2000 model ms) of the server's bucketed expiry,
// plus 1000 for a busy machine.
const zkMargin = 3000

// gate stands between one client and the server: closed, it drops the
// client's connection and refuses new ones, so the server hears nothing
// from it, as from a process stopped by a GC pause.
type gate struct {
	closed atomic.Bool
	mu     sync.Mutex
	conns  []net.Conn
}

func (g *gate) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	if g.closed.Load() {
		return nil, errors.New("paused")
	}
	c, err := net.DialTimeout(network, addr, timeout)
	if err == nil {
		g.mu.Lock()
		g.conns = append(g.conns, c)
		g.mu.Unlock()
	}
	return c, err
}

func (g *gate) close() {
	g.closed.Store(true)
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range g.conns {
		_ = c.Close()
	}
	g.conns = nil
}

// zkClient is one of the scenario's clients on the real server.
type zkClient struct {
	conn    *zk.Conn
	session <-chan zk.Event
	gate    *gate
	watch   <-chan zk.Event // the one watch it has armed, if any
}

// zkReplay plays sc's wire against a fresh server and checks each answer.
type zkReplay struct {
	t        *testing.T
	z        *realserver.ZooKeeper
	clients  map[string]*zkClient
	start    time.Time
	fired    int // watch notifications seen
	pausedAt map[string]int
	// window is where, in model ms, the next notification may land when it
	// comes from a session the server ended; see ended.
	window *[2]int
}

func (p *zkReplay) model(at int) time.Time {
	return p.start.Add(time.Duration(at) * time.Millisecond / zkScale)
}

// sleepUntil waits for the real moment of model time at.
func (p *zkReplay) sleepUntil(at int) {
	if d := time.Until(p.model(at)); d > 0 {
		time.Sleep(d)
	}
}

func (p *zkReplay) connect(name string, timeout int) {
	t := p.t
	g := &gate{}
	conn, ev, err := zk.Connect([]string{p.z.Addr()}, time.Duration(timeout)*time.Millisecond/zkScale,
		zk.WithDialer(g.dial), zk.WithLogInfo(false), zk.WithLogger(quiet{}))
	if err != nil {
		t.Fatalf("%s: connect: %v", name, err)
	}
	t.Cleanup(conn.Close)
	for e := range ev {
		if e.State == zk.StateHasSession {
			break
		}
	}
	p.clients[name] = &zkClient{conn: conn, session: ev, gate: g}
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}

// setup plays the scenario's unseen setup: the sessions and the parents.
func (p *zkReplay) setup(sc *demo.Scenario) {
	for _, a := range sc.Setup {
		switch a.Verb {
		case model.Session:
			p.connect(a.Who, a.Args.(model.SessionArgs).TTL)
		case model.Create:
			if _, err := p.clients[a.Who].conn.Create(a.Args.(model.PathArgs).Path, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
				p.t.Fatalf("setup %q: %v", a.Source, err)
			}
		}
	}
}

func (p *zkReplay) event(sc *demo.Scenario, e demo.Event) {
	t := p.t
	h := e.Header()
	c := p.clients[h.Client]
	switch e := e.(type) {
	case model.Call:
		p.sleepUntil(h.At)
		p.call(c, e)
	case demo.ClientChange:
		p.sleepUntil(h.At)
		if e.What == demo.Paused {
			c.gate.close()
			// The session's clock starts from the real pause: on a busy
			// machine the test reaches it late, and the server counts from
			// then, so the expiry window moves with it.
			late := max(0, int(time.Since(p.model(h.At)).Milliseconds())*zkScale)
			p.pausedAt[h.Client] = h.At + late
		}
	case model.WatchFired:
		// The one notification the model delivers must arrive, with its
		// type and path, close to the model's moment.
		select {
		case got := <-c.watch:
			p.fired++
			c.watch = nil
			if got.Type.String() != "Event"+e.Type || got.Path != e.Path {
				t.Fatalf("%s's watch: %s %s, page shows %s %s", h.Client, got.Type, got.Path, e.Type, e.Path)
			}
			if w := p.window; w != nil {
				p.within(h.Client+"'s "+e.Type, h.At, w[0], w[1])
				p.window = nil
			} else {
				p.within(h.Client+"'s "+e.Type, h.At, h.At-zkMargin, h.At+zkMargin)
			}
		case <-time.After(time.Duration(h.At+10*zkMargin)*time.Millisecond/zkScale + time.Second):
			t.Fatalf("%s's watch on %s never fired; the page shows %s at t=%dms", h.Client, e.Path, e.Type, h.At)
		}
	case model.SessionEnded:
		// Seen from the waiter's side: its watch fires when the server
		// deletes the node. The model keeps the session alive from its
		// start every third of the timeout, the library from its own
		// connection, so the last ping before the pause is known only
		// within one period; and the server ends sessions in tickTime
		// buckets, up to one tick late.
		s := p.session(sc, h.Client)
		paused := p.pausedAt[h.Client]
		p.window = &[2]int{paused - s.Every + s.TTL - zkMargin/3, paused + s.TTL + zkMargin}
	}
}

// within checks that now, in model time, lies in [lo, hi].
func (p *zkReplay) within(what string, at, lo, hi int) {
	got := int(time.Since(p.start).Milliseconds()) * zkScale
	if got < lo || got > hi {
		p.t.Fatalf("%s at model t=%dms on the real server, the page shows t=%dms (allowed %d..%d)", what, got, at, lo, hi)
	}
	p.t.Logf("%s: model t=%dms, real server t=%dms (allowed %d..%d)", what, at, got, lo, hi)
}

func (p *zkReplay) session(sc *demo.Scenario, client string) model.SessionState {
	r, _ := demo.Replay(sc, true, 1)
	for _, s := range r.Frame().Store.(model.State).Sessions {
		if s.Client == client {
			return s
		}
	}
	p.t.Fatalf("no session for %s", client)
	return model.SessionState{}
}

func (p *zkReplay) call(c *zkClient, e model.Call) {
	t := p.t
	switch e.Op {
	case model.OpCreate:
		flags := int32(0)
		if e.Sequential {
			flags = zk.FlagEphemeral | zk.FlagSequence
		}
		path, err := c.conn.Create(e.Path, nil, flags, zk.WorldACL(zk.PermAll))
		if err != nil {
			t.Fatalf("%s: %v", wire(e), err)
		}
		if path != e.Created {
			t.Fatalf("%s: server created %s, the page shows %s", wire(e), path, e.Created)
		}
		_, st, err := c.conn.Exists(path)
		if err != nil || st.Czxid != e.Zxid {
			t.Fatalf("%s: czxid 0x%x (%v), the page shows 0x%x", path, st.Czxid, err, e.Zxid)
		}
	case model.OpChildren:
		var kids []string
		var err error
		if e.Watch {
			kids, _, c.watch, err = c.conn.ChildrenW(e.Path)
		} else {
			kids, _, err = c.conn.Children(e.Path)
		}
		slices.Sort(kids)
		if err != nil || !slices.Equal(kids, e.Children) {
			t.Fatalf("%s: %v (%v), the page shows %v", wire(e), kids, err, e.Children)
		}
	case model.OpExists:
		ok, st, ch, err := c.conn.ExistsW(e.Path)
		if err != nil || !ok || st.Czxid != e.Zxid {
			t.Fatalf("%s: exists=%v czxid=0x%x (%v), the page shows 0x%x", wire(e), ok, st.Czxid, err, e.Zxid)
		}
		c.watch = ch
	case model.OpDelete:
		if err := c.conn.Delete(e.Path, -1); err != nil {
			t.Fatalf("%s: %v", wire(e), err)
		}
	case model.OpReconnect:
		// Let the client reach the server again: only now does it hear
		// that its session is gone.
		c.gate.closed.Store(false)
		deadline := time.After(5 * time.Second)
		for {
			select {
			case ev := <-c.session:
				if ev.State == zk.StateExpired {
					if e.OK {
						t.Fatalf("%s: the server says Expired, the page says the session lives", wire(e))
					}
					return
				}
			case <-deadline:
				t.Fatalf("%s: no Expired event within 5 s", wire(e))
			}
		}
	}
}

func wire(e demo.Event) string { call, _ := e.Wire(); return call }

func TestZooKeeperScenarios(t *testing.T) {
	c := testkit.Catalog(t)
	if testing.Short() {
		t.Skip("starts a real ZooKeeper: not under -short")
	}
	for _, id := range []string{"zookeeper-recipe", "zookeeper-session-expiry"} {
		sc, ok := c.Get(id)
		if !ok {
			t.Fatalf("scenarios.yaml has no %s", id)
		}
		for _, on := range []bool{true, false} {
			t.Run(testkit.Name(sc, on), func(t *testing.T) {
				z := realserver.StartZooKeeper(t, 2000*time.Millisecond/zkScale)
				r, err := demo.Replay(sc, on, sc.Frames())
				if err != nil {
					t.Fatal(err)
				}
				f := r.Frame()
				p := &zkReplay{t: t, z: z, clients: map[string]*zkClient{}, pausedAt: map[string]int{}}
				p.setup(sc)
				p.start = time.Now()
				for _, e := range f.Events {
					p.event(sc, e)
				}
				// No watch fired that the page does not show: a notification
				// still waiting on any channel would be one too many.
				time.Sleep(2 * zkMargin * time.Millisecond / zkScale)
				for name, cl := range p.clients {
					select {
					case ev := <-cl.watch:
						t.Fatalf("%s got %s %s, which the page does not show", name, ev.Type, ev.Path)
					default:
					}
				}
				if got, want := p.fired, f.Store.(model.State).Notified; got != want {
					t.Fatalf("watch notifications=%d on the server, the page counts %d", got, want)
				}
			})
		}
	}
}
