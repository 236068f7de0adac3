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
//	go run . check gc-pause -switch off   # the counterexample finder (demo/script/check)
//	go run . check -scenarios mine.yaml    # every expectation of a scenarios file
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
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/demo/script/check"
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
	err := run(context.Background(), os.Args[1:], os.Getenv, os.Stderr)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "fencing-demo:", err)
	}
	os.Exit(exitCode(err))
}

// exitCode is the status main exits with: 0 when all went well (or -h
// asked for the usage), 2 for a command line that is wrong, as the flag
// package has it, and 1 for anything else.
func exitCode(err error) int {
	var ue usageError
	switch {
	case err == nil || errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		return 2
	}
	return 1
}

// checkCommand holds a scenarios file to its expectations, or runs the
// finder on one scenario (demo/script/check); a wrong command line, or a file
// that does not load, exits 2.
func checkCommand(args []string, getenv func(string) string, stderr io.Writer) error {
	return checkCommandTo(args, getenv, os.Stdout, stderr)
}

func checkCommandTo(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	guide, err := guidedata.Load("guide.yaml", guideYAML)
	if err != nil {
		return err
	}
	err = check.Command(args, getenv, readCatalog, guide, stdout, stderr)
	var ue *check.UsageError
	var le *script.LoadError
	var pe *fs.PathError
	if errors.As(err, &ue) || errors.As(err, &le) || errors.As(err, &pe) {
		return usageError{err}
	}
	return err
}

// usageError is a command line that is wrong; the usage has been printed.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// options are the program's own flags; the server's are web.Config's.
type options struct {
	port, pprofPort, scenarios string
	health, verbose            bool
}

// parse reads the command line and the environment into cfg and opts.
func parse(args []string, getenv func(string) string, stderr io.Writer) (web.Config, options, error) {
	cfg := web.DefaultConfig()
	opts := options{port: "8080"}
	if p := getenv("PORT"); p != "" {
		opts.port = p
	}
	fl := flag.NewFlagSet("fencing-demo", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: fencing-demo [flags]\n       fencing-demo export [-force] [-scenarios file] <dir>\n       fencing-demo check [-scenarios file] [scenario]\n       fencing-demo check <scenario> [-switch on|off] [-depth d]")
		fl.PrintDefaults()
	}
	fl.StringVar(&opts.port, "port", opts.port, "port to listen on (env PORT)")
	fl.StringVar(&opts.pprofPort, "pprof-port", "", "serve net/http/pprof on 127.0.0.1 at this port; needs a -tags bench build")
	fl.StringVar(&opts.scenarios, "scenarios", getenv("SCENARIOS"), "read the scenarios from this file instead of the built-in scenarios.yaml (env SCENARIOS)")
	fl.BoolVar(&opts.health, "healthcheck", false, "ask a running server on -port whether it is healthy, and exit 0 if so (for Docker's HEALTHCHECK)")
	fl.BoolVar(&opts.verbose, "v", false, "log every request (debug level)")
	envErr := cfg.Bind(fl, getenv)
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, opts, err
		}
		return cfg, opts, usageError{err}
	}
	if fl.NArg() > 0 {
		// Parsing stops at the first word that is not a flag: a subcommand
		// this program does not have, or a stray word.
		fl.Usage()
		return cfg, opts, usageError{fmt.Errorf("unknown command %q: the commands are export and check", fl.Arg(0))}
	}
	if envErr != nil {
		return cfg, opts, envErr
	}
	return cfg, opts, cfg.Validate()
}

// run is main with its inputs made explicit, so tests can start the program.
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	if len(args) > 0 && (args[0] == "load" || args[0] == "soak") {
		return usageError{fmt.Errorf("%s is a program of its own now: go run ./cmd/fencing-load %s", args[0], args[0])}
	}
	if len(args) > 0 && args[0] == "export" {
		static, _ := fs.Sub(staticFiles, "static")
		return export.Command(ctx, args[1:], getenv, loadCatalog, static, os.Stdout, stderr)
	}
	if len(args) > 0 && args[0] == "check" {
		return checkCommand(args[1:], getenv, stderr)
	}
	cfg, opts, err := parse(args, getenv, stderr)
	if err != nil {
		return err
	}
	if opts.health {
		return web.Healthcheck(opts.port)
	}
	level := slog.LevelInfo
	if opts.verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	catalog, guide, err := loadBuiltin(opts.scenarios)
	if err != nil {
		return err
	}
	static, _ := fs.Sub(staticFiles, "static")
	srv, err := web.New(cfg, catalog, guide, static, log)
	if err != nil {
		return err
	}
	return serve(ctx, srv, cfg, opts, log, len(catalog.Scenarios))
}

// serve runs srv until ctx ends or a SIGTERM comes, then shuts it down:
// /healthz fails for -drain-wait, then the requests in flight finish (a
// step takes well under a second).
func serve(ctx context.Context, srv *web.Server, cfg web.Config, opts options, log *slog.Logger, scenarios int) error {
	hs := srv.HTTPServer(net.JoinHostPort("", opts.port))
	ln, err := srv.Listen(hs.Addr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if opts.pprofPort != "" {
		if err := web.ServePprof(ctx, opts.pprofPort, log); err != nil {
			return err
		}
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	log.Info("listening", "addr", "http://localhost:"+opts.port, "scenarios", scenarios)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
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
	name, data, err := scenariosFile(path)
	if err != nil {
		return nil, err
	}
	return script.Load(name, data)
}

// readCatalog is loadCatalog for the check command, which judges the file:
// a scenario that does not show what it states still loads, and each such
// difference comes back.
func readCatalog(path string) (*demo.Catalog, []*script.LoadError, error) {
	name, data, err := scenariosFile(path)
	if err != nil {
		return nil, nil, err
	}
	return script.Read(name, data)
}

// scenariosFile is the file at path, or the built-in scenarios.yaml for "".
func scenariosFile(path string) (string, []byte, error) {
	if path == "" {
		return "scenarios.yaml", scenariosYAML, nil
	}
	b, err := os.ReadFile(path)
	return path, b, err
}
