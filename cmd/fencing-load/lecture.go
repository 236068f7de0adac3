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
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
)

// lecture is the lecture hall on the open internet: one lecturer clicking,
// -followers students following the lecture live (spread over -nats
// loopback addresses, 127.0.0.2 and up, as students behind a few school
// NATs), and a squatter at 127.0.0.250 holding -squat-streams follow streams
// it never reads and -squat-idle idle keep-alive connections: the server's
// per-address limits, by default. It reports the lecturer's click latency
// and whether every follower that reads saw every move, in order.
//
//	go run ./cmd/fencing-load lecture -target http://127.0.0.1:8080 -followers 1000
func lecture(ctx context.Context, sc *demo.Scenario, args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("lecture", flag.ContinueOnError)
	fl.SetOutput(stderr)
	target := fl.String("target", "http://127.0.0.1:8080", "the server (loopback only)")
	followers := fl.Int("followers", 1000, "students following the lecture")
	nats := fl.Int("nats", 4, "client addresses the followers come from (127.0.0.2 and up)")
	squatStreams := fl.Int("squat-streams", 600, "follow streams the squatter holds and never reads (the server's -follow-per-addr)")
	squatIdle := fl.Int("squat-idle", 900, "idle keep-alive connections the squatter holds besides (up to -max-conns-per-addr)")
	moves := fl.Int("moves", 60, "the lecturer's clicks")
	pace := fl.Duration("pace", 250*time.Millisecond, "time between the lecturer's clicks")
	if err := fl.Parse(args); err != nil {
		return err
	}
	base, err := loopbackTarget(*target)
	if err != nil {
		return err
	}
	host := strings.TrimPrefix(base, "http://")
	if *followers < 1 || *followers > maxLoadClients || *nats < 1 || *nats > 200 || *moves < 1 || *moves > 10000 {
		return errors.New("-followers 1..10000, -nats 1..200, -moves 1..10000")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// The lecturer's first click makes the run key and the follow link.
	lecturer := &http.Client{Timeout: requestTimeout, Transport: &http.Transport{DialContext: dialerFrom("127.0.0.1").DialContext}}
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

	// The squatter.
	var squat []net.Conn
	defer func() {
		for _, c := range squat {
			c.Close()
		}
	}()
	squatRefused := 0
	for range *squatStreams {
		c, err := dialerFrom("127.0.0.250").DialContext(ctx, "tcp", host)
		if err != nil {
			squatRefused++
			continue
		}
		fmt.Fprintf(c, "GET %s/events?lang=en HTTP/1.1\r\nHost: %s\r\n\r\n", link, host)
		squat = append(squat, c)
	}
	for range *squatIdle {
		c, err := dialerFrom("127.0.0.250").DialContext(ctx, "tcp", host)
		if err != nil {
			squatRefused++
			continue
		}
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", host)
		squat = append(squat, c) // the answer is left unread: the connection is idle after it
	}

	// The followers: each records the frames it was shown, in order.
	type follower struct {
		frames []string
		err    error
	}
	fs := make([]*follower, *followers)
	var connected sync.WaitGroup
	var open atomic.Int64
	var wg sync.WaitGroup
	for i := range fs {
		f := &follower{}
		fs[i] = f
		connected.Add(1)
		wg.Go(func() {
			from := fmt.Sprintf("127.0.0.%d", 2+i%*nats)
			c, err := dialerFrom(from).DialContext(ctx, "tcp", host)
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
			open.Add(1)
			connected.Done()
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if strings.HasPrefix(line, "data: ") && strings.Contains(line, `data-testid="step-index"`) {
					f.frames = append(f.frames, views.StepShown([]byte(line)))
				}
			}
		})
	}
	connected.Wait()
	fmt.Fprintf(stdout, "followers connected: %d of %d; squatter: %d connections held, %d refused\n", open.Load(), *followers, len(squat), squatRefused)

	// The lecturer walks the scenario: step to the end, reset, again.
	want := []string{fmt.Sprintf("2 / %d", sc.Frames())}
	var lat []time.Duration
	for range *moves {
		action := "step"
		if here.Step == sc.Frames() {
			action = "reset"
		}
		time.Sleep(*pace)
		start := time.Now()
		body, status, err := click(ctx, lecturer, base, here, run, action)
		lat = append(lat, time.Since(start))
		if err != nil || status != http.StatusOK {
			return fmt.Errorf("the lecturer's click: %d %v", status, err)
		}
		if action == "reset" {
			here.Step = 1
		} else {
			here.Step++
		}
		if got, w := views.StepShown(body), fmt.Sprintf("%d / %d", here.Step, sc.Frames()); got != w {
			return fmt.Errorf("the lecturer's click showed %q, want %q", got, w)
		}
		want = append(want, fmt.Sprintf("%d / %d", here.Step, sc.Frames()))
	}
	time.Sleep(2 * time.Second) // the last move on its way
	cancel()
	wg.Wait()

	complete, failed := 0, 0
	var firstBad string
	for i, f := range fs {
		switch {
		case f.err != nil:
			failed++
			if firstBad == "" {
				firstBad = fmt.Sprintf("follower %d: %v", i, f.err)
			}
		case strings.Join(f.frames, ",") == strings.Join(want, ","):
			complete++
		default:
			if firstBad == "" {
				k := 0
				for k < len(f.frames) && k < len(want) && f.frames[k] == want[k] {
					k++
				}
				firstBad = fmt.Sprintf("follower %d saw %d frames, want %d; from move %d on: %q", i, len(f.frames), len(want), k, f.frames[k:min(len(f.frames), k+3)])
			}
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	fmt.Fprintf(stdout, "lecturer: %d clicks, p50 %s, p99 %s, max %s\n", len(lat), ms(pct(0.5)), ms(pct(0.99)), ms(lat[len(lat)-1]))
	fmt.Fprintf(stdout, "followers who saw every move in order: %d of %d (%d could not connect); load average %s\n", complete, *followers, failed, loadAverage())
	if firstBad != "" {
		fmt.Fprintln(stdout, "first problem:", firstBad)
	}
	if complete != *followers {
		return errors.New("not every follower saw every move")
	}
	return nil
}

// dialerFrom dials from a loopback address of its own, so the server counts
// the connections against that address.
func dialerFrom(ip string) *net.Dialer {
	return &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
}

// click posts action on the frame here as htmx does, with the run key run.
func click(ctx context.Context, c *http.Client, base string, here views.Place, run, action string) ([]byte, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+here.Action(action), strings.NewReader(here.Form(run).Encode()))
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	resp, err := c.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return b, resp.StatusCode, err
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
