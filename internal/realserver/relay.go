package realserver

import (
	"io"
	"net"
	"sync"
	"testing"
)

// Relay forwards TCP connections from its own loopback port to a target, and
// lets a test play the network: Hold keeps what the target sends back from
// reaching the other side (a replication stream in flight), Release delivers
// it, and when the target's side closes while bytes are held, they are lost
// with it, as bytes in flight are when a server dies.
type Relay struct {
	tb     testing.TB
	ln     net.Listener
	target string

	mu    sync.Mutex
	held  bool
	links []*link
}

type link struct {
	client, server net.Conn
	pending        []byte // held bytes from server to client
}

// NewRelay starts a relay to target; it is closed when the test ends.
func NewRelay(tb testing.TB, target string) *Relay {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	r := &Relay{tb: tb, ln: ln, target: target}
	go r.accept()
	tb.Cleanup(r.Close)
	return r
}

// Addr is where to connect instead of the target.
func (r *Relay) Addr() string { return r.ln.Addr().String() }

func (r *Relay) accept() {
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", r.target)
		if err != nil {
			c.Close()
			continue
		}
		l := &link{client: c, server: s}
		r.mu.Lock()
		r.links = append(r.links, l)
		r.mu.Unlock()
		go func() { _, _ = io.Copy(s, c); s.Close() }()
		go r.back(l)
	}
}

// back copies what the server sends, or holds it.
func (r *Relay) back(l *link) {
	buf := make([]byte, 32<<10)
	for {
		n, err := l.server.Read(buf)
		r.mu.Lock()
		if n > 0 {
			if r.held {
				l.pending = append(l.pending, buf[:n]...)
			} else if _, werr := l.client.Write(buf[:n]); werr != nil {
				err = werr
			}
		}
		if err != nil {
			l.pending = nil // in flight when the server went: lost
			l.client.Close()
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
	}
}

// Hold keeps from now on whatever the target sends.
func (r *Relay) Hold() {
	r.mu.Lock()
	r.held = true
	r.mu.Unlock()
}

// Release delivers what was held and lets traffic flow again.
func (r *Relay) Release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.held = false
	for _, l := range r.links {
		if len(l.pending) > 0 {
			_, _ = l.client.Write(l.pending)
			l.pending = nil
		}
	}
}

// Close stops the relay and drops every connection through it.
func (r *Relay) Close() {
	r.ln.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range r.links {
		l.client.Close()
		l.server.Close()
	}
	r.links = nil
}

// Blackhole is a loopback port that accepts connections and never answers:
// what a client sees of a node when the network drops its packets. Its
// connections and listener close when the test ends.
func Blackhole(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go func() { _, _ = io.Copy(io.Discard, c) }()
		}
	}()
	tb.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}
