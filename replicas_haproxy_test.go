package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/realserver"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/follow"
)

// A lecture on three replicas behind a real HAProxy, configured with
// docs/haproxy.cfg as it stands, and a real Redis: 300 students follow
// through the balancer while one replica is killed with SIGKILL mid-lecture
// and started again, and Redis restarts. Every one of the lecturer's clicks
// is answered with the next frame; after each disruption every student is
// at the latest frame within catchUp of the lecturer's next click, none is
// lost, and a student who opens the link late on any replica is shown the
// latest frame.
func TestReplicasBehindHaproxy(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three servers, redis-server and haproxy: not with -short")
	}
	haproxy := realserver.Binary(t, "haproxy", "haproxy")
	rd := realserver.StartRedis(t, "lecture")
	bin := buildServer(t)
	var ports [3]int
	replicas := make([]*realserver.Process, 3)
	for i := range replicas {
		ports[i] = realserver.FreePort(t)
		replicas[i] = startReplica(t, bin, ports[i], rd.Addr())
	}
	lbPort := realserver.FreePort(t)
	startHaproxy(t, haproxy, lbPort, ports)
	lb := "http://" + realserver.Addr(lbPort)

	sc := testkit.Scenario(t, "gc-pause")
	l := &lectern{t: t, base: lb, sc: sc, client: &http.Client{Timeout: 10 * time.Second}}
	l.click() // frame 2: the run key, and the follow link
	link := "/follow/" + follow.LectureID(l.run)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	streams := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 400, DisableCompression: true}}
	room := make([]*student, 300)
	var wg sync.WaitGroup
	for i := range room {
		room[i] = &student{}
		wg.Go(func() { room[i].follow(ctx, streams, lb+link+"/events?lang=en") })
	}
	t.Cleanup(func() { cancel(); wg.Wait() })
	// Connecting 300 students on a loaded machine takes a while: bounded
	// generously, and only this once.
	waitAll(t, room, l.shown(), 60*time.Second, "every student connected at frame 2")

	for range 3 {
		l.click()
		waitAll(t, room, l.shown(), catchUp, "every student at the lecturer's frame")
	}

	replicas[1].Kill() // mid-lecture: no drain, its students' streams cut
	l.click()
	waitAll(t, room, l.shown(), catchUp, "every student at the latest frame after a replica was killed")
	l.click()
	waitAll(t, room, l.shown(), catchUp, "every student live after a replica was killed")

	replicas[1].Start()
	l.click()
	waitAll(t, room, l.shown(), catchUp, "every student at the latest frame after the replica came back")

	rd.Stop() // Redis restarts, empty: it keeps nothing on disk
	l.click() // Redis is away: the click is answered all the same
	rd.Start()
	waitAll(t, room, l.shown(), catchUp, "every student at the latest frame after Redis restarted")
	l.click()
	waitAll(t, room, l.shown(), catchUp, "every student live after Redis restarted")

	// Late joiners, on every replica directly and through the balancer.
	for _, base := range []string{"http://" + realserver.Addr(ports[0]), "http://" + realserver.Addr(ports[1]), "http://" + realserver.Addr(ports[2]), lb} {
		resp, err := l.client.Get(base + link + "?lang=en")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := views.StepShown(body); resp.StatusCode != http.StatusOK || got != l.shown() {
			t.Fatalf("a late joiner's page on %s: %s, frame %q; want %q", base, resp.Status, got, l.shown())
		}
		late := &student{}
		lctx, lcancel := context.WithCancel(ctx)
		go late.follow(lctx, streams, base+link+"/events?lang=en")
		waitAll(t, []*student{late}, l.shown(), catchUp, "a late joiner's stream on "+base)
		lcancel()
	}
	for i, s := range room {
		if !s.live.Load() {
			t.Fatalf("student %d is not connected at the end", i)
		}
	}
	t.Logf("%d clicks, every one answered; students reconnected %d times in all", l.clicks, reconnects(room))
}

// catchUp is how soon after a disruption every student must be at the
// lecturer's frame.
const catchUp = 5 * time.Second

// buildServer builds the program into a temporary folder: a replica must be
// a process of its own, for SIGKILL to take it down alone.
func buildServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fencing-demo")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startReplica runs one replica on port, as docs/replicas.md says to.
func startReplica(t *testing.T, bin string, port int, redisAddr string) *realserver.Process {
	t.Helper()
	return realserver.Launch(t, realserver.Spec{
		Name: "replica " + strconv.Itoa(port),
		Path: bin,
		Args: []string{"-port", strconv.Itoa(port), "-behind-proxy", "-follow-redis", "redis://" + redisAddr + "/0", "-drain-wait", "0s"},
		Dir:  t.TempDir(),
		Ready: func(ctx context.Context) error {
			return healthy(ctx, "http://"+realserver.Addr(port)+"/healthz")
		},
		ReadyIn: 30 * time.Second,
	})
}

