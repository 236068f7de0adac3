package web

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// A lecture hall on the open internet: the limits, and the lecturer's click
// still answered while a squatter holds them.

// serveLimited serves s as main does (HTTPServer on Listen's listener) on a
// loopback port, and returns its address.
func serveLimited(t *testing.T, s *Server) string {
	t.Helper()
	hs := s.HTTPServer("127.0.0.1:0")
	ln, err := s.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() {
		s.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
	})
	return ln.Addr().String()
}

// clientFrom is an HTTP client whose connections come from the loopback
// address from (127.0.0.x), one connection per client, kept alive.
func clientFrom(from string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 2 * time.Second}
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, MaxConnsPerHost: 1}}
}

// dialFrom opens a raw connection from a loopback address.
func dialFrom(t *testing.T, from, addr string) net.Conn {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 2 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// lecturerClick posts a Step from client c and fails unless it is answered
// with the next frame.
func lecturerClick(t *testing.T, c *http.Client, addr string, p place) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/scenarios/gc-pause/step", strings.NewReader(p.form().Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("the lecturer's click: %v", err)
	}
	defer resp.Body.Close()
	var body bytes.Buffer
	_, _ = body.ReadFrom(resp.Body)
	if resp.StatusCode != http.StatusOK || views.StepShown(body.Bytes()) != fmt.Sprintf("%d / 7", p.from+1) {
		t.Fatalf("the lecturer's click: %s, step %q", resp.Status, views.StepShown(body.Bytes()))
	}
}

// Connections are bounded per address and in all. A squatter's connections
// that never finish a request are the first closed for room: a fifth from
// the same address closes its oldest. Another squatter's idle keep-alive
// connections make room next. The lecturer, from another address, is served
// all the while, even with the server at its bound in all. Headers over 16
// KiB are refused.
func TestConnectionLimits(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxConns, cfg.MaxConnsPerAddr = 8, 4
	s := newTestServer(t, cfg)
	s.conns.silentGrace = 0 // a connection that has not sent a request is silent at once
	addr := serveLimited(t, s)

	// The squatter at 127.0.0.2 holds four stalled connections: its limit.
	var stalled []net.Conn
	for range 4 {
		c := dialFrom(t, "127.0.0.2", addr)
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n") // never finished
		stalled = append(stalled, c)
	}
	testkit.Eventually(t, 2*time.Second, "four connections counted", func() bool { return connsFrom(s, "127.0.0.2") == 4 })
	extra := dialFrom(t, "127.0.0.2", addr)
	fmt.Fprintf(extra, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	if line, _ := bufio.NewReader(extra).ReadString('\n'); !strings.Contains(line, "200") {
		t.Fatalf("a fifth connection from the squatter: %q, want it answered in place of a stalled one", line)
	}
	_ = stalled[0].SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := stalled[0].Read(make([]byte, 1)); n != 0 || err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the oldest stalled connection: read %d, %v; want it closed", n, err)
	}

	// Another at 127.0.0.3 fills the rest with idle keep-alive connections.
	for range 4 {
		resp, err := clientFrom("127.0.0.3").Get("http://" + addr + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		readAll(t, resp) // to the end, so the connection stays open, idle
	}
	testkit.Eventually(t, 2*time.Second, "the server at its bound", func() bool { return connsTotal(s) == 8 })

	lecturer := clientFrom("127.0.0.1")
	p := place{from: 1, on: true, lang: "en"}
	lecturerClick(t, lecturer, addr, p)
	if got := connsTotal(s); got > 8 {
		t.Fatalf("%d connections, want at most 8", got)
	}

	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/healthz", nil)
	req.Header.Set("X-Big", strings.Repeat("x", 24<<10))
	resp, err := lecturer.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("24 KiB of headers: %s, want 431", resp.Status)
	}
}

func connsFrom(s *Server, ip string) int {
	s.conns.mu.Lock()
	defer s.conns.mu.Unlock()
	return s.conns.byAddr[ip]
}

