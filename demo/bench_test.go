package demo_test

import (
	"fmt"
	"testing"

	. "github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// BenchmarkReplay plays the chapter's scenario from scratch to its last
// frame: what the server does for a deep link or a run it has lost.
func BenchmarkReplay(b *testing.B) {
	benchReplay(b, testkit.Scenario(b, "gc-pause"))
}

// BenchmarkReplay200 plays generated 200-frame scenarios, one per store
// family: Replay must stay linear in the frames (under 1 ms for 200).
func BenchmarkReplay200(b *testing.B) {
	b.Run("lockservice", func(b *testing.B) {
		benchReplay(b, long(b, "lockservice", []string{
			"A acquire 10", "tick 2", "A write a", "A pause", "tick 10", "B acquire 10",
			"B write b", "A resume", "A write a", "B release",
		}))
	})
	b.Run("redlock", func(b *testing.B) {
		benchReplay(b, long(b, "redlock", []string{
			"A redlock lock:k px 1000", "A write a", "tick 500", "B redlock lock:k px 1000",
			"A redlock-unlock lock:k", "redis4 down", "B redlock lock:k px 1000", "B write b",
			"B redlock-unlock lock:k", "redis4 up",
		}))
	})
}

// long makes a 200-frame scenario on store that plays moves round and round,
// one action per move.
func long(tb testing.TB, store string, moves []string) *Scenario {
	tb.Helper()
	do := make([]string, 199)
	for i := range do {
		do[i] = moves[i%len(moves)]
	}
	src := testkit.YAML("long", do[0])
	for _, a := range do[1:] {
		src += fmt.Sprintf("      - title: {ja: 一手, en: One move}\n        text: {ja: 本文, en: Text}\n        do: [%q]\n", a)
	}
	if store != "lockservice" {
		src = testkit.OnStore(tb, store, src)
	}
	c, err := script.Load("long.yaml", []byte(testkit.File(src)))
	if err != nil {
		tb.Fatal(err)
	}
	sc := c.Scenarios[0]
	if got, want := sc.Frames(), 200; got != want {
		tb.Fatalf("Frames()=%d, want %d", got, want)
	}
	return sc
}

func benchReplay(b *testing.B, sc *Scenario) {
	b.ReportAllocs()
	for b.Loop() {
		r, err := Replay(sc, true, sc.Frames())
		if err != nil {
			b.Fatal(err)
		}
		if got, want := r.Index(), sc.Frames(); got != want {
			b.Fatalf("Replay stopped at frame %d, want %d", got, want)
		}
	}
}
