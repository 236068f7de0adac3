package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/hall"
	"github.com/distlock/fencing-demo/views"
)

// lecture is the lecture hall on the open internet: one lecturer clicking,
// -followers students following the lecture live (spread over -nats
// loopback addresses, 127.0.0.2 and up, as students behind a few school
// NATs and on their phones), and three hostile attendees at once, each on
// addresses of its own:
//
//   - a squatter on -squatters addresses (127.0.0.240 and up), each holding
//     -squat-streams follow streams it never reads, opening each again when
//     the server closes it;
//   - -silent-addrs addresses (127.0.0.230 and up) each keeping
//     -silent-conns connections open that never send a byte, opening each
//     again when the server closes it (internal/hall plays both);
//   - a forger at 127.0.0.220 who writes a made-up private address into
//     X-Forwarded-For on -forge new runs and -forge follow streams.
//
// It reports the lecturer's click latency, what each hostile attendee got,
// and whether every student saw every move, in order.
//
//	go run ./cmd/fencing-load lecture -target http://127.0.0.1:8080 -followers 1000
func lecture(ctx context.Context, sc *demo.Scenario, args []string, stdout, stderr io.Writer) error {
	o, err := lectureFlags(args, stderr)
	if err != nil {
		return err
	}
	base, err := loopbackTarget(o.target)
	if err != nil {
		return err
	}
	host := strings.TrimPrefix(base, "http://")
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// The lecturer's first click makes the run key and the follow link.
	lecturer := &http.Client{Timeout: requestTimeout, Transport: &http.Transport{DialContext: hall.Dialer("127.0.0.1").DialContext}}
	here := views.Place{Place: demo.Place{Sc: sc, On: true, Step: 1}, Lang: "en"}
	body, _, err := click(ctx, lecturer, base, here, "", "step")
	if err != nil {
		return err
	}
	run := runInBody(body)
	link := followLinkIn(body)
	if run == "" || link == "" {
		return errors.New("the lecturer's first click carried no run key or follow link")
	}
	here.Step = 2
	if o.answer {
		a := &answering{base: base, host: host, link: link, run: run, sc: sc, ask: here, followers: o.followers, nats: o.nats, within: o.within, read: o.read}
		return a.start(ctx, stdout)
	}

	var hostile sync.WaitGroup
	defer hostile.Wait()
	defer cancel()
	enemy := &hall.Hostile{}
	for a := range o.squatters {
		enemy.Squat(ctx, &hostile, fmt.Sprintf("127.0.0.%d", 240+a), host, link, o.squatStreams)
	}
	for a := range o.silentAddrs {
		enemy.Silence(ctx, &hostile, fmt.Sprintf("127.0.0.%d", 230+a), host, o.silentConns)
	}
	held := int64(o.squatters*o.squatStreams + o.silentAddrs*o.silentConns)
	for deadline := time.Now().Add(20 * time.Second); enemy.Held.Load() < held && time.Now().Before(deadline) && ctx.Err() == nil; {
		time.Sleep(100 * time.Millisecond) // the holders' own goroutines: nothing to wait on
	}
	forged := forger(ctx, &hostile, base, host, link, sc, o.forge)
	fmt.Fprintf(stdout, "squatter and silent: %d connections held of %d asked for (never-read streams from %d addresses, silent ones from %d)\n",
		enemy.Held.Load(), held, o.squatters, o.silentAddrs)
	fmt.Fprintf(stdout, "forger (made-up X-Forwarded-For): %d of %d new runs started, %d of %d follow streams taken\n",
		forged.runs.Load(), o.forge, forged.streams.Load(), o.forge)

	room := followRoom(ctx, host, link, o)
	fmt.Fprintf(stdout, "followers connected: %d of %d\n", room.open.Load(), o.followers)
	lat, want, err := walk(ctx, lecturer, base, run, here, o)
	if err != nil {
		return err
	}
	time.Sleep(2 * time.Second) // the last move on its way
	cancel()
	room.wg.Wait()
	fmt.Fprintf(stdout, "lecturer: %s\n", latencies(lat))
	return room.report(stdout, want, enemy.Opened.Load())
}

// lectureOpts are the lecture's flags.
type lectureOpts struct {
	target                                 string
	followers, nats, squatters, moves      int
	squatStreams, silentAddrs, silentConns int
	forge                                  int
	arrive, pace, within, read             time.Duration
	answer                                 bool
}

