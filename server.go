package main

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"golang.org/x/text/language"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
)

// config is what an operator can set; see main.go for flags and environment.
type config struct {
	MaxRuns        int           // live runs kept at most
	RunIdle        time.Duration // a run unused for this long is dropped
	FrameAncestors string        // CSP frame-ancestors: who may embed the demo
	RunRate        float64       // new runs one client address may start per second; 0: no limit
	RunBurst       int           // new runs one client address may start at once
	BehindProxy    bool          // take the client's address from X-Forwarded-For
	BenchRoutes    bool          // mount /_bench/ for the load and soak commands (stats.go)
}

func defaultConfig() config {
	return config{MaxRuns: 10000, RunIdle: 30 * time.Minute, FrameAncestors: "*", RunRate: 5, RunBurst: 200}
}

// server wires the lesson (demo) to HTTP and the screen (views).
type server struct {
	cfg     config
	catalog *demo.Catalog
	runs    *runs
	limiter *runLimiter // nil: no limit
	follow  *broker     // follow-along sessions (follow.go)
	assets  *assets
	groups  []views.Group // the scenario index, worked out once
	log     *slog.Logger
	echo    *echo.Echo
}

func newServer(cfg config, catalog *demo.Catalog, static fs.FS, log *slog.Logger) (*server, error) {
	a, err := loadAssets(static)
	if err != nil {
		return nil, fmt.Errorf("static files: %w", err)
	}
	s := &server{
		cfg:     cfg,
		catalog: catalog,
		runs:    newRuns(cfg.MaxRuns, cfg.RunIdle),
		limiter: newRunLimiter(cfg.RunRate, cfg.RunBurst),
		assets:  a,
		log:     log,
		echo:    echo.New(),
	}
	if s.groups, err = indexGroups(catalog); err != nil {
		return nil, err
	}
	s.follow = newBroker(cfg.MaxRuns, cfg.RunIdle, s.renderFollowEvent) // follow.go
	s.routes()
	return s, nil
}

// indexGroups plays every scenario to its end in both switch positions and
// groups them as the texts do: by purpose, then by topology.
func indexGroups(catalog *demo.Catalog) ([]views.Group, error) {
	var groups []views.Group
	for _, purpose := range []string{"efficiency", "correctness"} {
		for _, topology := range []string{"single", "replicated", "quorum", "consensus", "database"} {
			g := views.Group{Purpose: purpose, Topology: topology}
			for _, sc := range catalog.Scenarios {
				if sc.Purpose != purpose || sc.Topology != topology {
					continue
				}
				off, err := demo.Replay(sc, false, sc.Frames())
				if err != nil {
					return nil, err
				}
				on, err := demo.Replay(sc, true, sc.Frames())
				if err != nil {
					return nil, err
				}
				g.Entries = append(g.Entries, views.Entry{Sc: sc, Off: off.Frame(), On: on.Frame()})
			}
			if len(g.Entries) > 0 {
				groups = append(groups, g)
			}
		}
	}
	return groups, nil
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.echo.ServeHTTP(w, r) }

func (s *server) routes() {
	e := s.echo
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.handleError
	e.IPExtractor = clientAddr(s.cfg.BehindProxy)
	e.Use(
		middleware.RecoverWithConfig(middleware.RecoverConfig{DisableStackAll: true, DisablePrintStack: true}),
		s.requestLog(),
		s.securityHeaders,
		middleware.BodyLimit("16K"),
		// Not the follow stream: each event must leave as it is written,
		// never wait in a compressor's buffer (follow.go).
		compress(func(c echo.Context) bool { return c.Path() == followEventsPath }), // compress.go
	)
	// HEAD answers wherever GET does: uptime monitors and link checkers use it.
	get := []string{http.MethodGet, http.MethodHead}
	e.Match(get, "/", s.home)
	e.Match(get, "/healthz", func(c echo.Context) error { return c.String(http.StatusOK, "ok") })
	e.Match(get, "/scenarios", s.index)
	e.Match(get, "/scenarios/:id", s.page)
	e.POST("/scenarios/:id/:action", s.act)
	e.Match(get, "/qr.svg", s.qr)
	e.Match(get, "/embed/:id", s.page)
	e.POST("/embed/:id/:action", s.act)
	e.Match(get, "/static/:name", s.assets.serve)
	e.Match(get, "/follow/:fid", s.followPage) // follow.go
	e.GET(followEventsPath, s.followEvents)
	e.Match(get, "/follow/:fid/qr.svg", s.followQR)
	e.Match(get, "/guide/decision-tree", s.guideTree) // guide.go
	e.Match(get, "/guide/quiz", s.guideQuiz)
	if s.cfg.BenchRoutes {
		s.benchRoutes()
	}
}

