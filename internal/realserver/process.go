// Package realserver starts real servers (Debian's packages) for conformance
// tests: each on a free loopback port, with its data in t.TempDir(), stopped in
// t.Cleanup. A test can stop and start a server mid-test to play a node that
// goes down, and put a Relay between two parties to hold back or cut traffic.
//
// Where a server's binary is missing the test is skipped with a one-line
// reason, except when the environment variable CI is set: there the suite is
// meant to run, so a missing binary fails it.
package realserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Binary returns the path of the server program name, looked up in PATH and
// in the sbin folders Debian puts servers in. pkg is the Debian package that
// provides it, named in the skip message.
func Binary(tb testing.TB, name, pkg string) string {
	tb.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{"/usr/sbin", "/usr/local/sbin", "/usr/bin", "/usr/local/bin"} {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	Missing(tb, fmt.Sprintf("%s not found (apt-get install -y %s)", name, pkg))
	return ""
}

// Missing skips the test for want of something the suite needs, or fails it
// when CI is set, where a silent skip would hide that nothing was checked.
func Missing(tb testing.TB, reason string) {
	tb.Helper()
	if os.Getenv("CI") != "" {
		tb.Fatalf("%s; CI is set, so the conformance suite must run", reason)
	}
	tb.Skip(reason)
}

// FreePort returns a loopback TCP port that was free a moment ago and that
// this test binary has not handed out before. It is drawn at random below
// the kernel's ephemeral range (ip_local_port_range), and above the servers'
// well-known ports (Redis's 6379, PostgreSQL's 5432, etcd's 2379): a server
// started a moment later on an ephemeral port can find it taken by some
// other test's outgoing connection, which the load tests open by thousands.
// Never twice matters because a node that goes down frees its port until it
// comes back: had a parallel test been given that port meanwhile, the
// restarted node would answer on another test's server.
func FreePort(tb testing.TB) int {
	tb.Helper()
	handedMu.Lock()
	defer handedMu.Unlock()
	lo, hi := 10000, ephemeralFloor()
	for range 200 {
		port := lo + rand.IntN(hi-lo)
		if handed[port] {
			continue
		}
		l, err := net.Listen("tcp", Addr(port))
		if err != nil {
			continue // someone holds it
		}
		_ = l.Close()
		handed[port] = true
		return port
	}
	tb.Fatalf("no free loopback port in %d-%d in 200 tries", lo, hi-1)
	return 0
}

// ephemeralFloor is the lowest port the kernel hands out to a connection
// that binds none, 32768 where /proc does not say.
func ephemeralFloor() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 32768
	}
	n, err := strconv.Atoi(f[0])
	if err != nil || n <= 11000 {
		return 32768
	}
	return n
}

var (
	handedMu sync.Mutex
	handed   = map[int]bool{}
)

// Spec says how to run one server process.
type Spec struct {
	Name  string   // for messages: "redis1", "primary"
	Path  string   // the binary
	Args  []string // its arguments
	Dir   string   // its working folder
	Env   []string // added to the test's environment
	Log   string   // the file the server logs to, quoted when it fails to start
	Ready func(ctx context.Context) error
	// ReadyIn bounds how long Start waits for Ready to succeed.
	ReadyIn time.Duration
	// Credential runs the process as another user: PostgreSQL refuses to
	// run as root. nil runs it as the test does.
	Credential *syscall.Credential
}

// Process is one server process that can be stopped and started again with
// the same Spec.
type Process struct {
	tb   testing.TB
	spec Spec
	cmd  *exec.Cmd
	done chan struct{}
	out  bytes.Buffer
}

// Launch starts the process, waits until it is ready and stops it at the end
// of the test.
func Launch(tb testing.TB, spec Spec) *Process {
	tb.Helper()
	p := Prepare(tb, spec)
	p.Start()
	return p
}

// Prepare returns the process, not started, to be stopped at the end of the
// test: for a Ready that needs the Process itself (its Pid).
func Prepare(tb testing.TB, spec Spec) *Process {
	if spec.ReadyIn == 0 {
		spec.ReadyIn = 10 * time.Second
	}
	p := &Process{tb: tb, spec: spec}
	tb.Cleanup(p.Stop)
	return p
}

// Running reports whether the process is up.
func (p *Process) Running() bool { return p.cmd != nil }

// Start starts the process if it is not running and waits until Ready says so.
func (p *Process) Start() {
	p.tb.Helper()
	if p.cmd != nil {
		return
	}
	cmd := exec.Command(p.spec.Path, p.spec.Args...)
	cmd.Dir = p.spec.Dir
	cmd.Env = append(os.Environ(), p.spec.Env...)
	p.out.Reset()
	cmd.Stdout, cmd.Stderr = &p.out, &p.out
	// Its own process group, so a Ctrl-C in the terminal reaches the test
	// first and the test stops the server in order.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: p.spec.Credential}
	if err := cmd.Start(); err != nil {
		p.tb.Fatalf("%s: start %s: %v", p.spec.Name, p.spec.Path, err)
	}
	p.cmd, p.done = cmd, make(chan struct{})
	go func(done chan struct{}) { _ = cmd.Wait(); close(done) }(p.done)

	ctx, cancel := context.WithTimeout(context.Background(), p.spec.ReadyIn)
	defer cancel()
	for {
		err := p.spec.Ready(ctx)
		if err == nil {
			return
		}
		select {
		case <-p.done:
			p.cmd = nil
			p.tb.Fatalf("%s exited while starting: %s", p.spec.Name, p.tail())
		case <-ctx.Done():
			p.Stop()
			p.tb.Fatalf("%s not ready after %v (%v): %s", p.spec.Name, p.spec.ReadyIn, err, p.tail())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Stop ends the process (SIGTERM, then SIGKILL after five seconds) and waits
// for it. Stopping a stopped process does nothing.
func (p *Process) Stop() {
	if p.cmd == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	p.cmd = nil
}

// Kill ends the process at once (SIGKILL), as a crash or a power cut does,
// and waits for it: no shutdown work, so the moment it is gone is the moment
// the test chose. Killing a stopped process does nothing.
func (p *Process) Kill() {
	if p.cmd == nil {
		return
	}
	_ = p.cmd.Process.Kill()
	<-p.done
	p.cmd = nil
}

// Pid returns the process id, 0 when it is not running.
func (p *Process) Pid() int {
	if p.cmd == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// tail returns the end of the server's log and output, for a failure message.
func (p *Process) tail() string {
	var b []byte
	if p.spec.Log != "" {
		b, _ = os.ReadFile(p.spec.Log)
	}
	b = append(b, p.out.Bytes()...)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	if len(b) == 0 {
		return "(no output)"
	}
	return string(b)
}

// IsRefused reports whether err is a refused connection: what a client gets
// from a loopback port where nothing listens, a server that is down.
func IsRefused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }

// Addr joins the loopback address and port.
func Addr(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }
