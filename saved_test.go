package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// A lecturer plays gc-pause with fencing off by hand and saves it as a
// scenario; the program started with -scenarios on the saved file plays it,
// and its last frame shows the stale write the free play ended with.
func TestSavedFreePlayServes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the whole program twice: skipped with -short")
	}
	play := views.EncodePlay(strings.Join([]string{"A acquire 10", "A pause", "tick 10", "B acquire 10", "B write B", "A resume", "A write A"}, "\n"))
	base := start(t)
	yaml := get(t, base+"/scenarios/gc-pause/yaml?fencing=off&step=1&lang=en&download=1&play="+play)
	file := filepath.Join(t.TempDir(), "mine.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	mine := start(t, "-scenarios", file)
	page := get(t, mine+"/scenarios/gc-pause-free?fencing=off&step=8&lang=en")
	if !strings.Contains(page, `data-testid="verdict" data-verdict="stale-write"`) {
		t.Fatalf("the saved scenario's last frame does not show the stale write:\n%s", page)
	}
	if !strings.Contains(page, `data-testid="step-index" aria-label="Step">8 / 8`) {
		t.Fatalf("the saved scenario has not 8 frames (the first and one a free-play action)")
	}
}

// start runs the program on a free port with args, until the test ends,
// and returns its address.
func start(t *testing.T, args ...string) string {
	t.Helper()
	port := testkit.FreePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var log testkit.LockedBuffer
	go func() {
		done <- run(ctx, append([]string{"-port", port, "-drain-wait", "0s"}, args...), func(string) string { return "" }, &log)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the program %v: %v\n%s", args, err, log.String())
		}
	})
	testkit.WaitHealthy(t, port, 20*time.Second)
	return "http://127.0.0.1:" + port
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v\n%s", url, resp.StatusCode, err, b)
	}
	return string(b)
}
