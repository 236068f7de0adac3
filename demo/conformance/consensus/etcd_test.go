package consensus

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/distlock/fencing-demo/demo"
	model "github.com/distlock/fencing-demo/demo/consensus"
	"github.com/distlock/fencing-demo/internal/realserver"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// etcdScale is how much faster than the model the etcd replay runs. Lease
// TTLs are whole seconds and etcd raises any TTL below its minimum (2 s with
// the default 1000 ms election timeout), so the model's 10 s lease can be
// scaled by 5 at most: it lasts 2 s on the real server.
const etcdScale = 5

// etcdMargin is how late, in model ms, a lease may end: etcd's lessor looks
// for expired leases every 500 ms (2500 model ms), plus 1500 for a busy
// machine.
const etcdMargin = 4000

type etcdClient struct {
	lease clientv3.LeaseID
	stop  context.CancelFunc // stops the library's KeepAlive loop
	watch clientv3.WatchChan
}

type etcdReplay struct {
	t        *testing.T
	cli      *clientv3.Client
	clients  map[string]*etcdClient
	start    time.Time
	pausedAt map[string]int
	window   *[2]int
	fired    int
}

func (p *etcdReplay) sleepUntil(at int) {
	if d := time.Until(p.start.Add(time.Duration(at) * time.Millisecond / etcdScale)); d > 0 {
		time.Sleep(d)
	}
}

// key turns the page's key, named after the model's lease id, into the real
// one, named after the lease the server granted to the same client.
func (p *etcdReplay) key(sc *demo.Scenario, shown string) string {
	r, _ := demo.Replay(sc, true, 1)
	for _, s := range r.Frame().Store.(model.State).Sessions {
		if strings.HasSuffix(shown, "/"+s.ID) {
			return strings.TrimSuffix(shown, s.ID) + fmt.Sprintf("%x", int64(p.clients[s.Client].lease))
		}
	}
	return shown
}

func (p *etcdReplay) grant(name string, ttl int) {
	t := p.t
	ctx := context.Background()
	asked := int64(ttl / etcdScale / 1000)
	g, err := p.cli.Grant(ctx, asked)
	if err != nil {
		t.Fatalf("%s: Grant(%d): %v", name, asked, err)
	}
	if g.TTL != asked {
		t.Fatalf("%s: Grant(%d) gave TTL %d", name, asked, g.TTL)
	}
	kctx, cancel := context.WithCancel(ctx)
	ka, err := p.cli.KeepAlive(kctx, g.ID)
	if err != nil {
		t.Fatalf("%s: KeepAlive: %v", name, err)
	}
	go func() {
		for range ka {
		}
	}()
	t.Cleanup(cancel)
	p.clients[name] = &etcdClient{lease: g.ID, stop: cancel}
}

func (p *etcdReplay) within(what string, at, lo, hi int) {
	got := int(time.Since(p.start).Milliseconds()) * etcdScale
	if got < lo || got > hi {
		p.t.Fatalf("%s at model t=%dms on the real server, the page shows t=%dms (allowed %d..%d)", what, got, at, lo, hi)
	}
	p.t.Logf("%s: model t=%dms, real server t=%dms (allowed %d..%d)", what, at, got, lo, hi)
}

