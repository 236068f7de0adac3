package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/views"
)

// The load and soak commands drive a running server over loopback HTTP the
// way a classroom does, with vegeta as the load generator:
//
//	go run ./cmd/fencing-load load -target http://127.0.0.1:8080 -floor http://127.0.0.1:8097 -clients 1,64,512 -duration 10s
//	go run ./cmd/fencing-load soak -target http://127.0.0.1:8080 -students 1000
//
// (the floor, floor.go, is started beside the server first). Start the
// server built with -tags bench and run with -bench-routes (for the CPU
// and the memory figures), and a run burst that lets every
// simulated student start a run at once, e.g.
//
//	go run -tags bench . -bench-routes -run-burst 2000
//
// This is a program of its own so that the server links no load generator. Both commands refuse any target that is not a
// loopback address: they measure this machine's server, nobody else's.

// benchScenario is the scenario the commands step through; the floor
// captures the server's answers for the same one.
const benchScenario = "gc-pause"

// loadCommand runs "load" or "soak" with the arguments that follow it. The
// scenarios come from the file at scenarios, the server's own, so that
// every address and form is written by views.Place as the page writes it.
func loadCommand(ctx context.Context, name string, args []string, scenarios string, stdout, stderr io.Writer) error {
	b, err := os.ReadFile(scenarios)
	if err != nil {
		return fmt.Errorf("%w (run from the repository's top, or set SCENARIOS)", err)
	}
	catalog, err := script.Load(scenarios, b)
	if err != nil {
		return err
	}
	sc, ok := catalog.Get(benchScenario)
	if !ok {
		return fmt.Errorf("no scenario %q", benchScenario)
	}
	switch name {
	case "soak":
		return soak(ctx, sc, args, stdout, stderr)
	case "floor":
		return floor(ctx, sc, args, stdout, stderr)
	case "lecture":
		return lecture(ctx, sc, args, stdout, stderr)
	case "hostile":
		return hostileRun(ctx, sc, args, stdout, stderr)
	case "hostile-attack":
		return attackRun(ctx, sc, args, stdout, stderr)
	case "room":
		return roomRun(ctx, sc, args, stdout, stderr) // room.go
	}
	return load(ctx, sc, args, stdout, stderr)
}

// serverStats is what the server's /_bench/stats answers, in bytes.
type serverStats struct {
	HeapInuse  uint64  `json:"heap_inuse"`
	HeapAlloc  uint64  `json:"heap_alloc"`
	Sys        uint64  `json:"sys"`
	Runs       int     `json:"runs"`
	Goroutines int     `json:"goroutines"`
	CPUSeconds float64 `json:"cpu_seconds"` // user and system, since the process started
}

// Bounds on what one command may ask for, so no run goes on forever.
const (
	maxLoadClients  = 10000
	maxLoadDuration = 10 * time.Minute
	requestTimeout  = 10 * time.Second
)

// loadOptions are load's flags, read and checked.
type loadOptions struct {
	base, floor        string
	clients            []int
	duration, warmup   time.Duration
	rate, rounds, most int
}

func parseLoad(args []string, stderr io.Writer) (loadOptions, error) {
	var o loadOptions
	fl := flag.NewFlagSet("load", flag.ContinueOnError)
	fl.SetOutput(stderr)
	target := fl.String("target", "http://127.0.0.1:8080", "the running server (loopback only)")
	levels := fl.String("clients", "1,64,512", "concurrency levels: students clicking at once, each as soon as its last answer came")
	fl.DurationVar(&o.duration, "duration", 10*time.Second, "how long each measurement lasts")
	fl.DurationVar(&o.warmup, "warmup", time.Second, "how long to click before each measurement, unmeasured")
	fl.IntVar(&o.rate, "rate", 0, "requests per second over all clients; 0 sends each click as soon as the last answer came (closed loop)")
	floorTarget := fl.String("floor", "", "a floor serving the target's own answers (fencing-load floor), measured in turns with the target; \"\": the target alone")
	fl.IntVar(&o.rounds, "rounds", 1, "how many times to measure the step and the floor in turns, at each concurrency level")
	if err := fl.Parse(args); err != nil {
		return o, err
	}
	var err error
	if o.base, err = loopbackTarget(*target); err != nil {
		return o, err
	}
	if *floorTarget != "" {
		if o.floor, err = loopbackTarget(*floorTarget); err != nil {
			return o, err
		}
	}
	if o.rounds < 1 || o.rounds > 20 {
		return o, fmt.Errorf("-rounds must be from 1 to 20")
	}
	if o.clients, err = parseLevels(*levels); err != nil {
		return o, err
	}
	if o.duration <= 0 || o.duration > maxLoadDuration || o.warmup < 0 || o.warmup > time.Minute || o.rate < 0 {
		return o, fmt.Errorf("-duration must be in (0, %s], -warmup in [0, 1m] and -rate 0 or more", maxLoadDuration)
	}
	o.most = slices.Max(o.clients)
	return o, nil
}

