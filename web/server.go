// Package web is the demo's HTTP side: the Echo wiring, one small file per
// page or action, and what they share (the run cache, the rate limit, the
// error pages, the static files); how an answer is made fast is
// internal/respond. A click's path:
//
//	act.go (read the click: views.ReadPlace) -> ratelimit.go -> runs.go
//	(move the run: demo) -> follow (tell the followers) -> views (render)
//
// Handlers stay thin: read the request, find the run, apply, render.
package web

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/views/guidedata"
	"github.com/distlock/fencing-demo/web/follow"
	"github.com/distlock/fencing-demo/web/internal/respond"
	"github.com/distlock/fencing-demo/web/room"
)

// Server wires the lesson (demo) to HTTP and the screen (views).
type Server struct {
	cfg         Config
	catalog     *demo.Catalog
	guide       *guidedata.Guide
	runs        *runs
	answers     *respond.Answers[answerKey] // pages and fragments, drawn once per place
	finder      *finder                     // the page's counterexample searches (find.go)
	judges      *judges                     // the judge's answers on labs' builds (judge.go)
	saves       *saves                      // "Save as a scenario" answers, by place (save.go)
	expensive   *gate                       // searches and saves, shared fairly between addresses (gate.go)
	limiter     *allowance                  // new runs per address; nil: no limit
	conns       *connLimiter
	perAddr     *inflight // requests in flight per address, behind a proxy (limit.go)
	follow      *follow.Broker
	polls       follow.Polls    // a lecture's question and its answers (predict.go)
	tickets     *follow.Tickets // what a follow page hands its visitor: one answer (follow.go)
	ticketLimit *allowance      // tickets per address
	answerLimit *allowance      // answers per address
	rooms       room.Store      // workshop rooms (room_*.go)
	roomJudge   room.Judge      // judges a room's submissions (roomjudge.go)
	roomSubmits *allowance      // submissions per learner
	roomOpens   *allowance      // rooms opened per address
	assets      *Assets
	// groups is the scenario index, worked out once, when the index is first
	// asked for: it plays every scenario to its end both ways, which no other
	// page needs, so a fresh server does not make its first visitor wait for
	// it. The catalog was played through when it was loaded, so it cannot fail
	// on a scenario the server serves.
	groups func() ([]views.Group, error)
	log    *slog.Logger
	echo   *echo.Echo
	// now is the clock a click is timed by (a double click's echo, act.go);
	// tests set their own.
	now func() time.Time

	draining atomic.Bool  // a graceful shutdown has begun: /healthz fails
	inflight atomic.Int64 // requests being answered, follow streams aside (drain)
	refusals atomic.Int64 // refusals the server meant (refuse503), so far
	// refusalLogged is when (UnixNano) a refusal was last logged at INFO.
	refusalLogged atomic.Int64
	stopRelay     func() // nil without -follow-redis
}

