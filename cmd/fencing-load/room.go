package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/internal/hall"
	"github.com/distlock/fencing-demo/views"
)

// roomRun is the room command: a workshop room across three replicas
// behind the documented balancer (the hostile command's cluster). The
// lecturer opens a room with a break and a fix of gc-pause and watches the
// board's stream; -learners learners, each on an address of its own, join
// and submit -attempts attempts each over -over (a break, the finder's
// shortest, three times in four; the lab's fix that holds otherwise).
// Halfway, one replica is killed with SIGKILL and started again. A
// submission whose answer is lost (the replica died under it, the balancer
// answered 502/503) is sent again with the same key until it is answered,
// as room.js does.
//
// It reports whether every submission was counted exactly once (the
// board's count equals the submissions, and each learner's counts the
// board's), how long the board's stream took to show each counted
// submission (p50, p99), and every status the learners got.
//
//	go build -o /tmp/fd . && go run ./cmd/fencing-load room -bin /tmp/fd -learners 60 -attempts 20 -over 60s
func roomRun(ctx context.Context, sc *demo.Scenario, args []string, stdout, stderr io.Writer) error {
	o, err := roomFlags(args, stderr)
	if err != nil {
		return err
	}
	brk, fix, err := roomAnswers(sc)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "room: starting redis-server, 3 replicas and haproxy on ports %d-%d\n", o.port, o.port+10)
	cl, err := startCluster(ctx, o.bin, o.haproxy, o.redis, o.cfg, o.port, o.port+10, o.extra)
	if err != nil {
		return err
	}
	defer cl.stop()
	w := &workshop{o: o, cl: cl, base: "http://127.0.0.1:" + strconv.Itoa(cl.lb), brk: brk, fix: fix, log: stderr}
	return w.play(ctx, stdout)
}

type roomOpts struct {
	bin, haproxy, redis, cfg string
	port                     int
	extra                    []string
	learners, attempts       int
	over                     time.Duration
	noKill                   bool
}

func roomFlags(args []string, stderr io.Writer) (roomOpts, error) {
	var o roomOpts
	fl := flag.NewFlagSet("room", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.StringVar(&o.bin, "bin", "", "the server program to run as three replicas (go build -o /tmp/fd .)")
	fl.StringVar(&o.haproxy, "haproxy", "haproxy", "the haproxy program")
	fl.StringVar(&o.redis, "redis-server", "redis-server", "the redis-server program")
	fl.StringVar(&o.cfg, "config", "docs/haproxy.cfg", "the balancer's configuration, its ports replaced")
	fl.IntVar(&o.port, "port", 21400, "redis-server's port; the replicas take the next three and haproxy the tenth after it")
	extra := fl.String("replica-flags", "", "more flags for every replica, space-separated")
	fl.IntVar(&o.learners, "learners", 300, "learners in the room, each on an address of its own (127.0.1.1 and up)")
	fl.IntVar(&o.attempts, "attempts", 20, "submissions each learner makes")
	fl.DurationVar(&o.over, "over", 10*time.Minute, "the learners' submissions are spread over this long")
	fl.BoolVar(&o.noKill, "no-kill", false, "kill no replica: a reference run")
	if err := fl.Parse(args); err != nil {
		return o, err
	}
	if o.bin == "" {
		return o, errors.New("-bin: build the server first (go build -o /tmp/fd .)")
	}
	if o.learners < 1 || o.learners > 60000 || o.attempts < 1 || o.over <= 0 {
		return o, errors.New("-learners 1..60000, -attempts 1 or more, -over positive")
	}
	o.extra = strings.Fields(*extra)
	return o, nil
}

// roomAnswers are what the learners submit: the address of the finder's
// shortest break of sc from its first frame (switch off), and of sc's
// lab with the build its tries say holds.
func roomAnswers(sc *demo.Scenario) (brk, fix string, err error) {
	prop, _ := sc.Promise()
	start := demo.Place{Sc: sc, Step: 1}
	res, err := find.Find(start, prop, find.Options{})
	if err != nil || !res.Found {
		return "", "", fmt.Errorf("the finder breaks no %s from its first frame: %v", sc.ID, err)
	}
	p := views.Place{Place: start, Lang: "en", FreePlay: true}
	for _, a := range res.Trace {
		p.Place = p.Place.Then(a)
	}
	if sc.Lab == nil {
		return "", "", fmt.Errorf("%s has no lab", sc.ID)
	}
	for _, t := range sc.Lab.Tries {
		if t.Expect == "holds" {
			return p.URL(), views.LabURL(sc.ID, t.Build.String(), "en", false), nil
		}
	}
	return "", "", fmt.Errorf("%s's lab has no try that holds", sc.ID)
}

// workshop is one run of the room command.
type workshop struct {
	o        roomOpts
	cl       *cluster
	base     string
	brk, fix string
	log      io.Writer
	room     string // the learners' path
	lead     string // the board's path

	statuses hall.Statuses
	sent     atomic.Int64 // submissions (keys) made
	answered atomic.Int64 // answered 200: counted by this answer
	replayed atomic.Int64 // answered 409: counted by an earlier delivery whose answer was lost
	lost     atomic.Int64 // never answered within the retries
	fixes    atomic.Int64

	mu      sync.Mutex
	counted []time.Time         // when each 200 came back, in order
	shown   map[int64]time.Time // when the board's stream first showed each count
	perLrn  map[string][2]int   // per learner: counted breaks, fixes
	kinds   map[string]*atomic.Int64
}

func (w *workshop) play(ctx context.Context, stdout io.Writer) error {
	w.shown, w.perLrn = map[int64]time.Time{}, map[string][2]int{}
	lecturer := hall.Client("127.0.0.1", true)
	if err := w.open(ctx, lecturer); err != nil {
		return err
	}
	boardCtx, stopBoard := context.WithCancel(ctx)
	defer stopBoard()
	go w.watch(boardCtx)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range w.o.learners {
		wg.Add(1)
		go func() { defer wg.Done(); w.learner(ctx, i) }()
	}
	if !w.o.noKill {
		go w.killOne(ctx, start)
	}
	wg.Wait()
	took := time.Since(start)
	// The board's stream shows the last count within its refresh at most.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && !w.showed(w.answered.Load()+w.replayed.Load()) {
		hall.Sleep(ctx, 100*time.Millisecond)
	}
	stopBoard()
	return w.report(ctx, lecturer, took, stdout)
}

