package views

import (
	"fmt"
	"math"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// A label reads as its lane's: every mark's and bar's label, in every frame
// of every scenario, in both positions and languages, stands nearer its own
// lane than any other, and a mark's within 0.4 of the lanes' spacing from
// its line (or anywhere under it on the lowest lane, where no other lane
// is), so redis3's "down" never sits on redis4's lane. A mark's label that
// found no room there stands under the lanes with a leader line from its
// mark down to it.
func TestDiagramLabelsOnTheirLane(t *testing.T) {
	everyDiagram(t, []string{"en", "ja"}, func(where string, _ demo.Frame, d Diagram) {
		for _, f := range labelsOffTheirLane(d) {
			t.Errorf("%s: %s", where, f)
		}
	})
}

// labelsOffTheirLane lists the labels of d's marks and bars whose middle
// stands nearer another lane than what they name (the mark's circle, the
// bar), so that they would read as that lane's.
func labelsOffTheirLane(d Diagram) []string {
	var out []string
	spacing := math.Inf(1)
	for i := 1; i < len(d.Lanes); i++ {
		spacing = min(spacing, float64(d.Lanes[i].Y-d.Lanes[i-1].Y))
	}
	lowest := math.Inf(-1)
	for _, ln := range d.Lanes {
		lowest = max(lowest, float64(ln.Y))
	}
	check := func(what string, top, bottom, reach float64, tx Text, leader Line) {
		if tx.Label == "" {
			return
		}
		b := textBox(float64(tx.X), float64(tx.Y), tx.Anchor, tx.Label)
		mid := (b.y0 + b.y1) / 2
		if leader != (Line{}) {
			// Its leader must run from what it names down to it, under the lanes.
			if float64(leader.Y1) < bottom || float64(leader.Y2) < b.y0 || b.y0 < lowest || float64(leader.X1) < b.x0 || float64(leader.X1) > b.x1 {
				out = append(out, fmt.Sprintf("%s %q at y=%.0f-%.0f under the lanes has a leader %+v that does not join it to y=%.0f", what, tx.Label, b.y0, b.y1, leader, bottom))
			}
			return
		}
		own := max(top-mid, mid-bottom, 0)
		if own > reach && !(mid > bottom && bottom >= lowest) {
			out = append(out, fmt.Sprintf("%s %q at y=%.0f-%.0f stands %.0f px from its lane's line (y=%.0f), more than %.0f", what, tx.Label, b.y0, b.y1, own, top, reach))
			return
		}
		for _, ln := range d.Lanes {
			if y := float64(ln.Y); (y < top || y > bottom) && math.Abs(y-mid) < own {
				out = append(out, fmt.Sprintf("%s %q at y=%.0f-%.0f stands on lane %q (y=%d), %.0f px from it and %.0f from what it names (y=%.0f-%.0f)", what, tx.Label, b.y0, b.y1, ln.Label, ln.Y, math.Abs(y-mid), own, top, bottom))
				break
			}
		}
	}
	for _, m := range d.Marks {
		check("mark", float64(m.Y), float64(m.Y), 0.4*spacing, m.Label, m.Leader)
	}
	for _, b := range d.Bars {
		check("bar", float64(b.Y), float64(b.Y+b.H), math.Inf(1), b.Label, Line{})
	}
	return out
}

// A label stands by the moment it names: no mark's, bar's, alert's or now's
// label, in any frame, position or language, has its ink farther than
// 30 px from its mark's x or its bar's stretch. Slid along the lane, gc-pause's
// "A(1)" of the write refused at t=16 stood at t=11 and read as a write of then.
func TestDiagramLabelsByTheirMoment(t *testing.T) {
	const bound = 30
	everyDiagram(t, []string{"en", "ja"}, func(where string, _ demo.Frame, d Diagram) {
		check := func(what string, x0, x1 int, tx Text) {
			if tx.Label == "" {
				return
			}
			b := textBox(float64(tx.X), float64(tx.Y), tx.Anchor, tx.Label)
			ink0, ink1 := b.x0+labelGap, b.x1-labelGap
			if far := max(ink0-float64(x1), float64(x0)-ink1, 0); far > bound {
				t.Errorf("%s: %s label %q at x=%.0f-%.0f stands %.0f px from x=%d-%d, what it names", where, what, tx.Label, ink0, ink1, far, x0, x1)
			}
		}
		check("now", d.NowX, d.NowX, d.Now)
		for _, a := range d.Alerts {
			check("alert", a.X, a.X, a.Label)
		}
		for _, m := range d.Marks {
			check("mark", m.X, m.X, m.Label)
		}
		for _, b := range d.Bars {
			check("bar", b.X, b.X+b.W, b.Label)
		}
	})
}

// Free play draws the script's lanes: after any first offer played from
// the first or the last frame, every lane of the script's last frame is
// drawn, in the same order (fencing-sql's free play had no resource lane
// until the visitor's first write).
func TestDiagramFreePlayLanes(t *testing.T) {
	for _, sc := range testkit.Catalog(t).Scenarios {
		for _, on := range []bool{false, true} {
			last, err := demo.Replay(sc, on, sc.Frames())
			if err != nil {
				t.Fatal(err)
			}
			want := laneLabels(NewDiagram("en", last.Frame()))
			for _, step := range []int{1, sc.Frames()} {
				p := demo.Place{Sc: sc, On: on, Step: step}
				offers, err := p.Offers()
				if err != nil {
					continue // a family without free play
				}
				for _, o := range offers {
					if !o.Enabled() {
						continue
					}
					f, err := p.Then(o.Action).Frame()
					if err != nil {
						t.Fatal(err)
					}
					got := laneLabels(NewDiagram("en", f))
					i := 0
					for _, l := range got {
						if i < len(want) && l == want[i] {
							i++
						}
					}
					if i < len(want) {
						t.Errorf("%s frame %d then %q: free play draws lanes %q, want the script's %q among them", testkit.Name(sc, on), step, o.Action.Source, got, want)
					}
					break
				}
			}
		}
	}
}

func laneLabels(d Diagram) []string {
	var out []string
	for _, l := range d.Lanes {
		out = append(out, l.Label)
	}
	return out
}