func lectureFlags(args []string, stderr io.Writer) (lectureOpts, error) {
	var o lectureOpts
	fl := flag.NewFlagSet("lecture", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.StringVar(&o.target, "target", "http://127.0.0.1:8080", "the server (loopback only)")
	fl.IntVar(&o.followers, "followers", 1000, "students following the lecture")
	fl.IntVar(&o.nats, "nats", 20, "client addresses the followers come from (127.0.0.2 and up)")
	fl.IntVar(&o.squatters, "squatters", 10, "addresses of the squatter (127.0.0.240 and up)")
	fl.IntVar(&o.squatStreams, "squat-streams", 600, "follow streams the squatter holds from each address and never reads (the server's -follow-per-addr)")
	fl.IntVar(&o.silentAddrs, "silent-addrs", 6, "addresses holding connections that send nothing (127.0.0.230 and up)")
	fl.IntVar(&o.silentConns, "silent-conns", 1400, "connections each silent address keeps open")
	fl.IntVar(&o.forge, "forge", 1000, "new runs, and follow streams, the forger asks for with a made-up X-Forwarded-For")
	fl.DurationVar(&o.arrive, "arrive", 2*time.Second, "the students arrive spread over this long")
	fl.IntVar(&o.moves, "moves", 60, "the lecturer's clicks")
	fl.DurationVar(&o.pace, "pace", 250*time.Millisecond, "time between the lecturer's clicks")
	fl.BoolVar(&o.answer, "answer", false, "the answering mode (answers.go): the lecturer asks the scenario's question, every follower answers, the Step reveals; no hostile attendees")
	fl.DurationVar(&o.within, "answer-within", 2*time.Second, "the answering mode: the followers answer spread over this long")
	fl.DurationVar(&o.read, "read", 50*time.Millisecond, "the answering mode: how often the lecturer clicks (on a run of its own) while the room answers")
	if err := fl.Parse(args); err != nil {
		return o, err
	}
	if o.followers < 1 || o.followers > maxLoadClients || o.nats < 1 || o.nats > 200 || o.moves < 1 || o.moves > 10000 ||
		o.squatters < 0 || o.squatters > 10 || o.silentAddrs < 0 || o.silentAddrs > 6 || o.squatStreams < 0 || o.silentConns < 0 || o.forge < 0 {
		return o, errors.New("-followers 1..10000, -nats 1..200, -moves 1..10000, -squatters 0..10, -silent-addrs 0..6")
	}
	return o, nil
}

// follower is one student's stream: the frames it was shown, in order.
type follower struct {
	frames []string
	err    error
}

// room is the lecture's followers.
type room struct {
	fs   []*follower
	open atomic.Int64
	wg   sync.WaitGroup
}

// followRoom connects the followers, spread over -arrive and -nats
// addresses, and returns once each is connected or refused; each then
// records what its stream shows until ctx ends.
func followRoom(ctx context.Context, host, link string, o lectureOpts) *room {
	rm := &room{fs: make([]*follower, o.followers)}
	var connected sync.WaitGroup
	for i := range rm.fs {
		f := &follower{}
		rm.fs[i] = f
		connected.Add(1)
		rm.wg.Go(func() {
			// A room does not connect in one instant: spread over -arrive.
			time.Sleep(time.Duration(i) * o.arrive / time.Duration(len(rm.fs)))
			c, err := hall.Dialer(fmt.Sprintf("127.0.0.%d", 2+i%o.nats)).DialContext(ctx, "tcp", host)
			if err != nil {
				f.err = err
				connected.Done()
				return
			}
			defer c.Close()
			go func() { <-ctx.Done(); c.Close() }()
			fmt.Fprintf(c, "GET %s/events?lang=en HTTP/1.1\r\nHost: %s\r\n\r\n", link, host)
			r := bufio.NewReaderSize(c, 64<<10)
			status, err := r.ReadString('\n')
			if err != nil || !strings.Contains(status, " 200 ") {
				f.err = fmt.Errorf("stream: %q %v", strings.TrimSpace(status), err)
				connected.Done()
				return
			}
			rm.open.Add(1)
			connected.Done()
			f.read(r)
		})
	}
	connected.Wait()
	return rm
}

// read records each frame the stream shows until it ends.
func (f *follower) read(r *bufio.Reader) {
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		if strings.HasPrefix(line, "data: ") && strings.Contains(line, `data-testid="step-index"`) {
			f.frames = append(f.frames, views.StepShown([]byte(line)))
		}
	}
}

// walk is the lecturer stepping the scenario to its end, resetting, and
// again, -moves clicks -pace apart; it returns each click's latency and the
// frames a follower must have seen.
func walk(ctx context.Context, lecturer *http.Client, base, run string, here views.Place, o lectureOpts) ([]time.Duration, []string, error) {
	sc := here.Sc
	want := []string{fmt.Sprintf("2 / %d", sc.Frames())}
	var lat []time.Duration
	for range o.moves {
		action := "step"
		if here.Step == sc.Frames() {
			action = "reset"
		}
		time.Sleep(o.pace)
		start := time.Now()
		body, status, err := click(ctx, lecturer, base, here, run, action)
		lat = append(lat, time.Since(start))
		if err != nil || status != http.StatusOK {
			return nil, nil, fmt.Errorf("the lecturer's click: %d %v", status, err)
		}
		if action == "reset" {
			here.Step = 1
		} else {
			here.Step++
		}
		if got, w := views.StepShown(body), fmt.Sprintf("%d / %d", here.Step, sc.Frames()); got != w {
			return nil, nil, fmt.Errorf("the lecturer's click showed %q, want %q", got, w)
		}
		want = append(want, fmt.Sprintf("%d / %d", here.Step, sc.Frames()))
	}
	return lat, want, nil
}

