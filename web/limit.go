package web

import (
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// connLimiter bounds the server's connections, per client address and in
// all. Each costs a file descriptor and tens of kilobytes, and a script can
// open thousands and leave them idle; then the lecturer's click finds no
// room. When a new connection would pass a bound, the oldest idle
// keep-alive connection (of that address, for the address's bound) is
// closed to make room: it costs its owner a reconnect, never a request. Only
// when none is idle is the new connection refused, with a 503.
//
// Behind a proxy every connection comes from the proxy, so the bound per
// address is left to it and only the bound in all applies.
type connLimiter struct {
	maxTotal, maxPerAddr int // 0: no bound

	mu     sync.Mutex
	total  int
	byAddr map[string]int
	idle   map[*limitedConn]time.Time // keep-alive connections waiting for a request
}

func newConnLimiter(maxTotal, maxPerAddr int) *connLimiter {
	return &connLimiter{maxTotal: maxTotal, maxPerAddr: maxPerAddr, byAddr: map[string]int{}, idle: map[*limitedConn]time.Time{}}
}

// limitedConn is a connection the limiter counts until it is closed.
type limitedConn struct {
	net.Conn
	l    *connLimiter
	key  string
	once sync.Once
}

// Close gives the connection's place back, once.
func (c *limitedConn) Close() error {
	c.l.release(c)
	return c.Conn.Close()
}

// NetConn is the connection underneath, for follow.TuneConn.
func (c *limitedConn) NetConn() net.Conn { return c.Conn }

func (l *connLimiter) release(c *limitedConn) {
	c.once.Do(func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(l.idle, c)
		l.total--
		if l.byAddr[c.key]--; l.byAddr[c.key] <= 0 {
			delete(l.byAddr, c.key)
		}
	})
}

// admit counts c in, closing idle connections to make room; nil when there
// is none, and then c has been answered and closed.
func (l *connLimiter) admit(c net.Conn) net.Conn {
	key := ""
	if l.maxPerAddr > 0 {
		if ap, err := netip.ParseAddrPort(c.RemoteAddr().String()); err == nil {
			key = addrKeyOf(ap.Addr())
		}
	}
	var evict []*limitedConn
	l.mu.Lock()
	ok := true
	if l.maxPerAddr > 0 && l.byAddr[key] >= l.maxPerAddr {
		if v := l.oldestIdle(key, true); v != nil {
			evict = append(evict, v)
			l.drop(v)
		} else {
			ok = false
		}
	}
	if ok && l.maxTotal > 0 && l.total >= l.maxTotal {
		if v := l.oldestIdle("", false); v != nil {
			evict = append(evict, v)
			l.drop(v)
		} else {
			ok = false
		}
	}
	var lc *limitedConn
	if ok {
		lc = &limitedConn{Conn: c, l: l, key: key}
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

// drop takes v's place back before it is closed, so the new connection can
// have it; l.mu is held.
func (l *connLimiter) drop(v *limitedConn) {
	v.once.Do(func() {
		delete(l.idle, v)
		l.total--
		if l.byAddr[v.key]--; l.byAddr[v.key] <= 0 {
			delete(l.byAddr, v.key)
		}
	})
}

// oldestIdle is the connection idle longest, of address key when byKey;
// l.mu is held. A scan: it runs only at a bound.
func (l *connLimiter) oldestIdle(key string, byKey bool) *limitedConn {
	var oldest *limitedConn
	var since time.Time
	for c, t := range l.idle {
		if byKey && c.key != key {
			continue
		}
		if oldest == nil || t.Before(since) {
			oldest, since = c, t
		}
	}
	return oldest
}

// state follows each connection between requests (http.Server.ConnState):
// only an idle one may be closed to make room.
func (l *connLimiter) state(c net.Conn, st http.ConnState) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if st == http.StateIdle {
		l.idle[lc] = time.Now()
	} else {
		delete(l.idle, lc)
	}
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
