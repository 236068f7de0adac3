package web

import (
	"context"
	"math"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
)

// gate lets through at most slots expensive answers at once (a search from
// the page, a scenario saved from free play), shared fairly between client
// addresses. A request that finds every slot taken waits, at most
// gateWait; a slot that comes free goes to the waiting address that has
// used the least slot time lately (it decays by half every gateHalfLife),
// so a student asking once goes before an address that asks without end,
// however many addresses that one has, and addresses that all ask without
// end take turns. An address may have gatePerAddr waiting, the gate
// gateWaiting in all; past that, or past the wait, the request is turned
// away with how long to wait, worked out from how long answers have taken
// lately (Retry-After).
type gate struct {
	slots int
	wait  time.Duration // gateWait; tests shorten it

	mu      sync.Mutex
	running int
	waiting map[string][]*waiter // by address, in order of arrival
	queued  int
	usage   map[string]*use // slot time each address used lately
	took    time.Duration   // a moving average of how long an answer holds its slot
}

// waiter is one request waiting for a slot.
type waiter struct {
	ready  chan struct{}
	served bool // given a slot (guarded by gate.mu)
	since  time.Time
}

// use is an address's slot time, decayed to at.
type use struct {
	seconds float64
	at      time.Time
}

const (
	gateWait     = 3 * time.Second
	gateHalfLife = 30 * time.Second
	gatePerAddr  = 8
	gateWaiting  = 64
	gateUsers    = 4096 // addresses whose usage is remembered
)

func newGate(slots int) *gate {
	return &gate{slots: max(slots, 1), wait: gateWait, waiting: map[string][]*waiter{}, usage: map[string]*use{}, took: time.Second}
}

// enter waits for a slot for addr. ok false says how long to wait before
// asking again; otherwise leave gives the slot back.
func (g *gate) enter(ctx context.Context, addr string) (leave func(), retry time.Duration, ok bool) {
	now := time.Now()
	g.mu.Lock()
	if g.running < g.slots && g.queued == 0 {
		g.running++
		g.mu.Unlock()
		return g.leaver(addr, now), 0, true
	}
	if len(g.waiting[addr]) >= gatePerAddr || g.queued >= gateWaiting {
		retry = g.later()
		g.mu.Unlock()
		return nil, retry, false
	}
	w := &waiter{ready: make(chan struct{}), since: now}
	g.waiting[addr] = append(g.waiting[addr], w)
	g.queued++
	g.mu.Unlock()

	timer := time.NewTimer(g.wait)
	defer timer.Stop()
	select {
	case <-w.ready:
		return g.leaver(addr, time.Now()), 0, true
	case <-timer.C:
	case <-ctx.Done():
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if w.served { // the slot came as the wait ran out: take it
		return g.leaver(addr, time.Now()), 0, true
	}
	q := g.waiting[addr]
	for i, x := range q {
		if x == w {
			g.waiting[addr] = append(q[:i:i], q[i+1:]...)
			break
		}
	}
	if len(g.waiting[addr]) == 0 {
		delete(g.waiting, addr)
	}
	g.queued--
	return nil, g.later(), false
}

// leaver gives the slot back once, counting its time to addr and handing
// it to the next waiter.
func (g *gate) leaver(addr string, start time.Time) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			now := time.Now()
			held := now.Sub(start)
			g.mu.Lock()
			defer g.mu.Unlock()
			g.running--
			g.took = (7*g.took + held) / 8
			g.charge(addr, held, now)
			g.next(now)
		})
	}
}

// charge adds held to addr's usage. g.mu is held.
func (g *gate) charge(addr string, held time.Duration, now time.Time) {
	u := g.usage[addr]
	if u == nil {
		if len(g.usage) >= gateUsers {
			for a, old := range g.usage { // forget those whose usage has decayed to nothing
				if decayed(old, now) < 0.01 {
					delete(g.usage, a)
				}
			}
		}
		if len(g.usage) >= gateUsers {
			return
		}
		u = &use{at: now}
		g.usage[addr] = u
	}
	u.seconds, u.at = decayed(u, now)+held.Seconds(), now
}

func decayed(u *use, now time.Time) float64 {
	return u.seconds * math.Exp2(-now.Sub(u.at).Seconds()/gateHalfLife.Seconds())
}

// next hands free slots to the waiting addresses that used the least
// lately, each its first waiter. g.mu is held.
func (g *gate) next(now time.Time) {
	for g.running < g.slots && g.queued > 0 {
		best, least := "", math.Inf(1)
		var first time.Time
		for a, q := range g.waiting {
			u := 0.0
			if x := g.usage[a]; x != nil {
				u = decayed(x, now)
			}
			if u < least || u == least && q[0].since.Before(first) {
				best, least, first = a, u, q[0].since
			}
		}
		q := g.waiting[best]
		w := q[0]
		if len(q) == 1 {
			delete(g.waiting, best)
		} else {
			g.waiting[best] = q[1:]
		}
		g.queued--
		g.running++
		w.served = true
		close(w.ready)
	}
}

// later is how long a request turned away should wait: the answers ahead
// of it, at the time an answer has taken lately, over the slots; from one
// second to a minute. g.mu is held.
func (g *gate) later() time.Duration {
	ahead := float64(g.queued+g.running) / float64(g.slots)
	d := time.Duration(ahead * float64(g.took))
	return min(max(d, time.Second), time.Minute)
}

// wallClock measures how long since it was called, by the clock.
func wallClock() func() time.Duration {
	start := time.Now()
	return func() time.Duration { return time.Since(start) }
}

// expensiveSlots is how many expensive answers run at once: one core of the
// machine is left to the lecturer's clicks, which would otherwise wait
// behind searches that each keep a core busy for up to a second.
func expensiveSlots() int { return max(1, runtime.GOMAXPROCS(0)-1) }

// gated answers with next through g: a busy page with busyKey (which takes
// the seconds to wait) and Retry-After when the gate turns the request
// away. next runs on a thread of lower priority (lowPriority), so that
// the lecturer's click goes first on a busy machine.
func (s *Server) gated(g *gate, busyKey string, next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		leave, retry, ok := g.enter(c.Request().Context(), addrKey(c.RealIP()))
		if !ok {
			return busy(c, retry, busyKey, placeOfQuery(c))
		}
		defer leave()
		var err error
		lowPriority(func() { err = next(c) })
		return err
	}
}

// busy is the answer to an expensive request turned away: 503 (expected,
// so counted and not logged as an error) with Retry-After, saying how many
// seconds to wait, and a way back to cont.
func busy(c echo.Context, retry time.Duration, key, cont string) error {
	refuse503(c)
	secs := retryAfter(c, retry)
	return &problem{status: http.StatusServiceUnavailable, key: key, args: []any{secs}, title: "err.busy.title", cont: cont}
}

// placeOfQuery is the frame an expensive request was made from, for the way
// back: its path without the last part (/yaml, /find), with its query.
func placeOfQuery(c echo.Context) string {
	r := c.Request()
	path := r.URL.Path[:max(strings.LastIndexByte(r.URL.Path, '/'), 0)]
	q := r.URL.Query()
	q.Del("download")
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}
