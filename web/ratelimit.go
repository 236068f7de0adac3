package web

import (
	"context"
	"log/slog"
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"

	"github.com/distlock/fencing-demo/web/follow"
)

// allowance caps how fast one client address may do something that costs
// the server until it is forgotten: start a new run (a run costs memory
// until it is evicted, so a script that starts thousands would push every
// student's run out of the cache), take a follow page's ticket (one answer
// to each question: predict.go), send answers. Stepping a run the server
// still has costs nothing new and is never limited. The defaults leave room
// for a whole classroom behind one school NAT doing it in the same minute.
type allowance struct {
	kind   string // its name in Redis: "runs", "tickets"
	limit  rate.Limit
	burst  int
	mu     sync.Mutex
	byAddr *lru.Cache[string, *rate.Limiter] // the addresses seen last; an evicted one starts afresh
	// shared, with replicas (-follow-redis), counts each address's
	// allowance in Redis across every replica. When Redis does not answer
	// in time, this server allows its share of the allowance (over the
	// replicas alive), so together they never allow more than one server.
	shared *follow.Redis
	log    *slog.Logger
	warned atomic.Int64 // when a slow Redis was last logged (UnixNano)
}

// sharedWait is as long as a new run waits for Redis's count.
const sharedWait = 250 * time.Millisecond

// limiterAddrs is how many client addresses the limiter remembers: enough
// for every address active within the time a bucket takes to refill.
const limiterAddrs = 10000

// newAllowance returns nil, no limit, when perSecond is 0.
func newAllowance(kind string, perSecond float64, burst int) *allowance {
	if perSecond <= 0 {
		return nil
	}
	cache, _ := lru.New[string, *rate.Limiter](limiterAddrs) // fails only for a size below 1
	return &allowance{kind: kind, limit: rate.Limit(perSecond), burst: max(burst, 1), byAddr: cache}
}

// share counts the allowance across replicas, in relay's Redis.
func (l *allowance) share(relay *follow.Redis, log *slog.Logger) {
	if l != nil {
		l.shared, l.log = relay, log
	}
}

// allow takes one from addr's allowance, or says how long to wait.
func (l *allowance) allow(ctx context.Context, addr string) (ok bool, retry time.Duration) {
	if l == nil {
		return true, 0
	}
	if l.shared != nil {
		ctx, cancel := context.WithTimeout(ctx, sharedWait)
		ok, retry, err := l.shared.Take(ctx, l.kind, addr, float64(l.limit), l.burst)
		cancel()
		if err == nil {
			return ok, retry
		}
		if now := time.Now().UnixNano(); now-l.warned.Load() >= int64(time.Second) {
			l.warned.Store(now)
			l.log.Warn("counting an allowance in redis; each replica allows its share", "kind", l.kind, "err", err)
		}
	}
	l.mu.Lock()
	lim, found := l.byAddr.Get(addr)
	if !found {
		limit, burst := l.limit, l.burst
		if l.shared != nil {
			n := l.shared.Replicas()
			limit, burst = limit/rate.Limit(n), l.shared.Share(burst)
		}
		lim = rate.NewLimiter(limit, burst)
		l.byAddr.Add(addr, lim)
	}
	l.mu.Unlock()
	r := lim.Reserve()
	if d := r.Delay(); d > 0 {
		r.Cancel() // refused: give the token back
		return false, d
	}
	return true, 0
}

// retryAfter sets Retry-After to d in whole seconds, at least one, and
// returns them.
func retryAfter(c echo.Context, d time.Duration) int {
	secs := max(1, int(math.Ceil(d.Seconds())))
	c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
	return secs
}

// admitRun lets a click through unless it would start a new run (it names no
// run, or one this server no longer has) and its address has started too
// many lately. The refusal is a 429 whose way back is the frame the click
// was made on, so the visitor keeps their place.
func (s *Server) admitRun(c echo.Context, run, here string) error {
	if run != "" && s.runs.has(run) {
		return nil
	}
	ok, retry := s.limiter.allow(c.Request().Context(), addrKey(c.RealIP()))
	if ok {
		return nil
	}
	if secs := retryAfter(c, retry); secs > 1 {
		return &problem{status: http.StatusTooManyRequests, key: "err.rate", args: []any{secs}, cont: here}
	}
	return &problem{status: http.StatusTooManyRequests, key: "err.rate.one", cont: here}
}

// clientAddr is how the server tells one visitor's address from another's:
// the connection's peer or, behind a load balancer or reverse proxy
// (-behind-proxy) and only when the peer is one of the trusted proxies, the
// address in X-Forwarded-For that the last trusted proxy saw. That is the
// rightmost entry that is not itself a trusted proxy: each proxy appends the
// address it was reached from, so everything to its left was written by the
// client and could be anything. Echo's extractor takes the leftmost.
func (s *Server) clientAddr(r *http.Request) string {
	peer := peerAddr(r)
	if !s.cfg.BehindProxy || !s.trusted(peer) {
		return peer.String()
	}
	var hops []string
	for _, h := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(h, ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // a hop we cannot read: the one before it is the last we can trust
		}
		a = a.Unmap()
		if !s.trusted(a) {
			return a.String()
		}
		peer = a
	}
	return peer.String()
}

// peerAddr is the address of the connection's other end.
func peerAddr(r *http.Request) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		a, _ := netip.ParseAddr(r.RemoteAddr)
		return a.Unmap()
	}
	return ap.Addr().Unmap()
}

// trusted reports whether a is one of the proxies whose X-Forwarded-* headers
// the server believes (-trusted-proxies).
func (s *Server) trusted(a netip.Addr) bool {
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// addrKey is the part of a client address that counts as one client for the
// limits: an IPv4 address, or an IPv6 address's /64, which is what one home
// or one phone is handed (and free to pick any address in).
func addrKey(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	return addrKeyOf(a)
}

func addrKeyOf(a netip.Addr) string {
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	p, _ := a.Prefix(64)
	return p.String()
}
