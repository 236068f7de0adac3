package follow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/realserver"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// join subscribes n followers from addr to fid, each with a ticket of its
// own when seated, and fails the test at the first refusal.
func join(tb testing.TB, b *Broker, fid, addr string, n int, seated bool) []*Follower {
	tb.Helper()
	var fs []*Follower
	for i := range n {
		ticket := ""
		if seated {
			ticket = fmt.Sprintf("%s#%d", addr, i)
		}
		f, err := b.Subscribe(tb.Context(), fid, addr, ticket)
		if err != nil {
			tb.Fatalf("follower %d of %s (seated %v): %v", i+1, addr, seated, err)
		}
		fs = append(fs, f)
	}
	return fs
}

// held counts the followers of fs still in place.
func held(fs []*Follower) int {
	n := 0
	for _, f := range fs {
		select {
		case <-f.gone:
		default:
			n++
		}
	}
	return n
}

// An address may hold only a tenth of its places with streams that show no
// ticket; with one, a stream takes its place all the same.
func TestPlacesStandingBound(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 10)
	b.MaxFollowers, b.MaxPerAddr, b.MaxStreams = 100, 30, 1000
	fid := started(t, b, at(sc, 2)).ID()
	join(t, b, fid, "198.51.100.1", 3, false)
	if _, err := b.Subscribe(t.Context(), fid, "198.51.100.1", ""); !errors.Is(err, ErrAddrFull) {
		t.Fatalf("a fourth stream without a ticket from an address of 30 places: %v, want ErrAddrFull", err)
	}
	join(t, b, fid, "198.51.100.1", 27, true)
}

// A lecture full of streams that showed no ticket (a script that never
// read the follow page) makes room for every follower who did, however
// many addresses the script has; a stream without a ticket never takes a
// seated follower's place.
func TestPlacesSeatedBeforeStanding(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 10)
	b.MaxFollowers, b.MaxPerAddr, b.MaxStreams = 100, 100, 1000 // 10 streams without a ticket an address
	fid := started(t, b, at(sc, 2)).ID()
	var squat []*Follower
	for a := range 10 {
		squat = append(squat, join(t, b, fid, fmt.Sprintf("198.51.100.%d", a), 10, false)...)
	}
	nat := join(t, b, fid, "192.0.2.1", 60, true) // a class behind one school NAT
	var singles []*Follower
	for a := range 40 {
		singles = append(singles, join(t, b, fid, fmt.Sprintf("203.0.113.%d", a), 1, true)...)
	}
	if got := held(nat) + held(singles); got != 100 {
		t.Fatalf("%d of 100 students hold a place, want all", got)
	}
	if got := held(squat); got != 0 {
		t.Fatalf("the squatter still holds %d places, want none", got)
	}
	if _, err := b.Subscribe(t.Context(), fid, "198.51.100.99", ""); !errors.Is(err, ErrRoomFull) {
		t.Fatalf("a stream without a ticket at a lecture full of seated students: %v, want ErrRoomFull", err)
	}
}

// Among seated followers places are shared max-min: a class of 30 behind
// one address keeps all 30 against ten addresses that each ask for more,
// and each of those is cut down to what the room has left; the one refused
// is an address that holds as many as the heaviest.
func TestPlacesMaxMinBetweenAddresses(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 10)
	b.MaxFollowers, b.MaxPerAddr, b.MaxStreams = 380, 60, 1000
	fid := started(t, b, at(sc, 2)).ID()
	hostile := map[string][]*Follower{}
	for a := range 10 {
		addr := fmt.Sprintf("198.51.100.%d", a)
		hostile[addr] = join(t, b, fid, addr, 38, true)
	}
	nat := join(t, b, fid, "192.0.2.1", 30, true)
	var singles []*Follower
	for a := range 20 {
		singles = append(singles, join(t, b, fid, fmt.Sprintf("203.0.113.%d", a), 1, true)...)
	}
	if got := held(nat) + held(singles); got != 50 {
		t.Fatalf("%d of 50 students hold a place, want all", got)
	}
	for addr, fs := range hostile {
		if got := held(fs); got != 33 {
			t.Errorf("%s holds %d places, want 33: (380 - 50) / 10", addr, got)
		}
	}
	// A hostile address asking for one more holds as many as the heaviest.
	if _, err := b.Subscribe(t.Context(), fid, "198.51.100.0", "another"); !errors.Is(err, ErrRoomFull) {
		t.Fatalf("one more from a hostile address: %v, want ErrRoomFull", err)
	}
}