// open opens the room through the balancer, as the lecturer's form does.
func (w *workshop) open(ctx context.Context, c *http.Client) error {
	form := url.Values{"c": {"break:" + benchScenario + ":off", "fix:" + benchScenario}, "lang": {"en"}, "extra": {"2"}}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, w.base+"/rooms", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	noFollow := *c
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := noFollow.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	loc, _, _ := strings.Cut(resp.Header.Get("Location"), "?")
	i := strings.Index(loc, "/lead/")
	if resp.StatusCode != http.StatusSeeOther || i < 0 {
		return fmt.Errorf("opening a room: %s, %q", resp.Status, loc)
	}
	w.room, w.lead = loc[:i], loc
	return nil
}

var submissionsAttr = regexp.MustCompile(`data-submissions="(\d+)"`)

// watch reads the board's stream as room.js does, again after it breaks,
// and notes when each count of submissions was first shown.
func (w *workshop) watch(ctx context.Context) {
	c := &http.Client{Transport: &http.Transport{DialContext: hall.Dialer("127.0.0.1").DialContext, DisableCompression: true}}
	for ctx.Err() == nil {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, w.base+w.lead+"/events?lang=en", nil)
		resp, err := c.Do(req)
		if err != nil {
			hall.Sleep(ctx, 200*time.Millisecond)
			continue
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if m := submissionsAttr.FindStringSubmatch(sc.Text()); m != nil {
				n, _ := strconv.ParseInt(m[1], 10, 64)
				now := time.Now()
				w.mu.Lock()
				for k := n; k > 0; k-- {
					if _, ok := w.shown[k]; ok {
						break
					}
					w.shown[k] = now
				}
				w.mu.Unlock()
			}
		}
		resp.Body.Close()
		hall.Sleep(ctx, 200*time.Millisecond)
	}
}

func (w *workshop) showed(n int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.shown[n]
	return ok
}

// learnerAddr is learner i's own address.
func learnerAddr(i int) string { return fmt.Sprintf("127.0.%d.%d", 1+i/250, 1+i%250) }

// learner joins and submits its attempts, spread over -over.
func (w *workshop) learner(ctx context.Context, i int) {
	c := hall.Client(learnerAddr(i), true)
	jar := ""
	for try := 0; try < 20 && jar == "" && ctx.Err() == nil; try++ {
		jar = w.join(ctx, c)
		if jar == "" {
			hall.Sleep(ctx, 500*time.Millisecond)
		}
	}
	if jar == "" {
		w.lost.Add(int64(w.o.attempts))
		return
	}
	gap := w.o.over / time.Duration(w.o.attempts)
	hall.Sleep(ctx, time.Duration(rand.Int64N(int64(gap))))
	for a := range w.o.attempts {
		fix := a%4 == 3
		w.submit(ctx, c, jar, learnerAddr(i), fix)
		hall.Sleep(ctx, gap/2+time.Duration(rand.Int64N(int64(gap))))
	}
}

