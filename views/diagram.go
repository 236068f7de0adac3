package views

import (
	"fmt"
	"strconv"

	"github.com/distlock/fencing-demo/demo"
)

// Diagram is the space-time diagram laid out in SVG units: one lane per
// client, then the lock service, then the resource; time runs left to right
// on a scale fixed for the whole scenario, so the drawing does not jump as
// the frames go by.
type Diagram struct {
	Width, Height int
	AxisY         int
	Lanes         []Lane
	Bars          []Bar
	Lines         []Line
	Marks         []Mark
	Ticks         []Tick
	NowX          int
	NowLabel      string
}

// Lane is one horizontal track.
type Lane struct {
	Y     int
	Label string
}

// Bar is a stretch of time on a lane: a lease, a planned lease or a pause.
type Bar struct {
	X, Y, W, H int
	Class      string
	Label      string
}

// Line joins two points: a write travelling from a client to the resource.
type Line struct {
	X1, Y1, X2, Y2 int
	Class          string
}

// Mark is a point event with a glyph and a label: a write's outcome, an expiry.
type Mark struct {
	X, Y  int
	Class string
	Glyph string
	Label string
}

// Tick is a label on the time axis.
type Tick struct {
	X     int
	Label string
}

const (
	diagramWidth = 600
	laneLeft     = 118 // room for the lane labels
	laneRight    = 20
	laneTop      = 34
	laneGap      = 42
	barHeight    = 14
)

// NewDiagram lays out the timeline of f for lang.
func NewDiagram(lang string, f demo.Frame) Diagram {
	sc := f.Scenario
	t := f.Timeline()
	horizon := max(sc.Horizon, t.End, 1)
	x := func(at int) int { return laneLeft + at*(diagramWidth-laneLeft-laneRight)/horizon }

	d := Diagram{Width: diagramWidth}
	laneY := map[string]int{}
	y := laneTop
	for _, c := range sc.Clients {
		laneY[c] = y
		d.Lanes = append(d.Lanes, Lane{Y: y, Label: c})
		y += laneGap
	}
	lockY, resY := y, y+laneGap
	d.Lanes = append(d.Lanes,
		Lane{Y: lockY, Label: T(lang, "lockservice")},
		Lane{Y: resY, Label: sc.Resource})
	d.AxisY = resY + laneGap - 8
	d.Height = d.AxisY + 22

	for _, s := range t.Pauses {
		cy := laneY[s.Client]
		d.Bars = append(d.Bars, Bar{X: x(s.From), Y: cy - barHeight, W: max(x(s.To)-x(s.From), 2), H: 2 * barHeight, Class: "pause", Label: T(lang, "gc")})
	}
	for _, s := range t.Leases {
		cy := laneY[s.Client]
		w := max(x(s.To)-x(s.From), 2)
		d.Bars = append(d.Bars,
			Bar{X: x(s.From), Y: cy - barHeight/2, W: w, H: barHeight, Class: "lease c" + strconv.Itoa(clientIndex(sc, s.Client)), Label: "token " + strconv.FormatInt(s.Token, 10)},
			Bar{X: x(s.From), Y: lockY - barHeight/2, W: w, H: barHeight, Class: "held c" + strconv.Itoa(clientIndex(sc, s.Client)), Label: s.Client + " · " + strconv.FormatInt(s.Token, 10)})
		if s.Open && s.Until > s.To {
			d.Bars = append(d.Bars, Bar{X: x(s.To), Y: cy - barHeight/2, W: x(s.Until) - x(s.To), H: barHeight, Class: "planned"})
		}
	}
	for _, e := range t.Expiry {
		d.Marks = append(d.Marks, Mark{X: x(e.At), Y: lockY, Class: "expired", Glyph: "", Label: fmt.Sprintf("%s t=%d", T(lang, "expired"), e.At)})
	}
	for _, e := range t.Writes {
		cls, glyph := "write ok", "✓"
		switch {
		case e.Kind == demo.Rejected:
			cls, glyph = "write rejected", "✗"
		case Stale(e):
			cls, glyph = "write stale", "!"
		}
		d.Lines = append(d.Lines, Line{X1: x(e.At), Y1: laneY[e.Client], X2: x(e.At), Y2: resY, Class: cls})
		d.Marks = append(d.Marks, Mark{X: x(e.At), Y: resY, Class: cls, Glyph: glyph, Label: fmt.Sprintf("%s(%d)", e.Client, e.Token)})
	}
	step := 5
	if horizon <= 12 {
		step = 2
	}
	for at := 0; at <= horizon; at += step {
		d.Ticks = append(d.Ticks, Tick{X: x(at), Label: strconv.Itoa(at)})
	}
	d.NowX = x(t.Now)
	d.NowLabel = fmt.Sprintf("%s t=%d", T(lang, "now"), t.Now)
	return d
}

func clientIndex(sc *demo.Scenario, name string) int {
	for i, c := range sc.Clients {
		if c == name {
			return i
		}
	}
	return 0
}