// loadReport gathers what load measured, for its closing lines.
type loadReport struct {
	failed            []string
	atMost            summary
	ratios, cpuRatios []float64
}

func load(ctx context.Context, sc *demo.Scenario, args []string, stdout, stderr io.Writer) error {
	o, err := parseLoad(args, stderr)
	if err != nil {
		return err
	}
	transport := newLoadTransport(o.most)
	defer transport.CloseIdleConnections()
	students := newStudents(o.most, sc.Frames(), -1)
	fmt.Fprintf(stderr, "load: starting %d runs on %s\n", o.most, o.base)
	if err := enroll(ctx, transport, o.base, sc, students); err != nil {
		return err
	}
	phases := []phase{{"step", o.base}}
	if o.floor != "" {
		phases = append(phases, phase{"floor", o.floor})
	}
	fmt.Fprintf(stdout, "machine: %d CPUs, load average %s\n", runtime.NumCPU(), loadAverage())
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "clients\twhat\treq/s\tp50\tp99\tmax\terrors\tserver CPU/req\tstep/floor req/s\tstep/floor CPU\t\n")
	var rep loadReport
	for _, n := range o.clients {
		for round := 0; round < o.rounds; round++ {
			if err := measureRound(ctx, tw, &rep, o, sc, phases, students[:n], transport); err != nil {
				return err
			}
		}
		fmt.Fprintf(stderr, "load: %d clients done\n", n)
	}
	tw.Flush()
	fmt.Fprintf(stdout, "machine load average after: %s\n", loadAverage())
	fmt.Fprintf(stdout, "\ntargets: step at least half the floor's req/s (%s), at most twice its CPU per request (%s); p99 at most 10ms at %d clients (%s); no errors (%d distinct)\n",
		spread(rep.ratios), spread(rep.cpuRatios), o.most, ms(rep.atMost.p99), len(rep.failed))
	for _, f := range rep.failed {
		fmt.Fprintln(stdout, "  error:", f)
	}
	if len(rep.failed) > 0 {
		return errors.New("some requests failed")
	}
	return nil
}

// phase is one server measured: the step, or the floor beside it.
type phase struct{ name, base string }

// measureRound measures each phase once with these students clicking, in
// turns, and writes a row for each.
func measureRound(ctx context.Context, tw io.Writer, rep *loadReport, o loadOptions, sc *demo.Scenario, phases []phase, students []*student, transport *http.Transport) error {
	stepPath := views.Place{Place: demo.Place{Sc: sc}}.Action("step")
	n := len(students)
	// A process's own CPU time per request, read from its /_bench/stats
	// around each measurement, does not depend on what else the machine is
	// doing.
	cpu := func(base string) float64 {
		st, err := fetchStats(ctx, transport, base)
		if err != nil {
			return -1
		}
		return st.CPUSeconds
	}
	var got [2]summary
	for i, ph := range phases {
		if err := ctx.Err(); err != nil {
			return err
		}
		cl := newClassroom(sc, ph.base, students, transport, false)
		if o.warmup > 0 {
			cl.attack(ctx, stepPath, n, o.rate, o.warmup)
		}
		cpu0 := cpu(ph.base)
		got[i] = cl.attack(ctx, stepPath, n, o.rate, o.duration)
		if cpu1 := cpu(ph.base); cpu0 >= 0 && cpu1 >= 0 && got[i].requests > 0 {
			got[i].cpuPerReq = time.Duration((cpu1 - cpu0) / float64(got[i].requests) * 1e9)
		}
		s := got[i]
		ratio, cpuRatio, perReq := "", "", "-"
		if s.cpuPerReq > 0 {
			perReq = fmt.Sprintf("%dµs", s.cpuPerReq.Microseconds())
		}
		if i == 1 && s.throughput > 0 {
			ratio = fmt.Sprintf("%.2f", got[0].throughput/s.throughput)
			rep.ratios = append(rep.ratios, got[0].throughput/s.throughput)
			if s.cpuPerReq > 0 && got[0].cpuPerReq > 0 {
				r := float64(got[0].cpuPerReq) / float64(s.cpuPerReq)
				cpuRatio = fmt.Sprintf("%.2f", r)
				rep.cpuRatios = append(rep.cpuRatios, r)
			}
		}
		fmt.Fprintf(tw, "%d\t%s\t%.0f\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t\n", n, ph.name, s.throughput, ms(s.p50), ms(s.p99), ms(s.max), s.errors, perReq, ratio, cpuRatio)
		for _, e := range s.samples {
			rep.failed = append(rep.failed, fmt.Sprintf("%d clients, %s: %s", n, ph.name, e))
		}
	}
	if n == o.most {
		rep.atMost = got[0]
	}
	return nil
}

func soak(ctx context.Context, sc *demo.Scenario, args []string, stdout, stderr io.Writer) error {
	frames := sc.Frames()
	fl := flag.NewFlagSet("soak", flag.ContinueOnError)
	fl.SetOutput(stderr)
	target := fl.String("target", "http://127.0.0.1:8080", "the running server (loopback only), started with -bench-routes")
	n := fl.Int("students", 1000, "students walking the whole scenario at the same time")
	settle := fl.Duration("settle", 2*time.Minute, "how long to wait, after the walk, for the server's runs to expire (start it with a short -run-idle)")
	if err := fl.Parse(args); err != nil {
		return err
	}
	base, err := loopbackTarget(*target)
	if err != nil {
		return err
	}
	if *n < 1 || *n > maxLoadClients || *settle < 0 || *settle > maxLoadDuration {
		return fmt.Errorf("-students must be from 1 to %d and -settle at most %s", maxLoadClients, maxLoadDuration)
	}
	transport := newLoadTransport(*n)
	defer transport.CloseIdleConnections()
	stats := func() (serverStats, error) { return fetchStats(ctx, transport, base) }
	before, err := stats()
	if err != nil {
		return err
	}
	poll := pollPeak(stats, before)

	// Each student opens the first frame's page, then clicks through every
	// frame: one page and frames-1 clicks. Half read Japanese, half English;
	// half have fencing on.
	students := newStudents(*n, frames, frames)
	for _, st := range students {
		st.page, st.from = true, 1
	}
	cl := newClassroom(sc, base, students, transport, true)
	began := time.Now()
	s := cl.attack(ctx, views.Place{Place: demo.Place{Sc: sc}}.Action("step"), *n, 0, maxLoadDuration)
	walk := time.Since(began)
	transport.CloseIdleConnections() // the students leave: their connections should not count as the server's memory
	peak := poll()
	after, err := stats()
	if err != nil {
		return err
	}
	if after.HeapInuse > peak.HeapInuse {
		peak = after
	}
	incomplete := 0
	for _, st := range students {
		if st.from != frames {
			incomplete++
		}
	}
	began = time.Now()
	expired, err := waitExpired(ctx, stats, after, *settle)
	if err != nil {
		return err
	}
	waited := time.Since(began)

	fmt.Fprintf(stdout, "soak: %d students each opened %s and clicked to frame %d (ja and en, fencing on and off) in %s\n", *n, benchScenario, frames, walk.Round(time.Millisecond))
	fmt.Fprintf(stdout, "requests %d, errors %d, students who did not reach the last frame %d; latency p50 %s, p99 %s, max %s\n",
		s.requests, s.errors, incomplete, ms(s.p50), ms(s.p99), ms(s.max))
	for _, e := range s.samples {
		fmt.Fprintln(stdout, "  error:", e)
	}
	memoryTable(stdout, []memoryRow{{"before", before}, {"peak, during the walk", peak}, {"after the walk", after},
		{fmt.Sprintf("after %s idle", waited.Round(100*time.Millisecond)), expired}})
	if expired.Runs > 0 {
		fmt.Fprintf(stdout, "the runs had not expired after -settle %s: is the server's -run-idle longer?\n", *settle)
	}
	if s.errors > 0 || incomplete > 0 {
		return errors.New("some students did not finish")
	}
	return nil
}

// memoryRow is the server's memory at one moment of the soak.
type memoryRow struct {
	name string
	st   serverStats
}