func connsTotal(s *Server) int {
	s.conns.mu.Lock()
	defer s.conns.mu.Unlock()
	return s.conns.total
}

// A squatter opens follow streams from one address up to the per-address
// bound and never reads them; a further stream from that address is refused,
// a student from another address gets in, and a follower that stopped
// reading is dropped after a few moves and WriteWait, not after the kernel
// has buffered hundreds. The lecturer's clicks are answered throughout.
func TestFollowSquatter(t *testing.T) {
	cfg := DefaultConfig()
	cfg.FollowPerAddr = 30 // three streams without a ticket
	s := newTestServer(t, cfg)
	s.follow.WriteWait = 300 * time.Millisecond
	addr := serveLimited(t, s)
	lecturer := clientFrom("127.0.0.1")
	p := place{from: 1, on: true, lang: "en"}
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/scenarios/gc-pause/step", strings.NewReader(p.form().Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	resp, err := lecturer.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	doc := testkit.Parse(t, readAll(t, resp))
	run, link := runID(t, doc), followLink(t, doc)
	p = place{run: run, from: 2, on: true, lang: "en"}

	// Three streams from the squatter that never read, with a receive
	// buffer as small as the kernel allows.
	for range 3 {
		c := dialFrom(t, "127.0.0.2", addr)
		if tc, ok := c.(*net.TCPConn); ok {
			raw, _ := tc.SyscallConn()
			_ = raw.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 1) })
		}
		fmt.Fprintf(c, "GET %s/events?lang=en HTTP/1.1\r\nHost: x\r\n\r\n", link)
	}
	testkit.Eventually(t, 2*time.Second, "three squatting streams", func() bool { return s.follow.Streams() == 3 })
	extra := dialFrom(t, "127.0.0.2", addr)
	fmt.Fprintf(extra, "GET %s/events?lang=en HTTP/1.1\r\nHost: x\r\n\r\n", link)
	if line, _ := bufio.NewReader(extra).ReadString('\n'); !strings.Contains(line, "503") {
		t.Fatalf("a fourth stream from the squatter: %q, want 503", line)
	}
	student := testkit.OpenStream(t, clientFrom("127.0.0.4"), "http://"+addr+link+"/events?lang=en")
	student.Next(t, 5*time.Second)

	// The lecturer steps back and forth; each move is some kilobytes that
	// the squatter never reads.
	deadline := time.Now().Add(10 * time.Second)
	moves := 0
	for s.follow.Streams() > 1 {
		if time.Now().After(deadline) {
			t.Fatalf("%d streams after %d moves and 10 s, want the squatter's dropped", s.follow.Streams(), moves)
		}
		lecturerClick(t, lecturer, addr, p)
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/scenarios/gc-pause/back", strings.NewReader(place{run: run, from: 3, on: true, lang: "en"}.form().Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("HX-Request", "true")
		resp, err := lecturer.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("the lecturer's Back: %v %v", resp, err)
		}
		readAll(t, resp)
		moves += 2
		time.Sleep(20 * time.Millisecond) // a lecturer's pace, roughly: the point is the count, not the time
	}
	t.Logf("the squatter was dropped after %d moves", moves)
	if moves > 200 {
		t.Fatalf("the squatter was dropped after %d moves, want within a few dozen", moves)
	}
	if _, err := student.Wait(time.Second); err != nil {
		t.Fatalf("the reading student lost the stream: %v", err)
	}
}

