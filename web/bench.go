//go:build bench

package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"time"

	"github.com/labstack/echo/v4"
)

// The route under /_bench/ exists for the load and soak commands
// (cmd/fencing-load). It is built only with -tags bench, so the server built
// for production links neither it nor pprof, and even then mounted only
// with -bench-routes: it forces a garbage collection on every call.
//
//	go run -tags bench . -bench-routes -pprof-port 6060
//
//	GET /_bench/stats   heap in use after a GC, the live runs, the process's CPU time
//
// What a step is measured against is not here: the floor is a program of
// its own (fencing-load floor), a minimal net/http server that sends this
// server's own answers, so that nothing of this server's stack is in it.
func (s *Server) benchRoutes() error {
	s.echo.GET("/_bench/stats", s.stats)
	return nil
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