// startHaproxy runs haproxy in the foreground with docs/haproxy.cfg, its
// bind and server ports changed to the test's.
func startHaproxy(t *testing.T, bin string, port int, replicas [3]int) {
	t.Helper()
	cfg, err := os.ReadFile(filepath.Join("docs", "haproxy.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(cfg), "bind :8080", "bind 127.0.0.1:"+strconv.Itoa(port), 1)
	for i, name := range []string{"a", "b", "c"} {
		re := regexp.MustCompile(`(?m)^(\s*server ` + name + ` )127\.0\.0\.1:808[123]`)
		if !re.MatchString(text) {
			t.Fatalf("docs/haproxy.cfg has no server %s line on 127.0.0.1:808x", name)
		}
		text = re.ReplaceAllString(text, "${1}"+realserver.Addr(replicas[i]))
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	realserver.Launch(t, realserver.Spec{
		Name: "haproxy",
		Path: bin,
		Args: []string{"-db", "-f", path},
		Dir:  dir,
		Ready: func(ctx context.Context) error {
			return healthy(ctx, "http://"+realserver.Addr(port)+"/healthz")
		},
		ReadyIn: 30 * time.Second,
	})
}

func healthy(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return nil
}

// lectern is the lecturer, clicking Step through the balancer (and Reset at
// the last frame), every click checked.
type lectern struct {
	t      *testing.T
	base   string
	sc     *demo.Scenario
	client *http.Client
	run    string
	here   views.Place
	clicks int
}

func (l *lectern) shown() string { return fmt.Sprintf("%d / %d", l.here.Step, l.sc.Frames()) }

func (l *lectern) click() {
	l.t.Helper()
	if l.here.Sc == nil {
		l.here = views.Place{Place: demo.Place{Sc: l.sc, On: true, Step: 1}, Lang: "en"}
	}
	action, next := "step", l.here.Step+1
	if l.here.Step == l.sc.Frames() {
		action, next = "reset", 1
	}
	req, err := http.NewRequest(http.MethodPost, l.base+l.here.Action(action), strings.NewReader(l.here.Form(l.run).Encode()))
	if err != nil {
		l.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	resp, err := l.client.Do(req)
	if err != nil {
		l.t.Fatalf("the lecturer's click %d: %v", l.clicks+1, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	l.here.Step = next
	if got := views.StepShown(body); resp.StatusCode != http.StatusOK || got != l.shown() {
		l.t.Fatalf("the lecturer's click %d: %s, frame %q; want %q", l.clicks+1, resp.Status, got, l.shown())
	}
	if l.run == "" {
		l.run = runIn(body)
		if l.run == "" {
			l.t.Fatal("the lecturer's first click carried no run key")
		}
	}
	l.clicks++
}

// runIn is the run key in a click's answer.
func runIn(body []byte) string {
	const mark = `name="run" value="`
	s := string(body)
	i := strings.Index(s, mark)
	if i < 0 || len(s) < i+len(mark)+views.RunIDLen {
		return ""
	}
	return s[i+len(mark) : i+len(mark)+views.RunIDLen]
}

// student follows the lecture as follow.js does: one stream, opened again
// after any failure with a growing, jittered wait, saying which version it
// has.
type student struct {
	frame      atomic.Value // string: the frame shown, "3 / 7"
	live       atomic.Bool
	reconnects atomic.Int64
}

func (s *student) follow(ctx context.Context, c *http.Client, url string) {
	last := ""
	for tries := 0; ctx.Err() == nil; tries++ {
		if tries > 0 {
			s.reconnects.Add(1)
			wait := min(2*time.Second, 250*time.Millisecond<<min(tries-1, 4))
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait/2 + rand.N(wait/2)):
			}
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return
		}
		if last != "" {
			req.Header.Set("Last-Event-ID", last)
		}
		resp, err := c.Do(req)
		if err != nil {
			continue
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			continue
		}
		tries = 0
		s.live.Store(true)
		last = s.read(resp.Body, last)
		s.live.Store(false)
		resp.Body.Close()
	}
}

// read takes events until the stream ends, and returns the last event id.
func (s *student) read(body io.Reader, last string) string {
	r := bufio.NewReaderSize(body, 64<<10)
	id, frame := "", ""
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return last
		}
		switch {
		case strings.HasPrefix(line, "id: "):
			id = strings.TrimSpace(line[4:])
		case strings.HasPrefix(line, "data: ") && strings.Contains(line, `data-testid="step-index"`):
			frame = views.StepShown([]byte(line))
		case line == "\n" && frame != "":
			s.frame.Store(frame)
			last, id, frame = id, "", ""
		}
	}
}

// waitAll waits until every student shows frame want, for at most within.
func waitAll(t *testing.T, room []*student, want string, within time.Duration, what string) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		behind := 0
		for _, s := range room {
			if f, _ := s.frame.Load().(string); f != want {
				behind++
			}
		}
		if behind == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d of %d students not at %q after %v", what, behind, len(room), want, within)
		}
		time.Sleep(20 * time.Millisecond) // polling the students' own state: nothing to wait on
	}
}

func reconnects(room []*student) int64 {
	var n int64
	for _, s := range room {
		n += s.reconnects.Load()
	}
	return n
}

// docs/nginx.conf, the other balancer docs/replicas.md gives, is one nginx
// accepts.
func TestNginxConfigParses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs nginx -t: not with -short")
	}
	bin := realserver.Binary(t, "nginx", "nginx")
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	conf, err := filepath.Abs(filepath.Join("docs", "nginx.conf"))
	if err != nil {
		t.Fatal(err)
	}
	// -p: a prefix of its own, so the check touches none of the machine's
	// nginx files; the error log is named for the same reason.
	out, err := exec.Command(bin, "-t", "-p", dir, "-c", conf, "-e", filepath.Join(dir, "logs", "error.log"), "-g", "pid "+filepath.Join(dir, "nginx.pid")+";").CombinedOutput()
	if err != nil {
		t.Fatalf("nginx -t docs/nginx.conf: %v\n%s", err, out)
	}
}
