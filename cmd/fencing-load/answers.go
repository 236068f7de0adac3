package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/hall"
	"github.com/distlock/fencing-demo/views"
)

// answering is the lecture's answering mode (lecture -answer): the lecturer
// walks to the scenario's question and asks the room; every follower, each
// with a cookie jar of its own, hears the question on its stream and
// answers at a random moment within -answer-within; the lecturer's screen
// reads the totals meanwhile as its page does (each reading held by the
// server until they change), the lecturer clicks on a run of its own every
// -read, and the Step then reveals. It reports the answers per second, how
// long after the last answer the lecturer's screen showed the right
// totals, the lecturer's clicks' p99, and whether every follower saw the
// reveal.
type answering struct {
	base, host, link, run string
	sc                    *demo.Scenario
	ask                   views.Place // the question's frame
	followers, nats       int
	within, read          time.Duration
}

// start finds the scenario's first question and plays the answering mode
// from a.ask, the lecture's frame after its first click.
func (a *answering) start(ctx context.Context, stdout io.Writer) error {
	k := 1
	for k < a.sc.Frames() && a.sc.Asked(k) == nil {
		k++
	}
	if a.sc.Asked(k) == nil || a.within <= 0 || a.read <= 0 {
		return errors.New("the answering mode needs a scenario with a question, and -answer-within and -read above 0")
	}
	a.ask = a.ask.At(k)
	return a.play(ctx, stdout)
}

func (a *answering) play(ctx context.Context, stdout io.Writer) error {
	q := a.sc.Asked(a.ask.Step)
	lecturer := &http.Client{Timeout: requestTimeout, Transport: &http.Transport{DialContext: hall.Dialer("127.0.0.1").DialContext}}
	var clicks []time.Duration
	timed := func(action string, here views.Place) error {
		start := time.Now()
		_, status, err := click(ctx, lecturer, a.base, here, a.run, action)
		clicks = append(clicks, time.Since(start))
		if err != nil || status != http.StatusOK {
			return fmt.Errorf("the lecturer's %s: %d %v", action, status, err)
		}
		return nil
	}
	for k := 2; k < a.ask.Step; k++ { // to the question's frame
		if err := timed("step", a.ask.At(k)); err != nil {
			return err
		}
	}

	fs, want, wg := a.connect(ctx, q, stdout)
	asked := time.Now()
	if err := timed("ask", a.ask); err != nil {
		return err
	}
	stop := make(chan struct{})
	probed := make(chan []time.Duration, 1)
	go func() { probed <- a.probeClicks(ctx, lecturer, stop) }()
	reads, rightAt := a.readTotals(ctx, lecturer, q, want)
	close(stop)
	during := <-probed
	settled(fs, 10*time.Second) // the push can beat an answer's own 204 back to its follower
	last := time.Time{}
	answered := 0
	for _, f := range fs {
		if t := f.answeredAt(); !t.IsZero() {
			answered++
			if t.After(last) {
				last = t
			}
		}
	}
	if err := timed("step", a.ask); err != nil { // the reveal
		return err
	}
	cancelAfter(ctx, wg.Wait, 10*time.Second)
	revealed := 0
	for _, f := range fs {
		if f.revealed.Load() {
			revealed++
		}
	}
	span := last.Sub(asked)
	retried := int64(0)
	for _, f := range fs {
		retried += f.retried.Load()
	}
	fmt.Fprintf(stdout, "answers: %d of %d within %s of the question, %.0f answers/s; refused %d; sent again after a 503: %d\n",
		answered, len(fs), ms(span), float64(answered)/span.Seconds(), countRefused(fs), retried)
	if rightAt.IsZero() {
		fmt.Fprintf(stdout, "the lecturer's screen never showed the right totals (want %v)\n", want)
	} else {
		fmt.Fprintf(stdout, "the right totals on the lecturer's screen %s after the last answer's 204 reached its follower (held readings, as the page's; below 0: before it)\n", ms(rightAt.Sub(last)))
	}
	fmt.Fprintf(stdout, "lecturer: %d held readings of the totals; %d clicks (steps, ask, reveal), p99 %s; %d clicks while the room answered, p50 %s, p99 %s\n",
		len(reads), len(clicks), ms(pctl(clicks, 0.99)), len(during), ms(pctl(during, 0.5)), ms(pctl(during, 0.99)))
	fmt.Fprintf(stdout, "followers shown the reveal: %d of %d; load average %s\n", revealed, len(fs), loadAverage())
	if rightAt.IsZero() || revealed != len(fs) || answered != len(fs) {
		return errors.New("not every answer counted, or not every follower saw the reveal")
	}
	return nil
}