func readAll(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	defer resp.Body.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Behind a proxy the client is the rightmost X-Forwarded-For entry that is
// not a trusted proxy, and only when the peer itself is one; IPv6 clients
// count by their /64.
func TestClientAddr(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BehindProxy = true
	cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.168.0.0/16")}
	s := newTestServer(t, cfg)
	defaults := DefaultConfig()
	defaults.BehindProxy = true
	lan := newTestServer(t, defaults)
	direct := newTestServer(t, DefaultConfig())
	for _, tc := range []struct {
		srv  *Server
		peer string
		xff  []string
		want string
	}{
		{s, "10.0.0.1:1", []string{"203.0.113.7"}, "203.0.113.7"},
		{s, "10.0.0.1:1", []string{"6.6.6.6, 203.0.113.7"}, "203.0.113.7"},                  // the client wrote 6.6.6.6
		{s, "10.0.0.1:1", []string{"6.6.6.6, 203.0.113.7, 10.0.0.2"}, "203.0.113.7"},        // two proxies
		{s, "10.0.0.1:1", []string{"6.6.6.6", "203.0.113.7", "192.168.1.1"}, "203.0.113.7"}, // split over header lines
		{s, "10.0.0.1:1", []string{"garbage, 203.0.113.7"}, "203.0.113.7"},
		{s, "10.0.0.1:1", nil, "10.0.0.1"},
		{s, "198.51.100.1:1", []string{"203.0.113.7"}, "198.51.100.1"}, // not a trusted proxy
		{direct, "10.0.0.1:1", []string{"203.0.113.7"}, "10.0.0.1"},    // no -behind-proxy
		// By default only loopback is a proxy: a student on the campus LAN
		// who writes X-Forwarded-For is still counted as themselves.
		{lan, "192.168.1.5:1", []string{"203.0.113.7"}, "192.168.1.5"},
		{lan, "10.1.2.3:1", []string{"203.0.113.8"}, "10.1.2.3"},
		{lan, "127.0.0.1:1", []string{"203.0.113.7"}, "203.0.113.7"},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = tc.peer
		for _, h := range tc.xff {
			r.Header.Add("X-Forwarded-For", h)
		}
		if got := tc.srv.clientAddr(r); got != tc.want {
			t.Errorf("peer %s, X-Forwarded-For %q: client %s, want %s", tc.peer, tc.xff, got, tc.want)
		}
	}
	for ip, want := range map[string]string{
		"2001:db8:1:2:3:4:5:6": "2001:db8:1:2::/64", "2001:db8:1:2::9": "2001:db8:1:2::/64",
		"192.0.2.1": "192.0.2.1", "::ffff:192.0.2.1": "192.0.2.1",
	} {
		if got := addrKey(ip); got != want {
			t.Errorf("addrKey(%s)=%s, want %s", ip, got, want)
		}
	}
}

// One IPv6 /64 is one client for the run limit: a script cannot get a fresh
// allowance by picking another address of its own /64.
func TestRunLimitIPv6(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RunRate, cfg.RunBurst = 0.001, 1
	s := newTestServer(t, cfg)
	start := place{from: 1, on: true, lang: "en"}
	testkit.MustStatus(t, clickFrom(t, s, "[2001:db8::1]:1", "step", start, true), http.StatusOK)
	testkit.MustStatus(t, clickFrom(t, s, "[2001:db8::2]:1", "step", start, true), http.StatusTooManyRequests)
	testkit.MustStatus(t, clickFrom(t, s, "[2001:db8:0:1::1]:1", "step", start, true), http.StatusOK)
}

// With the defaults, 500 students behind one school NAT all start their run
// in the same moment: none is turned away.
func TestLectureHallDefaults(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	start := place{from: 1, on: true, lang: "en"}
	for i := range 500 {
		if w := clickFrom(t, s, "192.0.2.1:1", "step", start, true); w.Code != http.StatusOK {
			t.Fatalf("student %d behind the NAT: %d, want 200", i+1, w.Code)
		}
	}
	if cfg := DefaultConfig(); cfg.FollowPerAddr < 500 || cfg.FollowPerLecture < 1000 || cfg.MaxConnsPerAddr < 1000 {
		t.Fatalf("defaults %+v do not fit 500 students behind one address", cfg)
	}
}

// The QR code is drawn from the configured public URL, or from what a
// trusted proxy says, never from a header anyone can send; and it is cached
// publicly only when it is the same for everyone.
func TestQROrigin(t *testing.T) {
	qr := func(s *Server, peer, host string, header ...string) (*httptest.ResponseRecorder, string) {
		r := httptest.NewRequest(http.MethodGet, "/qr.svg?path=%2Fscenarios%2Fgc-pause", nil)
		r.RemoteAddr, r.Host = peer, host
		for i := 0; i+1 < len(header); i += 2 {
			r.Header.Set(header[i], header[i+1])
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		return w, w.Body.String()
	}
	plain := newTestServer(t, DefaultConfig())
	w, base := qr(plain, "203.0.113.1:1", "demo.example")
	testkit.MustStatus(t, w, http.StatusOK)
	if cc, vary := w.Header().Get("Cache-Control"), strings.Join(w.Header().Values("Vary"), ", "); !strings.HasPrefix(cc, "private") || !strings.Contains(vary, "Host") {
		t.Fatalf("Cache-Control=%q Vary=%q without -public-url, want private and Vary: Host", cc, vary)
	}
	if _, got := qr(plain, "203.0.113.1:1", "demo.example", "X-Forwarded-Proto", "https", "X-Forwarded-Host", "evil.example"); got != base {
		t.Fatal("X-Forwarded-* changed the code without -behind-proxy")
	}
	if w, _ := qr(plain, "203.0.113.1:1", "evil.example/<x>"); w.Code != http.StatusBadRequest {
		t.Fatalf("a Host that is no host name: %d, want 400", w.Code)
	}

	cfg := DefaultConfig()
	cfg.BehindProxy = true
	proxied := newTestServer(t, cfg)
	if _, got := qr(proxied, "203.0.113.1:1", "demo.example", "X-Forwarded-Proto", "https"); got != base {
		t.Fatal("X-Forwarded-Proto from a peer that is no trusted proxy changed the code")
	}
	if _, got := qr(proxied, "127.0.0.1:1", "demo.example", "X-Forwarded-Proto", "https"); got == base {
		t.Fatal("X-Forwarded-Proto from the trusted proxy did not change the code")
	}

	cfg = DefaultConfig()
	cfg.PublicURL = "https://demo.example"
	public := newTestServer(t, cfg)
	w, one := qr(public, "203.0.113.1:1", "demo.example")
	if cc := w.Header().Get("Cache-Control"); !strings.HasPrefix(cc, "public") {
		t.Fatalf("Cache-Control=%q with -public-url, want public", cc)
	}
	if _, two := qr(public, "203.0.113.1:1", "other.example", "X-Forwarded-Proto", "http"); two != one {
		t.Fatal("the Host header changed the code despite -public-url")
	}
}

// The run key never reaches the log: not from a click, and not from an old
// address that names one.
func TestRunKeyNotLogged(t *testing.T) {
	var log testkit.LockedBuffer
	s, err := New(DefaultConfig(), testkit.Catalog(t), testkit.Guide(t), testkit.Static(t),
		slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatal(err)
	}
	w := click(t, s, "step", place{from: 1, on: true, lang: "en"}, false)
	key := strings.TrimPrefix(runCookieOf(t, w), runCookieName+"=")
	if strings.Contains(w.Header().Get("Location"), key) {
		t.Fatalf("Location=%q carries the run key", w.Header().Get("Location"))
	}
	testkit.Get(t, s, gcPauseURL(true, 2, "en")+"&run="+key)
	testkit.Get(t, s, "/nope?run="+key)
	if strings.Contains(log.String(), key) {
		t.Fatalf("the log has the run key:\n%s", log.String())
	}
	if !strings.Contains(log.String(), "run=…") {
		t.Fatalf("the log has no redacted run, so the test saw nothing:\n%s", log.String())
	}
	_ = netip.Addr{}
}

// A squatter's streams that never read are dropped at the next heartbeat
// their machine does not take, while the lecturer makes no move at all; a
// student who reads keeps the stream, and a student at a full lecture gets
// the place of one of the squatter's (its address holds more).
func TestFollowNonReaderDroppedWithoutMoves(t *testing.T) {
	cfg := DefaultConfig()
	cfg.FollowPerLecture = 3
	s := newTestServer(t, cfg)
	s.follow.Heartbeat, s.follow.HeartWait = 50*time.Millisecond, 200*time.Millisecond
	addr := serveLimited(t, s)
	lecturer := clientFrom("127.0.0.1")
	l := startLectureVia(t, lecturer, addr)

	for range 3 {
		c := dialFrom(t, "127.0.0.2", addr)
		if tc, ok := c.(*net.TCPConn); ok {
			raw, _ := tc.SyscallConn()
			_ = raw.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 1) })
		}
		fmt.Fprintf(c, "GET %s/events?lang=en HTTP/1.1\r\nHost: x\r\n\r\n", l.follow)
	}
	testkit.Eventually(t, 5*time.Second, "three squatting streams", func() bool { return s.follow.Streams() == 3 })
	student := testkit.OpenStream(t, clientFrom("127.0.0.4"), "http://"+addr+l.follow+"/events?lang=en")
	student.Next(t, 5*time.Second)
	if got := s.follow.Evicted.Load(); got != 1 {
		t.Fatalf("%d streams evicted for the student, want 1 of the squatter's", got)
	}
	testkit.Eventually(t, 10*time.Second, "the squatter's streams dropped without a move", func() bool { return s.follow.Streams() == 1 })
	if got := s.follow.Stalled.Load(); got != 2 {
		t.Fatalf("%d streams dropped as stalled, want the squatter's 2", got)
	}
	if ev, err := student.Wait(500 * time.Millisecond); err == nil {
		t.Fatalf("the student got %+v without a move", ev)
	} else if err.Error() == "the stream ended" {
		t.Fatal("the reading student's stream was dropped")
	}
}

