// Command fencing-load measures a running fencing-demo server on this
// machine, the way a classroom uses it: load (steps per second and latency
// at several numbers of students clicking at once, beside a floor that
// serves the server's own answers from a minimal net/http server: floor)
// and soak (a thousand students walking a scenario, and the heap
// before, during and after). See load.go.
//
//	go run -tags bench . -bench-routes -run-burst 2000 &   # the server, from the repository's top
//	go run ./cmd/fencing-load floor -target http://127.0.0.1:8080 -port 8097 &
//	go run ./cmd/fencing-load load -target http://127.0.0.1:8080 -floor http://127.0.0.1:8097
//	go run ./cmd/fencing-load soak -target http://127.0.0.1:8080 -students 1000
//	go run ./cmd/fencing-load lecture -target http://127.0.0.1:8080 -followers 1000
//	go run ./cmd/fencing-load hostile -bin /tmp/fd   # three replicas behind HAProxy under attack (hostile.go)
//	go run ./cmd/fencing-load room -bin /tmp/fd      # a workshop room across them, one replica killed (room.go)
//
// It reads the scenarios from scenarios.yaml in the current directory, or
// from the file that SCENARIOS names.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "fencing-load:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "load" && args[0] != "soak" && args[0] != "floor" && args[0] != "lecture" && args[0] != "hostile" && args[0] != "hostile-attack" && args[0] != "room") {
		fmt.Fprintln(stderr, "usage: fencing-load load|soak|floor|lecture|hostile|room [flags]   (fencing-load load -h lists them)")
		return fmt.Errorf("name a command: load, soak, floor, lecture or hostile")
	}
	scenarios := getenv("SCENARIOS")
	if scenarios == "" {
		scenarios = "scenarios.yaml"
	}
	return loadCommand(ctx, args[0], args[1:], scenarios, stdout, stderr)
}
