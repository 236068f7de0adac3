package views

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/sql"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// Every frame of every scenario, laid out: each label inside the drawing by
// the placer's own (generous) estimate of its size, no two labels on top of
// each other, and every bar and mark on a lane of the drawing, not above the
// lanes where a lane the scenario needs was forgotten (fencing-sql's lock
// service beside PostgreSQL). The browser test (web TestScreen) measures
// the drawn page; this one runs every frame in milliseconds.
func TestDiagramLabelsInside(t *testing.T) {
	everyDiagram(t, []string{"en", "ja"}, func(where string, _ demo.Frame, d Diagram) {
		var labels []box
		for _, tx := range diagramTexts(d) {
			b := textBox(float64(tx.X), float64(tx.Y), tx.Anchor, tx.Label)
			if b.x0 < 0 || b.x1 > float64(d.Width) || b.y0 < 0 || b.y1 > float64(d.Height) {
				t.Errorf("%s: %q at %+v sticks out of the %dx%d drawing", where, tx.Label, b, d.Width, d.Height)
			}
			for i, o := range labels {
				// Rows of the top band may touch by a pixel.
				if o.x0+1 < b.x1 && b.x0+1 < o.x1 && o.y0+1 < b.y1 && b.y0+1 < o.y1 {
					t.Errorf("%s: %q overlaps label %d", where, tx.Label, i)
				}
			}
			labels = append(labels, b)
			// A phone pins the lane names (Left-10 wide) over the
			// lanes' band: a label there would hide under them.
			if ink := b.x0 + labelGap; ink < float64(d.Left-10) && b.y1 > float64(d.Top) && b.y0 < float64(d.AxisY) {
				t.Errorf("%s: %q at x=%.0f.. stands under the pinned lane names (to x=%d)", where, tx.Label, ink, d.Left-10)
			}
		}
		for _, b := range d.Bars {
			if b.Y < d.Top || b.Y+b.H > d.AxisY {
				t.Errorf("%s: bar %q at y=%d..%d is off the lanes (%d..%d)", where, b.Class, b.Y, b.Y+b.H, d.Top, d.AxisY)
			}
		}
		for _, m := range d.Marks {
			if m.Y-m.R < d.Top || m.Y+m.R > d.AxisY {
				t.Errorf("%s: mark %q at y=%d is off the lanes (%d..%d)", where, m.Class, m.Y, d.Top, d.AxisY)
			}
		}
	})
}

// everyDiagram calls fn with the diagram of every frame of every scenario,
// in both switch positions and each of langs, and where it is.
func everyDiagram(t *testing.T, langs []string, fn func(where string, f demo.Frame, d Diagram)) {
	t.Helper()
	for _, sc := range testkit.Catalog(t).Scenarios {
		for _, on := range []bool{false, true} {
			for k := 1; k <= sc.Frames(); k++ {
				r, err := demo.Replay(sc, on, k)
				if err != nil {
					t.Fatal(err)
				}
				f := r.Frame()
				for _, lang := range langs {
					fn(testkit.Name(sc, on)+" frame "+strconv.Itoa(k)+" "+lang, f, NewDiagram(lang, f))
				}
			}
		}
	}
}

// diagramTexts are the labels the placer placed.
func diagramTexts(d Diagram) []Text {
	ts := []Text{d.Now}
	for _, a := range d.Alerts {
		ts = append(ts, a.Label)
	}
	for _, b := range d.Bars {
		if b.Label.Label != "" {
			ts = append(ts, b.Label)
		}
	}
	for _, m := range d.Marks {
		if m.Label.Label != "" {
			ts = append(ts, m.Label)
		}
	}
	return ts
}

// Every lane the diagram draws has something on it by the end of the run
// (a bar, a mark or a write's end), and every interval a finding names is
// drawn on that client's lane, in every frame: work past the lease (an
// overlap, a write the resource contained or took stale) as a pause band
// or the band of work past the lease, and a wait as a wait band (see
// intervalNotDrawn).
func TestDiagramLanesAndIntervals(t *testing.T) {
	everyDiagram(t, []string{"en"}, func(where string, f demo.Frame, d Diagram) {
		if f.Last() {
			for _, l := range d.Lanes {
				if !laneUsed(d, l.Y) {
					t.Errorf("%s: lane %q has nothing on it", where, l.Label)
				}
			}
		}
		for i, v := range f.Violations {
			if f := intervalNotDrawn(d, f, i, v); f != "" {
				t.Errorf("%s: %s", where, f)
			}
		}
	})
}