// The same ticket again (a phone whose old connection has not timed out
// yet, a second tab) holds the seat, and the older stream stands; at a
// full lecture the newer takes the older's place rather than anyone else's.
func TestPlacesSameTicket(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 10)
	b.MaxFollowers, b.MaxPerAddr, b.MaxStreams = 2, 10, 10
	fid := started(t, b, at(sc, 2)).ID()
	other := join(t, b, fid, "203.0.113.1", 1, true)
	old, err := b.Subscribe(t.Context(), fid, "192.0.2.1", "t1")
	if err != nil {
		t.Fatal(err)
	}
	again, err := b.Subscribe(t.Context(), fid, "192.0.2.1", "t1")
	if err != nil {
		t.Fatalf("the same ticket at a full lecture: %v, want its old stream's place", err)
	}
	if held([]*Follower{old}) != 0 || held(other) != 1 || held([]*Follower{again}) != 1 {
		t.Fatal("want the old stream of the ticket gone, the newer and the other student in place")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !again.seated || b.seated.of("192.0.2.1") != 1 || b.standing.len() != 0 {
		t.Fatalf("seated %v, seated from the address %d, standing addresses %d; want 1 seat and nobody standing", again.seated, b.seated.of("192.0.2.1"), b.standing.len())
	}
}

func TestTally(t *testing.T) {
	ta := newTally()
	for _, s := range []struct {
		addr string
		d    int
	}{{"a", 1}, {"b", 1}, {"b", 1}, {"c", 1}, {"b", -1}, {"b", -1}, {"a", 1}, {"a", 1}} {
		ta.add(s.addr, s.d)
	}
	if top, n := ta.heaviest(""); top != "a" || n != 3 {
		t.Fatalf("heaviest %q with %d, want a with 3", top, n)
	}
	if top, n := ta.heaviest("a"); top != "c" || n != 1 {
		t.Fatalf("heaviest but a: %q with %d, want c with 1", top, n)
	}
	if ta.len() != 2 || ta.of("b") != 0 {
		t.Fatalf("%d addresses, b holds %d; want 2 and 0", ta.len(), ta.of("b"))
	}
}

// sharedBroker is a replica's broker on the Redis at addr, with its relay
// running until the returned stop (without saying it leaves, as a replica
// killed with SIGKILL).
func sharedBroker(t *testing.T, addr string, perAddr int) (*Broker, func()) {
	t.Helper()
	sc := gcPause(t)
	r, err := NewRedis("redis://"+addr+"/0", time.Hour, func(id string) (*demo.Scenario, bool) { return sc, id == sc.ID })
	if err != nil {
		t.Fatal(err)
	}
	b, _ := testBroker(t, 10)
	b.MaxPerAddr = perAddr
	ctx, cancel := context.WithCancel(context.Background())
	b.UseRelay(ctx, r, slog.New(slog.NewTextHandler(io.Discard, nil)))
	stop := func() { cancel(); r.Close() }
	t.Cleanup(stop)
	return b, stop
}

