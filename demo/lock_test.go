package demo

import (
	"fmt"
	"testing"
)

// The lock service's rules, one at a time. Each test drives a fresh service
// through the clock by hand, the way the chapter's prose walks through them.

// wantHolder fails unless the service reports holder with token. An empty
// holder means the lock is free, which always comes with token 0.
func wantHolder(tb testing.TB, s *LockService, holder string, token int64) {
	tb.Helper()
	gotHolder, gotToken := s.Holder()
	if gotHolder != holder || gotToken != token {
		tb.Fatalf("t=%d: Holder()=(%q, %d), want (%q, %d)", s.Now(), gotHolder, gotToken, holder, token)
	}
}

// mustAcquire takes the lock for client and returns the token, failing the
// test if the lock service refuses.
func mustAcquire(tb testing.TB, s *LockService, client string, lease int) int64 {
	tb.Helper()
	token, ok := s.Acquire(client, lease)
	if !ok {
		holder, _ := s.Holder()
		tb.Fatalf("t=%d: Acquire(%q, %d) refused; holder=%q", s.Now(), client, lease, holder)
	}
	return token
}

func TestNewIsFreeAtTimeZero(t *testing.T) {
	s := NewLockService()
	if got, want := s.Now(), 0; got != want {
		t.Fatalf("Now()=%d, want %d", got, want)
	}
	wantHolder(t, s, "", 0)
	if got, want := s.Expiry(), 0; got != want {
		t.Fatalf("Expiry()=%d, want %d", got, want)
	}
}

func TestTick(t *testing.T) {
	for _, tt := range []struct {
		name  string
		ticks []int
		want  int
	}{
		{"forward", []int{3}, 3},
		{"adds up", []int{2, 5, 1}, 8},
		{"zero does nothing", []int{0}, 0},
		{"negative does nothing", []int{4, -3}, 4},
		{"negative from zero does nothing", []int{-5}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := NewLockService()
			for _, d := range tt.ticks {
				s.Tick(d)
			}
			if got, want := s.Now(), tt.want; got != want {
				t.Fatalf("after Tick%v: Now()=%d, want %d", tt.ticks, got, want)
			}
		})
	}
}

// A negative tick must not turn the clock back, or a lease that has run out
// would come back to life.
func TestNegativeTickDoesNotReviveLease(t *testing.T) {
	s := NewLockService()
	mustAcquire(t, s, "A", 5)
	s.Tick(5)
	wantHolder(t, s, "", 0)
	s.Tick(-3)
	if got, want := s.Now(), 5; got != want {
		t.Fatalf("Now()=%d, want %d", got, want)
	}
	wantHolder(t, s, "", 0)
}

func TestAcquireFreeLock(t *testing.T) {
	s := NewLockService()
	s.Tick(4)
	token, ok := s.Acquire("A", 10)
	if !ok {
		t.Fatal("Acquire on a free lock refused")
	}
	if got, want := token, int64(1); got != want {
		t.Fatalf("first token=%d, want %d", got, want)
	}
	if got, want := s.Expiry(), 14; got != want {
		t.Fatalf("Expiry()=%d, want now+lease=%d", got, want)
	}
	wantHolder(t, s, "A", 1)
}

// A lease below 1 counts as 1, for Acquire and for Renew: a lock that expired
// the instant it was lent would not be a lock.
func TestLeaseBelowOneCountsAsOne(t *testing.T) {
	for _, lease := range []int{1, 0, -5} {
		t.Run(fmt.Sprintf("acquire %d", lease), func(t *testing.T) {
			s := NewLockService()
			s.Tick(7)
			mustAcquire(t, s, "A", lease)
			if got, want := s.Expiry(), 8; got != want {
				t.Fatalf("Acquire(A, %d) at t=7: Expiry()=%d, want %d", lease, got, want)
			}
			wantHolder(t, s, "A", 1)
			s.Tick(1)
			wantHolder(t, s, "", 0)
		})
		t.Run(fmt.Sprintf("renew %d", lease), func(t *testing.T) {
			s := NewLockService()
			mustAcquire(t, s, "A", 10)
			s.Tick(3)
			if !s.Renew("A", lease) {
				t.Fatalf("Renew(A, %d) by the holder refused", lease)
			}
			if got, want := s.Expiry(), 4; got != want {
				t.Fatalf("Renew(A, %d) at t=3: Expiry()=%d, want %d", lease, got, want)
			}
		})
	}
}

// The lease is over at the instant now == expiry, not one tick later.
func TestLeaseExpiresExactlyAtExpiry(t *testing.T) {
	s := NewLockService()
	mustAcquire(t, s, "A", 10)
	s.Tick(9)
	wantHolder(t, s, "A", 1) // t=9: expiry-1, still held
	s.Tick(1)
	wantHolder(t, s, "", 0) // t=10: expiry, gone
	if got, want := s.Expiry(), 10; got != want {
		t.Fatalf("Expiry()=%d, want the last lease's %d", got, want)
	}
	// At the instant of expiry someone else can take it.
	if got, want := mustAcquire(t, s, "B", 10), int64(2); got != want {
		t.Fatalf("B's token=%d, want %d", got, want)
	}
}

