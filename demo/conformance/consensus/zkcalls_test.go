package consensus

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/conformance/history"
	model "github.com/distlock/fencing-demo/demo/consensus"
)

// zkCall is a zkCli command as the page prints it, read back.
type zkCall struct {
	op         model.Op
	path       string
	seq, watch bool
	session    string // reconnect
}

// parseZK reads a command line the page prints for a ZooKeeper call: create
// [-e -s] PATH, ls [-w] PATH, stat -w PATH, delete PATH, or the client's
// reconnect.
func parseZK(line string) (zkCall, error) {
	if s, ok := strings.CutPrefix(line, "(reconnect, session "); ok && strings.HasSuffix(s, ")") {
		return zkCall{op: model.OpReconnect, session: strings.TrimSuffix(s, ")")}, nil
	}
	f := strings.Fields(line)
	if len(f) < 1 {
		return zkCall{}, fmt.Errorf("%q: an empty command", line)
	}
	var c zkCall
	switch {
	case f[0] == "create" && len(f) == 4 && f[1] == "-e" && f[2] == "-s":
		c = zkCall{op: model.OpCreate, seq: true, path: f[3]}
	case f[0] == "create" && len(f) == 2:
		c = zkCall{op: model.OpCreate, path: f[1]}
	case f[0] == "ls" && len(f) == 3 && f[1] == "-w":
		c = zkCall{op: model.OpChildren, watch: true, path: f[2]}
	case f[0] == "ls" && len(f) == 2:
		c = zkCall{op: model.OpChildren, path: f[1]}
	case f[0] == "stat" && len(f) == 3 && f[1] == "-w":
		c = zkCall{op: model.OpExists, watch: true, path: f[2]}
	case f[0] == "delete" && len(f) <= 2:
		c = zkCall{op: model.OpDelete}
		if len(f) == 2 {
			c.path = f[1]
		}
	default:
		return zkCall{}, fmt.Errorf("%q: not a zkCli command the suite knows", line)
	}
	return c, nil
}

// same says how the call the page prints differs from the model's.
func (c zkCall) same(e model.Call) string {
	want := zkCall{op: e.Op, path: e.Path, seq: e.Sequential, watch: e.Watch, session: e.Session}
	if e.Op != model.OpReconnect {
		want.session = ""
	}
	if e.Op == model.OpCreate || e.Op == model.OpDelete {
		want.watch = false
	}
	if c != want {
		return fmt.Sprintf("the page prints %+v, the model sent %+v", c, want)
	}
	return ""
}

// call sends the call the page prints on the client's session and compares
// the answer with the page's.
func (p *zkReplay) call(c *zkClient, e model.Call, line history.Line) {
	t := p.t
	label := fmt.Sprintf("frame %d, t=%dms %s: %s", p.frame, e.At, e.Client, line.Call)
	if _, want := e.Wire(); line.Reply != want {
		t.Errorf("%s: the page shows the reply %q, the model's %q", label, line.Reply, want)
	}
	zc, err := parseZK(line.Call)
	if err == nil {
		if d := zc.same(e); d != "" {
			err = errors.New(d)
		}
	}
	if err != nil {
		t.Errorf("%s: %v\n\thistory: %s", label, err, p.h)
		return
	}
	p.tally.Add("calls", 1)
	switch zc.op {
	case model.OpCreate:
		flags := int32(0)
		if zc.seq {
			flags = zk.FlagEphemeral | zk.FlagSequence
		}
		path, err := c.conn.Create(zc.path, nil, flags, zk.WorldACL(zk.PermAll))
		switch {
		case e.Created == "" && !errors.Is(err, zk.ErrNodeExists):
			t.Errorf("%s: created %s (%v), the page shows the node exists\n\thistory: %s", label, path, err, p.h)
		case e.Created != "" && (err != nil || path != e.Created):
			t.Errorf("%s: created %s (%v), the page shows %s\n\thistory: %s", label, path, err, e.Created, p.h)
		case e.Created != "":
			var st *zk.Stat
			err := p.look(func() (err error) { _, st, err = p.obs.conn.Exists(path); return err })
			if err != nil || st.Czxid-p.offset != e.Zxid {
				t.Errorf("%s: czxid 0x%x (%v), the page shows 0x%x\n\thistory: %s", label, st.Czxid-p.offset, err, e.Zxid, p.h)
			}
		}
	case model.OpChildren:
		var kids []string
		var err error
		if zc.watch {
			kids, _, c.watch, err = c.conn.ChildrenW(zc.path)
		} else {
			kids, _, err = c.conn.Children(zc.path)
		}
		slices.Sort(kids)
		if err != nil || !slices.Equal(kids, e.Children) {
			t.Errorf("%s: %v (%v), the page shows %v\n\thistory: %s", label, kids, err, e.Children, p.h)
		}
	case model.OpExists:
		ok, st, ch, err := c.conn.ExistsW(zc.path)
		if err != nil || !ok || st.Czxid-p.offset != e.Zxid {
			t.Errorf("%s: exists=%v czxid=0x%x (%v), the page shows 0x%x\n\thistory: %s", label, ok, st.Czxid-p.offset, err, e.Zxid, p.h)
		}
		c.watch = ch
	case model.OpDelete:
		p.delete(c, zc.path, e, label)
	case model.OpReconnect:
		p.reconnect(c, e, label)
	}
}