// startLectureVia is the lecturer's first click over the network from c: its
// run key and follow link.
func startLectureVia(t *testing.T, c *http.Client, addr string) (l struct{ run, follow string }) {
	t.Helper()
	p := place{from: 1, on: true, lang: "en"}
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/scenarios/gc-pause/step", strings.NewReader(p.form().Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	doc := testkit.Parse(t, readAll(t, resp))
	l.run, l.follow = runID(t, doc), followLink(t, doc)
	return l
}

// Six addresses' worth of connections that never send a request fill the
// server's bound; students keep arriving, each served in place of one of
// them, and the lecturer's keep-alive connection, which carried a click of
// a live run, is never the one closed: every click of theirs goes over the
// one connection they opened.
func TestConnectionLimitsKeepTheLecturer(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxConns, cfg.MaxConnsPerAddr = 10, 6
	s := newTestServer(t, cfg)
	s.conns.silentGrace = 0
	addr := serveLimited(t, s)
	var dials atomic.Int64
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.1")}, Timeout: 2 * time.Second}
	lecturer := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{MaxConnsPerHost: 1,
		DialContext: func(ctx context.Context, network, a string) (net.Conn, error) {
			dials.Add(1)
			return d.DialContext(ctx, network, a)
		}}}
	l := startLectureVia(t, lecturer, addr)
	p := place{run: l.run, from: 2, on: true, lang: "en"}

	for i := range 9 {
		dialFrom(t, fmt.Sprintf("127.0.0.%d", 2+i%6), addr) // silent
	}
	testkit.Eventually(t, 2*time.Second, "the server at its bound", func() bool { return connsTotal(s) == 10 })
	for i := range 12 {
		student := clientFrom(fmt.Sprintf("127.0.0.%d", 20+i))
		resp, err := student.Get("http://" + addr + "/healthz")
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("student %d: %v %v, want 200", i+1, resp, err)
		}
		readAll(t, resp)
		if p.from < 6 {
			lecturerClick(t, lecturer, addr, p)
			p.from++
		}
	}
	if got := dials.Load(); got != 1 {
		t.Fatalf("the lecturer dialled %d times, want once: their connection was closed for room", got)
	}
}

