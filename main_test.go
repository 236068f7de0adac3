package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/internal/testkit"
)

// Tests of the program as a whole: it starts, serves and stops gracefully.

// On SIGTERM (here: its context cancelled) the server first fails /healthz
// for -drain-wait, so a load balancer stops sending it visitors, then stops
// taking new connections, and lets a request in flight finish: a click whose
// body is still arriving when the signal comes gets its answer.
func TestGracefulShutdown(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the whole program and waits out a shutdown: skipped with -short")
	}
	port := testkit.FreePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var log testkit.LockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-port", port, "-drain-wait", "1s"}, func(string) string { return "" }, &log)
	}()
	testkit.WaitHealthy(t, port, 10*time.Second)

	// A no-JS click, sent slowly: the headers and half the body now...
	body := url.Values{"run": {""}, "from": {"2"}, "fencing": {"on"}, "lang": {"en"}}.Encode()
	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+port, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(15 * time.Second)); err != nil {
		t.Fatal(err)
	}
	// Expect: 100-continue has the server say when its handler starts
	// reading the body: from then on the request is in flight.
	fmt.Fprintf(conn, "POST /scenarios/gc-pause/step HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", len(body))
	answers := bufio.NewReader(conn)
	if resp, err := http.ReadResponse(answers, nil); err != nil || resp.StatusCode != http.StatusContinue {
		t.Fatalf("before the body: %v, %v; want 100 Continue", resp, err)
	}
	if _, err := io.WriteString(conn, body[:len(body)/2]); err != nil {
		t.Fatal(err)
	}

	// ...the signal...
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(log.String(), "shutting down") {
		if time.Now().After(deadline) {
			t.Fatalf("the server did not start shutting down; log:\n%s", log.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	// While it drains, the server still answers, but /healthz says it is
	// going...
	resp, err := http.Get("http://127.0.0.1:" + port + "/healthz")
	if err != nil {
		t.Fatalf("/healthz while draining: %v", err)
	}
	resp.Body.Close()
	if got, want := resp.StatusCode, http.StatusServiceUnavailable; got != want {
		t.Fatalf("/healthz while draining: status=%d, want %d", got, want)
	}
	// ...and once the drain is over it takes no new connection.
	testkit.Eventually(t, 10*time.Second, "the listener to close after the drain", func() bool {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, time.Second)
		if err == nil {
			c.Close()
		}
		return err != nil
	})
	select {
	case err := <-done:
		t.Fatalf("run returned %v with a request still in flight", err)
	default:
	}

	// ...and the rest of the body: the answer still comes.
	if _, err := io.WriteString(conn, body[len(body)/2:]); err != nil {
		t.Fatal(err)
	}
	resp, err = http.ReadResponse(answers, nil)
	if err != nil {
		t.Fatalf("reading the answer to the request in flight: %v", err)
	}
	resp.Body.Close()
	if got, want := resp.StatusCode, http.StatusSeeOther; got != want {
		t.Fatalf("status=%d, want %d", got, want)
	}
	// The address shows the frame, never the run's key.
	if loc := resp.Header.Get("Location"); loc != "/scenarios/gc-pause?fencing=on&step=3&lang=en" {
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

// BenchmarkColdStart measures from starting the process to its first 200 on
// a scenario's page (coldStartPage), drawn and gzipped as a browser asks for
// it: what a scaled-to-zero host or a restart after a deploy costs the first
// visitor. Beside it, in turns, a minimal net/http server that answers every
// address with two bytes (helloServer): the floor a Go server's start has on
// this machine at this moment, so their ratio holds however busy the machine
// is. Both binaries are built once, outside the timing.
//
//	go test -run '^$' -bench ColdStart -benchtime 20x
func BenchmarkColdStart(b *testing.B) {
	dir := b.TempDir()
	bin, hello := filepath.Join(dir, "fencing-demo"), filepath.Join(dir, "hello")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		b.Fatalf("go build: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hello.go"), []byte(helloServer), 0o644); err != nil {
		b.Fatal(err)
	}
	build = exec.Command("go", "build", "-o", hello, filepath.Join(dir, "hello.go"))
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		b.Fatalf("go build hello: %v", err)
	}
	var demoStart, helloStart coldStart
	for b.Loop() {
		demoStart.add(b, bin)
		helloStart.add(b, hello)
	}
	b.ReportMetric(demoStart.ms(b.N), "ms/start")
	b.ReportMetric(demoStart.cpuMS(b.N), "cpu-ms/start")
	b.ReportMetric(helloStart.ms(b.N), "hello-ms/start")
	b.ReportMetric(helloStart.cpuMS(b.N), "hello-cpu-ms/start")
	b.ReportMetric(demoStart.ms(b.N)/helloStart.ms(b.N), "x-hello")
	b.ReportMetric(demoStart.cpuMS(b.N)/helloStart.cpuMS(b.N), "x-hello-cpu")
}

// helloServer is the least a Go web server can be: every address answers 200.
const helloServer = `package main

import (
	"flag"
	"net/http"
)

func main() {
	port := flag.String("port", "8080", "")
	flag.Parse()
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) })
	_ = http.ListenAndServe(":"+*port, nil)
}
`

// coldStart adds up the starts of one binary: wall time to the first 200,
// and the CPU the process used to get there (it was idle after), which is
// what the start costs on a machine that has nothing else to do.
type coldStart struct{ total, cpu time.Duration }

// coldStartPage is the page the first visitor asks for: a real page, so work
// put off until the first request is still counted.
const coldStartPage = "/scenarios/gc-pause"

func (cs *coldStart) add(b *testing.B, bin string) {
	client := &http.Client{Timeout: time.Second}
	port := testkit.FreePort(b)
	cmd := exec.Command(bin, "-port", port)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	for {
		resp, err := client.Get("http://127.0.0.1:" + port + coldStartPage)
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body) // the whole page, unzipped
			resp.Body.Close()
			if err == nil && resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Since(start) > 10*time.Second {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			b.Fatalf("%s: no 200 from %s within 10s: %v", bin, coldStartPage, err)
		}
		time.Sleep(200 * time.Microsecond)
	}
	cs.total += time.Since(start)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	cs.cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

func (cs *coldStart) ms(n int) float64    { return float64(cs.total.Microseconds()) / 1000 / float64(n) }
func (cs *coldStart) cpuMS(n int) float64 { return float64(cs.cpu.Microseconds()) / 1000 / float64(n) }
