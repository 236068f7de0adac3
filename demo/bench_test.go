package demo_test

import (
	"testing"

	. "github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/demotest"
)

// BenchmarkReplay plays the chapter's scenario from scratch to its last
// frame: what the server does for a deep link or a run it has lost.
func BenchmarkReplay(b *testing.B) {
	sc, ok := demotest.Catalog(b).Get("gc-pause")
	if !ok {
		b.Fatal(`scenarios.yaml has no "gc-pause" scenario`)
	}
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
