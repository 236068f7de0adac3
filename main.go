// Command fencing-demo serves the step-by-step demo of why a distributed lock
// needs a lease and a fencing token.
//
//	go run .            # then open http://localhost:8080
//
// Settings come from flags, or from the environment when a flag is not given:
// PORT, MAX_RUNS, RUN_IDLE, FRAME_ANCESTORS, SCENARIOS, RUN_RATE, RUN_BURST,
// BEHIND_PROXY, TRUSTED_PROXIES, PUBLIC_URL, FOLLOW_REDIS, FOLLOW_PER_LECTURE,
// FOLLOW_PER_ADDR, FOLLOW_STREAMS, LECTURE_IDLE, MAX_CONNS,
// MAX_CONNS_PER_ADDR, IDLE_TIMEOUT, DRAIN_WAIT.
//
//	go run . export site   # every frame as static HTML (web/export)
//
// This file is only the program's edge: flags and environment into a
// web.Config, the embedded files, and the export subcommand. The server is
// package web; the load and soak generators are cmd/fencing-load.
package main

import (
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/views/guidedata"
	"github.com/distlock/fencing-demo/web"
	"github.com/distlock/fencing-demo/web/export"
)

// scenarios.yaml and guide.yaml are built into the binary as they are and
// read and checked at every start, so an edit is served by the next `go run .`
// and a mistake stops the server with the file and the line.
var (
	//go:embed scenarios.yaml
	scenariosYAML []byte
	//go:embed guide.yaml
	guideYAML []byte
	//go:embed static
	staticFiles embed.FS
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Getenv, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "fencing-demo:", err)
		os.Exit(1)
	}
}

