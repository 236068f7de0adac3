package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/web/follow"
)

// followerLog is what a follower's stream showed, frame by frame ("3 / 7
// on"), read by the test itself as EventSource would.
type followerLog struct {
	mu     sync.Mutex
	frames []string
}

func (l *followerLog) read(st *testkit.Stream) {
	for ev := range st.Events {
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(ev.Data))
		if err != nil || doc.Find("#demo").Length() == 0 {
			continue // the stream's other events (the end)
		}
		f := strings.TrimSpace(doc.Find(`[data-testid="step-index"]`).Text()) + " " +
			doc.Find(`[data-testid="follow-switch"]`).AttrOr("data-on", "")
		l.mu.Lock()
		l.frames = append(l.frames, f)
		l.mu.Unlock()
	}
}

func (l *followerLog) seen() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.frames...)
}

// followerPace lets a click through only once the follower has been shown
// every move before it. The broker keeps only a lecture's latest frame (a
// follower who falls behind skips to it, by design), and the page sends its
// waiting moves a little apart for its followers to watch; waiting here
// makes the test about the order the page sends them in, not about how soon
// this shared machine runs the follower's goroutine.
type followerPace struct {
	next   http.Handler
	log    *followerLog
	mu     sync.Mutex
	on     bool
	served int // moves let through since on
}

func (p *followerPace) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		p.mu.Lock()
		if p.on {
			for deadline := time.Now().Add(waitBudget); len(p.log.seen()) < p.served+1 && time.Now().Before(deadline); {
				p.mu.Unlock()
				time.Sleep(2 * time.Millisecond) // polling a condition, bounded
				p.mu.Lock()
			}
			p.served++
		}
		p.mu.Unlock()
	}
	p.next.ServeHTTP(w, r)
}

// A lecture survives the network dropping: with the network cut (DevTools
// offline) for 30 clicks, every click paints its frame from what the page
// prefetched while it was online, the page says it is offline and that
// followers catch up, and once the network is back the moves reach the
// server in order: the run ends at the last frame, and a follower saw every
// move in order.
func TestBrowserOfflineLecture(t *testing.T) {
	sc := gcPause(t)
	s := newTestServer(t, DefaultConfig())
	log := &followerLog{}
	pace := &followerPace{next: s, log: log}
	srv := httptest.NewServer(pace)
	t.Cleanup(srv.Close)
	t.Cleanup(s.follow.Close) // before srv.Close, which waits for open streams
	env := &browserEnv{browser: testkit.Chromium(t, browserBudget), base: srv.URL, sc: sc, posts: &postLog{}}
	b := env.newTab(t, true)
	last := sc.Frames()

	// Online: the lecturer steps through both positions, and the page
	// prefetches as it goes.
	b.open(true, 1, "en")
	b.waitFrame(true, 1, "en")
	on, k := true, 1
	press := func(action string) {
		t.Helper()
		switch action {
		case "step":
			k++
		case "back":
			k--
		case sc.Switch:
			on = !on
		}
		b.click(action)
		b.waitFrame(on, k, "en")
	}
	walk := func(plan ...string) {
		t.Helper()
		for _, p := range plan {
			var n int
			var action string
			if _, err := fmt.Sscanf(p, "%d %s", &n, &action); err != nil {
				t.Fatal(err)
			}
			for range n {
				press(action)
			}
		}
	}
	walk(fmt.Sprintf("%d step", last-1), "1 "+sc.Switch, fmt.Sprintf("%d back", last-1), "1 "+sc.Switch)
	waitPrefetched(t, b)

	link, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="follow-link"]').getAttribute('href')`))
	if err != nil {
		t.Fatal(err)
	}
	go log.read(testkit.OpenStream(t, srv.Client(), srv.URL+link+"/events?lang=en"))
	testkit.Eventually(t, waitBudget, "the follower's first frame", func() bool { return len(log.seen()) == 1 })
	pace.mu.Lock()
	pace.on = true
	pace.mu.Unlock()

	testkit.EmulateNetwork(t, b.ctx, true, 0)
	want := log.seen()
	plan := []string{fmt.Sprintf("%d step", last-1), "1 " + sc.Switch, fmt.Sprintf("%d back", last-1), "1 " + sc.Switch}
	plan = append(plan, plan...)
	plan = append(plan, "2 step") // 30 clicks in all on gc-pause's 7 frames
	clicks := 0
	for _, p := range plan {
		var n int
		var action string
		fmt.Sscanf(p, "%d %s", &n, &action)
		for range n {
			press(action)
			clicks++
			want = append(want, fmt.Sprintf("%d / %d %s", k, last, demo.OnOff(on)))
			if clicks == 1 {
				note := testkit.WaitFor(t, b.ctx, waitBudget, "the offline note", offlineNoteJS, func(n offlineNote) bool { return n.State == "lost" })
				if n := note; n.Role != "status" || !strings.Contains(n.Text, "Offline") || !strings.Contains(n.Text, "following") {
					t.Fatalf("offline note %+v: want a status saying the page is offline and that followers catch up", n)
				}
			}
		}
	}
	if clicks != 30 {
		t.Fatalf("%d clicks, want 30", clicks)
	}
	if got := log.seen(); len(got) != 1 {
		t.Fatalf("while offline the follower was shown %q", got[1:])
	}

	testkit.EmulateNetwork(t, b.ctx, false, 0)
	testkit.WaitFor(t, b.ctx, 2*waitBudget, "the note to say the moves are sent", offlineNoteJS, func(n offlineNote) bool { return n.State == "back" })
	fid := follow.LectureID(strings.TrimPrefix(runOfPage(t, b), ""))
	testkit.Eventually(t, waitBudget, "the run to reach the last click's frame", func() bool {
		lr, ok := s.runs.cache.Peek(fid)
		if !ok {
			return false
		}
		lr.mu.Lock()
		defer lr.mu.Unlock()
		return lr.at.Step == k && lr.at.On == on
	})
	testkit.Eventually(t, waitBudget, "the follower to see every move", func() bool { return len(log.seen()) >= len(want) })
	if got := log.seen(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("the follower saw\n%q\nwant every move in order\n%q", got, want)
	}
	b.waitFrame(on, k, "en")
}

type offlineNote struct{ State, Role, Text string }

const offlineNoteJS = `(() => { const n = document.getElementById('offline-note');
  return n ? {State: n.textContent ? n.dataset.state : '', Role: n.getAttribute('role'), Text: n.textContent} : {State: '', Role: '', Text: ''}; })()`

// waitPrefetched waits until the page has fetched what it wants for now.
func waitPrefetched(t *testing.T, b *tab) {
	t.Helper()
	testkit.WaitFor(t, b.ctx, waitBudget, "the prefetches", `document.documentElement.dataset.prefetch`, func(s string) bool { return s == "idle" })
}

func runOfPage(t *testing.T, b *tab) string {
	t.Helper()
	run, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('#demo input[name="run"]').value`))
	if err != nil || run == "" {
		t.Fatalf("the page's run key: %q %v", run, err)
	}
	return run
}