// settled waits until every connected follower's answer has come back,
// counted or refused, at most d.
func settled(fs []*roomFollower, d time.Duration) {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		all := true
		for _, f := range fs {
			if f.err == nil && !f.done.Load() {
				all = false
				break
			}
		}
		if all {
			return
		}
	}
}

// connect connects the followers, who wait for the question on their
// streams: each, and how many choose each option.
func (a *answering) connect(ctx context.Context, q *demo.Prediction, stdout io.Writer) ([]*roomFollower, []int64, *sync.WaitGroup) {
	fs := make([]*roomFollower, a.followers)
	var connected, wg sync.WaitGroup
	want := make([]int64, len(q.Options))
	for i := range fs {
		f := &roomFollower{choice: i % len(q.Options), from: fmt.Sprintf("127.0.0.%d", 2+i%a.nats)}
		want[f.choice]++
		fs[i] = f
		connected.Add(1)
		wg.Go(func() { f.follow(ctx, a, q, &connected) })
	}
	connected.Wait()
	open := 0
	for _, f := range fs {
		if f.err == nil {
			open++
		}
	}
	fmt.Fprintf(stdout, "followers connected: %d of %d\n", open, len(fs))
	return fs, want, &wg
}

// readTotals reads the totals as the lecturer's screen does until they are
// want: a first reading, then each next one the answer names, which the
// server holds until the totals change. It returns how long each reading
// took to come back (a held one: the wait for a change) and when the
// totals were right (zero: never).
func (a *answering) readTotals(ctx context.Context, c *http.Client, q *demo.Prediction, want []int64) (reads []time.Duration, rightAt time.Time) {
	next := views.PollURL(a.ask)
	for deadline := time.Now().Add(a.within + 20*time.Second); time.Now().Before(deadline); {
		start := time.Now()
		got, after, err := a.totals(ctx, c, q, next)
		reads = append(reads, time.Since(start))
		if err == nil && slicesEqual(got, want) {
			return reads, time.Now()
		}
		if err != nil || after == "" {
			time.Sleep(a.read) // as the page does after an error: from the start, later
			next = views.PollURL(a.ask)
			continue
		}
		next = after
	}
	return reads, time.Time{}
}

// probeClicks clicks Step and Back by turns every -read on a run of the
// lecturer's own that nobody follows, until stop: how long the lecturer's
// click takes while the hall answers, without moving the lecture off its
// question.
func (a *answering) probeClicks(ctx context.Context, c *http.Client, stop <-chan struct{}) []time.Duration {
	here := views.Place{Place: demo.Place{Sc: a.sc, On: true, Step: 1}, Lang: "en"}
	body, _, err := click(ctx, c, a.base, here, "", "step")
	run := runInBody(body)
	if err != nil || run == "" {
		return nil
	}
	var took []time.Duration
	here.Step = 2
	for i := 0; ; i++ {
		select {
		case <-stop:
			return took
		case <-time.After(a.read):
		}
		action, from := "step", here
		if i%2 == 1 {
			action, from = "back", here.At(3)
		}
		start := time.Now()
		if _, status, err := click(ctx, c, a.base, from, run, action); err == nil && status == http.StatusOK {
			took = append(took, time.Since(start))
		}
	}
}

// cancelAfter waits for wait, at most d.
func cancelAfter(_ context.Context, wait func(), d time.Duration) {
	done := make(chan struct{})
	go func() { wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
	}
}

func pctl(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func slicesEqual(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func countRefused(fs []*roomFollower) int {
	n := 0
	for _, f := range fs {
		if f.refused.Load() {
			n++
		}
	}
	return n
}

var barCount = regexp.MustCompile(`data-testid="bar-([a-z0-9-]+)" data-count="(\d+)"`)

var pollNext = regexp.MustCompile(`hx-get="([^"]+)"[^>]*data-testid="poll-next"`)

// totals is what the lecturer's screen shows: the count per option, and
// the next reading the answer names.
func (a *answering) totals(ctx context.Context, c *http.Client, q *demo.Prediction, target string) ([]int64, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.base+target, nil)
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Cookie", "run="+a.run)
	req.Header.Set("HX-Request", "true")
	resp, err := c.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("totals: %d %v", resp.StatusCode, err)
	}
	got := make([]int64, len(q.Options))
	for _, m := range barCount.FindAllStringSubmatch(string(b), -1) {
		for i, o := range q.Options {
			if o.Value == m[1] {
				got[i], _ = strconv.ParseInt(m[2], 10, 64)
			}
		}
	}
	next := ""
	if m := pollNext.FindSubmatch(b); m != nil {
		next = html.UnescapeString(string(m[1]))
	}
	return got, next, nil
}