// latencies sums up click latencies: their count, p50, p99 and max.
func latencies(lat []time.Duration) string {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	return fmt.Sprintf("%d clicks, p50 %s, p99 %s, max %s", len(lat), ms(pct(0.5)), ms(pct(0.99)), ms(lat[len(lat)-1]))
}

// report says how many followers saw every move in order, the first
// problem, and why those who could not connect could not, by kind: a
// refusal's status line, or how the connection ended.
func (rm *room) report(stdout io.Writer, want []string, silentOpened int64) error {
	complete, failed := 0, 0
	var firstBad string
	kinds := map[string]int{}
	for i, f := range rm.fs {
		switch {
		case f.err != nil:
			failed++
			kinds[errorKind(f.err)]++
			if firstBad == "" {
				firstBad = fmt.Sprintf("follower %d: %v", i, f.err)
			}
		case strings.Join(f.frames, ",") == strings.Join(want, ","):
			complete++
		case firstBad == "":
			k := 0
			for k < len(f.frames) && k < len(want) && f.frames[k] == want[k] {
				k++
			}
			firstBad = fmt.Sprintf("follower %d saw %d frames, want %d; from move %d on: %q", i, len(f.frames), len(want), k, f.frames[k:min(len(f.frames), k+3)])
		}
	}
	fmt.Fprintf(stdout, "followers who saw every move in order: %d of %d (%d could not connect); silent connections opened %d times in all; load average %s\n", complete, len(rm.fs), failed, silentOpened, loadAverage())
	if firstBad != "" {
		fmt.Fprintln(stdout, "first problem:", firstBad)
	}
	for k, n := range kinds {
		fmt.Fprintf(stdout, "could not connect: %d x %s\n", n, k)
	}
	if complete != len(rm.fs) {
		return errors.New("not every follower saw every move")
	}
	return nil
}

// click posts action on the frame here as htmx does, with the run key run.
func click(ctx context.Context, c *http.Client, base string, here views.Place, run, action string) ([]byte, int, error) {
	return hall.Post(ctx, c, base+here.Action(action), here.Form(run))
}

// followLinkIn is the follow link an answer's share box shows, or "".
func followLinkIn(body []byte) string {
	const mark = `href="/follow/`
	s := string(body)
	i := strings.Index(s, mark)
	if i < 0 || len(s) < i+len(mark)+32 {
		return ""
	}
	return "/follow/" + s[i+len(mark):i+len(mark)+32]
}

// forged is what the forger got.
type forged struct{ runs, streams atomic.Int64 }

// forger asks for n new runs and n follow streams from 127.0.0.220, each
// with a made-up private address in X-Forwarded-For, as a student on a
// campus LAN could: a server that believed it would count each as a new
// client. The streams are never read.
func forger(ctx context.Context, wg *sync.WaitGroup, base, host, link string, sc *demo.Scenario, n int) *forged {
	f := &forged{}
	c := &http.Client{Timeout: requestTimeout, Transport: &http.Transport{DialContext: hall.Dialer("127.0.0.220").DialContext, MaxIdleConnsPerHost: 8}}
	start := views.Place{Place: demo.Place{Sc: sc, On: true, Step: 1}, Lang: "en"}
	for i := range n {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+start.Action("step"), strings.NewReader(start.Form("").Encode()))
		if err != nil {
			break
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("HX-Request", "true")
		req.Header.Set("X-Forwarded-For", fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255))
		resp, err := c.Do(req)
		if err != nil {
			continue
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			f.runs.Add(1)
		}
	}
	var conns []net.Conn
	for i := range n {
		conn, err := hall.Dialer("127.0.0.220").DialContext(ctx, "tcp", host)
		if err != nil {
			continue
		}
		conns = append(conns, conn)
		fmt.Fprintf(conn, "GET %s/events?lang=en HTTP/1.1\r\nHost: %s\r\nX-Forwarded-For: 192.168.%d.%d\r\n\r\n", link, host, i>>8&255, i&255)
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		line, _ := bufio.NewReader(conn).ReadString('\n')
		if strings.Contains(line, " 200 ") {
			f.streams.Add(1) // and never read after the status line
		}
	}
	wg.Go(func() {
		<-ctx.Done()
		for _, c := range conns {
			c.Close()
		}
	})
	return f
}

// errorKind is an error without its addresses and ports, to count alike ones.
func errorKind(err error) string {
	return addrPort.ReplaceAllString(err.Error(), "ADDR")
}

var addrPort = regexp.MustCompile(`[0-9.]+:[0-9]+`)