func memoryTable(w io.Writer, rows []memoryRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "server\theap in use after GC\tlive objects\tlive runs\t\n")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t\n", r.name, mib(r.st.HeapInuse), mib(r.st.HeapAlloc), r.st.Runs)
	}
	tw.Flush()
}

// pollPeak polls the server's memory every quarter second, for the peak,
// until the function it returns is called; that returns the peak seen.
func pollPeak(stats func() (serverStats, error), before serverStats) func() serverStats {
	var mu sync.Mutex
	peak := before
	done, stop := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if st, err := stats(); err == nil {
				mu.Lock()
				if st.HeapInuse > peak.HeapInuse {
					peak = st
				}
				mu.Unlock()
			}
		}
	}()
	return func() serverStats {
		close(stop)
		<-done
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

// waitExpired waits, at most settle, for the server's runs to expire.
func waitExpired(ctx context.Context, stats func() (serverStats, error), st serverStats, settle time.Duration) (serverStats, error) {
	began := time.Now()
	for st.Runs > 0 && time.Since(began) < settle {
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
		var err error
		if st, err = stats(); err != nil {
			return st, err
		}
	}
	return st, nil
}

// loopbackTarget parses the -target URL and insists that it names this
// machine: a load test sends traffic nowhere else.
func loopbackTarget(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return "", fmt.Errorf("-target %q: want http://127.0.0.1:PORT", raw)
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return "", fmt.Errorf("-target %q: only loopback addresses (127.0.0.1, ::1, localhost) may be load tested", raw)
	}
	return u.Scheme + "://" + u.Host, nil
}

func parseLevels(s string) ([]int, error) {
	var levels []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > maxLoadClients {
			return nil, fmt.Errorf("-clients %q: want numbers from 1 to %d, separated by commas", s, maxLoadClients)
		}
		levels = append(levels, n)
	}
	return levels, nil
}

// newLoadTransport keeps a connection open per client, as browsers do, and
// never goes through a proxy from the environment. It asks for gzip itself
// (as a browser does) and leaves the answer compressed.
func newLoadTransport(clients int) *http.Transport {
	return &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: clients,
		IdleConnTimeout:     30 * time.Second,
		DisableCompression:  true,
	}
}

// student is one simulated visitor: their run, the frame their next click is
// made on, their switch and their language.
type student struct {
	id   int
	run  string
	from int
	on   bool
	lang string
	left int  // requests still to make; -1: until the time is up
	page bool // the next request opens the page instead of clicking
	want int  // the frame the request in flight must land on
}

// newStudents makes n students, half reading Japanese and half with fencing
// on, each to make left requests (-1: no end).
func newStudents(n, frames, left int) []*student {
	students := make([]*student, n)
	for i := range students {
		lang := "en"
		if i%2 == 1 {
			lang = "ja"
		}
		students[i] = &student{id: i, from: 1, on: i%4 < 2, lang: lang, left: left}
	}
	return students
}

// enroll starts a run for each student the way a browser without JavaScript
// does (a click, then a redirect that names the run), so every measured
// request is a step on a run the server has.
func enroll(ctx context.Context, transport http.RoundTripper, base string, sc *demo.Scenario, students []*student) error {
	client := &http.Client{
		Transport:     transport,
		Timeout:       requestTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	var wg sync.WaitGroup
	errs := make([]error, len(students))
	next := make(chan int)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = enrollOne(ctx, client, base, sc, students[i])
			}
		}()
	}
	for i := range students {
		next <- i
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}

