package web

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/internal/realserver"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// Follow-along across replicas (-follow-redis): two replicas share a real
// redis-server. A follower on replica B, and one behind a round-robin load
// balancer, see every click the lecturer makes on replica A, in order; the
// lecture carries on across a restart of Redis, the followers' streams
// staying open and the replicas subscribing again by themselves.
func TestFollowAcrossReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server: not with -short")
	}
	sc := gcPause(t)
	rd := realserver.StartRedis(t, "follow")
	cfg := DefaultConfig()
	cfg.FollowRedis = "redis://" + rd.Addr() + "/0"
	a, b := newTestServer(t, cfg), newTestServer(t, cfg)
	srvB := httptest.NewServer(b)
	t.Cleanup(srvB.Close)
	lb := newRoundRobin(t, a, b)
	t.Cleanup(a.Close) // streams end before the servers close
	t.Cleanup(b.Close)

	l := startLecture(t, a, true, "en") // frame 2, on replica A
	onB := testkit.OpenStream(t, srvB.Client(), srvB.URL+l.follow+"/events?lang=en")
	viaLB := testkit.OpenStream(t, lb.Client(), lb.URL+l.follow+"/events?lang=ja")
	// The page too, through the balancer's next turn (replica B, which
	// never saw a click).
	if resp, err := lb.Client().Get(lb.URL + l.follow); err != nil || resp.StatusCode != 200 {
		t.Fatalf("the follow page on replica B: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	mustFrameEvent(t, onB.Next(t, 5*time.Second), 1, testkit.Frame(t, sc, true, 2), "en")
	mustFrameEvent(t, viaLB.Next(t, 5*time.Second), 1, testkit.Frame(t, sc, true, 2), "ja")
	for v, step := 2, 3; step <= 5; v, step = v+1, step+1 {
		l.step(t, a)
		mustFrameEvent(t, onB.Next(t, 5*time.Second), v, testkit.Frame(t, sc, true, step), "en")
		mustFrameEvent(t, viaLB.Next(t, 5*time.Second), v, testkit.Frame(t, sc, true, step), "ja")
	}

	// Redis restarts (empty: it keeps nothing on disk). The lecturer's next
	// click reaches the followers on B once the replicas are subscribed
	// again, whether by the message itself or by reading the lecture's key.
	rd.Stop()
	rd.Start()
	l.step(t, a) // frame 6
	for _, st := range []*testkit.Stream{onB, viaLB} {
		ev := st.Next(t, 10*time.Second)
		if got := views.StepShown([]byte(ev.Data)); got != "6 / 7" {
			t.Fatalf("after the Redis restart a follower got %q, want frame 6", got)
		}
	}
	l.step(t, a) // frame 7, and the followers are live again
	for _, st := range []*testkit.Stream{onB, viaLB} {
		ev := st.Next(t, 5*time.Second)
		if got := views.StepShown([]byte(ev.Data)); got != "7 / 7" {
			t.Fatalf("after the Redis restart a follower got %q, want frame 7", got)
		}
	}
}

// The lecturer's clicks land on two replicas in turn, so each replica's own
// run cache trails the lecture by a move. A student who opens the follow link
// late on either replica is shown the latest move as Redis holds it, with
// Redis's version, on the page and as the stream's first event; and stays
// there, rather than on the frame that replica last saw.
func TestFollowLateJoinerSeesRedisLatest(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server: not with -short")
	}
	sc := gcPause(t)
	rd := realserver.StartRedis(t, "follow")
	cfg := DefaultConfig()
	cfg.FollowRedis = "redis://" + rd.Addr() + "/0"
	a, b := newTestServer(t, cfg), newTestServer(t, cfg)
	srvA, srvB := followServer(t, a), followServer(t, b)

	l := startLecture(t, a, true, "en") // frame 2 on A
	for _, replica := range []*Server{b, a, b, a} {
		l.step(t, replica) // frames 3 (B), 4 (A), 5 (B), 6 (A)
	}
	val, err := rd.Client(t).Get(t.Context(), "fencing-demo:follow:"+l.fid()).Result()
	if err != nil {
		t.Fatal(err)
	}
	version, _, _ := strings.Cut(val, " ")
	for name, srv := range map[string]*httptest.Server{"A": srvA, "B": srvB} {
		resp, err := srv.Client().Get(srv.URL + l.follow + "?lang=en")
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, resp)
		doc := testkit.Parse(t, body)
		mustFollowShow(t, doc, testkit.Frame(t, sc, true, 6), "en")
		if got := doc.Find("#demo").AttrOr("data-version", ""); got != version {
			t.Fatalf("replica %s's follow page has version %s, want Redis's %s", name, got, version)
		}
		st := testkit.OpenStream(t, srv.Client(), srv.URL+l.follow+"/events?lang=en")
		ev := st.Next(t, 5*time.Second)
		if ev.ID != version || views.StepShown([]byte(ev.Data)) != "6 / 7" {
			t.Fatalf("replica %s's first event: id %s, %q; want Redis's %s at frame 6", name, ev.ID, views.StepShown([]byte(ev.Data)), version)
		}
	}
}

// A click still being sent when the drain ends is answered, and its move
// reaches Redis (and so every other replica): the relay closes only after
// the requests in flight are done, and the streams with it.
func TestDrainRelaysInFlightClick(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server: not with -short")
	}
	rd := realserver.StartRedis(t, "drain")
	cfg := DefaultConfig()
	cfg.FollowRedis = "redis://" + rd.Addr() + "/0"
	cfg.DrainWait = 100 * time.Millisecond
	s := newTestServer(t, cfg)
	hs := s.HTTPServer("127.0.0.1:0")
	ln, err := s.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = hs.Serve(ln) }()
	addr := ln.Addr().String()
	l := startLectureVia(t, clientFrom("127.0.0.1"), addr) // frame 2
	follower := testkit.OpenStream(t, clientFrom("127.0.0.3"), "http://"+addr+l.follow+"/events?lang=en")
	follower.Next(t, 5*time.Second)

	// The click to frame 3: its headers and half its form, the rest later.
	form := place{run: l.run, from: 2, on: true, lang: "en"}.form().Encode()
	c := dialFrom(t, "127.0.0.2", addr)
	fmt.Fprintf(c, "POST /scenarios/gc-pause/step HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nHX-Request: true\r\nContent-Length: %d\r\n\r\n%s", len(form), form[:len(form)/2])
	testkit.Eventually(t, 5*time.Second, "the click in its handler", func() bool { return s.inflight.Load() == 1 })

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Shutdown(ctx, hs) }()
	testkit.Eventually(t, 10*time.Second, "the server to stop taking connections", func() bool {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
		}
		return err != nil
	})
	fmt.Fprint(c, form[len(form)/2:])
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("the click in flight: %v", err)
	}
	if body := readAll(t, resp); resp.StatusCode != http.StatusOK || views.StepShown(body) != "3 / 7" {
		t.Fatalf("the click in flight: %s, %q; want frame 3", resp.Status, views.StepShown(body))
	}
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	val, err := rd.Client(t).Get(t.Context(), "fencing-demo:follow:"+strings.TrimPrefix(l.follow, "/follow/")).Result()
	if err != nil || !strings.HasSuffix(val, " gc-pause on 3") {
		t.Fatalf("Redis holds %q (%v), want the click's move, frame 3", val, err)
	}
	if _, err := follower.Wait(5 * time.Second); err == nil {
		// The move itself may reach the follower before the stream ends.
		if _, err := follower.Wait(5 * time.Second); err == nil {
			t.Fatal("the follower's stream is still open after Shutdown")
		}
	}
}

// With replicas, the limits per address hold across all of them, counted in
// the shared Redis: two follow streams from one address on two replicas use
// up a bound of two, and a run started on one replica spends the address's
// allowance on the other. A stream that ends gives its place back.
func TestLimitsAcrossReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server: not with -short")
	}
	rd := realserver.StartRedis(t, "limits")
	cfg := DefaultConfig()
	cfg.FollowRedis = "redis://" + rd.Addr() + "/0"
	cfg.FollowPerAddr = 2
	cfg.RunRate, cfg.RunBurst = 0.001, 1
	a, b := newTestServer(t, cfg), newTestServer(t, cfg)
	srvA, srvB := followServer(t, a), followServer(t, b)
	l := startLecture(t, a, true, "en")
	events := l.follow + "/events?lang=en"

	ticket := func() string { return ticketCookie + "=" + a.tickets.Issue(l.fid()) } // a follow page's, on either replica
	one := testkit.OpenStream(t, srvA.Client(), srvA.URL+events, "Cookie", ticket())
	testkit.OpenStream(t, srvB.Client(), srvB.URL+events, "Cookie", ticket())
	if st, err := testkit.DialStream(srvA.Client(), srvA.URL+events, "Cookie", ticket()); err == nil || !strings.Contains(err.Error(), "503") {
		if st != nil {
			st.Close()
		}
		t.Fatalf("a third stream from the address, on replica A: %v, want a 503", err)
	}
	one.Close()
	testkit.Eventually(t, 5*time.Second, "the place given back", func() bool {
		st, err := testkit.DialStream(srvB.Client(), srvB.URL+events, "Cookie", ticket())
		if st != nil {
			defer st.Close()
		}
		return err == nil
	})

	start := place{from: 1, on: true, lang: "en"}
	testkit.MustStatus(t, clickFrom(t, a, "192.0.2.9:1", "step", start, true), http.StatusOK)
	mustRateLimited(t, clickFrom(t, b, "192.0.2.9:1", "step", start, true), gcPauseURL(true, 1, "en"), "en", true)
	testkit.MustStatus(t, clickFrom(t, b, "192.0.2.10:1", "step", start, true), http.StatusOK)
}
