package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/hall"
)

// hostileRun is the hostile command: the lecture hall on the open internet
// behind the documented balancer. It starts redis-server, three replicas of
// -bin and HAProxy with docs/haproxy.cfg (internal/hall plays the people),
// then:
//
//   - ten hostile addresses, 127.0.0.200 to .209, in place before the room
//     arrives: two holding never-read follow streams, two silent
//     connections, two sending headers a byte at a time, two flooding
//     answers without a cookie, one flooding searches, one saves, each
//     search and save from a place never asked before;
//   - the room: -class students behind one school NAT (127.0.0.2) and
//     -spread on their own addresses (127.0.1.1 and up), arriving over
//     -arrive, each opening the follow page and its stream as follow.js does;
//   - the lecturer (127.0.0.1) walks -moves moves, -pace apart, while a
//     probe clicks Step and Back on a run of its own every 100 ms; asks the
//     room its question and reveals the answer; then one replica is killed
//     with SIGKILL and the lecturer clicks on.
//
// It reports every student admitted, how soon each was at the latest frame
// after each move and after the kill, every answer counted, the clicks'
// p50/p99, every status each kind of client got, and the machine's load
// average while it ran; it fails when a target of docs/performance.md is
// missed.
//
//	go build -o /tmp/fd . && go run ./cmd/fencing-load hostile -bin /tmp/fd
func hostileRun(ctx context.Context, sc *demo.Scenario, args []string, stdout, stderr io.Writer) error {
	o, err := hostileFlags(args, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "hostile: starting redis-server, 3 replicas and haproxy on ports %d-%d\n", o.port, o.port+10)
	cl, err := startCluster(ctx, o.bin, o.haproxy, o.redis, o.cfg, o.port, o.port+10, o.extra)
	if err != nil {
		return err
	}
	defer cl.stop()
	h := &hostileHall{o: o, sc: sc, cl: cl, out: stdout, log: stderr, base: "http://127.0.0.1:" + strconv.Itoa(cl.lb), loads: &loadSampler{}}
	return h.play(ctx)
}

// hostileOpts are the hostile command's flags.
type hostileOpts struct {
	bin, haproxy, redis, cfg string
	port                     int
	extra                    []string
	class, spread, moves     int
	conns, workers           int
	arrive, pace             time.Duration
	calm                     bool // no hostile attendee: the same room, for a reference in the same conditions
}

