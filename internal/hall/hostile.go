package hall

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
)

// Hostile is what the hostile attendees did and got.
type Hostile struct {
	Held   atomic.Int64 // connections held open now, all kinds together
	Opened atomic.Int64 // connections opened in all
	// Answers, Finds and Saves are how the floods were answered.
	Answers, Finds, Saves Statuses
	question              atomic.Value // the question the follow page showed last (string)
}

// holdEvery is how often a holder looks at its connections.
const holdEvery = 500 * time.Millisecond

// Squat keeps n follow streams of link open from address from, sending
// each request without a cookie and never reading a byte, not even the
// answer; each the server or the balancer closes is opened again.
func (h *Hostile) Squat(ctx context.Context, wg *sync.WaitGroup, from, host, link string, n int) {
	req := []byte("GET " + link + "/events?lang=en HTTP/1.1\r\nHost: " + host + "\r\n\r\n")
	wg.Go(func() {
		h.hold(ctx, from, host, n, func(_ int, c net.Conn, fresh bool) error { return sendOnce(c, fresh, req) })
	})
}

// Silence keeps n connections open from address from that never send a
// byte, opening each again when it is closed.
func (h *Hostile) Silence(ctx context.Context, wg *sync.WaitGroup, from, host string, n int) {
	wg.Go(func() { h.hold(ctx, from, host, n, func(int, net.Conn, bool) error { return nil }) })
}

// SlowHeaders keeps n connections open from address from, each sending a
// request's headers a byte every holdEvery and never finishing them.
func (h *Hostile) SlowHeaders(ctx context.Context, wg *sync.WaitGroup, from, host string, n int) {
	head := "GET / HTTP/1.1\r\nHost: " + host + "\r\nX-Slow: "
	wg.Go(func() {
		sent := make([]int, n) // by slot, the bytes of the headers its connection has sent
		h.hold(ctx, from, host, n, func(slot int, c net.Conn, fresh bool) error {
			if fresh {
				sent[slot] = 0
			}
			b := byte('a')
			if i := sent[slot]; i < len(head) {
				b = head[i]
			}
			sent[slot]++
			_ = c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
			_, err := c.Write([]byte{b})
			return err
		})
	})
}

func sendOnce(c net.Conn, fresh bool, b []byte) error {
	if !fresh {
		return nil
	}
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	_, err := c.Write(b)
	return err
}

// hold keeps n connections from address from to host until ctx ends: every
// holdEvery it opens those missing, calls tend on each (with its slot;
// fresh: just opened), and drops those the other side closed or tend
// failed on.
func (h *Hostile) hold(ctx context.Context, from, host string, n int, tend func(slot int, c net.Conn, fresh bool) error) {
	conns := make([]net.Conn, n)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
				h.Held.Add(-1)
			}
		}
	}()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: time.Second}
	for {
		for i, c := range conns {
			fresh := false
			if c == nil {
				var err error
				if c, err = d.DialContext(ctx, "tcp", host); err != nil {
					continue
				}
				conns[i], fresh = c, true
				h.Opened.Add(1)
				h.Held.Add(1)
			}
			if tend(i, c, fresh) != nil || !open(c) {
				c.Close()
				conns[i] = nil
				h.Held.Add(-1)
			}
		}
		if !Sleep(ctx, holdEvery) {
			return
		}
	}
}

// open reports whether the other side of c has not closed it, from the
// kernel's state of the connection: a holder that never reads cannot
// learn it from a read.
func open(c net.Conn) bool {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return true
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return false
	}
	state := uint8(0)
	_ = raw.Control(func(fd uintptr) {
		if ti, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO); err == nil {
			state = ti.State
		}
	})
	return state == 1 // TCP_ESTABLISHED
}

// FloodAnswers sends answers to lecture link from address from as fast as
// workers can, without a cookie (each a new voter, were the server to
// take them), to the question the follow page shows if any.
func (h *Hostile) FloodAnswers(ctx context.Context, wg *sync.WaitGroup, from, base, link string, workers int) {
	c := floodClient(from, workers)
	target := base + link + "/answer"
	for range workers {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				body := fmt.Sprintf("q=%s&option=accepted&lang=en", h.questionOf(ctx, c, base+link, i))
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(body))
				if err != nil {
					return
				}
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.Header.Set("HX-Request", "true")
				flood(ctx, c, req, &h.Answers)
			}
		})
	}
}

