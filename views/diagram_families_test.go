package views

import (
	"strconv"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/eventlog"
	"github.com/distlock/fencing-demo/demo/partition"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// The diagrams of the families that need no lock draw what their verdicts
// name, in every frame of both positions: every client has its lane, each
// write (a worker's with its epoch, a handler's write-back, the consumer's
// apply) is a mark on the resource's lane, a write a finding names is
// marked as one (not ✓), and single-owner's coordinator lane shows the
// partition moving to W2 with the epoch it bumped.
func TestDiagramDrawsWhatItsVerdictNames(t *testing.T) {
	catalog := testkit.Catalog(t)
	for _, id := range []string{"single-owner", "event-log"} {
		sc, ok := catalog.Get(id)
		if !ok {
			t.Fatalf("scenario %s is missing", id)
		}
		for _, on := range []bool{false, true} {
			for k := 1; k <= sc.Frames(); k++ {
				r, err := demo.Replay(sc, on, k)
				if err != nil {
					t.Fatal(err)
				}
				f := r.Frame()
				d := NewDiagram("en", f)
				where := sc.ID + " " + demo.OnOff(on) + " frame " + strconv.Itoa(k)
				writes := 0
				for _, e := range f.Events {
					switch e.(type) {
					case partition.Produced, eventlog.PutBalance, eventlog.AppliedEvent:
						writes++
					}
				}
				var marks []Mark
				for _, m := range d.Marks {
					if strings.HasPrefix(m.Class, "write") {
						marks = append(marks, m)
					}
				}
				if len(marks) != writes {
					t.Errorf("%s: %d writes drawn, want the frame's %d", where, len(marks), writes)
				}
				x := func(at int) int { l := &drawing{d: d, horizon: horizonOf(sc)}; return l.x(at) }
				for _, v := range f.Violations {
					named := false
					for _, m := range marks {
						named = named || m.X == x(v.At) && m.Glyph != "✓"
					}
					if !named && v.Client != "" && hasWriteAt(f, v.Client, v.At) {
						t.Errorf("%s: the finding %s names %s's write at %d, drawn as none or as ✓", where, v.Kind, v.Client, v.At)
					}
				}
				lanes := map[string]bool{}
				for _, l := range d.Lanes {
					lanes[l.Label] = true
				}
				for _, c := range sc.Clients {
					if !lanes[c] {
						t.Errorf("%s: client %s has no lane (lanes %v)", where, c, d.Lanes)
					}
				}
				if id == "single-owner" && k == sc.Frames() {
					moved := false
					for _, b := range d.Bars {
						moved = moved || strings.Contains(b.Class, "held") && b.Label.Label == "W2 · 2"
					}
					if !moved {
						t.Errorf("%s: the coordinator's lane does not show the partition moving to W2 at epoch 2", where)
					}
				}
			}
		}
	}
}

// hasWriteAt reports whether client wrote at at in f.
func hasWriteAt(f demo.Frame, client string, at int) bool {
	for _, e := range f.Events {
		switch e := e.(type) {
		case partition.Produced:
			if e.Client == client && e.At == at {
				return true
			}
		case eventlog.PutBalance:
			if e.Client == client && e.At == at {
				return true
			}
		}
	}
	return false
}
