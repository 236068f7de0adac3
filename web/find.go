package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/follow"
	"github.com/distlock/fencing-demo/web/internal/respond"
)

// "Find a way to break this": GET /scenarios/<id>/find?<a frame's address>
// runs the counterexample finder (demo/find) from that frame, for the
// scenario's property, and answers with what it found: with htmx, the
// result's box; without, a page of its own. Like a frame, the answer is a
// function of the address, so it is cached, across replicas too; the
// search is bounded in states and in time, and few run at once, shared
// fairly between addresses (gate.go), so no visitor can tie the server up
// or keep the others out.

// The bounds of a search from the page; its states and time are the
// operator's (Config.FindStates, FindTime).
const (
	findDepth   = find.DefaultDepth
	findResults = 512 // results kept in this process
	// findShared is how long a result is kept in the replicas' Redis, and
	// findAsk as long as a search waits for Redis's copy.
	findShared = time.Hour
	findAsk    = 100 * time.Millisecond
	// findStretch bounds a search by the clock, in multiples of its CPU
	// budget.
	findStretch = 4
)

// finder runs the page's searches: through a gate (gate.go) that shares a
// core's worth of them fairly between addresses, each answer kept by its
// place, in this process and, with replicas, in the shared Redis; a room
// asking from one frame at once costs one search.
type finder struct {
	states  int           // distinct states one search explores at most
	time    time.Duration // the longest one search runs
	gate    *gate
	results *answers[demo.Place, find.Result]
	shared  *follow.Redis // nil: this server alone

	searches atomic.Int64 // searches run
}

func newFinder(states int, limit time.Duration, g *gate) *finder {
	return &finder{states: states, time: limit, gate: g, results: newAnswers[demo.Place, find.Result](findResults)}
}

// errBusy is a search turned away by the gate; busyError says how long to
// wait.
var errBusy = errors.New("too many searches at once")

type busyError struct{ retry time.Duration }

func (e busyError) Error() string { return errBusy.Error() }
func (e busyError) Unwrap() error { return errBusy }

// search finds from p for prop: from this process's results or the
// replicas', from a search of the same place under way, or by a search of
// its own through the gate. A result cut short by the deadline is not
// kept: another moment, or a quieter machine, may get further.
func (f *finder) search(ctx context.Context, addr string, p demo.Place, prop demo.Property) (find.Result, error) {
	return f.results.get(ctx, p, func() (find.Result, bool, error) {
		if r, ok := f.sharedResult(ctx, p, prop); ok {
			return r, true, nil
		}
		leave, retry, ok := f.gate.enter(ctx, addr)
		if !ok {
			return find.Result{}, false, busyError{retry}
		}
		defer leave()
		f.searches.Add(1)
		var (
			r        find.Result
			timedOut bool
			err      error
		)
		lowPriority(func() { r, timedOut, err = f.run(ctx, p, prop) })
		if err == nil && !timedOut {
			f.keep(p, r)
		}
		return r, !timedOut, err
	})
}

// run is one search within the operator's budget: f.time of its thread's
// CPU (searchClock), and at most findStretch times that by the clock, so
// that a busy machine neither cuts a search short nor lets it hold its
// slot long; timedOut says the budget (or the asker leaving) cut it short.
func (f *finder) run(ctx context.Context, p demo.Place, prop demo.Property) (r find.Result, timedOut bool, err error) {
	spent, waited := searchClock(), wallClock()
	r, err = find.Find(p, prop, find.Options{Depth: findDepth, MaxStates: f.states, Stop: func() bool {
		timedOut = timedOut || ctx.Err() != nil || spent() > f.time || waited() > findStretch*f.time
		return timedOut
	}})
	return r, timedOut, err
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
	var b busyError
	if errors.As(err, &b) {
		return busy(c, b.retry, "err.find.busy.wait", here.URL())
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

// keptResult is a search's result as the replicas keep it in Redis: the
// actions in their free-play form, read back against the place's scenario.
type keptResult struct {
	Found       bool           `json:"found"`
	Trace       []string       `json:"trace,omitempty"`
	Violation   demo.Violation `json:"violation"`
	Others      []keptMet      `json:"others,omitempty"`
	States      int            `json:"states"`
	Depth       int            `json:"depth"`
	OutOfBudget bool           `json:"out_of_budget,omitempty"`
}

type keptMet struct {
	Violation demo.Violation `json:"violation"`
	Trace     []string       `json:"trace"`
}

// sharedKey names place p's result in Redis, with the budget it was found
// in (a replica given another -find-states finds another answer).
func (f *finder) sharedKey(p demo.Place) string {
	sum := sha256.Sum256([]byte(p.Play))
	return "find:" + p.Sc.ID + ":" + demo.OnOff(p.On) + ":" + strconv.Itoa(p.Step) + ":" +
		hex.EncodeToString(sum[:12]) + ":" + strconv.Itoa(f.states)
}

// keep gives the other replicas p's result, without making anyone wait.
func (f *finder) keep(p demo.Place, r find.Result) {
	if f.shared == nil {
		return
	}
	k := keptResult{Found: r.Found, Trace: lines(p.Sc, r.Trace), Violation: r.Violation, States: r.States, Depth: r.Depth, OutOfBudget: r.OutOfBudget}
	for _, m := range r.Others {
		k.Others = append(k.Others, keptMet{Violation: m.Violation, Trace: lines(p.Sc, m.Trace)})
	}
	b, err := json.Marshal(k)
	if err != nil {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = f.shared.Cache(ctx, f.sharedKey(p), b, findShared)
	}()
}

// sharedResult is p's result as another replica found it, if Redis answers
// within findAsk and holds one that reads back against p's scenario.
func (f *finder) sharedResult(ctx context.Context, p demo.Place, prop demo.Property) (find.Result, bool) {
	if f.shared == nil {
		return find.Result{}, false
	}
	ctx, cancel := context.WithTimeout(ctx, findAsk)
	defer cancel()
	b, ok, err := f.shared.Cached(ctx, f.sharedKey(p))
	if err != nil || !ok {
		return find.Result{}, false
	}
	var k keptResult
	if json.Unmarshal(b, &k) != nil {
		return find.Result{}, false
	}
	r := find.Result{Start: p, Property: prop, Found: k.Found, Violation: k.Violation, States: k.States, Depth: k.Depth, OutOfBudget: k.OutOfBudget}
	if r.Trace, err = actions(p.Sc, k.Trace); err != nil {
		return find.Result{}, false
	}
	for _, m := range k.Others {
		trace, err := actions(p.Sc, m.Trace)
		if err != nil {
			return find.Result{}, false
		}
		r.Others = append(r.Others, find.Met{Violation: m.Violation, Trace: trace})
	}
	return r, true
}

// lines are sc's actions in their free-play form.
func lines(sc *demo.Scenario, as []demo.Action) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = demo.Canonical(sc, a)
	}
	return out
}

// actions reads free-play lines back as sc's actions.
func actions(sc *demo.Scenario, ls []string) ([]demo.Action, error) {
	out := make([]demo.Action, 0, len(ls))
	for _, l := range ls {
		a, err := demo.ParseFree(sc, l)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}
