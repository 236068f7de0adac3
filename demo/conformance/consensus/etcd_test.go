package consensus

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/conformance/history"
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
// for expired leases every 500 ms (2500 model ms), plus 2500 (500 ms of
// real time) for a busy machine.
const etcdMargin = 5000

// TestEtcdScenarios replays etcd-lease's histories, in each position on a
// server of its own, one after another; each history's revisions are held
// against the server's from where its setup left the server.
func TestEtcdScenarios(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real etcd: not under -short")
	}
	t.Parallel() // beside ZooKeeper's
	realserver.Binary(t, "etcd", "etcd-server")
	tl := history.NewTally("etcd")
	t.Cleanup(func() { tl.Report(t) })
	sc := testkit.Scenario(t, "etcd-lease")
	for _, on := range []bool{false, true} {
		hs, err := history.Of(sc, on, etcdWalks)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(testkit.Name(sc, on), func(t *testing.T) {
			t.Parallel()
			srv := realserver.StartEtcd(t)
			cli := etcdClient(t, srv)
			for _, h := range hs {
				t.Run(h.Name, func(t *testing.T) { etcdPlay(t, cli, h, tl) })
			}
		})
	}
}

func etcdClient(t *testing.T, srv *realserver.Etcd) *clientv3.Client {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{srv.Endpoint()}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	return cli
}

// The limit that bounds the scale: etcd raises a TTL below its minimum.
func TestEtcdMinimumTTL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real etcd: not under -short")
	}
	cli := etcdClient(t, realserver.StartEtcd(t))
	g, err := cli.Grant(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if g.TTL != 2 {
		t.Fatalf("Grant(1) gave TTL %d; the model's minimum is 2 s", g.TTL)
	}
}

// etcdSession is one client's lease on the real server, kept alive in the
// background as concurrency.Session keeps it while its process runs.
type etcdSession struct {
	lease   clientv3.LeaseID
	id      string             // the model's lease id, which the page prints
	stop    context.CancelFunc // stops the library's KeepAlive loop
	watch   clientv3.WatchChan
	unwatch context.CancelFunc
	paused  bool
	crashed bool
}

type etcdReplay struct {
	t        *testing.T
	h        history.History
	tally    *history.Tally
	cli      *clientv3.Client
	clients  map[string]*etcdSession
	offset   int64 // the server's revision less the model's
	start    time.Time
	frame    int
	fired    int
	pausedAt map[string]int
	window   *[2]int
	behind   int
	stopped  string
}

// sleepUntil waits for the real moment of model time at; behind is the
// most the replay has been late, as the ZooKeeper replay's.
func (p *etcdReplay) sleepUntil(at int) {
	if d := time.Until(p.start.Add(time.Duration(at) * time.Millisecond / etcdScale)); d > 0 {
		time.Sleep(d)
	}
	p.behind = max(p.behind, p.now()-at)
}

func (p *etcdReplay) now() int { return int(time.Since(p.start).Milliseconds()) * etcdScale }

func etcdPlay(t *testing.T, cli *clientv3.Client, h history.History, tl *history.Tally) {
	fs := frames(t, h)
	p := &etcdReplay{t: t, h: h, tally: tl, cli: cli, clients: map[string]*etcdSession{}, pausedAt: map[string]int{}}
	defer p.teardown()
	for _, a := range h.Sc.Setup {
		if a.Verb == model.Session {
			p.grant(fs[0].Frame.Frame, a.Who, a.Args.(model.SessionArgs).TTL)
		}
	}
	p.offset = p.revision() - fs[0].Store.(model.State).Zxid
	p.start = time.Now()
	replay(t, h, tl, fs, p)
}

func (p *etcdReplay) at(frame int) { p.frame = frame }
func (p *etcdReplay) why() string  { return p.stopped }

// teardown leaves the server as the next history needs it: the history's
// leases revoked (with the keys on them) and no key under /locks/.
func (p *etcdReplay) teardown() {
	ctx := context.Background()
	for _, s := range p.clients {
		s.stop()
		if s.unwatch != nil {
			s.unwatch()
		}
		_, _ = p.cli.Revoke(ctx, s.lease)
	}
	if _, err := p.cli.Delete(ctx, "/locks/", clientv3.WithPrefix()); err != nil {
		p.t.Fatalf("clearing the server: %v", err)
	}
}