// join joins the room and returns the learner's pass as a Cookie header.
func (w *workshop) join(ctx context.Context, c *http.Client) string {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, w.base+w.room+"/join", strings.NewReader("lang=en"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	noFollow := *c
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := noFollow.Do(req)
	w.statuses.Add(resp, err)
	if err != nil {
		return ""
	}
	resp.Body.Close()
	for _, ck := range resp.Cookies() {
		if ck.Name == "learner" {
			return ck.Name + "=" + ck.Value
		}
	}
	return ""
}

// submit sends one submission with a key of its own, again with the same
// key while its answer is lost or the server is busy, for a minute at most.
func (w *workshop) submit(ctx context.Context, c *http.Client, jar, who string, fix bool) {
	key := strconv.FormatUint(rand.Uint64(), 36) + strconv.FormatUint(rand.Uint64(), 36)
	form := url.Values{"c": {"0"}, "key": {key}, "place": {w.brk}, "lang": {"en"}}
	if fix {
		form.Set("c", "1")
		form.Set("place", w.fix)
		w.fixes.Add(1)
	}
	w.sent.Add(1)
	giveUp := time.Now().Add(time.Minute)
	for time.Now().Before(giveUp) && ctx.Err() == nil {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, w.base+w.room+"/submit", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("HX-Request", "true")
		req.Header.Set("Cookie", jar)
		resp, err := c.Do(req)
		w.statuses.Add(resp, err)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			switch {
			case resp.StatusCode == http.StatusOK:
				w.answered.Add(1)
				w.mu.Lock()
				w.counted = append(w.counted, time.Now())
				n := w.perLrn[who]
				n[b2i(fix)]++
				w.perLrn[who] = n
				w.mu.Unlock()
				return
			case resp.StatusCode == http.StatusConflict:
				// The key is this submission's alone: a 409 says an earlier
				// delivery of it was counted, ours or the balancer's retry.
				w.replayed.Add(1)
				w.mu.Lock()
				n := w.perLrn[who]
				n[b2i(fix)]++
				w.perLrn[who] = n
				w.mu.Unlock()
				return
			case resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests:
				fmt.Fprintf(w.log, "room: a submission answered %s\n", resp.Status)
				w.lost.Add(1)
				return
			}
		}
		hall.Sleep(ctx, 300*time.Millisecond+time.Duration(rand.Int64N(int64(400*time.Millisecond))))
	}
	w.lost.Add(1)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// killOne kills replica 2 halfway through and starts it again 2 s later.
func (w *workshop) killOne(ctx context.Context, start time.Time) {
	if !hall.Sleep(ctx, w.o.over/2) {
		return
	}
	fmt.Fprintf(w.log, "room: kill -9 of replica %d at %s\n", w.cl.ports[1], time.Since(start).Round(time.Second))
	w.cl.replicas[1].kill()
	if !hall.Sleep(ctx, 2*time.Second) {
		return
	}
	p, err := w.cl.restart(ctx, 1, w.o.bin, w.o.extra)
	if err != nil {
		fmt.Fprintf(w.log, "room: starting the replica again: %v\n", err)
		return
	}
	w.cl.replicas[1] = p
	fmt.Fprintf(w.log, "room: replica %d back at %s\n", w.cl.ports[1], time.Since(start).Round(time.Second))
}

var rowCounts = regexp.MustCompile(`data-testid="room-row-(\d)"[^>]*>.*?data-testid="tried">(\d+)<.*?data-testid="solved">(\d+)<`)

// report reads the board once more and compares it with what was sent.
func (w *workshop) report(ctx context.Context, c *http.Client, took time.Duration, out io.Writer) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, w.base+w.lead+"?lang=en", nil)
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := submissionsAttr.FindSubmatch(body)
	if m == nil {
		return fmt.Errorf("the board (%s) shows no count", resp.Status)
	}
	board, _ := strconv.ParseInt(string(m[1]), 10, 64)
	var rows []string
	for _, r := range rowCounts.FindAllSubmatch(body, -1) {
		rows = append(rows, fmt.Sprintf("challenge %s: tried %s, solved %s", r[1], r[2], r[3]))
	}
	sent, counted := w.sent.Load(), w.answered.Load()+w.replayed.Load()
	var lat []time.Duration
	w.mu.Lock()
	for i, at := range w.counted {
		if s, ok := w.shown[int64(i+1)]; ok {
			lat = append(lat, max(0, s.Sub(at)))
		}
	}
	learners := len(w.perLrn)
	w.mu.Unlock()
	fmt.Fprintf(out, "room: %d learners on their own addresses, %d submissions (%d fixes) over %s across 3 replicas behind haproxy",
		w.o.learners, sent, w.fixes.Load(), took.Round(time.Second))
	if !w.o.noKill {
		fmt.Fprint(out, ", one replica killed with SIGKILL halfway and started again")
	}
	fmt.Fprintf(out, "\nsubmissions: %d answered 200 (counted), %d answered 409 (counted by an earlier delivery whose answer was lost), %d never answered; the board counts %d\n",
		w.answered.Load(), w.replayed.Load(), w.lost.Load(), board)
	fmt.Fprintf(out, "board: %s; %d learners' submissions counted\n", strings.Join(rows, "; "), learners)
	fmt.Fprintf(out, "board updates: %d counts shown on the lecturer's stream, after the answer p50 %s, p99 %s, max %s\n",
		len(lat), ms(pctl(lat, 0.5)), ms(pctl(lat, 0.99)), ms(pctl(lat, 1)))
	fmt.Fprintf(out, "learners' answers: %s\n", w.statuses.String())
	fmt.Fprintf(out, "cpu: %s\n", w.cl.cpu())
	switch {
	case board != counted || counted != sent:
		return fmt.Errorf("the board counts %d submissions; %d were sent and %d answered as counted", board, sent, counted)
	case pctl(lat, 0.99) > time.Second:
		return fmt.Errorf("the board's p99 update took %s, over 1 s", ms(pctl(lat, 0.99)))
	}
	return nil
}
