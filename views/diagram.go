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
	Alerts        []Alert
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

// Alert marks the moment the model found something, across every lane: its
// Class is the verdict class, which colours it.
type Alert struct {
	X     int
	Y     int // where its label stands: one line up for each earlier alert
	Label string
	Class string
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
	laneTop      = 46
	laneGap      = 42
	barHeight    = 14
)

// NewDiagram lays out the timeline of f for lang.
func NewDiagram(lang string, f demo.Frame) Diagram {
	sc := f.Scenario
	t := f.Timeline()
	// A tenth more than the last moment shown, so the last marks have room;
	// a lease that runs on past it is drawn to the edge.
	horizon := max(sc.Horizon+sc.Horizon/10, 1)
	x := func(at int) int {
		at = min(max(at, 0), horizon)
		return laneLeft + at*(diagramWidth-laneLeft-laneRight)/horizon
	}
	clock := func(at int) string { return Clock(sc, at) }

	d := Diagram{Width: diagramWidth}
	laneY := map[string]int{}
	y := laneTop
	lane := func(key, label string) {
		laneY[key] = y
		d.Lanes = append(d.Lanes, Lane{Y: y, Label: label})
		y += laneGap
	}
	for _, c := range sc.Clients {
		lane(c, c)
	}
	if nodes := sc.NodeNames(); len(nodes) > 0 {
		for _, n := range nodes {
			lane(n, n)
		}
	} else if sc.Store.Consensus() {
		lane("", T(lang, "coord.lane."+string(sc.Store)))
	} else {
		lane("", T(lang, "lockservice"))
	}
	resY := y
	lane("\x00resource", sc.Resource)
	d.AxisY = resY + laneGap - 8
	d.Height = d.AxisY + 22

	color := func(client string) string { return "c" + strconv.Itoa(clientIndex(sc, client)) }
	for _, s := range t.Pauses {
		cy := laneY[s.Lane]
		d.Bars = append(d.Bars, Bar{X: x(s.From), Y: cy - barHeight, W: max(x(s.To)-x(s.From), 2), H: 2 * barHeight, Class: "pause", Label: T(lang, "gc")})
	}
	for _, s := range t.Waits {
		cy := laneY[s.Lane]
		d.Bars = append(d.Bars, Bar{X: x(s.From), Y: cy - barHeight, W: max(x(s.To)-x(s.From), 2), H: 2 * barHeight, Class: "wait", Label: T(lang, "db.waiting")})
	}
	for _, s := range t.Holds {
		cy := laneY[s.Lane]
		label := T(lang, "holds")
		for _, h := range f.Clients {
			if h.Name == s.Owner && h.Token > 0 {
				label = "token " + strconv.FormatInt(h.Token, 10)
			}
		}
		if sc.Store == demo.LockServiceStore {
			label = tokenAt(f, s)
		}
		d.Bars = append(d.Bars, Bar{X: x(s.From), Y: cy - barHeight/2, W: max(x(s.To)-x(s.From), 2), H: barHeight, Class: "lease " + color(s.Owner), Label: label})
		if s.Open && s.Until > s.To {
			d.Bars = append(d.Bars, Bar{X: x(s.To), Y: cy - barHeight/2, W: x(s.Until) - x(s.To), H: barHeight, Class: "planned"})
		}
	}
	for _, s := range t.Locks {
		ly := laneY[s.Lane]
		label := s.Owner
		if s.Token > 0 {
			label += " · " + strconv.FormatInt(s.Token, 10)
		}
		d.Bars = append(d.Bars, Bar{X: x(s.From), Y: ly - barHeight/2, W: max(x(s.To)-x(s.From), 2), H: barHeight, Class: "held " + color(s.Owner), Label: label})
	}
	for _, e := range t.Marks {
		h := e.Header()
		switch e := e.(type) {
		case demo.LeaseExpiry:
			d.Marks = append(d.Marks, Mark{X: x(h.At), Y: laneY[""], Class: "expired", Label: T(lang, "expired") + " " + clock(h.At)})
		case demo.SessionEnded:
			d.Marks = append(d.Marks, Mark{X: x(h.At), Y: laneY[""], Class: "expired", Label: T(lang, "expired") + " " + clock(h.At)})
		case demo.KeyExpiry:
			d.Marks = append(d.Marks, Mark{X: x(h.At), Y: laneY[h.Node], Class: "expired", Label: T(lang, "expired")})
		case demo.ClockJumped:
			d.Marks = append(d.Marks, Mark{X: x(h.At), Y: laneY[h.Node], Class: "jump", Glyph: "⏩", Label: "+" + Duration(sc, e.By)})
		case demo.NodeChange:
			switch e.What {
			case demo.NodeDown:
				d.Marks = append(d.Marks, Mark{X: x(h.At), Y: laneY[h.Node], Class: "down", Glyph: "✕", Label: T(lang, "down")})
			case demo.Promoted:
				d.Marks = append(d.Marks, Mark{X: x(h.At), Y: laneY[h.Node], Class: "promoted", Glyph: "↑", Label: T(lang, "promoted")})
			}
		case demo.ClientChange:
			if e.What == demo.Crashed {
				d.Marks = append(d.Marks, Mark{X: x(h.At), Y: laneY[h.Client], Class: "crash", Glyph: "✕", Label: T(lang, "crashed")})
			}
		}
	}
	for _, e := range t.Writes {
		cls, glyph := "write ok", "✓"
		switch {
		case !e.OK:
			cls, glyph = "write rejected", "✗"
		case Stale(f, e):
			cls, glyph = "write stale", "!"
		}
		d.Lines = append(d.Lines, Line{X1: x(e.At), Y1: laneY[e.Client], X2: x(e.At), Y2: resY, Class: cls})
		label := e.Client
		if e.Token > 0 {
			label = fmt.Sprintf("%s(%d)", e.Client, e.Token)
		}
		d.Marks = append(d.Marks, Mark{X: x(e.At), Y: resY, Class: cls, Glyph: glyph, Label: label})
	}
	for _, v := range t.Verdict {
		c := v.Kind.Class()
		d.Alerts = append(d.Alerts, Alert{X: x(v.At), Y: d.AxisY - 4 - 16*len(d.Alerts), Label: VerdictMark(c) + " " + VerdictShort(lang, v.Kind), Class: c.String()})
	}
	step := niceStep(horizon)
	for at := 0; at <= horizon; at += step {
		d.Ticks = append(d.Ticks, Tick{X: x(at), Label: Duration(sc, at)})
	}
	d.NowX = x(t.Now)
	d.NowLabel = T(lang, "now") + " " + clock(t.Now)
	return d
}