// New makes the server of catalog's scenarios, guide's words and the files
// of static. Everything is checked here, once: a mistake stops start-up.
func New(cfg Config, catalog *demo.Catalog, guide *guidedata.Guide, static fs.FS, log *slog.Logger) (*Server, error) {
	a, err := LoadAssets(static)
	if err != nil {
		return nil, fmt.Errorf("static files: %w", err)
	}
	s := &Server{
		now:     time.Now,
		cfg:     cfg,
		catalog: catalog,
		guide:   guide,
		limiter: newAllowance("runs", cfg.RunRate, cfg.RunBurst),
		conns:   newConnLimiter(cfg.MaxConns, connsPerAddr(cfg)),
		assets:  a,
		answers: respond.NewAnswers[answerKey](maxAnswers),
		judges:  newJudges(cfg.FindStates, cfg.JudgeTime),
		saves:   newSaves(),
		log:     log,
		echo:    echo.New(),
	}
	s.expensive = newGate(expensiveSlots())
	s.finder = newFinder(cfg.FindStates, cfg.FindTime, s.expensive)
	s.groups = sync.OnceValues(func() ([]views.Group, error) { return views.IndexGroups(catalog) })
	if missing := guide.Missing(catalog); len(missing) > 0 {
		// Only a -scenarios file without these can get here; the guide's
		// pages leave those links out rather than fail.
		log.Warn("the guide links to scenarios the catalog lacks", "ids", missing)
	}
	s.follow = follow.NewBroker(cfg.MaxRuns, s.renderFollowEvent) // follow.go
	s.follow.MaxFollowers, s.follow.MaxPerAddr, s.follow.MaxStreams = cfg.FollowPerLecture, cfg.FollowPerAddr, cfg.FollowStreams
	s.follow.Idle = cfg.LectureIdle
	perAddr := cfg.FollowPerAddr
	if perAddr <= 0 {
		perAddr = follow.MaxPerAddr
	}
	// An address is handed as many tickets at once as it may hold follow
	// places, and as many again over ten minutes; a hall behind one
	// address answers within a few seconds.
	s.tickets = follow.NewTickets()
	s.ticketLimit = newAllowance("tickets", float64(perAddr)/ticketRefill.Seconds(), perAddr)
	s.answerLimit = newAllowance("answers", float64(perAddr)/2, 2*perAddr)
	if cfg.FollowRedis != "" {
		relay, err := follow.NewRedis(cfg.FollowRedis, cfg.LectureIdle, s.lookupScenario) // lab.go: a learner's build too
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithCancel(context.Background())
		s.follow.UseRelay(ctx, relay, log)
		s.limiter.share(relay, log)
		s.ticketLimit.share(relay, log)
		relay.ShareTickets(ctx, s.tickets)
		s.finder.shared = relay
		s.stopRelay = func() {
			leave, done := context.WithTimeout(context.Background(), time.Second)
			_ = relay.Leave(leave) // its streams have ended: their places count no more
			done()
			cancel()
			_ = relay.Close()
		}
		s.polls = relay.Polls()
	} else {
		s.polls = follow.NewMemPolls(cfg.MaxRuns, cfg.LectureIdle)
	}
	s.runs = newRuns(cfg.MaxRuns, cfg.RunIdle, s.follow)
	if err := s.openRooms(); err != nil {
		return nil, err
	}
	if err := s.routes(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.echo.ServeHTTP(w, r) }

// Close ends every follow-along stream: Shutdown waits for requests in
// flight, and a follower's stream never ends by itself.
func (s *Server) Close() {
	s.follow.Close()
	if s.stopRelay != nil {
		s.stopRelay()
	}
}

// Catalog is the scenarios the server shows.
func (s *Server) Catalog() *demo.Catalog { return s.catalog }

// followEventsPath is the stream's route; compression skips it.
const followEventsPath = "/follow/:fid/events"

func (s *Server) routes() error {
	e := s.echo
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.handleError // errors.go
	e.IPExtractor = s.clientAddr       // ratelimit.go
	e.Use(
		middleware.RecoverWithConfig(middleware.RecoverConfig{DisableStackAll: true, DisablePrintStack: true}),
		s.requestLog(),
		s.securityHeaders,
	)
	if s.cfg.BehindProxy && s.cfg.MaxConnsPerAddr > 0 {
		s.perAddr = newInflight(s.cfg.MaxConnsPerAddr)
		e.Use(s.perAddr.limit) // limit.go
	}
	e.Use(
		bodyLimit,
		s.checkRequest,
		// Not the follow stream: each event must leave as it is written,
		// never wait in a compressor's buffer.
		respond.Compress(func(c echo.Context) bool { return c.Path() == followEventsPath || c.Path() == roomEventsPath }),
	)
	// HEAD answers wherever GET does: uptime monitors and link checkers use it.
	get := []string{http.MethodGet, http.MethodHead}
	e.Match(get, "/", s.home)           // index.go
	e.Match(get, "/healthz", s.healthz) // health.go
	e.Match(get, "/scenarios", s.index)
	e.Match(get, "/scenarios/:id", s.page)                                             // scenario.go
	e.Match(get, "/scenarios/:id/yaml", s.gated(s.expensive, "err.save.busy", s.save)) // save.go: a free-play history as a scenario
	e.POST("/scenarios/:id/ask", s.ask)                                                // predict.go
	e.GET("/scenarios/:id/poll", s.pollView)                                           // predict.go
	e.Match(get, "/scenarios/:id/find", s.find)                                        // find.go: the counterexample finder
	e.Match(get, "/embed/:id/find", s.find)
	e.Match(get, "/scenarios/:id/frame", s.frame) // frame.go: a frame one click away, prefetched
	e.Match(get, "/labs", s.labs)                 // lab.go: the labs, where a learner builds the fix
	e.Match(get, "/scenarios/:id/lab", s.labPage)
	e.POST("/scenarios/:id/lab", s.labPost)
	e.Match(append(get, http.MethodPost), "/scenarios/:id/lab/judge", s.judgePage) // judge.go
	e.Match(get, "/embed/:id/frame", s.frame)
	e.POST("/scenarios/:id/:action", s.act) // act.go
	e.Match(get, "/embed/:id", s.page)      // scenario.go: the page without the site's header
	e.POST("/embed/:id/:action", s.act)
	e.Match(get, "/qr.svg", s.qr) // qr.go
	e.Match(get, "/static/:name", s.assets.serve)
	e.Match(get, "/follow/:fid", s.followPage) // follow.go
	e.GET(followEventsPath, s.followEvents)
	e.Match(get, "/follow/:fid/qr.svg", s.followQR)
	e.POST("/follow/:fid/answer", s.followAnswer) // predict.go
	e.Match(get, "/rooms", s.roomOpenPage)        // room_open.go: workshop rooms
	e.POST("/rooms", s.roomOpen)
	e.Match(get, "/rooms/:rid", s.roomLearn) // room_learn.go
	e.POST("/rooms/:rid/join", s.roomJoin)
	e.Match(get, "/rooms/:rid/c/:n", s.roomTry)
	e.POST("/rooms/:rid/submit", s.roomSubmit) // room_submit.go
	e.Match(get, "/rooms/:rid/qr.svg", s.roomQR)
	e.Match(get, "/rooms/:rid/lead/:secret", s.roomBoard) // room_board.go
	e.GET(roomEventsPath, s.roomBoardEvents)
	e.POST("/rooms/:rid/lead/:secret/show", s.roomShow)
	e.POST("/rooms/:rid/lead/:secret/project", s.roomProject)
	e.POST("/rooms/:rid/lead/:secret/close", s.roomClose)
	e.Match(get, "/guide/decision-tree", s.guideTree) // guide.go
	e.Match(get, "/guide/quiz", s.guideQuiz)

	// challenges.go and challenge_submit.go: break it, fix it, judged by the model.
	e.Match(get, "/challenges", s.challengesPage)
	e.Match(get, "/challenges/:cid", s.challengePage)
	e.Match(append(get, http.MethodPost), "/challenges/:cid/submit", s.challengeSubmit)
	if s.cfg.BenchRoutes {
		return s.benchRoutes() // bench.go, in a -tags bench build only
	}
	return nil
}

// connsPerAddr is the bound on one address's connections: none behind a
// proxy, where every connection is the proxy's and the bound applies to
// requests in flight instead (limit.go's inflight).
func connsPerAddr(cfg Config) int {
	if cfg.BehindProxy {
		return 0
	}
	return cfg.MaxConnsPerAddr
}

// securityHeaders keeps every script and style on our own origin and lets
// other sites embed the demo only as configured. X-Frame-Options is left
// out on purpose: it cannot say "these sites", and a textbook must frame us.
func (s *Server) securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	csp := "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
		"connect-src 'self'; base-uri 'none'; form-action 'self'; object-src 'none'; frame-ancestors " + s.cfg.FrameAncestors
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		return next(c)
	}
}