// exists asks on the suite's session whether path is there.
func (p *zkReplay) exists(path string) (ok bool, err error) {
	err = p.look(func() (err error) { ok, _, err = p.obs.conn.Exists(path); return err })
	return ok, err
}

// clientsAndSuite are the scenario's clients and the suite's own session.
func (p *zkReplay) clientsAndSuite() map[string]*zkClient {
	all := map[string]*zkClient{"(suite)": p.obs}
	for n, c := range p.clients {
		all[n] = c
	}
	return all
}

// delete sends a delete on the client's session, or, for a client whose
// session has ended (whose library would open a new one), asks on the
// suite's own whether the node is there: what a delete of it answers.
func (p *zkReplay) delete(c *zkClient, path string, e model.Call, label string) {
	var err error
	if c.conn.State() == zk.StateHasSession {
		err = c.conn.Delete(path, -1)
	} else if ok, xerr := p.exists(path); xerr != nil || ok {
		err = fmt.Errorf("the node is there (%v)", xerr)
	} else {
		err = zk.ErrNoNode
	}
	if e.OK != (err == nil) || !e.OK && !errors.Is(err, zk.ErrNoNode) {
		p.t.Errorf("%s: %v; the page shows the delete %s\n\thistory: %s", label, err, map[bool]string{true: "done", false: "finding no node"}[e.OK], p.h)
	}
}

// reconnect plays the client hearing from the service after a silence:
// its library, let through, says whether the session lives.
func (p *zkReplay) reconnect(c *zkClient, e model.Call, label string) {
	if e.OK {
		if c.conn.State() != zk.StateHasSession {
			p.t.Errorf("%s: the library is %v, the page says the session lives", label, c.conn.State())
		}
		return
	}
	if c.expired {
		return // its library has heard it once, and tries no more
	}
	c.gate.to(gateOnce)
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev := <-c.session:
			if ev.State == zk.StateExpired {
				c.expired = true
				return
			}
			if ev.State == zk.StateHasSession {
				p.t.Errorf("%s: the server says the session lives, the page says Expired\n\thistory: %s", label, p.h)
				return
			}
		case <-deadline:
			p.t.Fatalf("%s: no Expired event within 5 s\n\thistory: %s", label, p.h)
		}
	}
}

// fire plays the one notification the model delivers: it must arrive, with
// its type and path (one that a session's end made, within that end's
// window); to a stopped client it comes once the client is back, and to
// one that crashed never.
func (p *zkReplay) fire(e model.WatchFired) {
	c := p.clients[e.Client]
	switch {
	case c.crashed:
		p.t.Errorf("frame %d, t=%dms: the page delivers %s %s to %s, which crashed: the server dropped its watches with its connection\n\thistory: %s", p.frame, e.At, e.Type, e.Path, e.Client, p.h)
	case c.paused:
		c.owed = append(c.owed, e)
	default:
		p.receive(c, e.Client, e, false)
	}
}

// receive waits for a notification on the client's watch.
func (p *zkReplay) receive(c *zkClient, client string, e model.WatchFired, late bool) {
	select {
	case got := <-c.watch:
		p.fired++
		c.watch = nil
		if got.Type.String() != "Event"+e.Type || got.Path != e.Path {
			p.t.Errorf("frame %d: %s's watch: %s %s, the page shows %s %s\n\thistory: %s", p.frame, client, got.Type, got.Path, e.Type, e.Path, p.h)
		}
		// One that a session's end made must come within that end's
		// window; one that a call made comes after the call, which the
		// replay made before it looked.
		if p.window != nil && !late {
			p.within(client+"'s "+e.Type, e.At, p.window[0], p.window[1])
			p.window = nil
		}
	case <-time.After(time.Duration(e.At+10*zkMargin)*time.Millisecond/zkScale + time.Second):
		p.t.Fatalf("frame %d: %s's watch on %s never fired; the page shows %s at t=%dms\n\thistory: %s", p.frame, client, e.Path, e.Type, e.At, p.h)
	}
}