// run is main with its inputs made explicit, so tests can start the program.
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	if len(args) > 0 && (args[0] == "load" || args[0] == "soak") {
		return fmt.Errorf("%s is a program of its own now: go run ./cmd/fencing-load %s", args[0], args[0])
	}
	if len(args) > 0 && args[0] == "export" {
		static, _ := fs.Sub(staticFiles, "static")
		return export.Command(ctx, args[1:], getenv, loadCatalog, static, os.Stdout, stderr)
	}
	cfg := web.DefaultConfig()
	var envErrs []error
	fl := flag.NewFlagSet("fencing-demo", flag.ContinueOnError)
	fl.SetOutput(stderr)
	port := fl.String("port", envOr(getenv, "PORT", "8080"), "port to listen on (env PORT)")
	fl.IntVar(&cfg.MaxRuns, "max-runs", envInt(getenv, "MAX_RUNS", cfg.MaxRuns, &envErrs), "live runs kept at most; the least recently used goes first (env MAX_RUNS)")
	fl.DurationVar(&cfg.RunIdle, "run-idle", envDuration(getenv, "RUN_IDLE", cfg.RunIdle, &envErrs), "a run unused this long is dropped (env RUN_IDLE)")
	fl.StringVar(&cfg.FrameAncestors, "frame-ancestors", envOr(getenv, "FRAME_ANCESTORS", cfg.FrameAncestors), "CSP frame-ancestors: the sites that may embed the demo (env FRAME_ANCESTORS)")
	fl.Float64Var(&cfg.RunRate, "run-rate", envFloat(getenv, "RUN_RATE", cfg.RunRate, &envErrs), "new runs one client address may start per second; 0 for no limit (env RUN_RATE)")
	fl.IntVar(&cfg.RunBurst, "run-burst", envInt(getenv, "RUN_BURST", cfg.RunBurst, &envErrs), "new runs one client address may start at once (env RUN_BURST)")
	fl.BoolVar(&cfg.BehindProxy, "behind-proxy", envBool(getenv, "BEHIND_PROXY", &envErrs), "believe X-Forwarded-For/-Proto/-Host from the trusted proxies (env BEHIND_PROXY)")
	trusted := fl.String("trusted-proxies", getenv("TRUSTED_PROXIES"), "with -behind-proxy, the proxies' networks, comma-separated CIDRs; default loopback only (env TRUSTED_PROXIES)")
	fl.StringVar(&cfg.PublicURL, "public-url", getenv("PUBLIC_URL"), "scheme://host[:port] the site is reached at, drawn into QR codes; default: worked out per request (env PUBLIC_URL)")
	fl.StringVar(&cfg.FollowRedis, "follow-redis", getenv("FOLLOW_REDIS"), "redis://host:port/db shared by replicas, so followers on any replica see the lecturer's moves; default: this server alone (env FOLLOW_REDIS)")
	fl.IntVar(&cfg.FollowPerLecture, "follow-per-lecture", envInt(getenv, "FOLLOW_PER_LECTURE", cfg.FollowPerLecture, &envErrs), "follow streams of one lecture at once (env FOLLOW_PER_LECTURE)")
	fl.IntVar(&cfg.FollowPerAddr, "follow-per-addr", envInt(getenv, "FOLLOW_PER_ADDR", cfg.FollowPerAddr, &envErrs), "follow streams from one client address (IPv6: its /64) at once (env FOLLOW_PER_ADDR)")
	fl.IntVar(&cfg.FollowStreams, "follow-streams", envInt(getenv, "FOLLOW_STREAMS", cfg.FollowStreams, &envErrs), "follow streams at once, all lectures together (env FOLLOW_STREAMS)")
	fl.DurationVar(&cfg.LectureIdle, "lecture-idle", envDuration(getenv, "LECTURE_IDLE", cfg.LectureIdle, &envErrs), "a lecture nobody follows or moves is forgotten after this; its link still works at the lecturer's next click (env LECTURE_IDLE)")
	fl.IntVar(&cfg.MaxConns, "max-conns", envInt(getenv, "MAX_CONNS", cfg.MaxConns, &envErrs), "connections at once; idle ones are closed to make room (env MAX_CONNS)")
	fl.IntVar(&cfg.MaxConnsPerAddr, "max-conns-per-addr", envInt(getenv, "MAX_CONNS_PER_ADDR", cfg.MaxConnsPerAddr, &envErrs), "connections from one client address at once; not applied with -behind-proxy (env MAX_CONNS_PER_ADDR)")
	fl.DurationVar(&cfg.IdleTimeout, "idle-timeout", envDuration(getenv, "IDLE_TIMEOUT", cfg.IdleTimeout, &envErrs), "a keep-alive connection idle this long is closed (env IDLE_TIMEOUT)")
	fl.DurationVar(&cfg.DrainWait, "drain-wait", envDuration(getenv, "DRAIN_WAIT", cfg.DrainWait, &envErrs), "on SIGTERM, /healthz fails this long before the server stops taking connections (env DRAIN_WAIT)")
	fl.BoolVar(&cfg.BenchRoutes, "bench-routes", false, "mount /_bench/ for cmd/fencing-load; needs a -tags bench build, never in production")
	pprofPort := fl.String("pprof-port", "", "serve net/http/pprof on 127.0.0.1 at this port; needs a -tags bench build")
	scenarios := fl.String("scenarios", getenv("SCENARIOS"), "read the scenarios from this file instead of the built-in scenarios.yaml (env SCENARIOS)")
	health := fl.Bool("healthcheck", false, "ask a running server on -port whether it is healthy, and exit 0 if so (for Docker's HEALTHCHECK)")
	verbose := fl.Bool("v", false, "log every request (debug level)")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if err := errors.Join(envErrs...); err != nil {
		return err
	}
	if *health {
		return web.Healthcheck(*port)
	}
	if cfg.MaxRuns < 1 {
		return errors.New("-max-runs must be at least 1")
	}
	if cfg.RunIdle <= 0 {
		return errors.New("-run-idle must be positive")
	}
	if cfg.RunRate < 0 || cfg.RunBurst < 1 {
		return errors.New("-run-rate must be 0 or more and -run-burst at least 1")
	}
	if *trusted != "" {
		cfg.TrustedProxies = nil
		for p := range strings.SplitSeq(*trusted, ",") {
			pfx, err := netip.ParsePrefix(strings.TrimSpace(p))
			if err != nil {
				return fmt.Errorf("-trusted-proxies: %w", err)
			}
			cfg.TrustedProxies = append(cfg.TrustedProxies, pfx)
		}
	}
	if cfg.PublicURL != "" {
		u, err := url.Parse(cfg.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			return fmt.Errorf("-public-url %q: want scheme://host[:port], such as https://demo.example.org", cfg.PublicURL)
		}
		cfg.PublicURL = u.Scheme + "://" + u.Host
	}
	if cfg.FollowPerLecture < 1 || cfg.FollowPerAddr < 1 || cfg.FollowStreams < 1 || cfg.LectureIdle <= 0 {
		return errors.New("-follow-per-lecture, -follow-per-addr and -follow-streams must be at least 1, -lecture-idle positive")
	}
	if cfg.MaxConns < 0 || cfg.MaxConnsPerAddr < 0 || cfg.IdleTimeout <= 0 || cfg.DrainWait < 0 {
		return errors.New("-max-conns and -max-conns-per-addr must be 0 (no bound) or more, -idle-timeout positive, -drain-wait 0 or more")
	}
	if cfg.BehindProxy {
		cfg.MaxConnsPerAddr = 0 // every connection comes from the proxy
	}

	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	catalog, guide, err := loadBuiltin(*scenarios)
	if err != nil {
		return err
	}
	static, _ := fs.Sub(staticFiles, "static")
	srv, err := web.New(cfg, catalog, guide, static, log)
	if err != nil {
		return err
	}

	hs := srv.HTTPServer(net.JoinHostPort("", *port))
	ln, err := srv.Listen(hs.Addr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *pprofPort != "" {
		if err := web.ServePprof(ctx, *pprofPort, log); err != nil {
			return err
		}
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	log.Info("listening", "addr", "http://localhost:"+*port, "scenarios", len(catalog.Scenarios))
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// /healthz fails for -drain-wait, then the requests in flight finish; a
	// step takes well under a second.
	log.Info("shutting down", "drain", cfg.DrainWait)
	shutdown, cancel := context.WithTimeout(context.Background(), cfg.DrainWait+10*time.Second)
	defer cancel()
	return srv.Shutdown(shutdown, hs)
}

// loadBuiltin reads the scenarios (see loadCatalog) and the built-in
// guide.yaml at the same time: parsing YAML is most of a start.
func loadBuiltin(path string) (*demo.Catalog, *guidedata.Guide, error) {
	var guide *guidedata.Guide
	var guideErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		guide, guideErr = guidedata.Load("guide.yaml", guideYAML)
	}()
	catalog, err := loadCatalog(path)
	<-done
	return catalog, guide, errors.Join(err, guideErr)
}