// revision returns the server's revision now.
func (p *etcdReplay) revision() int64 {
	r, err := p.cli.Get(context.Background(), "/locks/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		p.t.Fatalf("frame %d: revision: %v", p.frame, err)
	}
	return r.Header.Revision
}

// grant opens client's lease and keeps it alive, as the library does.
func (p *etcdReplay) grant(first demo.Frame, name string, ttl int) {
	asked := int64(ttl / etcdScale / 1000)
	g, err := p.cli.Grant(context.Background(), asked)
	if err != nil {
		p.t.Fatalf("%s: Grant(%d): %v", name, asked, err)
	}
	if g.TTL != asked {
		p.t.Fatalf("%s: Grant(%d) gave TTL %d", name, asked, g.TTL)
	}
	s, _ := sessionOf(first, name)
	p.clients[name] = &etcdSession{lease: g.ID, id: s.ID, stop: func() {}}
	p.keepAlive(name)
}

// keepAlive starts the library's keep-alive loop for the client's lease.
func (p *etcdReplay) keepAlive(name string) {
	s := p.clients[name]
	ctx, cancel := context.WithCancel(context.Background())
	ka, err := p.cli.KeepAlive(ctx, s.lease)
	if err != nil {
		cancel()
		p.t.Fatalf("%s: KeepAlive: %v", name, err)
	}
	go func() {
		for range ka {
		}
	}()
	s.stop = cancel
}

// real turns a key or a lease id the page prints, named after the model's
// lease, into the real one, named after the lease the server granted the
// same client; back does the reverse.
func (p *etcdReplay) real(shown string) string {
	for _, s := range p.clients {
		shown = strings.ReplaceAll(shown, s.id, fmt.Sprintf("%x", int64(s.lease)))
	}
	return shown
}

func (p *etcdReplay) back(key string) string {
	for _, s := range p.clients {
		key = strings.ReplaceAll(key, fmt.Sprintf("%x", int64(s.lease)), s.id)
	}
	return key
}

func (p *etcdReplay) event(f demo.Frame, ev demo.Event, line history.Line) {
	h := ev.Header()
	switch e := ev.(type) {
	case demo.ClientChange:
		p.sleepUntil(h.At)
		p.change(f, h.Client, e.What, h.At)
	case model.SessionEnded:
		p.ended(f, e)
	case model.WatchFired:
		p.fire(e)
	case model.Call:
		p.sleepUntil(h.At)
		p.call(e, line)
	}
}

// change plays a client stopping (its keep-alives stop with it), dying
// (its keep-alives and its watch stream end for good) or going on (the
// library's keep-alives start again, if the lease lives).
func (p *etcdReplay) change(f demo.Frame, client string, what demo.Kind, at int) {
	s := p.clients[client]
	switch what {
	case demo.Paused, demo.Crashed:
		s.stop()
		if !s.paused {
			// The lease's clock starts from the real pause: on a busy
			// machine the test reaches it late, and the server counts from
			// then, so the expiry window moves with it.
			p.pausedAt[client] = at + max(0, p.now()-at)
		}
		s.paused = true
		if what == demo.Crashed {
			s.crashed = true
			if s.unwatch != nil {
				s.unwatch()
			}
		}
	case demo.Resumed:
		s.paused = false
		if m, ok := sessionOf(f, client); ok && m.Ended < 0 {
			p.keepAlive(client)
		}
	}
}

// The calls the page prints, as clientv3 names them.
var (
	txnLock     = regexp.MustCompile(`^Txn If\(CreateRevision\("([^"]*)"\) = 0\) Then\(Put\("([^"]*)", "", WithLease\(([0-9a-f]+)\)\), Get\("([^"]*)", WithFirstCreate\(\)\)\)$`)
	waitDeletes = regexp.MustCompile(`^Get\("([^"]*)", WithLastCreate\(\), WithMaxCreateRev\(([0-9]+)\)\)(?:; Watch\("([^"]*)", WithRev\(([0-9]+)\)\))?$`)
	deleteKey   = regexp.MustCompile(`^Delete\("([^"]*)"\)$`)
	keepAlive   = regexp.MustCompile(`^LeaseKeepAlive\(([0-9a-f]+)\)$`)
)

// etcdCall is a call the page prints, read back, in the model's terms.
type etcdCall struct {
	op          model.Op
	key, prefix string
	lease       string
	rev, watch  int64 // WithMaxCreateRev, and the watch's WithRev
	watchKey    string
}