// within checks that now, in model time, lies in [lo, hi].
func (p *zkReplay) within(what string, at, lo, hi int) {
	if got := p.now(); got < lo || got > hi {
		p.t.Errorf("frame %d: %s at model t=%dms on the real server, the page shows t=%dms (allowed %d..%d)\n\thistory: %s", p.frame, what, got, at, lo, hi, p.h)
	}
}

// expiry is where, in model ms, the server may end client's session: the
// model keeps it alive from its start every third of the timeout, the
// library from its own connection, so the last ping before the pause is
// known only within one period; and the server ends sessions in tickTime
// buckets, up to one tick late.
func (p *zkReplay) expiry(f demo.Frame, client string) (lo, hi int, ok bool) {
	s, found := sessionOf(f, client)
	paused, stopped := p.pausedAt[client]
	if !found || !stopped {
		return 0, 0, false
	}
	return paused - s.Every + s.TTL - zkMargin/3, paused + s.TTL + zkMargin, true
}

// ended plays the server ending a session: the suite waits until the real
// server has (its session gone from dump) and checks that it did so within
// the window of the model's moment.
func (p *zkReplay) ended(f demo.Frame, e model.SessionEnded) {
	lo, hi, ok := p.expiry(f, e.Client)
	if !ok {
		p.t.Fatalf("frame %d: the page ends %s's session, which never stopped", p.frame, e.Client)
	}
	c := p.clients[e.Client]
	deadline := p.model(hi).Add(time.Second)
	for p.alive()[c.id] {
		if time.Now().After(deadline) {
			p.t.Fatalf("frame %d: %s's session still lives on the real server at t=%dms; the page ends it at t=%dms\n\thistory: %s", p.frame, e.Client, p.now(), e.At, p.h)
		}
		time.Sleep(20 * time.Millisecond) // polling the server, not waiting for an outcome
	}
	p.within(e.Client+"'s session's end", e.At, lo, hi)
	p.window = &[2]int{lo, hi + zkMargin}
	// The session leaves the tracker a moment before its closeSession
	// transaction, which deletes its nodes, is applied.
	for p.lastZxid()-p.offset < e.Rev {
		if time.Now().After(deadline) {
			p.t.Fatalf("frame %d: %s's session has ended on the real server, and its closeSession is not applied at t=%dms\n\thistory: %s", p.frame, e.Client, p.now(), p.h)
		}
		time.Sleep(5 * time.Millisecond) // polling the server, not waiting for an outcome
	}
}

// alive returns the sessions the server keeps (the four-letter word dump).
func (p *zkReplay) alive() map[int64]bool {
	out := p.z.FourLetter(p.t, "dump")
	tracker, _, _ := strings.Cut(out, "ephemeral nodes dump:")
	ids := map[int64]bool{}
	for _, w := range strings.Fields(tracker) {
		if v, ok := strings.CutPrefix(w, "0x"); ok {
			if id, err := strconv.ParseUint(v, 16, 64); err == nil {
				ids[int64(id)] = true
			}
		}
	}
	return ids
}

// check holds the real server against the frame: its last zxid, every
// znode with its czxid and ephemeral owner, which sessions live, the node
// watches of each client connected, and the notifications delivered.
func (p *zkReplay) check(f demo.Frame) {
	st := f.Store.(model.State)
	var diffs []string
	if got := p.lastZxid() - p.offset; got != st.Zxid {
		diffs = append(diffs, fmt.Sprintf("last zxid 0x%x, the page 0x%x", got, st.Zxid))
	}
	diffs = append(diffs, p.nodes(st)...)
	diffs = append(diffs, p.sessions(f)...)
	diffs = append(diffs, p.watches(st)...)
	owed := 0
	for _, c := range p.clients {
		owed += len(c.owed)
	}
	if got := p.fired + owed; got != st.Notified {
		diffs = append(diffs, fmt.Sprintf("watch notifications %d (%d delivered, %d owed to a stopped client), the page counts %d", got, p.fired, owed, st.Notified))
	}
	p.tally.Add("frames checked", 1)
	if len(diffs) == 0 {
		return
	}
	alive := p.alive()
	for name, c := range p.clientsAndSuite() {
		running := !c.paused && !c.crashed && !c.expired
		if id := c.conn.SessionID(); id != c.id && id != 0 || running && !alive[c.id] {
			// The server ended the session of a client that runs (its
			// library may have opened a new one): a client that sends no
			// ping for a whole session timeout (2 s) is ended, and only a
			// machine that stalled its pings that long does that.
			p.stopped = fmt.Sprintf("%s's session ended on the real server while it was live (the machine stalled its pings for the session timeout): %s", name, strings.Join(diffs, "; "))
			return
		}
	}
	p.t.Errorf("frame %d, t=%dms: the page is not the real ZooKeeper:\n\t%s\n\thistory: %s", f.Index, f.Now, strings.Join(diffs, "\n\t"), p.h)
}

