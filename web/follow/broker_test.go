package follow

// The broker alone: latest wins, a move never waits for a follower, drawing
// happens once per language, the limits, and how long a lecture is kept.

import (
	"context"
	"errors"
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
	b.Clock = func() time.Time { return time.Unix(0, 0) } // versions count moves from 1
	tb.Cleanup(b.Close)
	return b, &draws
}

func gcPause(tb testing.TB) *demo.Scenario { return testkit.Scenario(tb, "gc-pause") }

func at(sc *demo.Scenario, step int) At { return At{Sc: sc, On: true, Step: step} }

var lectures atomic.Int64

// started is a new lecture showing frame a, opened as its first follower
// opens it (the run cache's openSession).
func started(tb testing.TB, b *Broker, a At) *Session {
	tb.Helper()
	fid := LectureID(fmt.Sprint("key", lectures.Add(1)))
	b.Open(fid, a)
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.byID[fid]
	if s == nil {
		tb.Fatal("Publish: no session")
	}
	return s
}

// Set is the lecturer's next move on s.
func (s *Session) Set(a At) {
	_, v := s.latest()
	s.set(a, v+1)
}

// follower is the address of a test follower.
const follower = "192.0.2.1"

func subscribed(tb testing.TB, b *Broker, fid string) *Follower {
	tb.Helper()
	f, err := b.Subscribe(tb.Context(), fid, follower, "")
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

// A move of a lecture nobody follows here makes no session (most lectures
// are one visitor who never shares the link); a follower waiting for one
// gets the next move, and opening a lecture makes it at the run's frame.
func TestBrokerSessionOnlyWhenFollowed(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 10)
	fid := LectureID("unfollowed")
	b.Publish(fid, at(sc, 2))
	if got := b.Len(); got != 0 {
		t.Fatalf("%d sessions after a move nobody follows, want 0", got)
	}
	if _, _, ok := b.Current(t.Context(), fid); ok {
		t.Fatal("a lecture nobody follows has a frame")
	}
	f := subscribed(t, b, fid)
	b.Publish(fid, at(sc, 3))
	if !woken(f) {
		t.Fatal("the waiting follower was not woken by the move")
	}
	if a, _, ok := b.Current(t.Context(), fid); !ok || a.Step != 3 {
		t.Fatalf("the waiting lecture shows %+v (%v), want step 3", a, ok)
	}
	other := LectureID("opened")
	b.Open(other, at(sc, 5))
	if a, _, ok := b.Current(t.Context(), other); !ok || a.Step != 5 {
		t.Fatalf("an opened lecture shows %+v (%v), want step 5", a, ok)
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
	if _, v, _ := b.Current(t.Context(), s.ID()); v != 1 {
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
	if _, v, _ := b.Current(t.Context(), s.ID()); v != 1000 {
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

// At MaxSessions the lecture moved least recently that nobody follows is
// forgotten to make room; one that is followed never is, and when every
// lecture kept is followed a new one gets no room.
func TestBrokerBoundedSessions(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 2)
	clock := time.Unix(0, 0)
	b.Clock = func() time.Time { return clock }
	one := started(t, b, at(sc, 2))
	clock = clock.Add(time.Second)
	two := started(t, b, at(sc, 2))
	subscribed(t, b, two.ID())
	clock = clock.Add(time.Second)
	three := started(t, b, at(sc, 2))
	if _, _, ok := b.Current(t.Context(), one.ID()); ok {
		t.Fatal("the oldest lecture nobody follows is still kept at MaxSessions")
	}
	if _, _, ok := b.Current(t.Context(), two.ID()); !ok {
		t.Fatal("a followed lecture was forgotten")
	}
	subscribed(t, b, three.ID())
	b.Open(LectureID("a fourth"), at(sc, 2))
	if got := b.Len(); got != 2 {
		t.Fatalf("%d lectures kept, want 2 (MaxSessions)", got)
	}
	if _, _, ok := b.Current(t.Context(), LectureID("a fourth")); ok {
		t.Fatal("a lecture took the place of a followed one")
	}
}

// A lecture nobody follows is kept for Idle after its last move, then
// forgotten when room is needed; its link works again at its next move.
func TestBrokerIdleLecture(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 1)
	clock := time.Unix(0, 0)
	b.Clock = func() time.Time { return clock }
	b.Idle = time.Hour
	old := started(t, b, at(sc, 2))
	clock = clock.Add(2 * time.Hour)
	started(t, b, at(sc, 3))
	if _, _, ok := b.Current(t.Context(), old.ID()); ok {
		t.Fatal("an idle lecture is kept at MaxSessions")
	}
	subscribed(t, b, old.ID()) // a follower comes back and waits
	b.Publish(old.ID(), at(sc, 4))
	if a, _, ok := b.Current(t.Context(), old.ID()); !ok || a.Step != 4 {
		t.Fatalf("the lecture's next move: %+v %v, want step 4 under the same id", a, ok)
	}
}

// Followers are bounded per lecture, per client address and across lectures.
// At a bound a newcomer takes the place of a follower from the address that
// holds the most, while that address would still hold at least as many: so a
// squatter who came first keeps only its share, and the evicted stream ends.
// (Every stream here shows a ticket of its own: places_test.go has those
// without.)
func TestBrokerBoundedFollowers(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 10)
	b.MaxFollowers, b.MaxPerAddr, b.MaxStreams = 4, 5, 7
	const squatter, student = "198.51.100.9", "192.0.2.7"
	one, two := started(t, b, at(sc, 2)).ID(), started(t, b, at(sc, 2)).ID()
	var squat []*Follower
	for i := range 4 {
		f, err := b.Subscribe(t.Context(), one, squatter, fmt.Sprint("squat", i))
		if err != nil {
			t.Fatal(err)
		}
		squat = append(squat, f)
	}
	for i := range 2 {
		if _, err := b.Subscribe(t.Context(), one, student, fmt.Sprint("student", i)); err != nil {
			t.Fatalf("student %d at a full lecture the squatter holds: %v, want a place", i+1, err)
		}
	}
	if _, err := b.Subscribe(t.Context(), one, student, "t3"); !errors.Is(err, ErrFull) {
		t.Fatalf("a third student when the squatter is down to 2: err=%v, want %v", err, ErrFull)
	}
	ended := 0
	for _, f := range squat {
		select {
		case <-f.gone:
			ended++
		default:
		}
	}
	if ended != 2 || b.Evicted.Load() != 2 {
		t.Fatalf("%d of the squatter's streams told to end (%d evicted), want 2", ended, b.Evicted.Load())
	}

	// The address bound holds whatever else has room; then the server's.
	if _, err := b.Subscribe(t.Context(), two, follower, "t-two"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Subscribe(t.Context(), two, squatter, "t4"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Subscribe(t.Context(), two, squatter, "t5"); err != nil { // 7 streams on the server, 4 from the squatter
		t.Fatal(err)
	}
	f, err := b.Subscribe(t.Context(), LectureID("x"), "198.51.100.2", "t6")
	if err != nil {
		t.Fatalf("a newcomer at the server's bound: %v, want the place of one of the squatter's", err)
	}
	if got := len(b.perAddr[squatter]); got != 3 {
		t.Fatalf("the squatter holds %d streams, want 3", got)
	}
	if _, err := b.Subscribe(t.Context(), LectureID("x"), "198.51.100.3", "t7"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Subscribe(t.Context(), LectureID("x"), "198.51.100.3", "t8"); !errors.Is(err, ErrFull) {
		t.Fatalf("the server full and nobody holding 2 more: err=%v, want %v", err, ErrFull)
	}
	b.Unsubscribe(f)
	if got, want := b.Streams(), 6; got != want {
		t.Fatalf("%d streams after one left, want %d", got, want)
	}
}

// A follow id with no move yet waits; its first move reaches the follower,
// and a lecture made only for waiting followers is gone when they leave.
func TestBrokerWaitingLecture(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 10)
	fid := LectureID("after a restart")
	f := subscribed(t, b, fid)
	if r, err := b.event(f.sess, "en"); r != nil || err != nil {
		t.Fatalf("event before the first move: %v %v, want none", r, err)
	}
	b.Publish(fid, at(sc, 5))
	if !woken(f) {
		t.Fatal("the waiting follower was not woken by the first move")
	}
	other := subscribed(t, b, LectureID("never moves"))
	b.Unsubscribe(other)
	if got := b.Len(); got != 1 {
		t.Fatalf("%d lectures, want 1: one made for a follower who left is forgotten", got)
	}
}

// slowRelay is a Redis that takes its time over each question, counting
// them.
type slowRelay struct {
	asked   atomic.Int64
	release chan struct{}
	at      At
}

func (r *slowRelay) Publish(context.Context, string, At, uint64, bool) (uint64, error) { return 0, nil }
func (r *slowRelay) Latest(ctx context.Context, fid string) (At, uint64, bool, error) {
	r.asked.Add(1)
	<-r.release
	return r.at, 41, true, nil
}

// A room opening the follow link at once on one replica costs one question
// to Redis, and every student gets its answer: the latest move with
// Redis's version, not a "waiting" page for those who came after the first.
func TestBrokerSharesLookups(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 10)
	relay := &slowRelay{release: make(chan struct{}), at: at(sc, 5)}
	b.relay = relay
	fid := LectureID("a lecture moving on another replica")
	var wg sync.WaitGroup
	var shown atomic.Int64
	for range 50 {
		wg.Go(func() {
			b.Seek(t.Context(), fid, func() (At, bool) { return at(sc, 3), true })
			if a, v, ok := b.Current(t.Context(), fid); ok && a.Step == 5 && v == 41 {
				shown.Add(1)
			}
		})
	}
	testkit.Eventually(t, 5*time.Second, "the first question to Redis", func() bool { return relay.asked.Load() > 0 })
	close(relay.release)
	wg.Wait()
	if got := relay.asked.Load(); got != 1 {
		t.Fatalf("%d questions to Redis for 50 students, want 1", got)
	}
	if got := shown.Load(); got != 50 {
		t.Fatalf("%d of 50 students shown Redis's frame 5 at version 41", got)
	}
}

// A follower arriving at a full lecture takes the place of a stream of the
// address holding the most, under the broker's lock, which the lecturer's
// every move needs too: the time of one such arrival, at a lecture of
// 2,000 streams from four addresses, the squatter's case.
func BenchmarkSubscribeAtCap(b *testing.B) {
	br, _ := testBroker(b, 10)
	br.MaxFollowers, br.MaxPerAddr, br.MaxStreams = 2000, 2000, 6000
	s := started(b, br, at(gcPause(b), 1))
	for i := range 2000 {
		if _, err := br.Subscribe(b.Context(), s.ID(), fmt.Sprintf("198.51.100.%d", i%4), ""); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := range b.N {
		f, err := br.Subscribe(b.Context(), s.ID(), fmt.Sprintf("203.0.113.%d", i%200), "")
		if err != nil {
			b.Fatal(err)
		}
		br.Unsubscribe(f)
		if _, err := br.Subscribe(b.Context(), s.ID(), fmt.Sprintf("198.51.100.%d", i%4), ""); err != nil {
			b.Fatal(err) // the squatter's place back, so every arrival finds the lecture full
		}
	}
}
