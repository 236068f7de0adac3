package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/distlock/fencing-demo/internal/hall"
)

// cluster is what the hostile command runs: a redis-server, three replicas
// of the program and HAProxy with docs/haproxy.cfg, each a process of its
// own on loopback, so that kill -9 takes one replica down alone.
type cluster struct {
	redis    *proc
	replicas []*proc
	haproxy  *proc
	ports    []int // the replicas'
	lb       int   // the balancer's
	dir      string
	// redisAddr is redis-server's host:port, for a replica started again.
	redisAddr string
}

// proc is one process the command started, stopped when it ends.
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	out  *lockedBuffer
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// launch starts a process and waits, at most 30 s, for ready.
func launch(ctx context.Context, name, dir string, ready func(context.Context) error, path string, args ...string) (*proc, error) {
	p := &proc{name: name, cmd: exec.Command(path, args...), done: make(chan struct{}), out: &lockedBuffer{}}
	p.cmd.Dir, p.cmd.Stdout, p.cmd.Stderr = dir, p.out, p.out
	// Its own process group, so a Ctrl-C reaches this command first and it
	// stops them in order; and killed with it, should it die.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		err := ready(ctx)
		if err == nil {
			return p, nil
		}
		select {
		case <-p.done:
			return nil, fmt.Errorf("%s exited while starting: %s", name, tail(p.out.String()))
		case <-ctx.Done():
			p.stop()
			return nil, fmt.Errorf("%s not ready in 30 s (%v): %s", name, err, tail(p.out.String()))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// kill ends the process with SIGKILL, as a replica that dies mid-lecture.
func (p *proc) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// stop ends the process with SIGTERM, and SIGKILL after 5 s.
func (p *proc) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		p.kill()
	}
}

func tail(s string) string {
	if len(s) > 2000 {
		return "…" + s[len(s)-2000:]
	}
	return s
}

// startCluster starts redis-server on port, three replicas of bin on the
// ports after it (with the documented flags and extra), and HAProxy with
// cfg on lb.
func startCluster(ctx context.Context, bin, haproxy, redis, cfg string, port, lb int, extra []string) (*cluster, error) {
	dir, err := os.MkdirTemp("", "fencing-hostile")
	if err != nil {
		return nil, err
	}
	c := &cluster{dir: dir, lb: lb}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	c.redis, err = launch(ctx, "redis-server", dir, func(ctx context.Context) error { return redisUp(ctx, addr) },
		redis, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir)
	if err != nil {
		c.stop()
		return nil, err
	}
	c.redisAddr = addr
	for i := range 3 {
		rp := port + 1 + i
		c.ports = append(c.ports, rp)
		p, err := c.replica(ctx, len(c.ports)-1, bin, extra)
		if err != nil {
			c.stop()
			return nil, err
		}
		c.replicas = append(c.replicas, p)
	}
	text, err := os.ReadFile(cfg)
	if err != nil {
		c.stop()
		return nil, err
	}
	conf, err := hall.HAProxyConfig(string(text), lb, c.ports)
	if err != nil {
		c.stop()
		return nil, err
	}
	path := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		c.stop()
		return nil, err
	}
	c.haproxy, err = launch(ctx, "haproxy", dir, healthy("http://127.0.0.1:"+strconv.Itoa(lb)+"/healthz"), haproxy, "-db", "-f", path)
	if err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

// replica starts replica i of bin on its port, with the documented flags
// and extra.
func (c *cluster) replica(ctx context.Context, i int, bin string, extra []string) (*proc, error) {
	rp := c.ports[i]
	args := append([]string{"-port", strconv.Itoa(rp), "-behind-proxy", "-trusted-proxies", "127.0.0.1/32",
		"-follow-redis", "redis://" + c.redisAddr + "/0", "-drain-wait", "0s"}, extra...)
	return launch(ctx, "replica "+strconv.Itoa(rp), c.dir, healthy("http://127.0.0.1:"+strconv.Itoa(rp)+"/healthz"), bin, args...)
}

// restart starts replica i again, after it was killed.
func (c *cluster) restart(ctx context.Context, i int, bin string, extra []string) (*proc, error) {
	return c.replica(ctx, i, bin, extra)
}

// cpu is the CPU time (user and system) each of the cluster's processes
// has used so far, as "haproxy 1.2 s, replicas 3.4 s, ...".
func (c *cluster) cpu() string {
	replicas := 0.0
	for _, p := range c.replicas {
		replicas += p.cpu()
	}
	return fmt.Sprintf("haproxy %.1f s, replicas %.1f s, redis-server %.1f s", c.haproxy.cpu(), replicas, c.redis.cpu())
}

// cpu is the process's CPU time so far (from /proc), 0 once it has ended.
func (p *proc) cpu() float64 { return cpuSeconds(p.cmd.Process.Pid) }

// cpuSeconds is process pid's user and system time, from /proc/pid/stat.
func cpuSeconds(pid int) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // after the command's name, which may hold spaces
	if len(f) < 13 {
		return 0
	}
	user, _ := strconv.ParseFloat(f[11], 64)
	sys, _ := strconv.ParseFloat(f[12], 64)
	return (user + sys) / 100 // clock ticks: USER_HZ is 100 on Linux
}

// stop ends every process the cluster started and removes its folder.
func (c *cluster) stop() {
	if c.haproxy != nil {
		c.haproxy.stop()
	}
	for _, p := range c.replicas {
		p.stop()
	}
	if c.redis != nil {
		c.redis.stop()
	}
	_ = os.RemoveAll(c.dir)
}

func healthy(url string) func(context.Context) error {
	return func(ctx context.Context) error { return hall.Healthy(ctx, url) }
}

// redisUp asks the Redis at addr for a PONG, in its own protocol.
func redisUp(ctx context.Context, addr string) error {
	conn, err := hall.Dialer("127.0.0.1").DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Second))
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	b := make([]byte, 7)
	n, _ := conn.Read(b)
	if !strings.HasPrefix(string(b[:n]), "+PONG") {
		return fmt.Errorf("redis at %s: %q", addr, b[:n])
	}
	return nil
}