// questionOf is the question the follow page showed last, read again
// every hundredth answer.
func (h *Hostile) questionOf(ctx context.Context, c *http.Client, page string, i int) string {
	last, _ := h.question.Load().(string)
	if i%100 != 0 {
		return last
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, page+"?lang=en", nil)
	if err == nil {
		if resp, err := c.Do(req); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if m := pollID.FindSubmatch(b); m != nil {
				last = string(m[1])
				h.question.Store(last)
			}
		}
	}
	return last
}

// FloodFinds asks "find a way to break this" from address from as fast as
// workers can, each time from a place never asked before (a free-play
// history of its own), so that no cache answers it.
func (h *Hostile) FloodFinds(ctx context.Context, wg *sync.WaitGroup, from, base string, sc *demo.Scenario, workers int) {
	h.floodPlaces(ctx, wg, from, base, sc, workers, &h.Finds, 1, views.Place.FindURL)
}

// FloodSaves asks for "save as a scenario" from address from as fast as
// workers can, each a long history never asked before.
func (h *Hostile) FloodSaves(ctx context.Context, wg *sync.WaitGroup, from, base string, sc *demo.Scenario, workers int) {
	h.floodPlaces(ctx, wg, from, base, sc, workers, &h.Saves, 200, views.Place.SaveURL)
}

// floodPlaces gets url(p) for places p whose history is actions ticks and
// one more, of a length never asked before.
func (h *Hostile) floodPlaces(ctx context.Context, wg *sync.WaitGroup, from, base string, sc *demo.Scenario, workers int,
	st *Statuses, actions int, url func(views.Place) string) {
	c := floodClient(from, workers)
	var n atomic.Int64
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				k := n.Add(1)
				play := strings.Repeat("tick 1\n", actions-1) + fmt.Sprintf("tick %d", 2+k%5000)
				p := views.Place{Place: demo.Place{Sc: sc, On: k%2 == 0, Step: 1 + int(k/5000)%sc.Frames(), Play: play}, Lang: "en"}
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+url(p), nil)
				if err != nil {
					return
				}
				flood(ctx, c, req, st)
			}
		})
	}
}

func floodClient(from string, workers int) *http.Client {
	return &http.Client{Timeout: RequestTimeout, Transport: &http.Transport{
		DialContext: Dialer(from).DialContext, MaxIdleConnsPerHost: workers, MaxConnsPerHost: workers, DisableCompression: true,
	}}
}

// flood sends req, counts its answer, and reads it whole; refused by the
// balancer's per-source bound (a connection closed at once), it tries again
// after 10 ms: an attacker does not wait, and a load tool that did not at
// all would spend its own CPU in a loop of refusals.
func flood(ctx context.Context, c *http.Client, req *http.Request, st *Statuses) {
	resp, err := c.Do(req)
	if ctx.Err() != nil {
		return
	}
	st.Add(resp, err)
	if err != nil {
		Sleep(ctx, 10*time.Millisecond)
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// Attack puts ten hostile addresses in place against lecture link on base
// until ctx ends: 127.0.0.200 and .201 squat follow streams, .202 and .203
// hold silent connections, .204 and .205 send headers a byte at a time,
// conns connections each; .206 and .207 flood answers without a cookie,
// .208 searches and .209 saves, workers requests at once each.
func Attack(ctx context.Context, wg *sync.WaitGroup, base, link string, sc *demo.Scenario, conns, workers int) *Hostile {
	e := &Hostile{}
	host := strings.TrimPrefix(base, "http://")
	e.Squat(ctx, wg, "127.0.0.200", host, link, conns)
	e.Squat(ctx, wg, "127.0.0.201", host, link, conns)
	e.Silence(ctx, wg, "127.0.0.202", host, conns)
	e.Silence(ctx, wg, "127.0.0.203", host, conns)
	e.SlowHeaders(ctx, wg, "127.0.0.204", host, conns)
	e.SlowHeaders(ctx, wg, "127.0.0.205", host, conns)
	e.FloodAnswers(ctx, wg, "127.0.0.206", base, link, workers)
	e.FloodAnswers(ctx, wg, "127.0.0.207", base, link, workers)
	e.FloodFinds(ctx, wg, "127.0.0.208", base, sc, workers)
	e.FloodSaves(ctx, wg, "127.0.0.209", base, sc, workers)
	return e
}

// Report is what the hostile attendees got, for a report of the run.
type Report struct {
	Held, Opened          int64
	Answers, Finds, Saves map[string]int
	CPU                   float64 // seconds, when its process measured it
}

// Report is h's counts now.
func (h *Hostile) Report() Report {
	return Report{Held: h.Held.Load(), Opened: h.Opened.Load(),
		Answers: h.Answers.Counts(), Finds: h.Finds.Counts(), Saves: h.Saves.Counts()}
}
