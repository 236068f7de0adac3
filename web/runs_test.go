package web

import (
	"testing"
	"time"

	"github.com/distlock/fencing-demo/demo"
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
	first := rs.goTo("", views.Place{Place: demo.Place{Sc: gc, On: true, Step: 2}, Lang: "en"}, "step", time.Time{})
	if first.follow == "" || follow.LectureID(first.run) != first.follow {
		t.Fatalf("follow id %q, and %q for the key; want the same", first.follow, follow.LectureID(first.run))
	}
	next := rs.goTo(first.run, views.Place{Place: demo.Place{Sc: failover, On: true, Step: 1}, Lang: "en"}, "step", time.Time{})
	if next.follow != first.follow || next.run != first.run {
		t.Fatalf("another scenario: follow %q run %q, want the lecture's %q and its key", next.follow, next.run, first.follow)
	}

	// A restart: nothing kept but the lecturer's key (in the page's form and
	// cookie) and the followers' link.
	b2 := follow.NewBroker(10, render)
	t.Cleanup(b2.Close)
	rs2 := newRuns(10, time.Hour, b2)
	fid := first.follow
	if _, err := b2.Subscribe(t.Context(), fid, "192.0.2.9", ""); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := b2.Current(t.Context(), fid); ok {
		t.Fatal("a lecture with no move since the restart has a frame")
	}
	after := rs2.goTo(first.run, views.Place{Place: demo.Place{Sc: failover, On: true, Step: 2}, Lang: "en"}, "step", time.Time{})
	if after.follow != first.follow {
		t.Fatalf("after a restart: follow %q, want %q", after.follow, first.follow)
	}
	at, _, ok := b2.Current(t.Context(), fid)
	if !ok || at.Sc != failover || at.Step != 2 {
		t.Fatalf("after a restart the waiting lecture shows %+v (%v), want redis-failover step 2", at, ok)
	}
}

// A run's follow link is there from its first move, its session only once a
// follower opens the link, at the run's frame: a visitor nobody follows
// costs the broker nothing. Later moves reach the session.
func TestRunSessionOnlyWhenFollowed(t *testing.T) {
	sc := gcPause(t)
	b := follow.NewBroker(10, func(string, follow.At, uint64, string) ([]byte, error) { return nil, nil })
	t.Cleanup(b.Close)
	rs := newRuns(10, time.Hour, b)
	here := views.Place{Place: demo.Place{Sc: sc, On: true, Step: 2}, Lang: "en"}
	m := rs.goTo("", here, "step", time.Time{})
	m = rs.goTo(m.run, here.At(3), "step", time.Time{})
	if m.follow == "" || follow.LectureID(m.run) != m.follow {
		t.Fatalf("follow id %q, and %q for the run; want the same, made at the first move", m.follow, follow.LectureID(m.run))
	}
	if got := b.Len(); got != 0 {
		t.Fatalf("%d sessions before anyone follows, want 0", got)
	}
	fid := m.follow
	rs.openSession(t.Context(), fid)
	if at, _, ok := b.Current(t.Context(), fid); !ok || at.Step != 3 {
		t.Fatalf("the follower's session: %v at %+v, want it at step 3", ok, at)
	}
	if got := b.Len(); got != 1 {
		t.Fatalf("%d sessions, want 1", got)
	}
	rs.goTo(m.run, here.At(4), "step", time.Time{})
	if at, _, ok := b.Current(t.Context(), fid); !ok || at.Step != 4 {
		t.Fatalf("after the next move the session is %v at %+v, want step 4", ok, at)
	}
}

// A run pushed out of a full cache leaves its lecture's session to its
// followers: the lecturer's next click, with the same key, brings the run
// back under the same follow link and reaches them. The run that pushed it
// out, which nobody follows, made no session.
func TestRunSessionOutlivesEvictionWhenFollowed(t *testing.T) {
	sc := gcPause(t)
	b := follow.NewBroker(2, func(string, follow.At, uint64, string) ([]byte, error) { return nil, nil })
	t.Cleanup(b.Close)
	rs := newRuns(1, time.Hour, b)
	here := views.Place{Place: demo.Place{Sc: sc, On: true, Step: 2}, Lang: "en"}
	lecture := rs.goTo("", here, "step", time.Time{})
	fid := lecture.follow
	rs.openSession(t.Context(), fid)
	if _, err := b.Subscribe(t.Context(), fid, "192.0.2.9", ""); err != nil {
		t.Fatal(err)
	}
	student := rs.goTo("", here, "step", time.Time{})
	if rs.has(lecture.run) {
		t.Fatal("the lecturer's run is still cached in a cache of one")
	}
	if _, _, ok := b.Current(t.Context(), fid); !ok {
		t.Fatal("the followed session ended with its run")
	}
	if student.follow == "" || student.follow == lecture.follow {
		t.Fatalf("the student's follow id %q, want one of its own", student.follow)
	}
	next := rs.goTo(lecture.run, here.At(3), "step", time.Time{})
	if next.run != lecture.run || next.follow != lecture.follow {
		t.Fatalf("after eviction: run %q, follow %q; want the lecture's key %q and follow id %q", next.run, next.follow, lecture.run, lecture.follow)
	}
	if at, _, ok := b.Current(t.Context(), fid); !ok || at.Step != 3 {
		t.Fatalf("the followers see %+v (%v), want step 3", at, ok)
	}
	if got := b.Len(); got != 1 {
		t.Fatalf("%d sessions, want the lecture's alone", got)
	}
}

// Without JavaScript, the second press of a double click that lands on the
// page its first press loaded names the new frame: it is an echo of the
// move to that frame, within a double click's gap and by the same control,
// and nothing else is.
func TestRunEchoOfDoubleClick(t *testing.T) {
	sc := gcPause(t)
	b := follow.NewBroker(10, func(string, follow.At, uint64, string) ([]byte, error) { return nil, nil })
	t.Cleanup(b.Close)
	rs := newRuns(10, time.Hour, b)
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	here := views.Place{Place: demo.Place{Sc: sc, On: true, Step: 2}, Lang: "en"}
	m := rs.goTo("", here, "step", t0)
	m = rs.goTo(m.run, here.At(3), "step", t0.Add(time.Second))
	for _, c := range []struct {
		what   string
		at     views.Place
		action string
		after  time.Duration
		want   bool
	}{
		{"the second press, 90 ms after the first, on the page it loaded", here.At(3), "step", 90 * time.Millisecond, true},
		{"a press a second later", here.At(3), "step", time.Second, false},
		{"Back at once", here.At(3), "back", 90 * time.Millisecond, false},
		{"the second press on the old page (the server's own repeat)", here, "step", 90 * time.Millisecond, false},
		{"the switch at once", here.At(3), "switch", 90 * time.Millisecond, false},
	} {
		if got := rs.echoes(m.run, c.at, c.action, t0.Add(time.Second+c.after)); got != c.want {
			t.Errorf("%s: echo=%v, want %v", c.what, got, c.want)
		}
	}
	if rs.echoes("", here.At(3), "step", t0.Add(time.Second)) {
		t.Error("a click with no run is an echo")
	}
}
