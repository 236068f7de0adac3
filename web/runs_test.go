package web

import (
	"testing"
	"time"

	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/follow"
)

// One follow link for a whole lecture: the link is the lecturer's run key's,
// the same whichever scenario the lecturer moves to, and the same after a
// restart (a fresh cache and broker), where the lecturer's next click, which
// carries the key, reaches the followers who reconnected and waited.
func TestLectureLinkDurable(t *testing.T) {
	render := func(string, follow.At, uint64, string) ([]byte, error) { return nil, nil }
	b := follow.NewBroker(10, render)
	t.Cleanup(b.Close)
	rs := newRuns(10, time.Hour, b)
	gc, failover := gcPause(t), testkit.Scenario(t, "redis-failover")
	first, err := rs.goTo("", views.Place{Sc: gc, On: true, Step: 2, Lang: "en"})
	if err != nil {
		t.Fatal(err)
	}
	if first.follow == "" || lectureLink(first.run) != first.follow {
		t.Fatalf("follow link %q, and %q for the key; want the same", first.follow, lectureLink(first.run))
	}
	next, err := rs.goTo(first.run, views.Place{Sc: failover, On: true, Step: 1, Lang: "en"})
	if err != nil {
		t.Fatal(err)
	}
	if next.follow != first.follow || next.run != first.run {
		t.Fatalf("another scenario: follow %q run %q, want the lecture's %q and its key", next.follow, next.run, first.follow)
	}

	// A restart: nothing kept but the lecturer's key (in the page's form and
	// cookie) and the followers' link.
	b2 := follow.NewBroker(10, render)
	t.Cleanup(b2.Close)
	rs2 := newRuns(10, time.Hour, b2)
	fid := first.follow[len("/follow/"):]
	if _, err := b2.Subscribe(t.Context(), fid, "192.0.2.9"); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := b2.Current(t.Context(), fid); ok {
		t.Fatal("a lecture with no move since the restart has a frame")
	}
	after, err := rs2.goTo(first.run, views.Place{Sc: failover, On: true, Step: 2, Lang: "en"})
	if err != nil {
		t.Fatal(err)
	}
	if after.follow != first.follow {
		t.Fatalf("after a restart: follow %q, want %q", after.follow, first.follow)
	}
	at, _, ok := b2.Current(t.Context(), fid)
	if !ok || at.Sc != failover || at.Step != 2 {
		t.Fatalf("after a restart the waiting lecture shows %+v (%v), want redis-failover step 2", at, ok)
	}
}
