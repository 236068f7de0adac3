package follow

// The broker alone: latest wins, a move never waits for a follower, drawing
// happens once per language, the limits, and a session's end with its run.

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// testBroker is a broker whose "drawing" of a move is its version and frame
// as text, counting how often it draws.
func testBroker(tb testing.TB, sessions int) (*Broker, *atomic.Int64) {
	tb.Helper()
	var draws atomic.Int64
	b := NewBroker(sessions, func(fid string, at At, version uint64, lang string) ([]byte, error) {
		draws.Add(1)
		return fmt.Appendf(nil, "v%d step %d %s", version, at.Step, lang), nil
	})
	tb.Cleanup(b.Close)
	return b, &draws
}

func gcPause(tb testing.TB) *demo.Scenario { return testkit.Scenario(tb, "gc-pause") }

func at(sc *demo.Scenario, step int) At { return At{Sc: sc, On: true, Step: step} }

// started is a new session showing frame a.
func started(tb testing.TB, b *Broker, a At) *Session {
	tb.Helper()
	s := b.Start()
	if s == nil {
		tb.Fatal("Start: no session")
	}
	s.Set(a)
	return s
}

func subscribed(tb testing.TB, b *Broker, fid string) *Follower {
	tb.Helper()
	f, err := b.Subscribe(fid)
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

// woken reports whether a follower has been told of something newer.
func woken(f *Follower) bool {
	select {
	case <-f.wake:
		return true
	default:
		return false
	}
}

func ended(s *Session) bool {
	select {
	case <-s.Done():
		return true
	default:
		return false
	}
}

// A follower that was busy while the lecturer made three moves wakes once and
// finds only the latest: nothing queues up behind a slow follower.
func TestBrokerLatestWins(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 10)
	s := started(t, b, at(sc, 2))
	f := subscribed(t, b, s.ID())
	for step := 3; step <= 5; step++ {
		s.Set(at(sc, step))
	}
	if !woken(f) {
		t.Fatal("follower not woken by three moves")
	}
	if woken(f) {
		t.Fatal("follower woken twice for three moves, want once: the wake-up holds one signal")
	}
	r, err := b.event(s, "en")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(r.event), "id: 4\ndata: v4 step 5 en\n\n"; got != want {
		t.Fatalf("event=%q, want %q (the latest of versions 1 to 4)", got, want)
	}
}

// The same frame again (a double click's duplicate) is not a new version.
func TestBrokerSameFrameSameVersion(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 10)
	s := started(t, b, at(sc, 2))
	s.Set(at(sc, 2))
	if _, v, _ := b.Current(s.ID()); v != 1 {
		t.Fatalf("version=%d after the same frame twice, want 1", v)
	}
}

// A follower that never reads does not hold up the lecturer: a thousand
// moves are made at once.
func TestBrokerMoveNeverBlocks(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 10)
	s := started(t, b, at(sc, 1))
	for range 3 {
		subscribed(t, b, s.ID()) // stuck: never reads
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 999 {
			s.Set(at(sc, 1+(i+1)%sc.Frames()))
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("1000 moves with stuck followers did not finish in 5s")
	}
	if _, v, _ := b.Current(s.ID()); v != 1000 {
		t.Fatalf("version=%d, want 1000", v)
	}
}

// However many followers ask at once, a version is drawn once per language.
func TestBrokerDrawsOncePerLanguage(t *testing.T) {
	sc := gcPause(t)
	b, draws := testBroker(t, 10)
	s := started(t, b, at(sc, 3))
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Go(func() {
			lang := []string{"ja", "en"}[i%2]
			if r, err := b.event(s, lang); err != nil || !strings.HasSuffix(string(r.event), lang+"\n\n") {
				t.Errorf("event(%s)=%q, %v", lang, r.event, err)
			}
		})
	}
	wg.Wait()
	if got, want := draws.Load(), int64(2); got != want {
		t.Fatalf("drawn %d times for 100 followers in 2 languages, want %d", got, want)
	}
	if _, err := b.event(s, "en"); err != nil {
		t.Fatal(err)
	}
	if got := draws.Load(); got != 2 {
		t.Fatalf("drawn again for a version already drawn: %d draws", got)
	}
}

