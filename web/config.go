package web

import "time"

// Config is what an operator can set; main.go reads it from flags and the
// environment.
type Config struct {
	MaxRuns        int           // live runs kept at most
	RunIdle        time.Duration // a run unused for this long is dropped
	FrameAncestors string        // CSP frame-ancestors: who may embed the demo
	RunRate        float64       // new runs one client address may start per second; 0: no limit
	RunBurst       int           // new runs one client address may start at once
	BehindProxy    bool          // take the client's address from X-Forwarded-For
	BenchRoutes    bool          // mount /_bench/ for the load and soak commands (a -tags bench build only)
}

// DefaultConfig is the server's settings when nothing is set.
func DefaultConfig() Config {
	return Config{MaxRuns: 10000, RunIdle: 30 * time.Minute, FrameAncestors: "*", RunRate: 5, RunBurst: 200}
}
