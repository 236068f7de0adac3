package web

import (
	"container/list"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
)

// connLimiter bounds the server's connections, per client address and in
// all. Each costs a file descriptor and tens of kilobytes, and a script can
// open thousands and leave them idle, or open them and send nothing; then the
// lecturer's click finds no room. When a new connection would pass a bound,
// one that is doing nothing is closed to make room: first the oldest of those
// that have not sent a whole request within silentGrace (a browser sends its
// request at once; a script holding places does not), then the oldest idle
// keep-alive connection. Either costs its owner a reconnect, never a request.
// A connection that carried a click of a live run (keep: the lecturer's,
// and every student who has clicked) is closed for room only by its own
// IdleTimeout. Only when nothing can go is the new connection refused, with
// a 503.
//
// Behind a proxy every connection comes from the proxy, so only the bound
// in all applies here; the bound per address applies to requests in flight
// (inflight, below).
type connLimiter struct {
	maxTotal, maxPerAddr int           // 0: no bound
	silentGrace          time.Duration // how long a new connection may take over its first request

	mu     sync.Mutex
	total  int
	byAddr map[string]int
	// The connections that may be closed for room, each in the order it
	// joined, so the oldest is found at the front rather than by a scan of
	// thousands while every connection's next request waits for l.mu.
	idle   *list.List              // *limitedConn: keep-alive connections waiting for a request
	silent map[string]*list.List   // by address, *limitedConn: no whole request yet
	kept   map[string]*limitedConn // run key -> the connection that carried its latest click
}

// silentGrace is how long a connection may take to send its first whole
// request before it may be closed for room: a browser takes milliseconds.
// Short, so that a script that opens its silent connections again as soon
// as they are closed cannot keep them all too young to close.
const silentGrace = 200 * time.Millisecond

func newConnLimiter(maxTotal, maxPerAddr int) *connLimiter {
	return &connLimiter{maxTotal: maxTotal, maxPerAddr: maxPerAddr, silentGrace: silentGrace, byAddr: map[string]int{},
		idle: list.New(), silent: map[string]*list.List{}, kept: map[string]*limitedConn{}}
}

// limitedConn is a connection the limiter counts until it is closed.
type limitedConn struct {
	net.Conn
	l      *connLimiter
	key    string
	opened time.Time
	quiet  *list.Element // in l.silent until its first whole request
	rest   *list.Element // in l.idle while it waits for its next request
	run    string        // the run key whose click it carried last; "": none
	closed bool          // its place is given back (drop); guarded by l.mu
	once   sync.Once
}

// Close gives the connection's place back, once.
func (c *limitedConn) Close() error {
	c.l.release(c)
	return c.Conn.Close()
}

// NetConn is the connection underneath, for follow.TuneConn.
func (c *limitedConn) NetConn() net.Conn { return c.Conn }

func (l *connLimiter) release(c *limitedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.drop(c)
}

// admit counts c in, closing connections that do nothing to make room; nil
// when there is none, and then c has been answered and closed.
func (l *connLimiter) admit(c net.Conn) net.Conn {
	key := ""
	if l.maxPerAddr > 0 {
		if ap, err := netip.ParseAddrPort(c.RemoteAddr().String()); err == nil {
			key = addrKeyOf(ap.Addr())
		}
	}
	now := time.Now()
	var evict []*limitedConn
	l.mu.Lock()
	ok := true
	if l.maxPerAddr > 0 && l.byAddr[key] >= l.maxPerAddr {
		if v := l.spare(key, true, now); v != nil {
			evict = append(evict, v)
			l.drop(v)
		} else {
			ok = false
		}
	}
	if ok && l.maxTotal > 0 && l.total >= l.maxTotal {
		if v := l.spare("", false, now); v != nil {
			evict = append(evict, v)
			l.drop(v)
		} else {
			ok = false
		}
	}
	var lc *limitedConn
	if ok {
		lc = &limitedConn{Conn: c, l: l, key: key, opened: now}
		q := l.silent[key]
		if q == nil {
			q = list.New()
			l.silent[key] = q
		}
		lc.quiet = q.PushBack(lc)
		l.total++
		l.byAddr[key]++
	}
	l.mu.Unlock()
	for _, v := range evict {
		_ = v.Conn.Close()
	}
	if !ok {
		go refuse(c)
		return nil
	}
	return lc
}

// drop takes v's place back, once, before it is closed, so a new
// connection can have it; l.mu is held.
func (l *connLimiter) drop(v *limitedConn) {
	v.once.Do(func() {
		v.closed = true
		if v.rest != nil {
			l.idle.Remove(v.rest)
			v.rest = nil
		}
		if v.quiet != nil {
			l.unsilence(v)
		}
		if v.run != "" && l.kept[v.run] == v {
			delete(l.kept, v.run)
		}
		l.total--
		if l.byAddr[v.key]--; l.byAddr[v.key] <= 0 {
			delete(l.byAddr, v.key)
		}
	})
}