// securityHeaders keeps every script and style on our own origin and lets
// other sites embed the demo only as configured. X-Frame-Options is left
// out on purpose: it cannot say "these sites", and a textbook must frame us.
func (s *server) securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
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
func (s *server) requestLog() echo.MiddlewareFunc {
	return middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		LogStatus: true, LogURI: true, LogMethod: true, LogLatency: true, LogError: true,
		HandleError: true,
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			level := slog.LevelDebug
			switch {
			case v.Status >= 500:
				level = slog.LevelError
			case v.Status >= 400:
				level = slog.LevelInfo
			}
			attrs := []slog.Attr{
				slog.String("method", v.Method), slog.String("uri", v.URI),
				slog.Int("status", v.Status), slog.Duration("latency", v.Latency),
			}
			if v.Error != nil {
				attrs = append(attrs, slog.String("err", v.Error.Error()))
			}
			s.log.LogAttrs(c.Request().Context(), level, "request", attrs...)
			return nil
		},
	})
}

// problem is bad input, told to the visitor in their language: the status,
// a message key with its details, and where to carry on from.
type problem struct {
	status int
	key    string
	args   []any
	cont   string // a URL that keeps the visitor's place; "" for the start
	known  bool   // list the scenarios (for an unknown one)
}

func (p *problem) Error() string { return fmt.Sprintf("%d %s %v", p.status, p.key, p.args) }

func bad(key string, cont string, args ...any) *problem {
	return &problem{status: http.StatusBadRequest, key: key, args: args, cont: cont}
}

func (s *server) page(c echo.Context) error {
	sc, err := s.scenario(c)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	here, err := s.place(c, sc, q, q.Get("step"), "step")
	if err != nil {
		return err
	}
	run := q.Get("run")
	if run != "" && !validRunID(run) {
		return bad("err.run", here.URL(), run)
	}
	return s.showFrame(c, here, run)
}

func (s *server) home(c echo.Context) error {
	sc := s.catalog.Scenarios[0]
	lang, err := s.lang(c, c.QueryParam("lang"))
	if err != nil {
		return err
	}
	return s.showFrame(c, views.Place{Sc: sc, On: sc.Default, Step: 1, Lang: lang}, "")
}

// showFrame renders a whole page for a frame. A page on its own needs no
// run: the frame is played from scratch, and the first click makes the run.
func (s *server) showFrame(c echo.Context, here views.Place, run string) error {
	r, err := demo.Replay(here.Sc, here.On, here.Step)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-cache")
	return render(c, http.StatusOK, views.DemoPage(s.demoView(r.Frame(), here, run)))
}

func (s *server) demoView(f demo.Frame, here views.Place, run string) views.Demo {
	lang := here.Lang
	return views.Demo{
		Page: views.Page{
			Lang:      lang,
			Title:     views.FrameTitle(f, lang),
			Assets:    s.assetURLs(),
			Canonical: here.PageURL(),
			OtherLang: here.In(otherLang(lang)).URL(),
			Home:      "/?lang=" + lang,
			Index:     "/scenarios?lang=" + lang,
			Chrome:    here.View == views.PageView,
			Present:   here.Present,
		},
		Frame:  f,
		Here:   here,
		Run:    run,
		Follow: s.follow.link(run),
	}
}

func (s *server) assetURLs() views.Assets {
	return views.Assets{
		CSS:  s.assets.URL("app.css"),
		HTMX: s.assets.URL("htmx.min.js"),
		JS:   s.assets.URL("app.js"),
		Icon: s.assets.URL("icon.svg"),
	}
}