// loadCatalog reads the scenarios from path, or takes the built-in
// scenarios.yaml when path is "": the server and the export read them the
// same way.
func loadCatalog(path string) (*demo.Catalog, error) {
	if path == "" {
		return script.Load("scenarios.yaml", scenariosYAML)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return script.Load(path, b)
}

// envFloat and envBool read a default from the environment, like envInt.
func envFloat(getenv func(string) string, key string, def float64, errs *[]error) float64 {
	v := getenv(key)
	if v == "" {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s=%q is not a number", key, v))
		return def
	}
	return f
}

func envBool(getenv func(string) string, key string, errs *[]error) bool {
	v := getenv(key)
	if v == "" {
		return false
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s=%q is not true or false", key, v))
		return false
	}
	return b
}

func envOr(getenv func(string) string, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}

// envInt and envDuration read a default from the environment; a value that
// does not parse is reported rather than silently ignored.
func envInt(getenv func(string) string, key string, def int, errs *[]error) int {
	v := getenv(key)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s=%q is not a whole number", key, v))
		return def
	}
	return n
}

func envDuration(getenv func(string) string, key string, def time.Duration, errs *[]error) time.Duration {
	v := getenv(key)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s=%q is not a duration such as 30m", key, v))
		return def
	}
	return d
}