// intervalNotDrawn says what the diagram d of f fails to draw of the
// interval its i-th finding v names, or "": an overlap or a contained
// write's work past the lease, at the finding's moment (a pause band or the
// band of work past the lease); a stale write's, somewhere between the
// lease's end and the write; a wait (a deadlock, a queue, a wait on
// itself), a wait band on the waiter's lane at the finding's moment.
func intervalNotDrawn(d Diagram, f demo.Frame, i int, v demo.Violation) string {
	lane := -1
	for _, l := range d.Lanes {
		if l.Label == v.Client {
			lane = l.Y
		}
	}
	x := d.Alerts[i].X
	covers := func(from, to int, classes ...string) bool {
		for _, b := range d.Bars {
			if slices.Contains(classes, b.Class) && b.Y <= lane && lane <= b.Y+b.H && b.X <= to && from <= b.X+b.W {
				return true
			}
		}
		return false
	}
	switch v.Kind {
	case demo.Overlap, demo.Contained:
		if !covers(x, x, "pause", "overdue") {
			return fmt.Sprintf("%s says %s worked past its lease at t=%d, but its lane draws no band there", v.Kind, v.Client, v.At)
		}
	case demo.StaleWrite:
		end := -1
		for _, h := range f.Holdings {
			if h.Client == v.Client && h.Until >= 0 && h.Until <= v.At {
				end = max(end, h.Until)
			}
		}
		if end >= 0 && !covers(xOf(d, f, end), x, "pause", "overdue") {
			return fmt.Sprintf("%s says %s wrote at t=%d after its lease ended at t=%d, but its lane draws no band between", v.Kind, v.Client, v.At, end)
		}
	case sql.Deadlock, sql.QueuedBehind, sql.WaitsOnItself:
		if !covers(x-2, x+2, "wait") {
			return fmt.Sprintf("%s names %s's wait at t=%d, but its lane draws no wait there", v.Kind, v.Client, v.At)
		}
	}
	return ""
}

// xOf is where moment at stands in d, by the scale NewDiagram drew it on.
func xOf(d Diagram, f demo.Frame, at int) int {
	l := &drawing{d: d, sc: f.Scenario, horizon: horizonOf(f.Scenario)}
	return l.x(at)
}

// laneUsed says whether a bar, a mark or a line's end lies on the lane at y.
func laneUsed(d Diagram, y int) bool {
	for _, b := range d.Bars {
		if b.Y <= y && y <= b.Y+b.H && b.Class != "planned drained" {
			return true
		}
	}
	for _, m := range d.Marks {
		if m.Y == y {
			return true
		}
	}
	for _, l := range d.Lines {
		if l.Y1 == y || l.Y2 == y {
			return true
		}
	}
	return false
}

// A Japanese diagram says its words in Japanese: "token 2" was left in
// English on Japanese pages.
func TestDiagramJapanese(t *testing.T) {
	english := regexp.MustCompile(`\b(token|holds|past its lease|expired|now)\b`)
	for _, sc := range testkit.Catalog(t).Scenarios {
		for _, on := range []bool{false, true} {
			r, err := demo.Replay(sc, on, sc.Frames())
			if err != nil {
				t.Fatal(err)
			}
			for _, tx := range diagramTexts(NewDiagram("ja", r.Frame())) {
				if english.MatchString(tx.Label) {
					t.Errorf("%s: the Japanese diagram says %q", testkit.Name(sc, on), tx.Label)
				}
			}
		}
	}
}

// Optimistic locking takes no lock, so its diagram draws the statements:
// with the version check, A's late UPDATE is answered "UPDATE 0" on A's
// lane, the moment the check turned it away.
func TestDiagramDrawsStatements(t *testing.T) {
	sc, ok := testkit.Catalog(t).Get("optimistic-version")
	if !ok {
		t.Fatal("no optimistic-version scenario")
	}
	f, err := demo.Place{Sc: sc, On: true, Step: 4}.Frame()
	if err != nil {
		t.Fatal(err)
	}
	d := NewDiagram("en", f)
	laneY := map[string]int{}
	for _, l := range d.Lanes {
		laneY[l.Label] = l.Y
	}
	var labels []string
	for _, m := range d.Marks {
		if m.Class == "statement" {
			labels = append(labels, m.Label.Label)
			if m.Label.Label == "UPDATE 0" && m.Y != laneY["A"] {
				t.Errorf("UPDATE 0 is drawn at y=%d, want A's lane at y=%d", m.Y, laneY["A"])
			}
		}
	}
	if !slices.Contains(labels, "UPDATE 0") || !slices.Contains(labels, "SELECT 1") {
		t.Errorf("statement labels %q, want A's SELECT 1 and its refused UPDATE 0", labels)
	}
}