func hostileFlags(args []string, stderr io.Writer) (hostileOpts, error) {
	var o hostileOpts
	fl := flag.NewFlagSet("hostile", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.StringVar(&o.bin, "bin", "", "the server program to run as three replicas (go build -o /tmp/fd .)")
	fl.StringVar(&o.haproxy, "haproxy", "haproxy", "the haproxy program")
	fl.StringVar(&o.redis, "redis-server", "redis-server", "the redis-server program")
	fl.StringVar(&o.cfg, "config", "docs/haproxy.cfg", "the balancer's configuration, its ports replaced")
	fl.IntVar(&o.port, "port", 21300, "redis-server's port; the replicas take the next three and haproxy the tenth after it (below the ephemeral range)")
	extra := fl.String("replica-flags", "", "more flags for every replica, space-separated (-follow-per-lecture 600)")
	fl.IntVar(&o.class, "class", 500, "students behind one school NAT (127.0.0.2)")
	fl.IntVar(&o.spread, "spread", 500, "students each on an address of its own (127.0.1.1 and up)")
	fl.IntVar(&o.moves, "moves", 40, "the lecturer's moves before the question, and half as many after the kill")
	fl.IntVar(&o.conns, "hostile-conns", 1000, "connections each connection-holding hostile address keeps (the balancer's per-source bound)")
	fl.IntVar(&o.workers, "hostile-workers", 32, "requests at once from each flooding hostile address")
	fl.DurationVar(&o.arrive, "arrive", 5*time.Second, "the students arrive spread over this long")
	fl.DurationVar(&o.pace, "pace", time.Second, "time between the lecturer's moves")
	fl.BoolVar(&o.calm, "calm", false, "no hostile attendees: the same room and lecture, a reference for the clicks in the same conditions")
	if err := fl.Parse(args); err != nil {
		return o, err
	}
	if o.bin == "" {
		return o, errors.New("-bin: build the server first (go build -o /tmp/fd .)")
	}
	if o.class < 0 || o.spread < 0 || o.class+o.spread < 1 || o.spread > 60000 || o.moves < 2 || o.moves > 1000 {
		return o, errors.New("-class and -spread 0 or more, one student at least, -spread at most 60000, -moves 2..1000")
	}
	o.extra = strings.Fields(*extra)
	return o, nil
}

// hostileHall is one run of the hostile command.
type hostileHall struct {
	o       hostileOpts
	sc      *demo.Scenario
	cl      *cluster
	out     io.Writer
	log     io.Writer // progress
	base    string
	lec     *hall.Lecturer
	room    *hall.Room
	loads   *loadSampler
	stopAll context.CancelFunc

	mu     sync.Mutex
	clicks []time.Duration // every click's time, the lecture's and the probe's
	failed []string        // the targets missed
}

func (h *hostileHall) click(d time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.clicks = append(h.clicks, d)
}

func (h *hostileHall) fail(format string, args ...any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failed = append(h.failed, fmt.Sprintf(format, args...))
}

func (h *hostileHall) play(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	h.stopAll = cancel
	defer cancel()
	go h.loads.sample(ctx)
	h.lec = hall.NewLecturer(h.base, "127.0.0.1", h.sc)
	if _, err := h.lec.Next(ctx); err != nil {
		return err
	}
	link := h.lec.Link()
	conns, workers := h.o.conns, h.o.workers
	if h.o.calm {
		conns, workers = 0, 0
	}
	enemy, err := startAttackers(h.base, link, conns, workers)
	if err != nil {
		return err
	}
	defer func() {
		if enemy != nil {
			_, _ = enemy.stop()
		}
	}()
	fmt.Fprintln(h.log, "hostile: the attackers in place")
	h.room = hall.NewRoom("127.0.0.2", h.o.class, h.o.spread)
	h.room.Follow(ctx, h.base, link, h.o.arrive)
	defer h.room.Wait()
	defer cancel()
	for i, phase := range []func(context.Context) error{h.admit, h.walk, h.question, h.kill} {
		fmt.Fprintf(h.log, "hostile: %s\n", []string{"the room arriving", "the walk", "the question", "kill -9 of a replica"}[i])
		if err := phase(ctx); err != nil {
			return err
		}
	}
	cpu := h.cl.cpu()
	got, err := enemy.stop()
	enemy = nil
	if err != nil {
		return fmt.Errorf("the attackers' report: %w", err)
	}
	h.report(got)
	fmt.Fprintf(h.out, "CPU used: %s; the attackers %.1f s (nice 19); this command %.1f s\n", cpu, got.CPU, cpuSeconds(os.Getpid()))
	if len(h.failed) > 0 {
		return fmt.Errorf("targets missed: %s", strings.Join(h.failed, "; "))
	}
	return nil
}

// admit waits for every student's stream to open: within a minute, since a
// thousand arrive at once on a loaded machine.
func (h *hostileHall) admit(ctx context.Context) error {
	took, behind := h.room.WaitAll(ctx, time.Minute, func(s *hall.Student) bool { _, ok := s.Admitted(); return ok })
	n, longest := h.room.Admitted()
	fmt.Fprintf(h.out, "admitted: %d of %d students within %s of the first arriving; the longest any waited from arriving: %s\n",
		n, len(h.room.Students), ms(took), ms(longest))
	if behind > 0 {
		h.fail("%d students never admitted", behind)
	}
	return nil
}

// walk is the lecturer's moves, -pace apart, while the probe clicks; then
// how soon every student was at each move.
func (h *hostileHall) walk(ctx context.Context) error {
	stop := h.probe(ctx)
	defer stop()
	return h.moves(ctx, "the walk", h.o.moves)
}

// moves is n of the lecturer's moves, -pace apart, and then how soon every
// student was at each of them.
func (h *hostileHall) moves(ctx context.Context, what string, n int) error {
	first := len(h.lec.Moves)
	for range n {
		if !hall.Sleep(ctx, h.o.pace) {
			return ctx.Err()
		}
		d, err := h.lec.Next(ctx)
		if err != nil {
			return err
		}
		h.click(d)
	}
	hall.Sleep(ctx, catchUp)
	h.lags(what, h.lec.Moves[first:])
	return nil
}

// catchUp is how soon after a move, or a replica's death, every student
// must be at the latest frame.
const catchUp = 5 * time.Second

func (h *hostileHall) lags(what string, moves []hall.Move) {
	worst, lags, missed := h.room.Lags(moves)
	fmt.Fprintf(h.out, "%s: %d moves; every student at each within %s (p50 %s, p99 %s); %d times a student never showed a move\n",
		what, len(moves), ms(worst), ms(pctl(lags, 0.5)), ms(pctl(lags, 0.99)), missed)
	if worst > catchUp || missed > 0 {
		h.fail("%s: a student %s behind a move, %d moves never shown", what, ms(worst), missed)
	}
}

// probe clicks Step and Back by turns every 100 ms on a run of its own,
// nobody following it, until the returned stop: the lecturer's click
// measured many times while the room and the hostile load run.
func (h *hostileHall) probe(ctx context.Context) (stop func()) {
	p := hall.NewLecturer(h.base, "127.0.0.1", h.sc)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; hall.Sleep(ctx, 100*time.Millisecond); i++ {
			action, next := "step", p.Here.Step+1
			if i%2 == 1 {
				action, next = "back", p.Here.Step-1
			}
			d, err := p.Click(ctx, action, next)
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				h.fail("a probe click: %v", err)
			}
			h.click(d)
		}
	}()
	return func() { cancel(); <-done }
}

