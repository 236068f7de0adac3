package demo_test

import (
	. "github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/lockservice"
	"github.com/distlock/fencing-demo/internal/testkit"
	"reflect"
	"testing"
)

// The space-time diagram of the chapter, in model terms: A's lease [0,10]
// closed by expiry, B's lease open from 11 and running until 21, A paused over
// [3,15], and the three writes with their outcomes.
func TestGCPauseTimeline(t *testing.T) {
	for _, tt := range []struct {
		on   bool
		last Kind // A's late write
	}{
		{true, Rejected},
		{false, Accepted},
	} {
		t.Run("fencing-"+OnOff(tt.on), func(t *testing.T) {
			f := testkit.LastFrame(t, "gc-pause", tt.on)
			tl := f.Timeline()

			if got, want := tl.Now, 16; got != want {
				t.Fatalf("Now=%d, want %d", got, want)
			}
			wantHolds := []Span{
				{Lane: "A", Owner: "A", From: 0, To: 10, Open: false, Token: 1, Until: 10},
				{Lane: "B", Owner: "B", From: 11, To: 16, Open: true, Token: 2, Until: 21},
			}
			if got := tl.Holds; !reflect.DeepEqual(got, wantHolds) {
				t.Fatalf("Holds=\n%+v\nwant\n%+v", got, wantHolds)
			}
			wantLocks := []Span{
				{Lane: "", Owner: "A", From: 0, To: 10, Open: false, Token: 1, Until: 10},
				{Lane: "", Owner: "B", From: 11, To: 16, Open: true, Token: 2, Until: 21},
			}
			if got := tl.Locks; !reflect.DeepEqual(got, wantLocks) {
				t.Fatalf("Locks=\n%+v\nwant\n%+v", got, wantLocks)
			}
			wantPauses := []Span{{Lane: "A", Owner: "A", From: 3, To: 15}}
			if got := tl.Pauses; !reflect.DeepEqual(got, wantPauses) {
				t.Fatalf("Pauses=%+v, want %+v", got, wantPauses)
			}

			type writeSeen struct {
				At     int
				Client string
				Token  int64
				Value  string
				Kind   Kind
			}
			wantWrites := []writeSeen{
				{2, "A", 1, "A", Accepted},
				{12, "B", 2, "B", Accepted},
				{16, "A", 1, "A", tt.last},
			}
			var gotWrites []writeSeen
			for _, e := range tl.Writes {
				gotWrites = append(gotWrites, writeSeen{e.At, e.Client, e.Token, e.Value, e.Kind()})
			}
			if !reflect.DeepEqual(gotWrites, wantWrites) {
				t.Fatalf("Writes=\n%+v\nwant\n%+v", gotWrites, wantWrites)
			}

			if got, want := len(tl.Marks), 1; got != want {
				t.Fatalf("len(Marks)=%d, want %d", got, want)
			}
			if m := tl.Marks[0]; m.What != "expiry" || m.At != 10 || m.Lane != "" {
				t.Fatalf("Marks[0]=%+v, want the lease running out at t=10 on the lock service's lane", m)
			}
		})
	}
}

// Before anything happens the diagram is empty and ends now.
func TestTimelineOfFirstFrame(t *testing.T) {
	sc, ok := testkit.Catalog(t).Get("gc-pause")
	if !ok {
		t.Fatal("scenarios.yaml has no gc-pause scenario")
	}
	f := NewRun(sc, true).Frame()
	tl := f.Timeline()
	if tl.Now != 0 || len(tl.Holds)+len(tl.Locks)+len(tl.Pauses)+len(tl.Writes)+len(tl.Marks) != 0 {
		t.Fatalf("Timeline()=%+v, want an empty diagram at t=0", tl)
	}
	if got := f.Latest(); got != nil {
		t.Fatalf("Latest()=%+v at the first frame, want none", got)
	}
}

// Latest is the events of the move that led to the frame, and only those.
func TestFrameLatest(t *testing.T) {
	sc, ok := testkit.Catalog(t).Get("gc-pause")
	if !ok {
		t.Fatal("scenarios.yaml has no gc-pause scenario")
	}
	r, err := Replay(sc, true, 4) // the lease expires
	if err != nil {
		t.Fatal(err)
	}
	f := r.Frame()
	latest := f.Latest()
	if got, want := len(latest), 1; got != want {
		t.Fatalf("len(Latest())=%d, want %d: %+v", got, want, latest)
	}
	if e, ok := latest[0].(lockservice.LeaseExpiry); !ok || e.Frame != 4 || e.At != 10 || e.Client != "A" {
		t.Fatalf("Latest()[0]=%+v, want A's lease expiring at t=10 in frame 4", e)
	}
	if got, want := len(f.Events), 4; got != want { // acquired, write, paused, expired
		t.Fatalf("len(Events)=%d, want %d", got, want)
	}
}

// A frame is a copy: the run moving on does not change a frame already taken.
func TestFrameIsACopy(t *testing.T) {
	sc, ok := testkit.Catalog(t).Get("gc-pause")
	if !ok {
		t.Fatal("scenarios.yaml has no gc-pause scenario")
	}
	r := NewRun(sc, true)
	r.Step()
	before := r.Frame()
	kept := r.Frame()
	for r.Step() {
	}
	if !reflect.DeepEqual(kept, before) {
		t.Fatalf("a frame changed after the run moved on:\n%+v\nwas\n%+v", kept, before)
	}
}

// Horizon, worked out by Load, keeps one scale for the whole scenario: no
// frame's diagram reaches past it, in either switch position.
func TestHorizonCoversEveryFrame(t *testing.T) {
	c := testkit.Catalog(t)
	for _, sc := range c.Scenarios {
		for _, on := range []bool{true, false} {
			t.Run(testkit.Name(sc, on), func(t *testing.T) {
				r := NewRun(sc, on)
				for {
					f := r.Frame()
					if end := f.Now; end > sc.Horizon {
						t.Fatalf("frame %d: Now=%d is past Horizon=%d", f.Index, end, sc.Horizon)
					}
					if !r.Step() {
						break
					}
				}
			})
		}
	}
	sc, ok := c.Get("gc-pause")
	if !ok {
		t.Fatal("scenarios.yaml has no gc-pause scenario")
	}
	if got, want := sc.Horizon, 16; got != want { // A writes at t=16, the last frame
		t.Fatalf("gc-pause Horizon=%d, want %d, the time of its last frame", got, want)
	}
}