func parseEtcd(line string) (etcdCall, error) {
	switch {
	case txnLock.MatchString(line):
		m := txnLock.FindStringSubmatch(line)
		if m[1] != m[2] {
			return etcdCall{}, fmt.Errorf("%q: the Txn compares %s but puts %s", line, m[1], m[2])
		}
		return etcdCall{op: model.OpTxnLock, key: m[1], lease: m[3], prefix: m[4]}, nil
	case waitDeletes.MatchString(line):
		m := waitDeletes.FindStringSubmatch(line)
		c := etcdCall{op: model.OpWaitDeletes, prefix: m[1], watchKey: m[3]}
		c.rev, _ = strconv.ParseInt(m[2], 10, 64)
		if m[4] != "" {
			c.watch, _ = strconv.ParseInt(m[4], 10, 64)
		}
		return c, nil
	case deleteKey.MatchString(line):
		return etcdCall{op: model.OpDelete, key: deleteKey.FindStringSubmatch(line)[1]}, nil
	case keepAlive.MatchString(line):
		return etcdCall{op: model.OpReconnect, lease: keepAlive.FindStringSubmatch(line)[1]}, nil
	}
	return etcdCall{}, fmt.Errorf("%q: not a clientv3 call the suite knows", line)
}

// same says how the call the page prints differs from the model's.
func (c etcdCall) same(e model.Call) string {
	want := etcdCall{op: e.Op}
	switch e.Op {
	case model.OpTxnLock:
		want.key, want.lease, want.prefix = e.Path, e.Session, e.Path[:strings.LastIndexByte(e.Path, '/')+1]
	case model.OpWaitDeletes:
		want.prefix, want.rev = e.Path, e.Zxid
		if e.Watch {
			want.watchKey, want.watch = e.Owner, e.Rev
		}
	case model.OpDelete:
		want.key = e.Path
	case model.OpReconnect:
		want.lease = e.Session
	}
	if c != want {
		return fmt.Sprintf("the page prints %+v, the model sent %+v", c, want)
	}
	return ""
}

// call sends the call the page prints and compares the answer with the
// page's.
func (p *etcdReplay) call(e model.Call, line history.Line) {
	t := p.t
	label := fmt.Sprintf("frame %d, t=%dms %s: %s", p.frame, e.At, e.Client, line.Call)
	if _, want := e.Wire(); line.Reply != want {
		t.Errorf("%s: the page shows the reply %q, the model's %q", label, line.Reply, want)
	}
	c, err := parseEtcd(line.Call)
	if err == nil {
		if d := c.same(e); d != "" {
			err = errors.New(d)
		}
	}
	if err != nil {
		t.Errorf("%s: %v\n\thistory: %s", label, err, p.h)
		return
	}
	p.tally.Add("calls", 1)
	ctx := context.Background()
	s := p.clients[e.Client]
	switch c.op {
	case model.OpTxnLock:
		key, pfx := p.real(c.key), c.prefix
		resp, err := p.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
			Then(clientv3.OpPut(key, "", clientv3.WithLease(s.lease)), clientv3.OpGet(pfx, clientv3.WithFirstCreate()...)).
			Else(clientv3.OpGet(key), clientv3.OpGet(pfx, clientv3.WithFirstCreate()...)).Commit()
		if err != nil || !resp.Succeeded {
			t.Fatalf("%s: %v (succeeded %v)", label, err, resp != nil && resp.Succeeded)
		}
		owner := resp.Responses[1].GetResponseRange().Kvs[0]
		if resp.Header.Revision-p.offset != e.Rev || p.back(string(owner.Key)) != e.Owner || owner.CreateRevision-p.offset != e.OwnerZxid {
			t.Errorf("%s: revision %d, oldest %s (CreateRevision %d); the page shows revision %d, %s (%d)\n\thistory: %s",
				label, resp.Header.Revision-p.offset, p.back(string(owner.Key)), owner.CreateRevision-p.offset, e.Rev, e.Owner, e.OwnerZxid, p.h)
		}
	case model.OpWaitDeletes:
		p.waitDeletes(s, c, e, label)
	case model.OpDelete:
		resp, err := p.cli.Delete(ctx, p.real(c.key))
		if err != nil || (resp.Deleted == 1) != e.OK || e.OK && resp.Header.Revision-p.offset != e.Rev {
			t.Errorf("%s: %v %v; the page shows %q\n\thistory: %s", label, resp, err, line.Reply, p.h)
		}
	case model.OpReconnect:
		_, err := p.cli.KeepAliveOnce(ctx, s.lease)
		if lost := errors.Is(err, rpctypes.ErrLeaseNotFound); lost == e.OK {
			t.Errorf("%s: %v; the page says the lease lives: %v\n\thistory: %s", label, err, e.OK, p.h)
		}
	}
}