// An address's places hold across replicas, and the places of a replica
// that dies with its streams open (no goodbye: SIGKILL) come free within
// seconds, not when some lease runs out; a replica that stops in order
// gives them back at once.
func TestSharedPlacesOfADeadReplica(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server: not with -short")
	}
	rd := realserver.StartRedis(t, "places")
	a, killA := sharedBroker(t, rd.Addr(), 3)
	b, _ := sharedBroker(t, rd.Addr(), 3)
	sc := gcPause(t)
	fid := LectureID("shared places")
	a.Open(fid, at(sc, 2))
	b.Open(fid, at(sc, 2))
	join(t, a, fid, "192.0.2.1", 2, true)
	join(t, b, fid, "192.0.2.1", 1, true)
	if _, err := b.Subscribe(t.Context(), fid, "192.0.2.1", "t9"); !errors.Is(err, ErrAddrFull) {
		t.Fatalf("a fourth stream from the address on the other replica: %v, want ErrAddrFull", err)
	}
	killed := time.Now()
	killA()
	testkit.Eventually(t, aliveFor+5*time.Second, "the dead replica's places free", func() bool {
		f, err := b.Subscribe(t.Context(), fid, "192.0.2.1", "t10")
		return err == nil && f != nil
	})
	if d := time.Since(killed); d > aliveFor+2*time.Second {
		t.Errorf("the dead replica's places came free after %v, want within about %v", d, aliveFor)
	}
}

// While Redis does not answer, each replica allows an address its share of
// the bound (over the replicas alive at the last count), never the whole
// bound on each: with two replicas and a bound of 4, two streams here.
func TestSharedPlacesWithoutRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server: not with -short")
	}
	rd := realserver.StartRedis(t, "places-down")
	a, _ := sharedBroker(t, rd.Addr(), 4)
	sharedBroker(t, rd.Addr(), 4)
	testkit.Eventually(t, 5*time.Second, "two replicas counted alive", func() bool { return a.shared.Replicas() == 2 })
	rd.Stop()
	sc := gcPause(t)
	fid := LectureID("redis away")
	a.Open(fid, at(sc, 2))
	join(t, a, fid, "192.0.2.1", 2, true)
	if _, err := a.Subscribe(t.Context(), fid, "192.0.2.1", "t3"); !errors.Is(err, ErrAddrFull) {
		t.Fatalf("a third stream from the address while Redis is away: %v, want ErrAddrFull (its share is 2)", err)
	}
}

// With replicas the room is the lecture's places on all of them: a student
// with a ticket at a replica whose share is full (the balancer sent it
// most of the room) takes a place while the others have room, and is
// refused once the room as a whole is full; a stream without a ticket
// keeps to the replica's share.
func TestSharedRoom(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server: not with -short")
	}
	rd := realserver.StartRedis(t, "room")
	a, _ := sharedBroker(t, rd.Addr(), 100)
	b, _ := sharedBroker(t, rd.Addr(), 100)
	testkit.Eventually(t, 5*time.Second, "two replicas counted alive", func() bool { return a.shared.Replicas() == 2 })
	a.MaxFollowers, b.MaxFollowers = 3, 3
	sc := gcPause(t)
	fid := LectureID("uneven room")
	a.Open(fid, at(sc, 2))
	b.Open(fid, at(sc, 2))
	var singles []*Follower
	for i := range 3 {
		singles = append(singles, join(t, a, fid, fmt.Sprint("203.0.113.", i), 1, true)...)
	}
	if _, err := a.Subscribe(t.Context(), fid, "198.51.100.1", ""); !errors.Is(err, ErrRoomFull) {
		t.Fatalf("a stream without a ticket past the replica's share: %v, want ErrRoomFull", err)
	}
	nat := join(t, a, fid, "192.0.2.1", 3, true) // the room of 6 has 3 on A: three more seated on A
	if got := held(singles) + held(nat); got != 6 {
		t.Fatalf("%d of 6 seated on A hold their place, want every one: the room had room, nobody's place was taken", got)
	}
	if _, err := a.Subscribe(t.Context(), fid, "192.0.2.1", "t"); !errors.Is(err, ErrRoomFull) {
		t.Fatalf("a seated student of the heaviest address when the room of 6 holds 6: %v, want ErrRoomFull", err)
	}
}
