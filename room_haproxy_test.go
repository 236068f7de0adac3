package main

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/internal/hall"
	"github.com/distlock/fencing-demo/internal/realserver"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// A workshop room on three replicas behind a real HAProxy (docs/haproxy.cfg)
// and a real Redis, scaled down from cmd/fencing-load's room command: 24
// learners on addresses of their own each submit a break four times: then
// Redis restarts empty (the replicas write the room back); then one
// replica is killed with SIGKILL while the third round is under way (a
// submission whose answer was lost is sent again with its key, as room.js
// does); then it comes back. Every submission is counted exactly once,
// the board's counts are the submissions', and the replica started again
// serves the same room.
func TestRoomBehindHaproxy(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three servers, redis-server and haproxy: not with -short")
	}
	c := startBehindHaproxy(t, "room")
	sc := testkit.Scenario(t, "gc-pause")
	brk := roomBreak(t, sc)
	lead := openRoomAt(t, c.lb)
	learn := lead[:strings.Index(lead, "/lead/")]

	const learners = 24
	jars := make([]string, learners)
	clients := make([]*http.Client, learners)
	for i := range learners {
		clients[i] = hall.Client(hall.SpreadAddr(i), true)
		jars[i] = joinRoom(t, clients[i], c.lb+learn)
	}
	submitAll := func(round int) {
		var wg sync.WaitGroup
		for i := range learners {
			wg.Add(1)
			go func() {
				defer wg.Done()
				submitOnce(t, clients[i], c.lb+learn, jars[i], "room-"+strconv.Itoa(round)+"-learner-"+strconv.Itoa(i), brk)
			}()
		}
		wg.Wait()
	}
	submitAll(1)
	c.redis.Stop() // Redis restarts, empty: the replicas write the room back
	c.redis.Start()
	submitAll(2)
	done := make(chan struct{})
	go func() { submitAll(3); close(done) }()
	c.replicas[1].Kill() // while the third round is under way
	<-done
	c.replicas[1].Start()
	submitAll(4)

	for _, base := range []string{c.lb, "http://" + realserver.Addr(c.ports[1])} {
		subs, tried, solved := boardOf(t, base+lead)
		if subs != 4*learners || tried != learners || solved != learners {
			t.Fatalf("the board on %s counts %d submissions, %d tried, %d broke it; want %d, %d, %d",
				base, subs, tried, solved, 4*learners, learners, learners)
		}
	}
}

// roomBreak is the address of the finder's shortest break of sc.
func roomBreak(t *testing.T, sc *demo.Scenario) string {
	prop, _ := sc.Promise()
	res, err := find.Find(demo.Place{Sc: sc, Step: 1}, prop, find.Options{})
	if err != nil || !res.Found {
		t.Fatalf("no break of %s: %v", sc.ID, err)
	}
	p := views.Place{Place: demo.Place{Sc: sc, Step: 1}, Lang: "en", FreePlay: true}
	for _, a := range res.Trace {
		p.Place = p.Place.Then(a)
	}
	return p.URL()
}

func noRedirect(c *http.Client) *http.Client {
	n := *c
	n.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &n
}

// openRoomAt opens a room with gc-pause's break on base and returns the
// lecturer's board's path.
func openRoomAt(t *testing.T, base string) string {
	resp, err := noRedirect(hall.Client("127.0.0.1", false)).PostForm(base+"/rooms", url.Values{"c": {"break:gc-pause:off"}, "lang": {"en"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	lead, _, _ := strings.Cut(resp.Header.Get("Location"), "?")
	if resp.StatusCode != http.StatusSeeOther || !strings.Contains(lead, "/lead/") {
		t.Fatalf("opening a room: %s, %q", resp.Status, lead)
	}
	return lead
}

func joinRoom(t *testing.T, c *http.Client, room string) string {
	resp, err := noRedirect(c).PostForm(room+"/join", url.Values{"lang": {"en"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, ck := range resp.Cookies() {
		if ck.Name == "learner" {
			return ck.Name + "=" + ck.Value
		}
	}
	t.Fatalf("joining: %s and no pass", resp.Status)
	return ""
}

// submitOnce sends one submission with key, again while its answer is
// lost, until it is answered as counted (200) or as counted before (409
// after a retry).
func submitOnce(t *testing.T, c *http.Client, room, jar, key, place string) {
	form := url.Values{"c": {"0"}, "key": {key}, "place": {place}, "lang": {"en"}}
	for try := 0; try < 60; try++ {
		req, _ := http.NewRequest(http.MethodPost, room+"/submit", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("HX-Request", "true")
		req.Header.Set("Cookie", jar)
		resp, err := c.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			switch {
			// 409: an earlier delivery of this submission (ours, or the
			// balancer's retry of it) was counted.
			case resp.StatusCode == http.StatusOK, resp.StatusCode == http.StatusConflict:
				return
			case resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests:
				t.Errorf("a submission answered %s", resp.Status)
				return
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Errorf("submission %s never answered", key)
}

var (
	boardSubs  = regexp.MustCompile(`data-submissions="(\d+)"`)
	boardTried = regexp.MustCompile(`data-testid="tried">(\d+)<`)
	boardBroke = regexp.MustCompile(`data-testid="solved">(\d+)<`)
)

func boardOf(t *testing.T, board string) (subs, tried, solved int) {
	resp, err := hall.Client("127.0.0.1", false).Get(board + "?lang=en")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	num := func(re *regexp.Regexp) int {
		m := re.FindSubmatch(b)
		if m == nil {
			t.Fatalf("the board (%s) has no %s", resp.Status, re)
		}
		n, _ := strconv.Atoi(string(m[1]))
		return n
	}
	return num(boardSubs), num(boardTried), num(boardBroke)
}