// act handles a click: step, back, reset or the switch. The form says which
// frame the click was made on, so the answer depends on the request alone and
// never on what the server happens to remember.
func (s *server) act(c echo.Context) error {
	c.Response().Header().Add(echo.HeaderVary, "HX-Request")
	sc, err := s.scenario(c)
	if err != nil {
		return err
	}
	// Parse the form here rather than through FormValue, which would swallow
	// a body that broke the size limit and carry on with an empty form.
	if err := c.Request().ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return &problem{status: http.StatusRequestEntityTooLarge, key: "err.body"}
		}
		return &problem{status: http.StatusBadRequest, key: "err.form"}
	}
	form := c.Request().Form
	here, err := s.place(c, sc, form, form.Get("from"), "from")
	if err != nil {
		return err
	}
	run := form.Get("run")
	if run != "" && !validRunID(run) {
		return bad("err.run", here.URL(), run)
	}
	there := here
	switch action := c.Param("action"); action {
	case "step":
		there.Step = min(here.Step+1, sc.Frames())
	case "back":
		there.Step = max(here.Step-1, 1)
	case "reset":
		there.Step = 1
	case "last":
		there.Step = sc.Frames()
	case "switch":
		there.On = !here.On
	default:
		return &problem{status: http.StatusNotFound, key: "err.action", args: []any{action}, cont: here.URL()}
	}
	if err := s.admitRun(c, run, here.URL()); err != nil {
		return err
	}
	run, shown, err := s.runs.goTo(run, sc, there.On, there.Step)
	if err != nil {
		return err
	}
	s.publishMove(form.Get("run"), run, there) // followers see the move (follow.go)
	if !isHTMX(c) {
		// Without JavaScript: post, then redirect to the frame's address. The
		// run rides along in the URL, since there is no page state to keep it.
		return c.Redirect(http.StatusSeeOther, there.URL()+"&run="+run)
	}
	c.Response().Header().Set("HX-Push-Url", there.URL())
	return render(c, http.StatusOK, views.DemoSwap(s.demoView(shown, there, run)))
}

func (s *server) index(c echo.Context) error {
	lang, err := s.lang(c, c.QueryParam("lang"))
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.IndexPage(views.Index{
		Page: views.Page{
			Lang:      lang,
			Title:     views.T(lang, "scenarios") + " · " + views.T(lang, "site"),
			Assets:    s.assetURLs(),
			Canonical: "/scenarios?lang=" + lang,
			OtherLang: "/scenarios?lang=" + otherLang(lang),
			Home:      "/?lang=" + lang,
			Chrome:    true,
		},
		Groups: s.groups,
	}))
}

func (s *server) scenario(c echo.Context) (*demo.Scenario, error) {
	id := c.Param("id")
	sc, ok := s.catalog.Get(id)
	if !ok {
		return nil, &problem{status: http.StatusNotFound, key: "err.scenario", args: []any{id}, known: true}
	}
	return sc, nil
}

// place reads where a request says the visitor is: the switch, the step
// (named field in a form), the language, whether it came through the embed
// address, and presenter mode. Any may be left out: the switch then takes
// the scenario's default, the step is 1, and the language is the browser's.
// When one is wrong, the error page's way back keeps the others, so a typo
// in one parameter does not lose the visitor's place.
func (s *server) place(c echo.Context, sc *demo.Scenario, v url.Values, step, field string) (views.Place, error) {
	p := views.Place{Sc: sc, On: sc.Default, Step: 1, Present: v.Get("present") == "1"}
	if strings.HasPrefix(c.Path(), "/embed/") {
		p.View = views.EmbedView
	}
	var prob *problem
	switch sw := v.Get(sc.Switch); sw {
	case "":
	case "on", "off":
		p.On = sw == "on"
	default:
		prob = bad("err.switch", "", sc.Switch, sw)
	}
	if step != "" {
		n, err := strconv.Atoi(step)
		switch {
		case err != nil || n < 1:
		case n > sc.Frames():
			p.Step = sc.Frames()
		default:
			p.Step = n
		}
		if (err != nil || n < 1 || n > sc.Frames()) && prob == nil {
			prob = bad("err.step", "", field, sc.Frames(), step)
		}
	}
	var err error
	if p.Lang, err = s.lang(c, v.Get("lang")); err != nil && prob == nil {
		prob = err.(*problem)
	}
	if prob != nil {
		prob.cont = p.URL()
		return p, prob
	}
	return p, nil
}

var langMatcher = language.NewMatcher([]language.Tag{language.English, language.Japanese})

