package testkit

import (
	"bytes"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/internal/realserver"
)

// Programs started by a test: a free port, a health wait, a log to read.

// FreePort returns a loopback port that nothing listens on just now and
// that this test binary has not handed out before (realserver.FreePort), so
// a server a test restarts on its port never meets another test's.
func FreePort(tb testing.TB) string {
	tb.Helper()
	return strconv.Itoa(realserver.FreePort(tb))
}

// WaitHealthy polls /healthz on port until it answers 200, for at most d.
func WaitHealthy(tb testing.TB, port string, d time.Duration) {
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
		time.Sleep(time.Millisecond) // polling a port that is not open yet: nothing to wait on
	}
}

// LockedBuffer is a log that the server's goroutines may write while the
// test reads it.
type LockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *LockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Eventually polls ok, every few milliseconds, until it holds or within has
// passed: for a condition of the test's own process (a count, a map), where
// there is nothing to wait on.
func Eventually(tb testing.TB, within time.Duration, what string, ok func() bool) {
	tb.Helper()
	deadline := time.Now().Add(within)
	for !ok() {
		if time.Now().After(deadline) {
			tb.Fatalf("waited %v for %s", within, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