// A connection whose request has arrived but not been read yet (a busy
// server) has sent something: it is not one of the silent ones closed for
// room, however old.
func TestSentSomething(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the receive queue is read on Linux only")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client := dialFrom(t, "127.0.0.1", ln.Addr().String())
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	if sentSomething(server) {
		t.Fatal("a connection that sent nothing has sent something")
	}
	fmt.Fprintf(client, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	testkit.Eventually(t, 2*time.Second, "the request in the server's receive queue", func() bool { return sentSomething(server) })
}

// At the bound, the silent connection closed for room is one of the address
// holding the most of them, even when a student's own is older: a script
// that opens its silent connections again at once cannot make a slow
// student's the oldest and so the one to go.
func TestSilentFromTheHeaviestAddress(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxConns, cfg.MaxConnsPerAddr = 6, 6
	s := newTestServer(t, cfg)
	s.conns.silentGrace = 0
	addr := serveLimited(t, s)
	student := dialFrom(t, "127.0.0.3", addr) // connected, its request not sent yet
	testkit.Eventually(t, 2*time.Second, "the student counted", func() bool { return connsTotal(s) == 1 })
	for range 5 {
		dialFrom(t, "127.0.0.2", addr)
	}
	testkit.Eventually(t, 2*time.Second, "the server at its bound", func() bool { return connsTotal(s) == 6 })
	resp, err := clientFrom("127.0.0.4").Get("http://" + addr + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("a newcomer at the bound: %v %v", resp, err)
	}
	readAll(t, resp)
	fmt.Fprintf(student, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	if line, err := bufio.NewReader(student).ReadString('\n'); !strings.Contains(line, "200") {
		t.Fatalf("the student's first request: %q %v; want it answered, the squatter's connection closed instead", line, err)
	}
	if got := connsFrom(s, "127.0.0.2"); got != 4 {
		t.Fatalf("the squatter holds %d connections, want 4", got)
	}
}

// Behind a proxy, where every connection is the proxy's, the bound per
// address holds for the requests each forwarded address has in flight: a
// third held request from one address is turned away with a 503 and
// Retry-After, while another address and the first one's follow stream
// are not.
func TestInflightPerAddressBehindProxy(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BehindProxy, cfg.MaxConnsPerAddr = true, 2
	s := newTestServer(t, cfg)
	from := func(r *http.Request, addr string) *http.Request {
		r.RemoteAddr = "127.0.0.1:40000" // the balancer
		r.Header.Set("X-Forwarded-For", addr)
		return r
	}
	w := testkit.Post(t, s, "/scenarios/gc-pause/step", url.Values{"from": {"5"}, "fencing": {"on"}, "lang": {"en"}}, false)
	lecturer := runCookieOf(t, w)
	testkit.MustStatus(t, lecturePost(t, s, "/scenarios/gc-pause/ask", lecturer, url.Values{"from": {"6"}, "fencing": {"on"}, "lang": {"en"}}), http.StatusSeeOther)
	room := testkit.Parse(t, lectureGet(t, s, "/scenarios/gc-pause/poll?fencing=on&step=6&lang=en", lecturer).Body.Bytes())
	next := testkit.Attr(t, room, "poll-next", "hx-get") // held until the totals change
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for range 2 {
		go s.ServeHTTP(httptest.NewRecorder(), from(withCookie(httptest.NewRequestWithContext(ctx, http.MethodGet, next, nil), lecturer), "198.51.100.7"))
	}
	testkit.Eventually(t, 5*time.Second, "two readings held", func() bool {
		s.perAddr.mu.Lock()
		defer s.perAddr.mu.Unlock()
		return s.perAddr.n["198.51.100.7"] == 2
	})
	third := httptest.NewRecorder()
	s.ServeHTTP(third, from(httptest.NewRequest(http.MethodGet, "/scenarios?lang=en", nil), "198.51.100.7"))
	testkit.MustStatus(t, third, http.StatusServiceUnavailable)
	if third.Header().Get("Retry-After") == "" {
		t.Fatal("the refusal says not when to try again")
	}
	other := httptest.NewRecorder()
	s.ServeHTTP(other, from(httptest.NewRequest(http.MethodGet, "/scenarios?lang=en", nil), "198.51.100.8"))
	testkit.MustStatus(t, other, http.StatusOK)
}
