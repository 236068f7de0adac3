package web

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/internal/respond"
)

// "Find a way to break this": GET /scenarios/<id>/find?<a frame's address>
// runs the counterexample finder (demo/find) from that frame, for the
// scenario's property, and answers with what it found: with htmx, the
// result's box; without, a page of its own. Like a frame, the answer is a
// function of the address, so it is cached; the search is bounded in
// states and in time, and few run at once, so no visitor can tie the
// server up.

// The bounds of a search from the page; its states and time are the
// operator's (Config.FindStates, FindTime).
const (
	findDepth   = find.DefaultDepth
	findAtOnce  = 2   // searches at once in all, one a core of the machine this runs on
	findResults = 512 // results kept
)

// finder runs the page's searches: at most findAtOnce at a time, one per
// address, each answer kept by its place.
type finder struct {
	states  int           // distinct states one search explores at most
	time    time.Duration // the longest one search runs
	slots   chan struct{}
	mu      sync.Mutex
	running map[string]bool // the addresses with a search running
	results *lru.Cache[demo.Place, find.Result]
}

func newFinder(states int, limit time.Duration) *finder {
	c, _ := lru.New[demo.Place, find.Result](findResults) // a size above 0 never fails
	return &finder{states: states, time: limit, slots: make(chan struct{}, findAtOnce), running: map[string]bool{}, results: c}
}

// errBusy is a search turned away: too many at once, or one from the same
// address already running.
var errBusy = errors.New("too many searches at once")

// search finds from p for prop, from the cache when the same place was
// asked before. A result cut short by the deadline is not kept: another
// moment, or a quieter machine, may get further.
func (f *finder) search(ctx context.Context, addr string, p demo.Place, prop demo.Property) (find.Result, error) {
	if r, ok := f.results.Get(p); ok {
		return r, nil
	}
	f.mu.Lock()
	if f.running[addr] {
		f.mu.Unlock()
		return find.Result{}, errBusy
	}
	select {
	case f.slots <- struct{}{}:
	default:
		f.mu.Unlock()
		return find.Result{}, errBusy
	}
	f.running[addr] = true
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.running, addr)
		f.mu.Unlock()
		<-f.slots
	}()
	deadline := time.Now().Add(f.time)
	timedOut := false
	r, err := find.Find(p, prop, find.Options{Depth: findDepth, MaxStates: f.states, Stop: func() bool {
		timedOut = timedOut || ctx.Err() != nil || time.Now().After(deadline)
		return timedOut
	}})
	if err == nil && !timedOut {
		f.results.Add(p, r)
	}
	return r, err
}

// find answers a search from the page.
func (s *Server) find(c echo.Context) error {
	sc, err := s.scenario(c)
	if err != nil {
		return err
	}
	here, err := views.ReadPlace(sc, c.QueryParams(), views.InURL, viewOf(c), c.Request().Header.Get("Accept-Language"))
	if err != nil {
		return badAddress(err, here.URL())
	}
	prop, ok := sc.Promise()
	if !ok || sc.Family.Offers == nil {
		return &problem{status: http.StatusNotFound, key: "err.find.none", args: []any{sc.ID}, cont: here.URL()}
	}
	r, err := s.finder.search(c.Request().Context(), addrKey(c.RealIP()), here.Place, prop)
	if errors.Is(err, errBusy) {
		refuse503(c)
		c.Response().Header().Set("Retry-After", "1")
		return &problem{status: http.StatusServiceUnavailable, key: "err.find.busy", title: "err.find.busy.title", cont: here.URL()}
	}
	if err != nil {
		return err
	}
	v, err := views.NewFind(here, r)
	if err != nil {
		return err
	}
	c.Response().Header().Add(echo.HeaderVary, "HX-Request")
	c.Response().Header().Set(echo.HeaderCacheControl, "no-cache")
	if isHTMX(c) {
		return respond.Render(c, http.StatusOK, views.FindResult(v))
	}
	v.Page = views.Page{
		Lang:      here.Lang,
		Title:     views.T(here.Lang, "find.title") + " · " + sc.Title.In(here.Lang) + " · " + views.T(here.Lang, "site"),
		Assets:    s.assetURLs(),
		OtherLang: here.In(views.OtherLang(here.Lang)).FindURL(),
		Home:      views.HomeURL(here.Lang),
		Index:     views.IndexURL(here.Lang),
		Chrome:    here.View == views.PageView,
	}
	return respond.Render(c, http.StatusOK, views.FindPage(v))
}