// requestLog logs each request with slog: at debug level when it went well,
// so stepping through a lecture makes no noise, and higher when it did not.
func (s *Server) requestLog() echo.MiddlewareFunc {
	return middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		LogStatus: true, LogURI: true, LogMethod: true, LogLatency: true, LogError: true,
		HandleError: true,
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			level := slog.LevelDebug
			refusal, _ := c.Get(refusalKey).(bool)
			var refusals int64
			switch {
			case refusal:
				// A 503 the server meant: a full lecture, a lecture not
				// started yet, a drain. Counted, and no alarm; at INFO at
				// most once a second (with the count), as a squatter can
				// make thousands a second.
				refusals = s.refusals.Add(1)
				if last := s.refusalLogged.Load(); time.Since(time.Unix(0, last)) >= time.Second &&
					s.refusalLogged.CompareAndSwap(last, time.Now().UnixNano()) {
					level = slog.LevelInfo
				}
			case v.Status >= 500:
				level = slog.LevelError
			case v.Status >= 400:
				level = slog.LevelInfo
			}
			attrs := []slog.Attr{
				slog.String("method", v.Method), slog.String("uri", redactRun(v.URI)),
				slog.Int("status", v.Status), slog.Duration("latency", v.Latency),
			}
			if v.Error != nil {
				attrs = append(attrs, slog.String("err", v.Error.Error()))
			}
			if refusal {
				attrs = append(attrs, slog.Int64("refusals", refusals)) // so far: the ones in between went to DEBUG
			}
			s.log.LogAttrs(c.Request().Context(), level, "request", attrs...)
			return nil
		},
	})
}