// The diagram's caption says what this frame draws, on the lanes it has:
// a database page speaks of its connections' locks, waits and answers,
// and never of a GC pause or a lock service it does not have; the
// chapter's page, once A is paused, of the pause.
func TestTimelineCaptionIsTheFrames(t *testing.T) {
	for _, tt := range []struct {
		id      string
		on      bool
		step    int
		lang    string
		want    []string
		notWant []string
	}{
		{"job-queue", false, 3, "en", []string{"Lanes for W1 and W2,", "waits for a lock", "each statement's answer"}, []string{"GC", "lock service", "pause"}},
		{"job-queue", false, 3, "ja", []string{"W1、W2 の各レーン", "ロック待ち"}, []string{"GC", "ロックサービス", "停止"}},
		{"lost-update", true, 2, "en", []string{"each statement's answer"}, []string{"GC", "lock service", "write to the resource"}},
		{"gc-pause", true, 3, "en", []string{"Lanes for A, B, Lock service and row-42", "pauses", "each client's hold on the lock"}, nil},
		{"gc-pause", true, 1, "ja", []string{"まだ何も起きていない"}, []string{"停止"}},
	} {
		doc, _ := frameDoc(t, tt.id, tt.on, tt.step, tt.lang)
		got := doc.Find("#tl-desc").Text()
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s frame %d %s: the caption %q does not say %q", tt.id, tt.step, tt.lang, got, w)
			}
		}
		for _, w := range tt.notWant {
			if strings.Contains(got, w) {
				t.Errorf("%s frame %d %s: the caption %q says %q", tt.id, tt.step, tt.lang, got, w)
			}
		}
	}
}

// Japanese puts no space between words, so two labels on one line of the
// diagram must stand a full character apart, or 「GC 停止」 and 「トークン 1」
// read as 「GC 停止トークン 1」: every frame of every scenario, in both
// positions, drawn in Japanese.
func TestJapaneseLabelsStandApart(t *testing.T) {
	for _, sc := range testkit.Catalog(t).Scenarios {
		for _, on := range []bool{false, true} {
			r := demo.NewRun(sc, on)
			for more := true; more; more = r.Step() {
				d := NewDiagram("ja", r.Frame())
				labels := diagramLabels(d)
				for i, a := range labels {
					for _, b := range labels[i+1:] {
						if gap := inkGap(a, b); gap >= 0 && gap < labelSize {
							t.Errorf("%s frame %d: %q and %q stand %.0f apart on one line, want at least %d", testkit.Name(sc, on), r.Index(), a.Label, b.Label, gap, labelSize)
						}
					}
				}
			}
		}
	}
}

// diagramLabels are every label the diagram places.
func diagramLabels(d Diagram) []Text {
	var out []Text
	for _, b := range d.Bars {
		out = append(out, b.Label)
	}
	for _, m := range d.Marks {
		out = append(out, m.Label)
	}
	for _, a := range d.Alerts {
		out = append(out, a.Label)
	}
	out = append(out, d.Now)
	return slices.DeleteFunc(out, func(x Text) bool { return x.Label == "" })
}

// inkGap is how far apart the ink of a and b stands along a line they
// share; -1 when they stand on different lines.
func inkGap(a, b Text) float64 {
	ab := textBox(float64(a.X), float64(a.Y), a.Anchor, a.Label)
	bb := textBox(float64(b.X), float64(b.Y), b.Anchor, b.Label)
	if ab.y1 <= bb.y0 || bb.y1 <= ab.y0 {
		return -1
	}
	return max(ab.x0, bb.x0) - min(ab.x1, bb.x1) + 2*labelGap
}

// Keeping Japanese labels apart costs no label beside a bar or a circle:
// only two labels on one line stand further apart, so a statement's tag
// (lost-update's A: SELECT 1 at t=0) is drawn in Japanese as in English.
func TestJapaneseKeepsItsStatementTags(t *testing.T) {
	for _, tt := range []struct {
		id   string
		on   bool
		step int
	}{{"lost-update", false, 2}, {"flash-sale", true, 4}, {"job-queue", true, 2}} {
		f := testkit.Frame(t, testkit.Scenario(t, tt.id), tt.on, tt.step)
		if en, ja := len(diagramLabels(NewDiagram("en", f))), len(diagramLabels(NewDiagram("ja", f))); ja != en {
			t.Errorf("%s frame %d: %d labels in English, %d in Japanese", tt.id, tt.step, en, ja)
		}
	}
}
