package web

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

// Operations: the process starts fast, stops gracefully, bounds slow
// clients, and never shows a stack trace.

// freePort returns a loopback port that nothing listens on just now.
func freePort(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	_, port, err := net.SplitHostPort(ln.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	return port
}

// waitHealthy polls /healthz on port until it answers 200, for at most d.
func waitHealthy(tb testing.TB, port string, d time.Duration) {
	tb.Helper()
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(d)
	for {
		resp, err := client.Get("http://127.0.0.1:" + port + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			tb.Fatalf("no 200 from /healthz on port %s within %s (last error: %v)", port, d, err)
		}
		time.Sleep(time.Millisecond)
	}
}

// lockedBuffer is a log that the server's goroutines may write while the
// test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// On SIGTERM (here: its context cancelled) the server stops taking new
// connections but lets a request in flight finish: a click whose body is
// still arriving when the signal comes gets its answer.
func TestGracefulShutdown(t *testing.T) {
	port := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var log lockedBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-port", port}, func(string) string { return "" }, &log) }()
	waitHealthy(t, port, 10*time.Second)

	// A no-JS click, sent slowly: the headers and half the body now...
	body := place{from: 2, on: true, lang: "en"}.form().Encode()
	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+port, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(15 * time.Second)); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "POST /scenarios/gc-pause/step HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n", len(body))
	if _, err := io.WriteString(conn, body[:len(body)/2]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the server is reading the body

	// ...the signal...
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(log.String(), "shutting down") {
		if time.Now().After(deadline) {
			t.Fatalf("the server did not start shutting down; log:\n%s", log.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // Shutdown has closed the listener
	if c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, time.Second); err == nil {
		c.Close()
		t.Fatal("a new connection was accepted after the signal")
	}
	select {
	case err := <-done:
		t.Fatalf("run returned %v with a request still in flight", err)
	default:
	}

	// ...and the rest of the body: the answer still comes.
	if _, err := io.WriteString(conn, body[len(body)/2:]); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer to the request in flight: %v", err)
	}
	resp.Body.Close()
	if got, want := resp.StatusCode, http.StatusSeeOther; got != want {
		t.Fatalf("status=%d, want %d", got, want)
	}
	if loc := resp.Header.Get("Location"); !strings.HasPrefix(loc, gcPauseURL(true, 3, "en")+"&run=") {
		t.Fatalf("Location=%q, want frame 3", loc)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run returned %v, want nil after a graceful shutdown", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after the last request finished")
	}
}

// Every phase of a request has a time limit, so slow clients cannot hold
// connections open for ever.
func TestServerTimeouts(t *testing.T) {
	hs := httpServer(":0", http.NotFoundHandler(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	for name, d := range map[string]time.Duration{
		"ReadHeaderTimeout": hs.ReadHeaderTimeout,
		"ReadTimeout":       hs.ReadTimeout,
		"WriteTimeout":      hs.WriteTimeout,
		"IdleTimeout":       hs.IdleTimeout,
	} {
		if d <= 0 || d > 2*time.Minute {
			t.Errorf("%s=%s, want a limit between 0 and 2m", name, d)
		}
	}
	if hs.ReadHeaderTimeout > 10*time.Second {
		t.Errorf("ReadHeaderTimeout=%s, want at most 10s against slow headers", hs.ReadHeaderTimeout)
	}
}

// A handler that panics answers 500 with the usual error page, which says
// nothing of the panic; the log has the story.
func TestPanicShowsNoStackTrace(t *testing.T) {
	s := newTestServer(t, defaultConfig())
	s.echo.GET("/test-only/boom", func(echo.Context) error { panic("secret detail in the panic") })
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/test-only/boom", nil))
	if got, want := w.Code, http.StatusInternalServerError; got != want {
		t.Fatalf("status=%d, want %d", got, want)
	}
	for _, leak := range []string{"secret detail", "goroutine", ".go:", "panic"} {
		if strings.Contains(w.Body.String(), leak) {
			t.Fatalf("body contains %q, want no stack trace:\n%s", leak, w.Body)
		}
	}
	if got := testid(t, parse(t, w.Body.Bytes()), "error-message"); !strings.Contains(got, "Something unexpected went wrong") {
		t.Fatalf("error-message=%q, want the internal error message", got)
	}
}

// Links out of the demo do not carry the visitor's frame and run to other
// sites.
func TestReferrerPolicy(t *testing.T) {
	s := newTestServer(t, defaultConfig())
	for name, target := range map[string]string{
		"page":  gcPauseURL(true, 3, "en"),
		"index": "/scenarios",
		"error": "/scenarios/nope",
	} {
		w := get(t, s, target)
		if got, want := w.Header().Get("Referrer-Policy"), "strict-origin-when-cross-origin"; got != want {
			t.Errorf("%s: Referrer-Policy=%q, want %q", name, got, want)
		}
	}
	w := click(t, s, "step", place{from: 1, on: true, lang: "en"}, true)
	if got := w.Header().Get("Referrer-Policy"); got == "" {
		t.Error("htmx answer: no Referrer-Policy")
	}
}

// BenchmarkColdStart measures from starting the process to its first 200 on
// /healthz: what a scaled-to-zero host or a restart after a deploy costs the
// first visitor. The binary is built once, outside the timing.
//
//	go test -run '^$' -bench ColdStart -benchtime 20x
func BenchmarkColdStart(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "fencing-demo")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		b.Fatalf("go build: %v", err)
	}
	client := &http.Client{Timeout: time.Second}
	var total, cpu time.Duration
	for b.Loop() {
		port := freePort(b)
		cmd := exec.Command(bin, "-port", port)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		for {
			resp, err := client.Get("http://127.0.0.1:" + port + "/healthz")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					break
				}
			}
			if time.Since(start) > 10*time.Second {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				b.Fatalf("no 200 from /healthz within 10s: %v", err)
			}
			time.Sleep(200 * time.Microsecond)
		}
		total += time.Since(start)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		// The CPU the process used to get there (it was idle after): what the
		// start costs on a machine that has nothing else to do.
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/start")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/start")
}