// At MaxSessions a new run gets no session; a session let go makes room.
func TestBrokerBoundedSessions(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 2)
	one, _ := started(t, b, at(sc, 2)), started(t, b, at(sc, 2))
	if s := b.Start(); s != nil {
		t.Fatalf("a third session with MaxSessions 2: %s", s.ID())
	}
	b.Release("r1", one, false)
	if !ended(one) {
		t.Fatal("a session nobody follows lives on after its run went")
	}
	if s := b.Start(); s == nil {
		t.Fatal("no room after a session ended")
	}
}

// Followers are bounded per session and across sessions.
func TestBrokerBoundedFollowers(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 10)
	b.MaxFollowers, b.MaxStreams = 2, 3
	one, two := started(t, b, at(sc, 2)).ID(), started(t, b, at(sc, 2)).ID()
	f1 := subscribed(t, b, one)
	subscribed(t, b, one)
	if _, err := b.Subscribe(one); err != ErrFull {
		t.Fatalf("third follower of one session: err=%v, want %v", err, ErrFull)
	}
	subscribed(t, b, two)
	if _, err := b.Subscribe(two); err != ErrFull {
		t.Fatalf("fourth follower on the server: err=%v, want %v", err, ErrFull)
	}
	b.Unsubscribe(f1)
	if got, want := b.Streams(), 2; got != want {
		t.Fatalf("%d streams after one left, want %d", got, want)
	}
	subscribed(t, b, two)
	if _, err := b.Subscribe("nope"); err != ErrGone {
		t.Fatalf("unknown id: err=%v, want %v", err, ErrGone)
	}
}

// A run that went idle ends its session, watched or not: the lecture is over.
func TestBrokerReleaseExpired(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 10)
	s := started(t, b, at(sc, 2))
	subscribed(t, b, s.ID())
	b.Release("r1", s, true)
	if !ended(s) {
		t.Fatal("the session of an expired run lives on")
	}
	if _, _, ok := b.Current(s.ID()); ok {
		t.Fatal("an ended session is still found")
	}
	if got := b.Adopt("r1"); got != nil {
		t.Fatal("an ended session was adopted")
	}
}

// A watched session whose run was pushed out waits for the lecturer's next
// click, which adopts it for the new run; the students' link keeps working.
func TestBrokerAdopt(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 10)
	s := started(t, b, at(sc, 2))
	f := subscribed(t, b, s.ID())
	b.Release("old", s, false)
	if ended(s) {
		t.Fatal("a followed session ended when its run was pushed out")
	}
	if got := b.Adopt("someone-else"); got != nil {
		t.Fatal("another run id adopted the session")
	}
	if got := b.Adopt("old"); got != s {
		t.Fatalf("Adopt(old)=%v, want the session", got)
	}
	// Adopted, it lives with its new run: its last follower leaving ends
	// nothing.
	b.Unsubscribe(f)
	if ended(s) {
		t.Fatal("an adopted session ended with its last follower")
	}
}

// A session whose run is gone, never adopted, ends with its last follower.
func TestBrokerOrphanEndsWithLastFollower(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 10)
	s := started(t, b, at(sc, 2))
	f1, f2 := subscribed(t, b, s.ID()), subscribed(t, b, s.ID())
	b.Release("old", s, false)
	b.Unsubscribe(f1)
	if ended(s) {
		t.Fatal("ended with a follower still there")
	}
	b.Unsubscribe(f2)
	if !ended(s) {
		t.Fatal("an orphaned session lives on with nobody following")
	}
	if got := b.Adopt("old"); got != nil {
		t.Fatal("an ended session was adopted")
	}
	if got := b.Len(); got != 0 {
		t.Fatalf("%d sessions, want 0", got)
	}
}
