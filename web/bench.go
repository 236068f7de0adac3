//go:build bench

package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/views"
)

// The routes under /_bench/ exist for the load and soak commands
// (cmd/fencing-load). They are built only with -tags bench, so the server
// built for production links neither them nor httptest and pprof, and even
// then mounted only with -bench-routes: the stats route forces a garbage
// collection on every call.
//
//	go run -tags bench . -bench-routes -pprof-port 6060
//
//	POST /_bench/scenarios/gc-pause/step  the ceiling: a step's answer, rendered in advance
//	GET  /_bench/stats                    heap in use after a GC, and the live runs
func (s *Server) benchRoutes() error {
	ceiling := &ceiling{s: s}
	s.echo.POST("/_bench/scenarios/:id/step", ceiling.serve)
	s.echo.GET("/_bench/stats", s.stats)
	return nil
}

// benchScenario is the scenario the load command steps through.
const benchScenario = "gc-pause"

// ceiling answers a step with the very bytes the real handler would send,
// rendered once in advance: the same size, the same headers, through the same
// middleware (gzip included), but with no model to move and nothing to
// render. How fast it goes is the most any step could go on this server.
type ceiling struct {
	s       *Server
	once    sync.Once
	answers map[string]prerendered // by ceilingKey
	err     error
}

type prerendered struct {
	body    []byte
	pushURL string
}

func ceilingKey(on, lang, from string) string { return on + "|" + lang + "|" + from }

func (ce *ceiling) serve(c echo.Context) error {
	if c.Param("id") != benchScenario {
		return echo.NewHTTPError(http.StatusNotFound)
	}
	ce.once.Do(func() { ce.answers, ce.err = ce.prerender() })
	if ce.err != nil {
		return ce.err
	}
	r := c.Request()
	a, ok := ce.answers[ceilingKey(r.FormValue("fencing"), r.FormValue(views.LangParam), r.FormValue(views.FromField))]
	if !ok {
		return &problem{status: http.StatusBadRequest, key: "err.form"}
	}
	h := c.Response().Header()
	h.Add(echo.HeaderVary, "HX-Request")
	h.Set("HX-Push-Url", a.pushURL)
	return c.HTMLBlob(http.StatusOK, a.body)
}

// prerender asks the real handler for every step the load command sends, on
// one run, so it starts one run and the rate limit does not get in the way.
func (ce *ceiling) prerender() (map[string]prerendered, error) {
	sc, ok := ce.s.catalog.Get(benchScenario)
	if !ok {
		return nil, fmt.Errorf("no scenario %q to pre-render", benchScenario)
	}
	answers := map[string]prerendered{}
	run := ""
	for _, on := range []bool{true, false} {
		for _, lang := range []string{"ja", "en"} {
			for from := 1; from < sc.Frames(); from++ {
				here := views.Place{Sc: sc, On: on, Step: from, Lang: lang}
				form := here.Form(run)
				w := httptest.NewRecorder()
				r := httptest.NewRequestWithContext(context.Background(), http.MethodPost, here.Action("step"), strings.NewReader(form.Encode()))
				r.Header.Set(echo.HeaderContentType, echo.MIMEApplicationForm)
				r.Header.Set("HX-Request", "true")
				ce.s.echo.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					return nil, fmt.Errorf("pre-rendering %v: status %d", form, w.Code)
				}
				run = runInBody(w.Body.Bytes())
				answers[ceilingKey(views.OnOff(on), lang, strconv.Itoa(from))] = prerendered{body: w.Body.Bytes(), pushURL: w.Header().Get("HX-Push-Url")}
			}
		}
	}
	return answers, nil
}

// runInBody returns the run id an answer's forms carry, or "".
func runInBody(body []byte) string {
	const mark = `name="run" value="`
	i := bytes.Index(body, []byte(mark))
	if i < 0 || len(body) < i+len(mark)+runIDLen {
		return ""
	}
	if id := string(body[i+len(mark) : i+len(mark)+runIDLen]); validRunID(id) {
		return id
	}
	return ""
}

// serverStats is what /_bench/stats answers, in bytes.
type serverStats struct {
	HeapInuse  uint64  `json:"heap_inuse"`
	HeapAlloc  uint64  `json:"heap_alloc"`
	Sys        uint64  `json:"sys"`
	Runs       int     `json:"runs"`
	Goroutines int     `json:"goroutines"`
	CPUSeconds float64 `json:"cpu_seconds"` // user and system, since the process started
}

func (s *Server) stats(c echo.Context) error {
	cpu := processCPU() // before the collections, which are not the load's doing
	runtime.GC()
	runtime.GC() // the second empties what sync.Pools kept through the first
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return c.JSON(http.StatusOK, serverStats{
		HeapInuse:  m.HeapInuse,
		HeapAlloc:  m.HeapAlloc,
		Sys:        m.Sys,
		Runs:       s.runs.Len(),
		Goroutines: runtime.NumGoroutine(),
		CPUSeconds: cpu,
	})
}

// ServePprof serves net/http/pprof on 127.0.0.1:port, apart from the demo, so
// a profile can be taken with the load running:
//
//	go tool pprof http://127.0.0.1:6060/debug/pprof/profile?seconds=10
//
// It stops when ctx is done.
func ServePprof(ctx context.Context, port string, log *slog.Logger) error {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		return fmt.Errorf("-pprof-port: %w", err)
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	log.Info("pprof", "addr", "http://"+ln.Addr().String()+"/debug/pprof/")
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("pprof", "err", err)
		}
	}()
	return nil
}