// spare is the connection to close for room, of address key when byKey:
// a silent one past its grace, of the address holding the most of them (so
// a script's thousands go before a student's one, however fast the script
// opens them again), the oldest of that address; else the oldest idle one
// not kept; nil when there is none. l.mu is held. The lists are in age
// order; a kept connection, or one of another address, is stepped over.
func (l *connLimiter) spare(key string, byKey bool, now time.Time) *limitedConn {
	if byKey {
		if c := l.oldestSilent(l.silent[key], now); c != nil {
			return c
		}
	} else {
		var top *limitedConn
		most := 0
		for _, q := range l.silent {
			if q.Len() <= most {
				continue
			}
			if c := l.oldestSilent(q, now); c != nil {
				top, most = c, q.Len()
			}
		}
		if top != nil {
			return top
		}
	}
	for e := l.idle.Front(); e != nil; e = e.Next() {
		if c := e.Value.(*limitedConn); (!byKey || c.key == key) && c.run == "" {
			return c
		}
	}
	return nil
}

// state follows each connection between requests (http.Server.ConnState):
// which are idle, and which have spoken.
func (l *connLimiter) state(c net.Conn, st http.ConnState) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if lc.rest != nil {
		l.idle.Remove(lc.rest)
		lc.rest = nil
	}
	if st == http.StateIdle && !lc.closed {
		lc.rest = l.idle.PushBack(lc)
	}
	// net/http calls a connection active once it has read a whole request
	// (or failed to): it has spoken, even if its handler is yet to run on a
	// busy server. A connection stalled mid-headers stays new, and silent.
	if st == http.StateActive && lc.quiet != nil {
		l.unsilence(lc)
	}
}

// oldestSilent is the oldest connection in q past its grace that has not
// sent anything, or nil. l.mu is held.
func (l *connLimiter) oldestSilent(q *list.List, now time.Time) *limitedConn {
	if q == nil {
		return nil
	}
	for e := q.Front(); e != nil; e = e.Next() {
		c := e.Value.(*limitedConn)
		if now.Sub(c.opened) < l.silentGrace {
			return nil // the rest are younger still
		}
		if !sentSomething(c.Conn) {
			return c
		}
	}
	return nil
}

// unsilence takes c off its address's silent list. l.mu is held.
func (l *connLimiter) unsilence(c *limitedConn) {
	if q := l.silent[c.key]; q != nil {
		q.Remove(c.quiet)
		if q.Len() == 0 {
			delete(l.silent, c.key)
		}
	}
	c.quiet = nil
}

// spoke marks c as having sent a whole request: it is no longer silent.
func (l *connLimiter) spoke(c net.Conn) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if lc.quiet != nil {
		l.unsilence(lc)
	}
}

// keep marks c as the connection of run key run (a click of a live run
// came on it), which is then never closed for room. One connection per
// run: a key cannot be used to keep a crowd of connections.
func (l *connLimiter) keep(c net.Conn, run string) {
	lc, ok := c.(*limitedConn)
	if !ok || run == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if lc.run == run {
		return
	}
	if old := l.kept[run]; old != nil {
		old.run = ""
	}
	if lc.run != "" && l.kept[lc.run] == lc {
		delete(l.kept, lc.run)
	}
	lc.run = run
	l.kept[run] = lc
}

// refused is the whole answer to a connection there is no room for.
var refused = []byte("HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nContent-Type: text/plain\r\nContent-Length: 24\r\nConnection: close\r\n\r\nToo many connections.\r\n\r\n")

func refuse(c net.Conn) {
	_ = c.SetDeadline(time.Now().Add(time.Second))
	_, _ = c.Write(refused[:len(refused)-2])
	_ = c.Close()
}

// limitListener counts every connection it accepts through a connLimiter.
type limitListener struct {
	net.Listener
	l *connLimiter
}

func (ln limitListener) Accept() (net.Conn, error) {
	for {
		c, err := ln.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if lc := ln.l.admit(c); lc != nil {
			return lc, nil
		}
	}
}

// inflight bounds the requests one client address has in flight at once,
// follow streams aside (-follow-per-addr bounds those). Behind a proxy every
// connection comes from the proxy, so the connection limiter cannot tell
// one student from another and the bound per address (-max-conns-per-addr)
// applies here instead, to the address the proxy vouches for
// (X-Forwarded-For from -trusted-proxies): a script behind the balancer
// still cannot hold more of the server's workers than a whole school's
// NAT would.
type inflight struct {
	max int
	mu  sync.Mutex
	n   map[string]int
}

func newInflight(max int) *inflight { return &inflight{max: max, n: map[string]int{}} }

// limit is the middleware: a request past its address's bound is answered
// 503 with Retry-After, an expected refusal.
func (l *inflight) limit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if isStream(c.Request()) {
			return next(c)
		}
		addr := addrKey(c.RealIP())
		l.mu.Lock()
		if l.n[addr] >= l.max {
			l.mu.Unlock()
			refuse503(c)
			c.Response().Header().Set("Retry-After", "1")
			return &problem{status: http.StatusServiceUnavailable, key: "err.busy.addr", title: "err.busy.title"}
		}
		l.n[addr]++
		l.mu.Unlock()
		defer func() {
			l.mu.Lock()
			if l.n[addr]--; l.n[addr] <= 0 {
				delete(l.n, addr)
			}
			l.mu.Unlock()
		}()
		return next(c)
	}
}
