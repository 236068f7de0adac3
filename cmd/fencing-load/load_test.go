package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/internal/testkit"
)

// The load and soak commands, briefly, against a server on loopback: every
// click they make is checked to land on its frame, so a change to the page
// that broke them would show here rather than on the day of a measurement.

// benchServer builds the server as the README says to for a measurement
// (-tags bench) and starts it on a free loopback port with its bench routes,
// stopped when the test ends. It is the real program, not a handler in the
// test's own process: the load tool is meant for exactly that.
func benchServer(t *testing.T, idle time.Duration) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and starts the server: skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "fencing-demo")
	build := exec.Command("go", "build", "-tags", "bench", "-o", bin, ".")
	build.Dir = testkit.Root(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags bench: %v\n%s", err, out)
	}
	port := testkit.FreePort(t)
	var log testkit.LockedBuffer
	cmd := exec.Command(bin, "-port", port, "-bench-routes", "-run-burst", "100", "-run-idle", idle.String())
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("server log:\n%s", log.String())
		}
	})
	testkit.WaitHealthy(t, port, 10*time.Second)
	return "http://127.0.0.1:" + port
}

func TestLoadCommand(t *testing.T) {
	target := benchServer(t, time.Hour)
	// The floor, serving the answers it captures from the server.
	ctx, stop := context.WithCancel(context.Background())
	port := testkit.FreePort(t)
	var floorOut, floorLog testkit.LockedBuffer
	floorDone := make(chan error, 1)
	go func() {
		floorDone <- loadCommand(ctx, "floor", []string{"-target", target, "-port", port}, scenarios(t), &floorOut, &floorLog)
	}()
	t.Cleanup(func() {
		stop()
		if err := <-floorDone; err != nil {
			t.Errorf("floor: %v\n%s", err, floorLog.String())
		}
	})
	testkit.Eventually(t, 10*time.Second, "the floor to serve", func() bool { return strings.Contains(floorOut.String(), "serving on") })

	var out, log bytes.Buffer
	args := []string{"-target", target, "-floor", "http://127.0.0.1:" + port, "-clients", "1,4", "-duration", "300ms", "-warmup", "100ms"}
	if err := loadCommand(context.Background(), "load", args, scenarios(t), &out, &log); err != nil {
		t.Fatalf("load: %v\n%s\n%s", err, out.String(), log.String())
	}
	for _, want := range []string{"step", "floor", "no errors (0 distinct)"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("load printed\n%s\nwant it to mention %q", out.String(), want)
		}
	}
}

func TestSoakCommand(t *testing.T) {
	target := benchServer(t, 300*time.Millisecond)
	var out, log bytes.Buffer
	args := []string{"-target", target, "-students", "20", "-settle", "20s"}
	if err := loadCommand(context.Background(), "soak", args, scenarios(t), &out, &log); err != nil {
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
	if err := loadCommand(context.Background(), "load", []string{"-target", "http://192.0.2.1:80"}, scenarios(t), &out, &out); err == nil {
		t.Fatal("load accepted a target off this machine")
	}
}

// scenarios is the repository's scenarios.yaml, which the command reads.
func scenarios(t *testing.T) string { return testkit.Path(t, "scenarios.yaml") }

// The lecture, in small: every hostile attendee at once, and the students
// following every move all the same; the forger's made-up X-Forwarded-For
// buys no more new runs than the server's burst.
func TestLectureCommand(t *testing.T) {
	target := benchServer(t, time.Hour)
	var out, log bytes.Buffer
	args := []string{"-target", target, "-followers", "20", "-nats", "4", "-squatters", "2", "-squat-streams", "5",
		"-silent-addrs", "2", "-silent-conns", "5", "-forge", "300", "-moves", "8", "-pace", "200ms"}
	if err := loadCommand(context.Background(), "lecture", args, scenarios(t), &out, &log); err != nil {
		t.Fatalf("lecture: %v\n%s\n%s", err, out.String(), log.String())
	}
	if want := "followers who saw every move in order: 20 of 20"; !strings.Contains(out.String(), want) {
		t.Fatalf("lecture printed\n%s\nwant it to mention %q", out.String(), want)
	}
	// The server's burst is 100 new runs, then 10 a second: the forger's
	// 300 take at least 20 s to be allowed, and it asks in far less.
	var runs int
	if _, err := fmt.Sscanf(out.String()[strings.Index(out.String(), "forger"):], "forger (made-up X-Forwarded-For): %d of 300", &runs); err != nil || runs < 100 || runs >= 300 {
		t.Fatalf("the forger started %d of 300 new runs (%v), want the burst of 100 and not all:\n%s", runs, err, out.String())
	}
}

// The answering mode, in small: every follower's answer counted, the right
// totals on the lecturer's screen, and the reveal on every stream.
func TestLectureAnswering(t *testing.T) {
	target := benchServer(t, time.Hour)
	var out, log bytes.Buffer
	args := []string{"-answer", "-target", target, "-followers", "30", "-nats", "3", "-answer-within", "300ms"}
	if err := loadCommand(context.Background(), "lecture", args, scenarios(t), &out, &log); err != nil {
		t.Fatalf("lecture -answer: %v\n%s\n%s", err, out.String(), log.String())
	}
	for _, want := range []string{"answers: 30 of 30", "the right totals on the lecturer's screen", "followers shown the reveal: 30 of 30"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("lecture -answer printed\n%s\nwant it to mention %q", out.String(), want)
		}
	}
}