// tokenAt names the lock service's token for a hold.
func tokenAt(f demo.Frame, s demo.Span) string {
	for _, e := range f.Events {
		if e, ok := e.(demo.AcquireCall); ok && e.OK && e.Client == s.Owner && e.At == s.From {
			return "token " + strconv.FormatInt(e.Token, 10)
		}
	}
	return ""
}

// niceStep picks a tick spacing that gives five to ten labels.
func niceStep(horizon int) int {
	for _, s := range []int{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000, 1000000, 3600000} {
		if horizon/s <= 10 {
			return s
		}
	}
	return horizon
}

// Clock formats a point in time in the scenario's unit: t=16 in ticks, or
// t=10.5s for the Redis family's milliseconds.
func Clock(sc *demo.Scenario, at int) string { return "t=" + Duration(sc, at) }

// Duration formats a span of time in the scenario's unit.
func Duration(sc *demo.Scenario, d int) string {
	if sc.Unit() == "tick" {
		return strconv.Itoa(d)
	}
	if d%1000 == 0 {
		return strconv.Itoa(d/1000) + "s"
	}
	if d < 1000 && d > -1000 {
		return strconv.Itoa(d) + "ms"
	}
	return strconv.FormatFloat(float64(d)/1000, 'f', -1, 64) + "s"
}

func clientIndex(sc *demo.Scenario, name string) int {
	for i, c := range sc.Clients {
		if c == name {
			return i
		}
	}
	return 0
}