func TestAcquireWhileHeld(t *testing.T) {
	for _, client := range []string{"B", "A"} { // another client, and the holder itself
		t.Run(client, func(t *testing.T) {
			s := NewLockService()
			mustAcquire(t, s, "A", 10)
			s.Tick(9)
			token, ok := s.Acquire(client, 10)
			if got, want := token, int64(0); ok || got != want {
				t.Fatalf("Acquire(%q) while A holds: (%d, %v), want (0, false)", client, token, ok)
			}
			// The refusal changes nothing: same holder, same token, same lease.
			wantHolder(t, s, "A", 1)
			if got, want := s.Expiry(), 10; got != want {
				t.Fatalf("Expiry()=%d, want %d", got, want)
			}
			// And it used up no token: the next one issued is still 2.
			s.Tick(1)
			if got, want := mustAcquire(t, s, client, 10), int64(2); got != want {
				t.Fatalf("token after a refused Acquire=%d, want %d", got, want)
			}
		})
	}
}

// Every acquisition issues a larger token than the last, however the previous
// holding ended. That is what later tells an old holder from a new one.
func TestTokensStrictlyIncrease(t *testing.T) {
	s := NewLockService()
	var last int64
	next := func(how, client string) {
		t.Helper()
		token := mustAcquire(t, s, client, 5)
		if token <= last {
			t.Fatalf("%s: token=%d, want more than the previous %d", how, token, last)
		}
		last = token
	}
	next("first acquisition", "A")
	s.Tick(5)
	next("after A's lease expired, by B", "B")
	s.Release("B")
	next("after B released, by A", "A")
	s.Tick(5)
	next("after expiry, by the same client", "A")
	s.Release("A")
	next("after release, by the same client", "A")
	if got, want := last, int64(5); got != want {
		t.Fatalf("fifth token=%d, want %d", got, want)
	}
}

// Renewing is the same holding made longer: the token stays the same.
func TestRenewKeepsToken(t *testing.T) {
	s := NewLockService()
	s.Tick(1)
	mustAcquire(t, s, "A", 10) // token 1, until t=11
	s.Tick(8)
	if !s.Renew("A", 10) {
		t.Fatal("Renew by the holder refused")
	}
	if got, want := s.Expiry(), 19; got != want {
		t.Fatalf("Expiry() after Renew at t=9=%d, want %d", got, want)
	}
	wantHolder(t, s, "A", 1)
	s.Tick(9) // t=18: past the first lease, inside the renewed one
	wantHolder(t, s, "A", 1)
	s.Tick(1) // t=19: the renewed lease runs out
	wantHolder(t, s, "", 0)
}

func TestRenewRefused(t *testing.T) {
	for _, tt := range []struct {
		name   string
		setup  func(s *LockService)
		client string
		holder string // who holds the lock afterwards
		token  int64
	}{
		{
			name:   "free lock",
			setup:  func(s *LockService) {},
			client: "A",
		},
		{
			name:   "non-holder",
			setup:  func(s *LockService) { s.Acquire("A", 10); s.Tick(3) },
			client: "B",
			holder: "A", token: 1,
		},
		{
			name:   "after expiry",
			setup:  func(s *LockService) { s.Acquire("A", 10); s.Tick(10) },
			client: "A",
		},
		{
			name:   "after release",
			setup:  func(s *LockService) { s.Acquire("A", 10); s.Release("A") },
			client: "A",
		},
		{
			name: "old holder after someone else took over",
			setup: func(s *LockService) {
				s.Acquire("A", 10)
				s.Tick(12)
				s.Acquire("B", 10)
			},
			client: "A",
			holder: "B", token: 2,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := NewLockService()
			tt.setup(s)
			expiry := s.Expiry()
			if s.Renew(tt.client, 50) {
				t.Fatalf("Renew(%q) returned true", tt.client)
			}
			wantHolder(t, s, tt.holder, tt.token)
			if got, want := s.Expiry(), expiry; got != want {
				t.Fatalf("a refused Renew moved Expiry() from %d to %d", want, got)
			}
		})
	}
}

func TestRelease(t *testing.T) {
	s := NewLockService()
	mustAcquire(t, s, "A", 10)
	s.Tick(2)
	s.Release("A")
	wantHolder(t, s, "", 0)
	if got, want := mustAcquire(t, s, "B", 10), int64(2); got != want {
		t.Fatalf("B's token after A released=%d, want %d", got, want)
	}
}

// A client must never free a lock it does not hold.
func TestReleaseByNonHolderDoesNothing(t *testing.T) {
	for _, client := range []string{"B", "", "a"} {
		t.Run(client, func(t *testing.T) {
			s := NewLockService()
			mustAcquire(t, s, "A", 10)
			s.Tick(3)
			s.Release(client)
			wantHolder(t, s, "A", 1)
			if got, want := s.Expiry(), 10; got != want {
				t.Fatalf("Expiry()=%d, want %d", got, want)
			}
			if _, ok := s.Acquire("C", 10); ok {
				t.Fatal("Acquire succeeded after a non-holder's Release")
			}
		})
	}
}

// The old holder whose lease ran out cannot release the new holder's lock.
func TestReleaseByOldHolderAfterTakeover(t *testing.T) {
	s := NewLockService()
	mustAcquire(t, s, "A", 10)
	s.Tick(10)
	mustAcquire(t, s, "B", 10)
	s.Release("A")
	wantHolder(t, s, "B", 2)
}

func TestReleaseOfFreeLock(t *testing.T) {
	s := NewLockService()
	s.Release("A")
	wantHolder(t, s, "", 0)
	if got, want := mustAcquire(t, s, "A", 1), int64(1); got != want {
		t.Fatalf("token=%d, want %d", got, want)
	}
}
