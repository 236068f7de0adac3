package views

import (
	"strconv"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// The calls chart's time axis fits the calls of its position: in every
// scripted frame of each backoff scenario, both positions, every bar
// stands on the axis, the position's last call ends in the axis's last
// tenth, and the axis is the same in every frame of the position (a step
// moves no bar). With jitter the twenty clients are done in about 400 ms,
// and the axis is not the 3.7 s the herd needs.
func TestChartAxisFitsItsCalls(t *testing.T) {
	for _, sc := range testkit.Catalog(t).Scenarios {
		if sc.Family.Name != "backoff" {
			continue
		}
		for _, on := range []bool{false, true} {
			var ticks string
			for k := 1; k <= sc.Frames(); k++ {
				r, err := demo.Replay(sc, on, k)
				if err != nil {
					t.Fatal(err)
				}
				f := r.Frame()
				c := NewChart(f)
				where := sc.ID + " " + demo.OnOff(on) + " frame " + strconv.Itoa(k)
				axis := ""
				for _, tk := range c.Ticks {
					axis += tk.X + ":" + tk.Label + " "
				}
				if k == 1 {
					ticks = axis
				} else if axis != ticks {
					t.Errorf("%s: the axis moved: %s, was %s", where, axis, ticks)
				}
				right := 0.0
				for _, b := range c.Bars {
					x, _ := strconv.ParseFloat(b.X, 64)
					w, _ := strconv.ParseFloat(b.W, 64)
					if x < float64(c.Left) || x+w > float64(c.Right)+0.5 {
						t.Errorf("%s: a bar at %.1f..%.1f is off the axis (%d..%d)", where, x, x+w, c.Left, c.Right)
					}
					right = max(right, x+w)
				}
				if k == sc.Frames() && right < float64(c.Left)+0.9*float64(c.Right-c.Left) {
					t.Errorf("%s: the last call ends at x=%.0f, short of the axis's last tenth (%d..%d): the axis does not fit its calls", where, right, c.Left, c.Right)
				}
			}
		}
	}
}