// roomFollower is one student with a phone: a stream, a cookie jar, and the
// answer it gives.
type roomFollower struct {
	choice   int
	from     string
	err      error
	mu       sync.Mutex
	at       time.Time // when its answer was taken
	refused  atomic.Bool
	retried  atomic.Int64 // answers sent again after a 503
	done     atomic.Bool  // its answer came back, counted or refused
	revealed atomic.Bool
}

func (f *roomFollower) answeredAt() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.at
}

var pollID = regexp.MustCompile(`data-poll="([^"]+)"`)

// follow reads the stream until the reveal; it answers once the question
// is on it, at a random moment within a.within.
func (f *roomFollower) follow(ctx context.Context, a *answering, q *demo.Prediction, connected *sync.WaitGroup) {
	// The follow page hands the follower its ticket (a cookie), which the
	// stream and the answer show, as a phone's browser does.
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: requestTimeout, Transport: &http.Transport{DialContext: hall.Dialer(f.from).DialContext}}
	cookies, err := f.openPage(ctx, client, a.base+a.link)
	if err != nil {
		f.err = err
		connected.Done()
		return
	}
	c, err := hall.Dialer(f.from).DialContext(ctx, "tcp", a.host)
	if err != nil {
		f.err = err
		connected.Done()
		return
	}
	defer c.Close()
	go func() { <-ctx.Done(); c.Close() }()
	fmt.Fprintf(c, "GET %s/events?lang=en HTTP/1.1\r\nHost: %s\r\nCookie: %s\r\n\r\n", a.link, a.host, cookies)
	r := bufio.NewReaderSize(c, 64<<10)
	status, err := r.ReadString('\n')
	connected.Done()
	if err != nil || !strings.Contains(status, " 200 ") {
		f.err = fmt.Errorf("stream: %q %v", strings.TrimSpace(status), err)
		return
	}
	asked := false
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		if !strings.HasPrefix(line, "data: ") {
			continue
		}
		if m := pollID.FindStringSubmatch(line); m != nil && !asked {
			asked = true
			go f.answer(ctx, a, client, m[1], q.Options[f.choice].Value)
		}
		if strings.Contains(line, `data-testid="room-result"`) {
			f.revealed.Store(true)
			return
		}
	}
}

// openPage loads the follow page with c, whose jar keeps the ticket it
// hands out, and returns the jar's cookies for page as a Cookie header.
func (f *roomFollower) openPage(ctx context.Context, c *http.Client, page string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, page, nil)
	if err != nil {
		return "", err
	}
	resp, err := c.Do(req)
	if err != nil {
		return "", fmt.Errorf("follow page: %w", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("follow page: %s", resp.Status)
	}
	var parts []string
	for _, ck := range c.Jar.Cookies(req.URL) {
		parts = append(parts, ck.Name+"="+ck.Value)
	}
	return strings.Join(parts, "; "), nil
}

// answer sends the follower's answer at a random moment within a.within;
// refused with a 503 (Redis away), it presses again, as the page asks, at
// most 25 times 200 ms apart.
func (f *roomFollower) answer(ctx context.Context, a *answering, c *http.Client, id, option string) {
	defer f.done.Store(true)
	time.Sleep(time.Duration(rand.Int64N(int64(a.within))))
	form := url.Values{"q": {id}, "option": {option}, "lang": {"en"}}
	for try := 0; ; try++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.base+views.FollowAnswerURL(strings.TrimPrefix(a.link, "/follow/")), strings.NewReader(form.Encode()))
		if err != nil {
			return
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("HX-Request", "true")
		resp, err := c.Do(req)
		if err != nil {
			f.refused.Store(true)
			return
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable && try < 25 {
			f.retried.Add(1)
			time.Sleep(200 * time.Millisecond)
			continue
		}
		if resp.StatusCode != http.StatusNoContent {
			f.refused.Store(true)
			return
		}
		break
	}
	f.mu.Lock()
	f.at = time.Now()
	f.mu.Unlock()
}
