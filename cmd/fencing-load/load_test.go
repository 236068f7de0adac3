package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The load and soak commands, briefly, against a server on loopback: every
// click they make is checked to land on its frame, so a change to the page
// that broke them would show here rather than on the day of a measurement.

func benchServer(t *testing.T, idle time.Duration) *httptest.Server {
	t.Helper()
	cfg := defaultConfig()
	cfg.BenchRoutes, cfg.RunBurst, cfg.RunIdle = true, 100, idle
	srv := httptest.NewServer(newTestServer(t, cfg))
	t.Cleanup(srv.Close)
	return srv
}

func TestLoadCommand(t *testing.T) {
	srv := benchServer(t, time.Hour)
	var out, log bytes.Buffer
	args := []string{"-target", srv.URL, "-clients", "1,4", "-duration", "300ms", "-warmup", "100ms"}
	if err := loadCommand(context.Background(), "load", args, &out, &log); err != nil {
		t.Fatalf("load: %v\n%s\n%s", err, out.String(), log.String())
	}
	for _, want := range []string{"step", "ceiling", "no errors (0 distinct)"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("load printed\n%s\nwant it to mention %q", out.String(), want)
		}
	}
}

func TestSoakCommand(t *testing.T) {
	srv := benchServer(t, 300*time.Millisecond)
	var out, log bytes.Buffer
	args := []string{"-target", srv.URL, "-students", "20", "-settle", "20s"}
	if err := loadCommand(context.Background(), "soak", args, &out, &log); err != nil {
		t.Fatalf("soak: %v\n%s\n%s", err, out.String(), log.String())
	}
	for _, want := range []string{"requests 140, errors 0, students who did not reach the last frame 0", "idle"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("soak printed\n%s\nwant it to mention %q", out.String(), want)
		}
	}
	if strings.Contains(out.String(), "had not expired") {
		t.Fatalf("the runs did not expire:\n%s", out.String())
	}
}

// The commands measure this machine's server and nobody else's.
func TestLoadOnlyLoopback(t *testing.T) {
	for target, ok := range map[string]bool{
		"http://127.0.0.1:8080":   true,
		"http://127.0.0.2:8080":   true,
		"http://localhost:8080":   true,
		"http://[::1]:8080":       true,
		"http://10.0.0.1:8080":    false,
		"http://192.168.1.1:8080": false,
		"http://example.com":      false,
		"https://127.0.0.1:8443":  false,
		"127.0.0.1:8080":          false,
	} {
		if _, err := loopbackTarget(target); (err == nil) != ok {
			t.Errorf("loopbackTarget(%q) err=%v, want ok=%v", target, err, ok)
		}
	}
	var out bytes.Buffer
	if err := loadCommand(context.Background(), "load", []string{"-target", "http://192.0.2.1:80"}, &out, &out); err == nil {
		t.Fatal("load accepted a target off this machine")
	}
}
