package web

import (
	"context"
	"testing"
	"time"
)

// waitFor enters g for addr in the background, returning a channel that
// gets the slot's leave func once it is given, or nil if turned away.
func waitFor(g *gate, addr string) <-chan func() {
	got := make(chan func(), 1)
	go func() {
		leave, _, ok := g.enter(context.Background(), addr)
		if !ok {
			leave = nil
		}
		got <- leave
	}()
	return got
}

// queued waits until n requests wait at g.
func queued(t *testing.T, g *gate, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		g.mu.Lock()
		q := g.queued
		g.mu.Unlock()
		if q == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d requests waiting, want %d", q, n)
		}
		time.Sleep(time.Millisecond) // the waiters' own goroutines: nothing to wait on
	}
}

// A slot that comes free goes to the waiting address that used the least
// slot time lately, not to the one that asked first: a student asking once
// goes before an address that keeps asking, however early it queued.
func TestGateServesTheLightestFirst(t *testing.T) {
	g := newGate(1)
	g.wait = time.Minute
	leave, _, _ := g.enter(t.Context(), "198.51.100.1")
	heavy := waitFor(g, "198.51.100.1") // queued first, and holding the slot now
	queued(t, g, 1)
	light := waitFor(g, "192.0.2.7")
	queued(t, g, 2)
	time.Sleep(5 * time.Millisecond) // some slot time for the heavy address to be charged with
	leave()
	next := <-light
	if next == nil {
		t.Fatal("the student was turned away")
	}
	select {
	case <-heavy:
		t.Fatal("the heavy address got the slot while the student held it")
	default:
	}
	next()
	if again := <-heavy; again == nil {
		t.Fatal("the heavy address never got its turn")
	} else {
		again()
	}
}

// An address may have only so many waiting, and a wait ends: both turned
// away with how long to wait, at least a second.
func TestGateBounds(t *testing.T) {
	g := newGate(1)
	g.wait = 20 * time.Millisecond
	leave, _, _ := g.enter(t.Context(), "192.0.2.1")
	if _, retry, ok := g.enter(t.Context(), "192.0.2.2"); ok || retry < time.Second {
		t.Fatalf("a request past the wait: ok %v, retry %v; want turned away, at least 1 s", ok, retry)
	}
	g.wait = time.Minute
	served := make(chan func(), gatePerAddr)
	for range gatePerAddr {
		go func() {
			if next, _, ok := g.enter(context.Background(), "198.51.100.9"); ok {
				served <- next
			}
		}()
	}
	queued(t, g, gatePerAddr)
	if _, retry, ok := g.enter(t.Context(), "198.51.100.9"); ok || retry < time.Second {
		t.Fatalf("one more from an address with %d waiting: ok %v, retry %v; want turned away at once", gatePerAddr, ok, retry)
	}
	leave()
	for range gatePerAddr { // each waiter in turn, as the one before it leaves
		(<-served)()
	}
}