func enrollOne(ctx context.Context, client *http.Client, base string, sc *demo.Scenario, st *student) error {
	here := views.Place{Place: demo.Place{Sc: sc, On: st.on, Step: 1}, Lang: st.lang}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+here.Action("step"), strings.NewReader(here.Form("").Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	switch resp.StatusCode {
	case http.StatusSeeOther:
	case http.StatusTooManyRequests:
		return errors.New("the server refused to start more runs (429): start it with a larger -run-burst, e.g. -run-burst 2000")
	default:
		return fmt.Errorf("starting a run: %s", resp.Status)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		return err
	}
	// The run key comes back in the HttpOnly cookie, never in the address.
	for _, c := range resp.Cookies() {
		if c.Name == "run" {
			st.run = c.Value
		}
	}
	if !views.ValidRunID(st.run) || loc.Query().Get("step") != "2" {
		return fmt.Errorf("starting a run: redirected to %q with run cookie %q, want step 2 and a run", loc, st.run)
	}
	st.from = 2
	return nil
}

// classroom hands out clicks to vegeta's workers, one student at a time: a
// student's next click goes out only after the answer to the last one came
// back, and lands on the next frame. It is also the workers' transport,
// which is where it sees each answer, checks that it shows the frame the
// click asked for, and hands the student back.
type classroom struct {
	sc       *demo.Scenario
	frames   int
	base     string
	students []*student
	idle     chan *student
	left     atomic.Int64 // students with requests still to make
	stop     *stopper     // the attack under way
	follow   bool         // read each answer's run id and page (the soak); the load's runs stay put
	next     http.RoundTripper
}

// studentHeader says which student a request is from; the server ignores it.
const studentHeader = "X-Load-Student"

func newClassroom(sc *demo.Scenario, base string, students []*student, next http.RoundTripper, follow bool) *classroom {
	cl := &classroom{sc: sc, frames: sc.Frames(), base: base, students: students, idle: make(chan *student, len(students)), follow: follow, next: next}
	for _, st := range students {
		cl.idle <- st
	}
	cl.left.Store(int64(len(students)))
	return cl
}

// stopper tells one attack's workers that there are no more clicks to make.
// Each attack has its own, so a timer of an attack that has ended cannot stop
// the next one.
type stopper struct {
	ch   chan struct{}
	once sync.Once
}

func (s *stopper) halt() { s.once.Do(func() { close(s.ch) }) }

// summary is one measurement.
type summary struct {
	requests, errors    int
	throughput          float64 // answers that were right, per second
	p50, p99, max, mean time.Duration
	cpuPerReq           time.Duration // the server's CPU time per request; 0 when unknown
	samples             []string      // distinct errors, a few
}

// attack clicks for d with the given number of workers (students clicking
// at once), as fast as the answers come when rate is 0.
func (cl *classroom) attack(ctx context.Context, path string, workers, rate int, d time.Duration) summary {
	atk := vegeta.NewAttacker(
		vegeta.Workers(uint64(workers)),
		vegeta.MaxWorkers(uint64(workers)),
		vegeta.MaxBody(0), // the transport has read and checked the body
		vegeta.Client(&http.Client{
			Transport:     cl,
			Timeout:       requestTimeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}),
	)
	pacer := vegeta.ConstantPacer{} // no pacing: closed loop
	if rate > 0 {
		pacer = vegeta.ConstantPacer{Freq: rate, Per: time.Second}
	}
	stop := &stopper{ch: make(chan struct{})}
	cl.stop = stop // before any worker starts
	timer := time.AfterFunc(d, stop.halt)
	defer timer.Stop()
	var m vegeta.Metrics
	errs := map[string]int{}
	s := summary{}
	for res := range atk.Attack(cl.targeter(path, stop), pacer, d, "") {
		if res.Method == "" {
			continue // a worker told there are no more clicks to make
		}
		if ctx.Err() != nil {
			atk.Stop()
			stop.halt()
		}
		m.Add(res)
		s.requests++
		if res.Error != "" {
			s.errors++
			errs[res.Error]++
		}
	}
	m.Close()
	s.throughput = m.Throughput
	s.p50, s.p99, s.max, s.mean = m.Latencies.P50, m.Latencies.P99, m.Latencies.Max, m.Latencies.Mean
	for e, k := range errs {
		s.samples = append(s.samples, fmt.Sprintf("%s (x%d)", e, k))
	}
	sort.Strings(s.samples)
	if len(s.samples) > 5 {
		s.samples = s.samples[:5]
	}
	return s
}

// targeter gives each free worker the next click of a student whose last
// answer has come back.
func (cl *classroom) targeter(path string, stop *stopper) vegeta.Targeter {
	return func(t *vegeta.Target) error {
		var st *student
		select {
		case st = <-cl.idle:
		case <-stop.ch:
			return vegeta.ErrNoTargets
		}
		h := http.Header{"Accept-Encoding": {"gzip"}, studentHeader: {strconv.Itoa(st.id)}}
		if st.page {
			st.want = 1
			*t = vegeta.Target{Method: http.MethodGet, URL: cl.base + cl.frameAddress(st, 1), Header: h}
			return nil
		}
		st.want = st.from + 1
		form := views.Place{Place: demo.Place{Sc: cl.sc, On: st.on, Step: st.from}, Lang: st.lang}.Form(st.run)
		h.Set("Content-Type", "application/x-www-form-urlencoded")
		h.Set("HX-Request", "true")
		*t = vegeta.Target{Method: http.MethodPost, URL: cl.base + path, Body: []byte(form.Encode()), Header: h}
		return nil
	}
}

// RoundTrip sends a student's request, reads and checks the answer, and hands
// the student back for their next click.
func (cl *classroom) RoundTrip(req *http.Request) (*http.Response, error) {
	i, err := strconv.Atoi(req.Header.Get(studentHeader))
	if err != nil || i < 0 || i >= len(cl.students) {
		return nil, fmt.Errorf("no student %q", req.Header.Get(studentHeader))
	}
	st := cl.students[i]
	resp, err := cl.next.RoundTrip(req)
	if err != nil {
		cl.release(st, false)
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil {
		err = cl.check(st, resp, body)
	}
	cl.release(st, err == nil)
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// check fails unless the answer shows the frame the request asked for.
func (cl *classroom) check(st *student, resp *http.Response, body []byte) error {
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	if !st.page {
		push, err := url.Parse(resp.Header.Get("HX-Push-Url"))
		if err != nil {
			return err
		}
		if got := push.Query().Get("step"); got != strconv.Itoa(st.want) {
			return fmt.Errorf("a click from frame %d landed on step %q, want %d", st.from, got, st.want)
		}
	}
	if !cl.follow {
		return nil
	}
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return err
		}
		if body, err = io.ReadAll(zr); err != nil {
			return err
		}
	}
	if got, want := views.StepShown(body), fmt.Sprintf("%d / %d", st.want, cl.frames); got != want {
		return fmt.Errorf("the answer shows step %q, want %q", got, want)
	}
	if !st.page {
		if st.run = runInBody(body); st.run == "" {
			return errors.New("the answer carries no run id")
		}
	}
	return nil
}

// release moves a student on after an answer (or back, to click again after
// an error) and returns them to the queue unless they are done.
func (cl *classroom) release(st *student, ok bool) {
	if ok {
		if st.page {
			st.page = false
		} else {
			st.from = st.want
		}
		if st.from >= cl.frames && st.left < 0 {
			st.from = 1 // round again
		}
	}
	if st.left > 0 {
		st.left--
	}
	if st.left == 0 {
		if cl.left.Add(-1) == 0 {
			cl.stop.halt()
		}
		return
	}
	cl.idle <- st
}

// frameAddress is the page of a student's frame k, as a copied link names it.
func (cl *classroom) frameAddress(st *student, k int) string {
	return views.Place{Place: demo.Place{Sc: cl.sc, On: st.on, Step: k}, Lang: st.lang}.URL()
}

// runInBody returns the run id an answer's forms carry, or "".
func runInBody(body []byte) string {
	const mark = `name="run" value="`
	i := bytes.Index(body, []byte(mark))
	if i < 0 || len(body) < i+len(mark)+views.RunIDLen {
		return ""
	}
	if id := string(body[i+len(mark) : i+len(mark)+views.RunIDLen]); views.ValidRunID(id) {
		return id
	}
	return ""
}

// fetchStats reads the server's /_bench/stats.
func fetchStats(ctx context.Context, transport http.RoundTripper, base string) (serverStats, error) {
	var st serverStats
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/_bench/stats", nil)
	if err != nil {
		return st, err
	}
	resp, err := (&http.Client{Transport: transport}).Do(req)
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return st, fmt.Errorf("%s/_bench/stats: %s (start the server with -bench-routes)", base, resp.Status)
	}
	return st, json.NewDecoder(resp.Body).Decode(&st)
}

// loadAverage is the machine's 1-, 5- and 15-minute load average, where
// Linux tells it: a busy machine explains slow figures.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

// spread is the least and the most of some ratios, or "-" for none.
func spread(rs []float64) string {
	if len(rs) == 0 {
		return "-"
	}
	lo, hi := rs[0], rs[0]
	for _, r := range rs {
		lo, hi = min(lo, r), max(hi, r)
	}
	return fmt.Sprintf("%.2f-%.2f", lo, hi)
}

// gunzipped is body unpacked, or nil when it is not gzip.
func gunzipped(body []byte) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return nil
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil
	}
	return b
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
