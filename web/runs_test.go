package web

import (
	"testing"
	"time"

	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/follow"
)

// A run's follow link is there from its first move, its session only once a
// follower opens the link; the session lives as long as the run: the cache
// is the only place that keeps either, so when the run goes idle its
// session ends too.
func TestRunSessionSharesLifetime(t *testing.T) {
	sc := gcPause(t)
	b := follow.NewBroker(10, func(string, follow.At, uint64, string) ([]byte, error) { return nil, nil })
	t.Cleanup(b.Close)
	rs := newRuns(10, 100*time.Millisecond, b)
	m := rs.goTo("", views.Place{Sc: sc, On: true, Step: 2, Lang: "en"})
	if m.follow == "" || rs.followLink(m.run) != m.follow {
		t.Fatalf("follow link %q, and %q for the run; want the same, made at the first move", m.follow, rs.followLink(m.run))
	}
	if got := b.Len(); got != 0 {
		t.Fatalf("%d sessions before anyone follows, want 0", got)
	}
	rs.openSession(m.follow[len("/follow/"):])
	if at, _, ok := b.Current(m.follow[len("/follow/"):]); !ok || at.Step != 2 {
		t.Fatalf("the follower's session: %v at %+v, want it at step 2", ok, at)
	}
	if got := b.Len(); got != 1 {
		t.Fatalf("%d sessions, want 1", got)
	}
	testkit.Eventually(t, 5*time.Second, "the idle run and its session to go", func() bool {
		return !rs.has(m.run) && b.Len() == 0
	})
}

// A run pushed out of a full cache takes its session with it, unless someone
// follows it: then the lecturer's next click, from the lost run, gets the
// same session on its new run.
func TestRunSessionOutlivesEvictionWhenFollowed(t *testing.T) {
	sc := gcPause(t)
	b := follow.NewBroker(2, func(string, follow.At, uint64, string) ([]byte, error) { return nil, nil })
	t.Cleanup(b.Close)
	rs := newRuns(1, time.Hour, b)
	here := views.Place{Sc: sc, On: true, Step: 2, Lang: "en"}
	lecture := rs.goTo("", here)
	fid := lecture.follow[len("/follow/"):]
	rs.openSession(fid)
	if _, err := b.Subscribe(fid); err != nil {
		t.Fatal(err)
	}
	student := rs.goTo("", here)
	if rs.has(lecture.run) {
		t.Fatal("the lecturer's run is still cached in a cache of one")
	}
	if _, _, ok := b.Current(fid); !ok {
		t.Fatal("the followed session ended with its run")
	}
	if student.follow == "" || student.follow == lecture.follow {
		t.Fatalf("the student's follow link %q, want one of its own", student.follow)
	}
	next := rs.goTo(lecture.run, here.At(3))
	if next.run == lecture.run || next.follow != lecture.follow {
		t.Fatalf("after eviction: run %q (was %q), follow %q; want a new run with the old follow link %q", next.run, lecture.run, next.follow, lecture.follow)
	}
	// The student's run went to make room, and nobody followed it.
	if got := b.Len(); got != 1 {
		t.Fatalf("%d sessions, want the lecture's alone", got)
	}
}