func (p *etcdReplay) event(sc *demo.Scenario, e demo.Event) {
	t := p.t
	ctx := context.Background()
	h := e.Header()
	c := p.clients[h.Client]
	switch e := e.(type) {
	case demo.ClientChange:
		p.sleepUntil(h.At)
		if e.What == demo.Paused {
			c.stop() // the KeepAlive goroutine stops with the process
			// The lease's clock starts from the real pause: on a busy
			// machine the test reaches it late, and the server counts from
			// then, so the expiry window moves with it.
			late := max(0, int(time.Since(p.start.Add(time.Duration(h.At)*time.Millisecond/etcdScale)).Milliseconds())*etcdScale)
			p.pausedAt[h.Client] = h.At + late
		}
	case model.SessionEnded:
		r, _ := demo.Replay(sc, true, 1)
		for _, s := range r.Frame().Store.(model.State).Sessions {
			if s.Client == h.Client {
				paused := p.pausedAt[h.Client]
				p.window = &[2]int{paused - s.Every + s.TTL - 1000, paused + s.TTL + etcdMargin}
			}
		}
	case model.WatchFired:
		select {
		case resp := <-c.watch:
			p.fired++
			c.watch = nil
			if len(resp.Events) != 1 || resp.Events[0].Type.String() != e.Type ||
				string(resp.Events[0].Kv.Key) != p.key(sc, e.Path) || resp.Header.Revision != e.Rev {
				t.Fatalf("%s's watch: %+v, the page shows %s %s at revision %d", h.Client, resp, e.Type, e.Path, e.Rev)
			}
			lo, hi := h.At-etcdMargin, h.At+etcdMargin
			if p.window != nil {
				lo, hi = p.window[0], p.window[1]
				p.window = nil
			}
			p.within(h.Client+"'s "+e.Type, h.At, lo, hi)
		case <-time.After(10 * time.Second):
			t.Fatalf("%s's watch on %s never fired", h.Client, e.Path)
		}
	case model.Call:
		p.sleepUntil(h.At)
		key := p.key(sc, e.Path)
		switch e.Op {
		case model.OpTxnLock:
			pfx := parentKey(key)
			resp, err := p.cli.Txn(ctx).
				If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
				Then(clientv3.OpPut(key, "", clientv3.WithLease(c.lease)), clientv3.OpGet(pfx, clientv3.WithFirstCreate()...)).
				Else(clientv3.OpGet(key), clientv3.OpGet(pfx, clientv3.WithFirstCreate()...)).Commit()
			if err != nil || !resp.Succeeded {
				t.Fatalf("%s: %v (succeeded %v)", wire(e), err, resp != nil && resp.Succeeded)
			}
			owner := resp.Responses[1].GetResponseRange().Kvs[0]
			if resp.Header.Revision != e.Rev || string(owner.Key) != p.key(sc, e.Owner) || owner.CreateRevision != e.OwnerZxid {
				t.Fatalf("%s: revision %d, oldest %s (CreateRevision %d); the page shows revision %d, %s (%d)",
					wire(e), resp.Header.Revision, owner.Key, owner.CreateRevision, e.Rev, p.key(sc, e.Owner), e.OwnerZxid)
			}
		case model.OpWaitDeletes:
			opts := append(clientv3.WithLastCreate(), clientv3.WithMaxCreateRev(e.Zxid))
			resp, err := p.cli.Get(ctx, e.Path, opts...)
			if err != nil {
				t.Fatalf("%s: %v", wire(e), err)
			}
			if !e.Watch {
				if len(resp.Kvs) != 0 {
					t.Fatalf("%s: %s, the page shows no older key", wire(e), resp.Kvs[0].Key)
				}
				return
			}
			if len(resp.Kvs) != 1 || string(resp.Kvs[0].Key) != p.key(sc, e.Owner) || resp.Kvs[0].CreateRevision != e.OwnerZxid {
				t.Fatalf("%s: %v, the page shows %s (CreateRevision %d)", wire(e), resp.Kvs, e.Owner, e.OwnerZxid)
			}
			wctx, cancel := context.WithCancel(ctx)
			t.Cleanup(cancel)
			c.watch = p.cli.Watch(wctx, string(resp.Kvs[0].Key), clientv3.WithRev(resp.Header.Revision))
		case model.OpDelete:
			resp, err := p.cli.Delete(ctx, key)
			if err != nil || resp.Deleted != 1 || resp.Header.Revision != e.Rev {
				t.Fatalf("%s: %v, the page shows revision %d", wire(e), err, e.Rev)
			}
		case model.OpReconnect:
			_, err := p.cli.KeepAliveOnce(ctx, c.lease)
			if lost := errors.Is(err, rpctypes.ErrLeaseNotFound); lost == e.OK {
				t.Fatalf("%s: %v; the page says the lease lives: %v", wire(e), err, e.OK)
			}
		}
	}
}

func parentKey(key string) string { return key[:strings.LastIndexByte(key, '/')+1] }

func TestEtcdScenarios(t *testing.T) {
	sc := testkit.Scenario(t, "etcd-lease")
	for _, on := range []bool{true, false} {
		t.Run(testkit.Name(sc, on), func(t *testing.T) {
			if testing.Short() {
				t.Skip("starts a real etcd: not under -short")
			}
			srv := realserver.StartEtcd(t)
			cli, err := clientv3.New(clientv3.Config{Endpoints: []string{srv.Endpoint()}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cli.Close() })
			r, err := demo.Replay(sc, on, sc.Frames())
			if err != nil {
				t.Fatal(err)
			}
			f := r.Frame()
			p := &etcdReplay{t: t, cli: cli, clients: map[string]*etcdClient{}, pausedAt: map[string]int{}}
			for _, a := range sc.Setup {
				if a.Verb == model.Session {
					p.grant(a.Who, a.Args.(model.SessionArgs).TTL)
				}
			}
			p.start = time.Now()
			for _, e := range f.Events {
				p.event(sc, e)
			}
			if got, want := p.fired, f.Store.(model.State).Notified; got != want {
				t.Fatalf("watch notifications=%d on the server, the page counts %d", got, want)
			}
		})
	}
}

// The limit that bounds the scale: etcd raises a TTL below its minimum.
func TestEtcdMinimumTTL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real etcd: not under -short")
	}
	srv := realserver.StartEtcd(t)
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{srv.Endpoint()}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	g, err := cli.Grant(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if g.TTL != 2 {
		t.Fatalf("Grant(1) gave TTL %d; the model's minimum is 2 s", g.TTL)
	}
}
