package web

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/internal/realserver"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// Follow-along across replicas (-follow-redis): two replicas share a real
// redis-server. A follower on replica B, and one behind a round-robin load
// balancer, see every click the lecturer makes on replica A, in order; the
// lecture carries on across a restart of Redis, the followers' streams
// staying open and the replicas subscribing again by themselves.
func TestFollowAcrossReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server: not with -short")
	}
	sc := gcPause(t)
	rd := realserver.StartRedis(t, "follow")
	cfg := DefaultConfig()
	cfg.FollowRedis = "redis://" + rd.Addr() + "/0"
	a, b := newTestServer(t, cfg), newTestServer(t, cfg)
	srvB := httptest.NewServer(b)
	t.Cleanup(srvB.Close)
	lb := newRoundRobin(t, a, b)
	t.Cleanup(a.Close) // streams end before the servers close
	t.Cleanup(b.Close)

	l := startLecture(t, a, true, "en") // frame 2, on replica A
	onB := testkit.OpenStream(t, srvB.Client(), srvB.URL+l.follow+"/events?lang=en")
	viaLB := testkit.OpenStream(t, lb.Client(), lb.URL+l.follow+"/events?lang=ja")
	// The page too, through the balancer's next turn (replica B, which
	// never saw a click).
	if resp, err := lb.Client().Get(lb.URL + l.follow); err != nil || resp.StatusCode != 200 {
		t.Fatalf("the follow page on replica B: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	mustFrameEvent(t, onB.Next(t, 5*time.Second), 1, testkit.Frame(t, sc, true, 2), "en")
	mustFrameEvent(t, viaLB.Next(t, 5*time.Second), 1, testkit.Frame(t, sc, true, 2), "ja")
	for v, step := 2, 3; step <= 5; v, step = v+1, step+1 {
		l.step(t, a)
		mustFrameEvent(t, onB.Next(t, 5*time.Second), v, testkit.Frame(t, sc, true, step), "en")
		mustFrameEvent(t, viaLB.Next(t, 5*time.Second), v, testkit.Frame(t, sc, true, step), "ja")
	}

	// Redis restarts (empty: it keeps nothing on disk). The lecturer's next
	// click reaches the followers on B once the replicas are subscribed
	// again, whether by the message itself or by reading the lecture's key.
	rd.Stop()
	rd.Start()
	l.step(t, a) // frame 6
	for _, st := range []*testkit.Stream{onB, viaLB} {
		ev := st.Next(t, 10*time.Second)
		if got := views.StepShown([]byte(ev.Data)); got != "6 / 7" {
			t.Fatalf("after the Redis restart a follower got %q, want frame 6", got)
		}
	}
	l.step(t, a) // frame 7, and the followers are live again
	for _, st := range []*testkit.Stream{onB, viaLB} {
		ev := st.Next(t, 5*time.Second)
		if got := views.StepShown([]byte(ev.Data)); got != "7 / 7" {
			t.Fatalf("after the Redis restart a follower got %q, want frame 7", got)
		}
	}
}