// refusalKey marks a request whose 503 is one the server meant (refuse).
const refusalKey = "web.refusal"

// refuse503 marks c's answer as an expected refusal: counted (Refusals), and
// logged at INFO at most once a second, never at ERROR.
func refuse503(c echo.Context) { c.Set(refusalKey, true) }

// Refusals is how many expected refusals (a full lecture's stream, a
// "waiting for the lecturer" page, /healthz while draining) the server has
// answered.
func (s *Server) Refusals() int64 { return s.refusals.Load() }

// maxBody is the largest request body read: 16 KiB, as the README says. A
// click's form is a few hundred bytes.
const maxBody = 16 << 10

// bodyLimit refuses a body over maxBody with a 413, whether its size was
// declared (Content-Length) or only found out while reading (chunked): the
// reader is http.MaxBytesReader, whose error the handlers and handleError
// both recognise.
func bodyLimit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.ContentLength > maxBody {
			return &problem{status: http.StatusRequestEntityTooLarge, key: "err.body"}
		}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(c.Response(), r.Body, maxBody)
		}
		return next(c)
	}
}

// maxAcceptLanguage is as much of Accept-Language as is read: a browser's is
// well under 100 bytes, and parsing a megabyte of it costs tens of
// milliseconds of CPU for nothing.
const maxAcceptLanguage = 256

// checkRequest turns away a query that does not parse, with the same 400 a
// form that does not parse gets, rather than dropping the bad part and
// answering as if it were not there; and it cuts Accept-Language down to
// maxAcceptLanguage before anything parses it.
func (s *Server) checkRequest(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if al := r.Header.Get("Accept-Language"); len(al) > maxAcceptLanguage {
			cut := al[:maxAcceptLanguage]
			if i := strings.LastIndexByte(cut, ','); i > 0 {
				cut = cut[:i] // a whole entry, not half of one
			}
			r.Header.Set("Accept-Language", cut)
		}
		if _, err := url.ParseQuery(r.URL.RawQuery); err != nil {
			r.URL.RawQuery = "" // so the error page does not read it either
			return &problem{status: http.StatusBadRequest, key: "err.query"}
		}
		return next(c)
	}
}