// lang picks the page's language: the explicit choice (from the URL or the
// form) when there is one, else what the browser asks for, else English.
func (s *server) lang(c echo.Context, explicit string) (string, error) {
	switch explicit {
	case "ja", "en":
		return explicit, nil
	case "":
		return acceptLang(c.Request()), nil
	}
	return acceptLang(c.Request()), &problem{status: http.StatusBadRequest, key: "err.lang", args: []any{explicit}}
}

func acceptLang(r *http.Request) string {
	tags, _, err := language.ParseAcceptLanguage(r.Header.Get("Accept-Language"))
	if err != nil || len(tags) == 0 {
		return "en"
	}
	_, i, conf := langMatcher.Match(tags...)
	if conf != language.No && i == 1 {
		return "ja"
	}
	return "en"
}

func otherLang(lang string) string {
	if lang == "ja" {
		return "en"
	}
	return "ja"
}

// handleError turns any error into a page that says what went wrong and how
// to carry on. Bad input is explained; anything unexpected is logged in full
// and shown only as "internal error".
func (s *server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	lang := c.QueryParam("lang")
	if form := c.Request().Form; lang == "" && form != nil {
		lang = form.Get("lang") // a click's language travels in its form
	}
	if lang != "ja" && lang != "en" {
		lang = acceptLang(c.Request())
	}
	p := &problem{}
	var he *echo.HTTPError
	switch {
	case errors.As(err, &p):
	case errors.As(err, &he):
		p = httpProblem(he, c)
	default:
		s.log.Error("internal error", "method", c.Request().Method, "uri", c.Request().RequestURI, "err", err)
		p = &problem{status: http.StatusInternalServerError, key: "err.internal.msg"}
	}
	heading := map[int]string{
		http.StatusNotFound:              "err.notfound",
		http.StatusBadRequest:            "err.badrequest",
		http.StatusMethodNotAllowed:      "err.method",
		http.StatusRequestEntityTooLarge: "err.toolarge",
		http.StatusTooManyRequests:       "err.toomany",
		http.StatusInternalServerError:   "err.internal",
	}[p.status]
	if heading == "" {
		heading = "err.generic"
	}
	cont := p.cont
	if cont == "" {
		cont = "/?lang=" + lang
	}
	page := views.ErrorPage{
		Page: views.Page{
			Lang:   lang,
			Title:  fmt.Sprintf("%d %s · %s", p.status, views.T(lang, heading), views.T(lang, "site")),
			Assets: s.assetURLs(),
			Home:   "/?lang=" + lang,
			Index:  "/scenarios?lang=" + lang,
			Chrome: !strings.HasPrefix(c.Path(), "/embed/"),
		},
		Status:   p.status,
		Heading:  views.T(lang, heading),
		Message:  fmt.Sprintf(views.T(lang, p.key), p.args...),
		Continue: cont,
	}
	if p.known {
		page.Known = s.catalog.IDs()
	}
	h := c.Response().Header()
	h.Set(echo.HeaderCacheControl, "no-store")
	h.Add(echo.HeaderVary, "HX-Request")
	comp := views.ErrorView(page)
	if isHTMX(c) {
		comp = views.ErrorFragment(page)
	}
	if c.Request().Method == http.MethodHead {
		err = c.NoContent(p.status)
	} else {
		err = render(c, p.status, comp)
	}
	if err != nil {
		s.log.Error("writing the error page", "err", err)
	}
}

// httpProblem explains the errors that Echo itself raises.
func httpProblem(he *echo.HTTPError, c echo.Context) *problem {
	r := c.Request()
	switch he.Code {
	case http.StatusNotFound:
		if strings.HasPrefix(r.URL.Path, "/static/") {
			return &problem{status: he.Code, key: "err.file", args: []any{r.URL.Path}}
		}
		return &problem{status: he.Code, key: "err.page", args: []any{r.URL.Path}, known: true}
	case http.StatusMethodNotAllowed:
		return &problem{status: he.Code, key: "err.methodmsg", args: []any{r.Method, r.URL.Path}}
	case http.StatusRequestEntityTooLarge:
		return &problem{status: he.Code, key: "err.body"}
	}
	if he.Code >= 500 {
		return &problem{status: http.StatusInternalServerError, key: "err.internal.msg"}
	}
	return &problem{status: he.Code, key: "err.generic"}
}