// nodes holds every znode against the frame's.
func (p *zkReplay) nodes(st model.State) (diffs []string) {
	real := map[string]*zk.Stat{}
	var walk func(string)
	walk = func(path string) {
		var kids []string
		err := p.look(func() (err error) { kids, _, err = p.obs.conn.Children(path); return err })
		if err != nil {
			p.t.Fatalf("frame %d: ls %s: %v", p.frame, path, err)
		}
		for _, k := range kids {
			child := strings.TrimSuffix(path, "/") + "/" + k
			if child == "/zookeeper" {
				continue
			}
			var s *zk.Stat
			if err := p.look(func() (err error) { _, s, err = p.obs.conn.Exists(child); return err }); err == nil && s != nil {
				real[child] = s
			}
			walk(child)
		}
	}
	walk("/")
	for _, e := range st.Entries {
		s, ok := real[e.Path]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("the page shows %s; the server has no such node", e.Path))
			continue
		}
		delete(real, e.Path)
		p.tally.Add("znodes compared", 1)
		owner := int64(0)
		if e.Ephemeral {
			owner = p.clients[e.Owner].id
		}
		if s.Czxid-p.offset != e.Zxid || s.EphemeralOwner != owner {
			diffs = append(diffs, fmt.Sprintf("%s: czxid 0x%x, ephemeral owner 0x%x; the page: czxid 0x%x, owner %s (0x%x)", e.Path, s.Czxid-p.offset, s.EphemeralOwner, e.Zxid, e.Owner, owner))
		}
	}
	for path := range real {
		diffs = append(diffs, fmt.Sprintf("the server has %s, which the page does not show", path))
	}
	return diffs
}

// sessions holds which sessions live against the frame's. A session of a
// client that stopped, where the frame's time lies within the window in
// which the server may end it, is too close to call either way.
func (p *zkReplay) sessions(f demo.Frame) (diffs []string) {
	alive := p.alive()
	for name, c := range p.clients {
		s, ok := sessionOf(f, name)
		if !ok {
			continue
		}
		if lo, hi, stopped := p.expiry(f, name); stopped && lo <= f.Now && f.Now <= hi && s.Ended < 0 {
			continue
		}
		if got, want := alive[c.id], s.Ended < 0; got != want {
			diffs = append(diffs, fmt.Sprintf("%s's session lives: %t on the server, %t on the page", name, got, want))
		}
	}
	return diffs
}

// watches holds the node watches (stat -w) each connected client has left
// on the server (the four-letter word wchc, which lists node watches, not
// child watches) against the frame's. A stopped client's watches live in
// its library until it reconnects, not on the server.
func (p *zkReplay) watches(st model.State) (diffs []string) {
	real := map[int64][]string{}
	var id int64
	for line := range strings.Lines(p.z.FourLetter(p.t, "wchc")) {
		line = strings.TrimRight(line, "\n")
		if v, ok := strings.CutPrefix(line, "0x"); ok {
			n, _ := strconv.ParseUint(v, 16, 64)
			id = int64(n)
		} else if path := strings.TrimSpace(line); path != "" {
			real[id] = append(real[id], path)
		}
	}
	for name, c := range p.clients {
		if c.paused || c.crashed || c.conn.State() != zk.StateHasSession {
			continue
		}
		var want []string
		for _, w := range st.Watches {
			if w.Client == name && !w.Children {
				want = append(want, w.Path)
			}
		}
		got := real[c.id]
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			diffs = append(diffs, fmt.Sprintf("%s's node watches on the server %v, the page %v", name, got, want))
		}
	}
	return diffs
}
