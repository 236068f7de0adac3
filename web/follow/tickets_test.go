package follow

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/realserver"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// A ticket checks for its own lecture only, and not once any part of it is
// changed; two tickets are two voters.
func TestTickets(t *testing.T) {
	tk := NewTickets()
	one, two := LectureID("one"), LectureID("two")
	ticket := tk.Issue(one)
	id, ok := tk.Check(one, ticket)
	if !ok || id == "" {
		t.Fatalf("a ticket of lecture one does not check: %q", ticket)
	}
	if _, ok := tk.Check(two, ticket); ok {
		t.Fatal("lecture one's ticket checks for lecture two")
	}
	other, _ := tk.Check(one, tk.Issue(one))
	if other == id {
		t.Fatal("two tickets with one id")
	}
	for _, bad := range []string{"", ".", id, id + ".", ticket[:len(ticket)-1] + "A", "A" + ticket[1:], strings.Repeat("a", 16) + "." + strings.Repeat("b", 16)} {
		if _, ok := tk.Check(one, bad); ok && bad != ticket {
			t.Errorf("%q checks", bad)
		}
	}
	if _, ok := NewTickets().Check(one, ticket); ok {
		t.Fatal("another server's secret checks the ticket")
	}
}

// Replicas sharing a Redis sign with one secret, so a ticket one hands out
// checks on another; after Redis restarts empty, the replicas write it back
// as their relays subscribe again, so a replica started afterwards checks
// the room's tickets too.
func TestTicketsAcrossReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server: not with -short")
	}
	rd := realserver.StartRedis(t, "tickets")
	sc := gcPause(t)
	replica := func() *Tickets {
		r, err := NewRedis("redis://"+rd.Addr()+"/0", time.Hour, func(id string) (*demo.Scenario, bool) { return sc, id == sc.ID })
		if err != nil {
			t.Fatal(err)
		}
		b, _ := testBroker(t, 10)
		ctx, cancel := context.WithCancel(context.Background())
		b.UseRelay(ctx, r, slog.New(slog.NewTextHandler(io.Discard, nil)))
		t.Cleanup(func() { cancel(); r.Close() })
		tk := NewTickets()
		r.ShareTickets(ctx, tk)
		return tk
	}
	a, b := replica(), replica()
	fid := LectureID("shared")
	ticket := a.Issue(fid)
	if _, ok := b.Check(fid, ticket); !ok {
		t.Fatal("replica A's ticket does not check on replica B")
	}
	rd.Stop()
	rd.Start()
	testkit.Eventually(t, 10*time.Second, "a replica started after Redis restarted checking A's ticket", func() bool {
		_, ok := replica().Check(fid, ticket)
		return ok
	})
}