// waitDeletes is concurrency.Mutex's waitDeletes: the newest key older than
// the client's, and a Watch for its deletion from the revision read.
func (p *etcdReplay) waitDeletes(s *etcdSession, c etcdCall, e model.Call, label string) {
	t := p.t
	opts := append(clientv3.WithLastCreate(), clientv3.WithMaxCreateRev(c.rev+p.offset))
	resp, err := p.cli.Get(context.Background(), c.prefix, opts...)
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	if c.watchKey == "" {
		if len(resp.Kvs) != 0 {
			t.Errorf("%s: %s, the page shows no older key\n\thistory: %s", label, p.back(string(resp.Kvs[0].Key)), p.h)
		}
		return
	}
	if len(resp.Kvs) != 1 || p.back(string(resp.Kvs[0].Key)) != c.watchKey || resp.Kvs[0].CreateRevision-p.offset != e.OwnerZxid {
		t.Errorf("%s: %v, the page shows %s (CreateRevision %d)\n\thistory: %s", label, resp.Kvs, c.watchKey, e.OwnerZxid, p.h)
		return
	}
	if resp.Header.Revision-p.offset != c.watch {
		t.Errorf("%s: read at revision %d, the page watches from %d\n\thistory: %s", label, resp.Header.Revision-p.offset, c.watch, p.h)
	}
	if s.unwatch != nil {
		s.unwatch()
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.watch, s.unwatch = p.cli.Watch(ctx, p.real(c.watchKey), clientv3.WithRev(c.watch+p.offset)), cancel
}

// fire plays the one notification the model delivers: the DELETE must
// arrive, of the page's key at the page's revision (one that a lease's end
// made, within that end's window); a crashed client's watch stream ended
// with it.
func (p *etcdReplay) fire(e model.WatchFired) {
	s := p.clients[e.Client]
	if s.crashed {
		p.t.Errorf("frame %d, t=%dms: the page delivers %s %s to %s, which crashed: its watch stream ended with it\n\thistory: %s", p.frame, e.At, e.Type, e.Path, e.Client, p.h)
		return
	}
	select {
	case resp := <-s.watch:
		p.fired++
		s.watch = nil
		if len(resp.Events) != 1 || resp.Events[0].Type.String() != e.Type ||
			p.back(string(resp.Events[0].Kv.Key)) != e.Path || resp.Header.Revision-p.offset != e.Rev {
			p.t.Errorf("frame %d: %s's watch: %+v, the page shows %s %s at revision %d\n\thistory: %s", p.frame, e.Client, resp, e.Type, e.Path, e.Rev, p.h)
		}
		// One that a lease's end made must come within that end's window;
		// one that a call made comes after the call.
		if p.window != nil {
			p.within(e.Client+"'s "+e.Type, e.At, p.window[0], p.window[1])
			p.window = nil
		}
	case <-time.After(10 * time.Second):
		p.t.Fatalf("frame %d: %s's watch on %s never fired\n\thistory: %s", p.frame, e.Client, e.Path, p.h)
	}
}

func (p *etcdReplay) within(what string, at, lo, hi int) {
	if got := p.now(); got < lo || got > hi+p.behind {
		p.t.Errorf("frame %d: %s at model t=%dms on the real server, the page shows t=%dms (allowed %d..%d, and the replay ran %d late)\n\thistory: %s", p.frame, what, got, at, lo, hi, p.behind, p.h)
	}
}

// expiry is where, in model ms, the server may end client's lease: the
// model renews it from its start every third of the TTL, the library from
// its own, so the last renewal before the pause is known within one
// period; and the lessor looks every 500 ms.
func (p *etcdReplay) expiry(f demo.Frame, client string) (lo, hi int, ok bool) {
	s, found := sessionOf(f, client)
	paused, stopped := p.pausedAt[client]
	if !found || !stopped {
		return 0, 0, false
	}
	return paused - s.Every + s.TTL - 1000, paused + s.TTL + etcdMargin, true
}

// ended plays the server revoking a lease whose keep-alives stopped: the
// suite waits until the real server has (the lease gone), and checks that
// it did so within the window of the model's moment, and that its keys
// went with it at the page's revision.
func (p *etcdReplay) ended(f demo.Frame, e model.SessionEnded) {
	lo, hi, ok := p.expiry(f, e.Client)
	if !ok {
		p.t.Fatalf("frame %d: the page ends %s's lease, which was never stopped", p.frame, e.Client)
	}
	deadline := p.start.Add(time.Duration(hi)*time.Millisecond/etcdScale + time.Second)
	for p.leaseLives(p.clients[e.Client].lease) {
		if time.Now().After(deadline) {
			p.t.Fatalf("frame %d: %s's lease still lives on the real server at t=%dms; the page ends it at t=%dms\n\thistory: %s", p.frame, e.Client, p.now(), e.At, p.h)
		}
		time.Sleep(20 * time.Millisecond) // polling the server, not waiting for an outcome
	}
	p.within(e.Client+"'s lease's end", e.At, lo, hi)
	p.window = &[2]int{lo, hi + etcdMargin}
	// An expired lease shows no time to live a moment before its revoke,
	// which deletes its keys, is applied.
	for len(e.Deleted) > 0 && p.revision()-p.offset < e.Rev {
		if time.Now().After(deadline) {
			p.t.Fatalf("frame %d: %s's lease has expired on the real server, and its revoke is not applied at t=%dms\n\thistory: %s", p.frame, e.Client, p.now(), p.h)
		}
		time.Sleep(5 * time.Millisecond) // polling the server, not waiting for an outcome
	}
}

// leaseLives asks the server whether a lease is there: TimeToLive answers
// the whole seconds it has left (0 in its last second), and -1 for none.
func (p *etcdReplay) leaseLives(id clientv3.LeaseID) bool {
	r, err := p.cli.TimeToLive(context.Background(), id)
	if err != nil {
		p.t.Fatalf("frame %d: TimeToLive: %v", p.frame, err)
	}
	return r.TTL >= 0
}

// check holds the real server against the frame: its revision, every key
// under /locks/ with its create revision and lease, which leases live, and
// the notifications delivered.
func (p *etcdReplay) check(f demo.Frame) {
	st := f.Store.(model.State)
	var diffs []string
	resp, err := p.cli.Get(context.Background(), "/locks/", clientv3.WithPrefix())
	if err != nil {
		p.t.Fatalf("frame %d: Get /locks/: %v", p.frame, err)
	}
	if got := resp.Header.Revision - p.offset; got != st.Zxid {
		diffs = append(diffs, fmt.Sprintf("revision %d, the page %d", got, st.Zxid))
	}
	real := map[string]string{}
	for _, kv := range resp.Kvs {
		real[p.back(string(kv.Key))] = fmt.Sprintf("CreateRevision %d, lease %x", kv.CreateRevision-p.offset, kv.Lease)
	}
	for _, e := range st.Entries {
		want := fmt.Sprintf("CreateRevision %d, lease %x", e.Zxid, int64(p.clients[e.Owner].lease))
		if got, ok := real[e.Path]; !ok || got != want {
			diffs = append(diffs, fmt.Sprintf("%s: the server has %q, the page %q", e.Path, got, want))
		}
		delete(real, e.Path)
		p.tally.Add("keys compared", 1)
	}
	for k, v := range real {
		diffs = append(diffs, fmt.Sprintf("the server has %s (%s), which the page does not show", k, v))
	}
	for name, s := range p.clients {
		m, ok := sessionOf(f, name)
		if lo, hi, stopped := p.expiry(f, name); !ok || stopped && lo <= f.Now && f.Now <= hi && m.Ended < 0 {
			continue // too close to call
		}
		if got, want := p.leaseLives(s.lease), m.Ended < 0; got != want {
			diffs = append(diffs, fmt.Sprintf("%s's lease lives: %t on the server, %t on the page", name, got, want))
		}
	}
	if got := p.fired; got != st.Notified {
		diffs = append(diffs, fmt.Sprintf("watch notifications %d delivered, the page counts %d", got, st.Notified))
	}
	p.tally.Add("frames checked", 1)
	if len(diffs) > 0 {
		p.t.Errorf("frame %d, t=%dms: the page is not the real etcd:\n\t%s\n\thistory: %s", f.Index, f.Now, strings.Join(diffs, "\n\t"), p.h)
	}
}
