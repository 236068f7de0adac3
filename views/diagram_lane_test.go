package views

import (
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// A label reads as its lane's: every mark's and bar's label, in every frame
// of every scenario, in both positions and languages, stands nearer its own
// lane than any other, and a mark's within 0.4 of the lanes' spacing from
// its line, so redis3's "down" never sits on redis4's lane.
func TestDiagramLabelsOnTheirLane(t *testing.T) {
	for _, sc := range testkit.Catalog(t).Scenarios {
		for _, on := range []bool{false, true} {
			for k := 1; k <= sc.Frames(); k++ {
				r, err := demo.Replay(sc, on, k)
				if err != nil {
					t.Fatal(err)
				}
				f := r.Frame()
				for _, lang := range []string{"en", "ja"} {
					where := testkit.Name(sc, on) + " frame " + strconv.Itoa(k) + " " + lang
					for _, f := range labelsOffTheirLane(NewDiagram(lang, f)) {
						t.Errorf("%s: %s", where, f)
					}
				}
			}
		}
	}
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
	check := func(what string, top, bottom, reach float64, tx Text) {
		if tx.Label == "" {
			return
		}
		b := textBox(float64(tx.X), float64(tx.Y), tx.Anchor, tx.Label)
		mid := (b.y0 + b.y1) / 2
		own := max(top-mid, mid-bottom, 0)
		if own > reach {
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
		check("mark", float64(m.Y), float64(m.Y), 0.4*spacing, m.Label)
	}
	for _, b := range d.Bars {
		check("bar", float64(b.Y), float64(b.Y+b.H), math.Inf(1), b.Label)
	}
	return out
}