// HTTPServer bounds how long a client may take over each part of a request
// and how large its headers may be, so slow or stalled connections cannot
// pile up. Serve it on Listen's listener, which bounds the connections.
func (s *Server) HTTPServer(addr string) *http.Server {
	return &http.Server{
		Addr: addr,
		// A request that reached a handler was whole: its connection is no
		// longer one of the silent ones the limiter may close (limit.go).
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if c, ok := r.Context().Value(connKey{}).(net.Conn); ok {
				s.conns.spoke(c)
			}
			if !isStream(r) { // a stream is never done: Shutdown ends it (drain)
				s.inflight.Add(1)
				defer s.inflight.Add(-1)
			}
			s.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       s.cfg.IdleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		ConnState:         s.conns.state,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, c) // for follow.TuneConn
		},
	}
}

// maxHeaderBytes bounds a request's headers: a browser's are about 1 KiB.
// (net/http allows 4 KiB over it for its own reading.)
const maxHeaderBytes = 16 << 10

// connKey is the context key of a request's connection.
type connKey struct{}

// Listen listens on addr with the connection limits (limit.go).
func (s *Server) Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return s.Limit(ln), nil
}

// Limit wraps ln with the connection limits.
func (s *Server) Limit(ln net.Listener) net.Listener { return limitListener{Listener: ln, l: s.conns} }

// Shutdown ends hs gracefully, in the order that loses nothing: /healthz
// fails for DrainWait first, so a load balancer stops sending new visitors
// while the requests already here are answered; then hs stops taking
// connections and the requests in flight finish, each click telling the
// other replicas of its move through the relay, still open; only then do
// the followers' streams end (their EventSource reconnects, to another
// replica or to this one when it is back) and the relay close. Until ctx
// ends.
func (s *Server) Shutdown(ctx context.Context, hs *http.Server) error {
	s.draining.Store(true)
	select {
	case <-time.After(s.cfg.DrainWait):
	case <-ctx.Done():
	}
	done := make(chan error, 1)
	go func() { done <- hs.Shutdown(ctx) }() // closes the listener at once, then waits for every connection
	s.drain(ctx)
	s.follow.Close() // the streams, which would keep hs.Shutdown waiting
	err := <-done
	if s.stopRelay != nil {
		s.stopRelay()
	}
	return err
}

// drain waits until no request but a follow stream is being answered, or
// ctx ends. hs.Shutdown has stopped new ones coming: a connection that
// finishes its request is closed rather than kept alive.
func (s *Server) drain(ctx context.Context) {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for s.inflight.Load() > 0 {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// isStream reports whether r asks for a follow stream.
func isStream(r *http.Request) bool {
	return (strings.HasPrefix(r.URL.Path, "/follow/") || strings.HasPrefix(r.URL.Path, "/rooms/")) && strings.HasSuffix(r.URL.Path, "/events")
}

// runInURI is a run key in an address: no page of ours puts one there any
// more, but an old bookmark may.
var runInURI = regexp.MustCompile(`([?&]` + views.RunParam + `=)[^&]*`)

// leadInURI is a room's lecturer's secret in an address (room_board.go).
var leadInURI = regexp.MustCompile(`(/rooms/[0-9a-f]+/lead/)[^/?]*`)

// redactRun keeps a run key and a room's secret out of the log: whoever
// reads the log must not be able to drive a visitor's run or a room.
func redactRun(uri string) string {
	return leadInURI.ReplaceAllString(runInURI.ReplaceAllString(uri, "${1}…"), "${1}…")
}

// isHTMX reports whether htmx sent the request, so a fragment will do.
func isHTMX(c echo.Context) bool {
	return c.Request().Header.Get("HX-Request") == "true" &&
		c.Request().Header.Get("HX-History-Restore-Request") != "true"
}