// question walks to the scenario's question, asks the room, has every
// student answer within 2 s, reads the totals the lecturer's screen shows,
// and reveals.
func (h *hostileHall) question(ctx context.Context) error {
	k := 1
	for k < h.sc.Frames() && h.sc.Asked(k) == nil {
		k++
	}
	q := h.sc.Asked(k)
	if q == nil {
		return fmt.Errorf("scenario %s asks no question", h.sc.ID)
	}
	if err := h.lec.To(ctx, k); err != nil {
		return err
	}
	if err := h.lec.Ask(ctx); err != nil {
		return err
	}
	if _, behind := h.room.WaitAll(ctx, catchUp, (*hall.Student).Asked); behind > 0 {
		h.fail("%d students not shown the question within %s", behind, catchUp)
	}
	want := h.answer(ctx, q)
	got, err := h.lec.Totals(ctx)
	if err != nil {
		return err
	}
	counted, wanted := int64(0), int64(0)
	for v, n := range want {
		wanted += n
		counted += min(got[v], n)
	}
	fmt.Fprintf(h.out, "answers: %d of %d counted (the lecturer's totals %v, the room's %v)\n", counted, wanted, got, want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		h.fail("totals %v, want the room's %v", got, want)
	}
	_, err = h.lec.Next(ctx) // the reveal
	return err
}

// answer has every student answer, at a random moment within 2 s; the
// totals the room gave, by option.
func (h *hostileHall) answer(ctx context.Context, q *demo.Prediction) map[string]int64 {
	want := map[string]int64{}
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, s := range h.room.Students {
		option := q.Options[i%len(q.Options)].Value
		wg.Go(func() {
			if !hall.Sleep(ctx, rand.N(2*time.Second)) {
				return
			}
			if !s.Answer(ctx, h.base, h.lec.Link(), option) {
				h.fail("a student's answer was not taken")
				return
			}
			mu.Lock()
			want[option]++
			mu.Unlock()
		})
	}
	wg.Wait()
	return want
}

// kill ends replica b with SIGKILL mid-lecture and clicks at once: how
// soon every student is back at the latest frame; then half as many moves
// again.
func (h *hostileHall) kill(ctx context.Context) error {
	killed := time.Now()
	h.cl.replicas[1].kill()
	if _, err := h.lec.Next(ctx); err != nil {
		return err
	}
	want := h.lec.Shown()
	took, behind := h.room.WaitAll(ctx, time.Minute, func(s *hall.Student) bool {
		seen := s.Seen(killed)
		return len(seen) > 0 && seen[len(seen)-1].Frame == want
	})
	fmt.Fprintf(h.out, "kill -9 of a replica: every student back at the latest frame %s after the kill (%d not within a minute)\n", ms(took), behind)
	if took > catchUp || behind > 0 {
		h.fail("after the kill, students back in %s, %d never", ms(took), behind)
	}
	return h.moves(ctx, "after the kill", h.o.moves/2)
}

// report is the clicks, every status each kind of client got, and the
// machine's load.
func (h *hostileHall) report(enemy hall.Report) {
	p99 := pctl(h.clicks, 0.99)
	fmt.Fprintf(h.out, "the lecturer's clicks: %d, p50 %s, p99 %s, max %s\n", len(h.clicks), ms(pctl(h.clicks, 0.5)), ms(p99), ms(pctl(h.clicks, 1)))
	if p99 > 100*time.Millisecond {
		h.fail("the lecturer's click p99 %s", ms(p99))
	}
	var students hall.Statuses
	reconnects := int64(0)
	for _, s := range h.room.Students {
		students.Merge(&s.Statuses)
		reconnects += s.Reconnects.Load()
	}
	fmt.Fprintf(h.out, "students' answers: %s; reconnects %d\n", students.String(), reconnects)
	var answers, finds, saves hall.Statuses
	answers.AddCounts(enemy.Answers)
	finds.AddCounts(enemy.Finds)
	saves.AddCounts(enemy.Saves)
	fmt.Fprintf(h.out, "hostile: answers %s; searches %s; saves %s; %d connections held at the end, %d opened in all\n",
		answers.String(), finds.String(), saves.String(), enemy.Held, enemy.Opened)
	if n := students.Failures() + answers.Failures() + finds.Failures() + saves.Failures(); n > 0 {
		h.fail("%d answers a 5xx other than a documented refusal", n)
	}
	fmt.Fprintf(h.out, "machine: load average (1 min) %s while it ran; %s at the end\n", h.loads.String(), loadAverage())
}

// loadSampler keeps the least and the most of the 1-minute load average,
// read every 5 s.
type loadSampler struct {
	mu      sync.Mutex
	lo, hi  float64
	sampled bool
}

func (l *loadSampler) sample(ctx context.Context) {
	for {
		if b, err := os.ReadFile("/proc/loadavg"); err == nil {
			if f := strings.Fields(string(b)); len(f) > 0 {
				if v, err := strconv.ParseFloat(f[0], 64); err == nil {
					l.mu.Lock()
					if !l.sampled || v < l.lo {
						l.lo = v
					}
					l.hi, l.sampled = max(l.hi, v), true
					l.mu.Unlock()
				}
			}
		}
		if !hall.Sleep(ctx, 5*time.Second) {
			return
		}
	}
}

func (l *loadSampler) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return fmt.Sprintf("%.1f-%.1f", l.lo, l.hi)
}
