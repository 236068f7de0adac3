package views

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// Diagram is the space-time diagram laid out in SVG units: one lane per
// client, then the lock service, then the resource; time runs left to right
// on a scale fixed for the whole scenario, so the drawing does not jump as
// the frames go by. Every label is placed here, not by the browser: each is
// given the first of a few spots where it overlaps no other label, mark or
// edge (see placer), with its width estimated generously, so no label hides
// another at any size the SVG is drawn.
type Diagram struct {
	Width, Height int
	Left          int // where time starts: the lane labels stand left of it
	Top           int // where the lanes start: the now label and alerts stand above it
	AxisY         int
	Lanes         []Lane
	Bars          []Bar
	Lines         []Line
	Marks         []Mark
	Ticks         []Tick
	Alerts        []Alert
	NowX          int
	Now           Text
}

// Text is a label at its place: Anchor is SVG's text-anchor.
type Text struct {
	X, Y   int
	Anchor string
	Label  string
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
	Label      Text
	Fresh      bool // it began with this frame's move: drawn in with motion
}

// Line joins two points: a write travelling from a client to the resource.
type Line struct {
	X1, Y1, X2, Y2 int
	Class          string
	Fresh          bool
}

// Mark is a point event with a glyph and a label: a write's outcome, an expiry.
type Mark struct {
	X, Y   int
	R      int
	Class  string
	Glyph  string
	Label  Text
	Leader Line // from the mark to a label that stands under the lanes; zero if none
	Fresh  bool
}

// Alert marks the moment the model found something, across every lane: its
// Class is the verdict class, which colours it. Its label stands above the
// lanes, on the alert's own moment, and its line starts under the label.
type Alert struct {
	X, Y1 int
	Label Text
	Class string
	Fresh bool
}

// Tick is a label on the time axis.
type Tick struct {
	X     int
	Label string
}

const (
	diagramWidth   = 640
	laneRight      = 24
	laneGap        = 40
	laneGapTight   = 34
	laneGapTighter = 28
	barHeight      = 14
	labelSize      = 14 // the CSS font size of every label but the lanes'
	laneSize       = 15
	rowHeight      = 17 // one line of labels in the top band
	// labelGap keeps labels on one line apart, so that two do not read as
	// one ("GC pause holds").
	labelGap = 5
	// labelReach is the farthest a label's ink stands from the moment (or
	// the stretch) it names, so that it reads as that moment's.
	labelReach = 24
)

// NewDiagram lays out the timeline of f for lang: the lanes, the top band
// with now and the verdict's alerts, the bars and marks on the lanes, the
// labels placed so that none overlaps another, and the time axis.
func NewDiagram(lang string, f demo.Frame) Diagram {
	t, flagged := timelineOf(f)
	l := &drawing{lang: lang, f: f, sc: f.Scenario, t: t, flagged: flagged, d: Diagram{Width: diagramWidth}, laneY: map[string]int{}}
	names := l.laneNames()
	gutter := 40.0
	for _, n := range names {
		gutter = max(gutter, textWidth(n.label, laneSize, true))
	}
	l.d.Left = int(gutter) + 24
	// A tenth more than the last moment shown, so the last marks have room;
	// a lease that runs on past it is drawn to the edge.
	l.horizon = horizonOf(l.sc)
	// What this frame's move added begins at or after since.
	l.since = -1
	if evs := f.Latest(); len(evs) > 0 {
		l.since = evs[0].Header().At
		for _, e := range evs {
			l.since = min(l.since, e.Header().At)
		}
	}
	l.topBand()
	last := l.lanes(names)
	l.spans()
	l.writes()
	l.placeLabels()
	l.axis(last)
	return l.d
}

// horizonOf is the last moment a diagram of sc draws: a tenth more than the
// last moment shown.
func horizonOf(sc *demo.Scenario) int { return max(sc.Horizon+sc.Horizon/10, 1) }

// drawing is a diagram being laid out: the frame, where each lane is, and
// the placer that keeps labels apart.
type drawing struct {
	lang    string
	f       demo.Frame
	sc      *demo.Scenario
	t       demo.Timeline
	d       Diagram
	p       placer
	laneY   map[string]int
	horizon int
	since   int
	lineOf  map[int]int  // a write's mark -> its line
	flagged map[int]bool // writes a finding names that the frame's timeline did not draw (timelineOf)
}

type laneName struct{ key, label string }

// x is where moment at stands.
func (l *drawing) x(at int) int {
	at = min(max(at, 0), l.horizon)
	return l.d.Left + at*(diagramWidth-l.d.Left-laneRight)/l.horizon
}

// fresh reports whether what stands at at is new in this frame's move.
func (l *drawing) fresh(at int) bool { return l.since >= 0 && at >= l.since }

// laneNames are the lanes' names: the clients, the store's (its family's
// demo.Family.Lanes), and the resource. A lane nothing is ever drawn on in
// this run of the scenario says nothing: it is left out, from every frame
// alike, so the lanes stay put.
func (l *drawing) laneNames() []laneName {
	var names []laneName
	for _, c := range l.sc.Clients {
		names = append(names, laneName{c, c})
	}
	for _, ln := range l.t.Lanes {
		label := ln.Label
		if ln.Word != "" {
			label = T(l.lang, ln.Word)
		}
		names = append(names, laneName{ln.Key, label})
	}
	names = append(names, laneName{"\x00resource", l.sc.Resource})
	used := usedLanes(l.f)
	kept := names[:0]
	for _, n := range names {
		if used[n.key] {
			kept = append(kept, n)
		}
	}
	return kept
}

// topBand puts the now label on the first row and the alerts' labels on
// the rows below, at their moments. One alert row is always kept, so the
// lanes stay put when the verdict changes.
func (l *drawing) topBand() {
	d, p := &l.d, &l.p
	p.width = float64(d.Width)
	if l.lang == "ja" {
		p.pad = labelSize - 2*labelGap
	}
	d.NowX = l.x(l.t.Now)
	d.Now = p.flag(float64(d.NowX), rowHeight-3, T(l.lang, "now")+" "+Clock(l.sc, l.t.Now), true, 1)
	bandRows := 2
	for _, v := range l.t.Verdict {
		c := v.Kind.Class()
		label := p.flag(float64(l.x(v.At)), rowHeight-3, VerdictMark(c)+" "+VerdictShort(l.lang, l.sc, v.Kind), true, 8)
		d.Alerts = append(d.Alerts, Alert{X: l.x(v.At), Label: label, Class: c.String(), Fresh: l.fresh(v.At)})
		bandRows = max(bandRows, (label.Y+3)/rowHeight)
	}
	d.Top = bandRows*rowHeight + 4
	for i := range d.Alerts {
		d.Alerts[i].Y1 = d.Alerts[i].Label.Y + 5
	}
}

// lanes places the lanes under the top band and returns the last one's y.
// Many lanes stand closer, so the diagram keeps its type size and still
// fits one screen beside the narration.
func (l *drawing) lanes(names []laneName) int {
	y := l.d.Top + 30 // room for the first lane's bar labels
	gap := laneGap
	switch {
	case len(names) > 6:
		gap = laneGapTighter
	case len(names) > 4:
		gap = laneGapTight
	}
	last := y - gap // with no lane at all, the axis stands where a first lane would
	for _, n := range names {
		l.laneY[n.key] = y
		l.d.Lanes = append(l.d.Lanes, Lane{Y: y, Label: n.label})
		last = y
		y += gap
	}
	for _, ln := range l.d.Lanes {
		l.p.add(box{0, float64(ln.Y) - 14, float64(l.d.Left) - 8, float64(ln.Y) + 6, false})
		l.p.lanes = append(l.p.lanes, float64(ln.Y))
	}
	l.p.gap = float64(gap)
	l.p.left = float64(l.d.Left) - 8
	l.p.top = float64(l.d.Top)
	return last
}

// spans draws the bars: work past a lease, pauses, waits, each client's
// holds by its own reckoning, the locks on the store's lanes, and the
// store's marks.
func (l *drawing) spans() {
	d, t, x := &l.d, l.t, l.x
	color := func(client string) string { return "c" + strconv.Itoa(clientIndex(l.sc, client)) }
	d.Bars = append(d.Bars, overdue(l.lang, l.f, t, l.laneY, x, l.fresh)...)
	for _, s := range t.Pauses {
		cy := l.laneY[s.Lane]
		d.Bars = append(d.Bars, Bar{X: x(s.From), Y: cy - barHeight, W: max(x(s.To)-x(s.From), 2), H: 2 * barHeight, Class: "pause", Label: Text{Label: T(l.lang, "gc")}, Fresh: l.fresh(s.From)})
	}
	for _, s := range t.Waits {
		cy := l.laneY[s.Lane]
		d.Bars = append(d.Bars, Bar{X: x(s.From), Y: cy - barHeight, W: max(x(s.To)-x(s.From), 2), H: 2 * barHeight, Class: "wait", Label: Text{Label: T(l.lang, "db.waiting")}, Fresh: l.fresh(s.From)})
	}
	for _, s := range t.Holds {
		l.hold(s, color(s.Owner))
	}
	for _, s := range t.Locks {
		ly := l.laneY[s.Lane]
		label := s.Owner
		if s.Token > 0 {
			label += " · " + strconv.FormatInt(s.Token, 10)
		}
		d.Bars = append(d.Bars, Bar{X: x(s.From), Y: ly - barHeight/2, W: max(x(s.To)-x(s.From), 2), H: barHeight, Class: "held " + color(s.Owner), Label: Text{Label: label}, Fresh: l.fresh(s.From)})
	}
	for _, m := range t.Marks {
		d.Marks = append(d.Marks, markOf(l.lang, l.sc, m, l.laneY[m.Lane], x(m.At), l.fresh(m.At)))
	}
}

// hold draws a client's hold on the lock, the rest of its lease still
// ahead, and what this move used up of a lease held before it: the stretch
// of the planned remainder from the frame before's now to this one's (or
// to the expiry, if the lease ran out), drawn only while a step moves
// (app.css), where it drains away from the old now.
func (l *drawing) hold(s demo.Span, color string) {
	d, x := &l.d, l.x
	cy := l.laneY[s.Lane]
	label := T(l.lang, "holds")
	if s.Token > 0 {
		label = fmt.Sprintf(T(l.lang, "diagram.token"), s.Token)
	}
	if !s.Open && x(s.To)-x(s.From) < 6 {
		// A hold that ended almost as it began (a crash right after SETNX)
		// is too short to see; its label would float by the mark that
		// ended it and read as that mark's.
		label = ""
	}
	d.Bars = append(d.Bars, Bar{X: x(s.From), Y: cy - barHeight/2, W: max(x(s.To)-x(s.From), 2), H: barHeight, Class: "lease " + color, Label: Text{Label: label}, Fresh: l.fresh(s.From)})
	if s.Open && s.Until > s.To {
		d.Bars = append(d.Bars, Bar{X: x(s.To), Y: cy - barHeight/2, W: x(s.Until) - x(s.To), H: barHeight, Class: "planned"})
	}
	if was := l.f.Was; !l.fresh(s.From) && s.Until > was && s.To > was {
		d.Bars = append(d.Bars, Bar{X: x(was), Y: cy - barHeight/2, W: x(s.To) - x(was), H: barHeight, Class: "planned drained"})
	}
}

// writes draws each write as a line from its client to the resource, with
// its outcome's mark there.
func (l *drawing) writes() {
	d, x := &l.d, l.x
	resY := l.laneY["\x00resource"]
	l.lineOf = map[int]int{}
	for i, e := range l.t.Writes {
		cls, glyph := "write ok", "✓"
		switch {
		case !e.OK:
			cls, glyph = "write rejected", "✗"
		case Stale(l.f, e):
			cls, glyph = "write stale", "!"
		case Late(l.f, e):
			cls, glyph = "write late", "!"
		case l.flagged[i]:
			cls, glyph = "write stale", "!"
		}
		d.Lines = append(d.Lines, Line{X1: x(e.At), Y1: l.laneY[e.Client], X2: x(e.At), Y2: resY, Class: cls, Fresh: l.fresh(e.At)})
		label := e.Client
		if e.Token > 0 {
			label = fmt.Sprintf("%s(%d)", e.Client, e.Token)
		}
		d.Marks = append(d.Marks, Mark{X: x(e.At), Y: resY, Class: cls, Glyph: glyph, Label: Text{Label: label}, Fresh: l.fresh(e.At)})
		l.lineOf[len(d.Marks)-1] = len(d.Lines) - 1
	}
}

// placeLabels places the marks' circles first, then the bars' labels above
// their bars, then the marks' labels around their circles.
func (l *drawing) placeLabels() {
	d, p := &l.d, &l.p
	for i := range d.Marks {
		m := &d.Marks[i]
		if m.R == 0 {
			m.R = 9
		}
		// Two marks at one moment on one lane stand side by side, the later
		// one to the right, its line with it.
		r := float64(m.R) + 1
		c := func() box { return box{float64(m.X) - r, float64(m.Y) - r, float64(m.X) + r, float64(m.Y) + r, false} }
		for !p.free(c()) && m.X < d.Width-m.R-4 {
			m.X += 2
		}
		if ln, ok := l.lineOf[i]; ok {
			d.Lines[ln].X1, d.Lines[ln].X2 = m.X, m.X
		}
		p.add(c())
	}
	for i := range d.Bars {
		b := &d.Bars[i]
		if label := b.Label.Label; label != "" {
			// One that finds no room by its bar is left out, not hung under
			// the lanes: the bar's colour and the panels name its holder,
			// and three locks taken at one moment (ZooKeeper's C, D and E
			// in free play) would add three rows and shrink the projector's
			// type under 14 px.
			b.Label = p.barLabel(float64(b.X), float64(b.W), float64(b.Y), float64(b.Y+b.H), label)
		}
	}
	// A mark's label does not cross another holder's bar ("expired t=10"
	// under B's new lease): the solid bars are in its way from here on. A
	// label's box runs a pixel past its ink, so one may touch a bar's edge.
	for _, b := range d.Bars {
		if strings.HasPrefix(b.Class, "lease") || strings.HasPrefix(b.Class, "held") {
			p.add(box{float64(b.X), float64(b.Y) + 1, float64(b.X + b.W), float64(b.Y+b.H) - 1, false})
		}
	}
	// The same happening at one moment on several lanes (a key expiring on
	// each Redlock node) is named once, at its first mark: five "expired"
	// labels would stack under the lanes and push the axis down.
	named := map[[2]string]bool{}
	// Nor do the labels of many marks at one moment (free play's writes
	// and crashes between two ticks) stack in rows under the lanes: one
	// there per moment, and the rest, which find no room by their mark,
	// are left out (the narration lists every event).
	hung := map[int]bool{}
	for i := range d.Marks {
		m := &d.Marks[i]
		k := [2]string{strconv.Itoa(m.X / 6), m.Class + "\x00" + m.Label.Label}
		if named[k] && m.Class == "expired" || m.Class == "statement" {
			if m.Class != "statement" {
				m.Label = Text{}
			}
			continue
		}
		named[k] = true
		label := m.Label.Label
		m.Label = p.markLabel(float64(m.X), float64(m.Y), float64(m.R), label)
		if m.Label.Label == "" && label != "" && !hung[m.X/24] {
			hung[m.X/24] = true
			m.Label, m.Leader = p.underLanes(float64(m.X), float64(m.X), float64(m.Y+m.R), label)
		}
	}
	// A statement's command tag comes last and only right beside its
	// circle: where there is no room it is left out (the wire lists every
	// answer), never pushed under another lane, where it would read as
	// that client's. The latest go first: they are the move's.
	for i := len(d.Marks) - 1; i >= 0; i-- {
		if m := &d.Marks[i]; m.Class == "statement" {
			m.Label = p.beside(float64(m.X), float64(m.Y), float64(m.R), m.Label.Label)
		}
	}
}

// axis puts the time axis under the last lane and the lowest label.
func (l *drawing) axis(lastLane int) {
	d := &l.d
	d.AxisY = lastLane + 36
	for _, b := range l.p.boxes {
		d.AxisY = max(d.AxisY, int(b.y1)+6)
	}
	d.Height = d.AxisY + 22
	step := niceStep(l.horizon)
	for at := 0; at <= l.horizon; at += step {
		d.Ticks = append(d.Ticks, Tick{X: l.x(at), Label: Duration(l.sc, at)})
	}
}

// box is a label's or a mark's extent in SVG units; label: a label's.
type box struct {
	x0, y0, x1, y1 float64
	label          bool
}

func (a box) overlaps(b box) bool {
	return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
}

// placer hands out room in the drawing: each label takes the first of its
// candidate spots that is inside the drawing and clear of everything placed
// before it.
type placer struct {
	width float64
	boxes []box
	lanes []float64 // each lane's y: a label must read as its own lane's
	gap   float64   // between two lanes
	left  float64   // where the lane names end
	top   float64   // where the lanes' band starts; 0 while the top band is laid out
	pad   float64   // two labels' boxes on one line stand at least this apart (free)
}

// owns says whether a label in b reads as belonging to what spans top to
// bottom (a bar; a mark's lane line, top = bottom): its middle is at most
// reach from that, and no nearer another lane. Under the lowest lane there
// is no other lane to read it as, so a label may stand there at any depth.
func (p *placer) owns(b box, top, bottom, reach float64) bool {
	mid := (b.y0 + b.y1) / 2
	d := max(top-mid, mid-bottom, 0)
	if d > reach && !(mid > bottom && bottom >= p.lowest()) {
		return false
	}
	for _, y := range p.lanes {
		if (y < top || y > bottom) && math.Abs(y-mid) < d {
			return false
		}
	}
	return true
}

// lowest is the lowest lane's y, or -Inf with no lanes.
func (p *placer) lowest() float64 {
	y := math.Inf(-1)
	for _, l := range p.lanes {
		y = max(y, l)
	}
	return y
}

// near says whether b's ink stands within labelReach of x0..x1, the moment
// or the stretch its label names: slid further along its lane, "A(1)"
// stood at t=11 s for a write at t=16 s and read as a write of then.
func near(b box, x0, x1 float64) bool {
	return b.x0+labelGap <= x1+labelReach && b.x1-labelGap >= x0-labelReach
}

func (p *placer) add(b box) { p.boxes = append(p.boxes, b) }

func (p *placer) free(b box) bool {
	if b.x0 < 2 || b.x1 > p.width-2 || b.y0 < 0 {
		return false
	}
	// A phone pins the lane names over the lanes' band, down to the axis:
	// a label there, a row under the lanes too, would hide under them.
	if p.top > 0 && b.y1 > p.top && b.x0+labelGap < p.left-2 {
		return false
	}
	for _, o := range p.boxes {
		if b.overlaps(o) {
			return false
		}
		if b.label && o.label && p.pad > 0 && (box{x0: b.x0 - p.pad, y0: b.y0, x1: b.x1 + p.pad, y1: b.y1}).overlaps(o) {
			return false
		}
	}
	return true
}

// textBox is the extent of a label of labelSize set at x, y with anchor.
func textBox(x, y float64, anchor, label string) box {
	w := textWidth(label, labelSize, true)
	switch anchor {
	case "end":
		x -= w
	case "middle":
		x -= w / 2
	}
	return box{x - labelGap, y - labelSize, x + w + labelGap, y + 4, false}
}

// textBox is a label's box for this placer, marked as a label's: a
// Japanese drawing keeps two labels a full character apart (free), as its
// words have no space between them and 「GC 停止」 beside 「トークン 1」
// would read as one; a label may still stand as near a bar or a circle as
// in English.
func (p *placer) textBox(x, y float64, anchor, label string) box {
	b := textBox(x, y, anchor, label)
	b.label = true
	return b
}

// subject is what a label names: the moment or stretch x0..x1 on the lines
// top to bottom (a bar; a mark's lane, top = bottom), and how far from
// those lines it may stand (see owns).
type subject struct{ x0, x1, top, bottom, reach float64 }

// try places label at the first free spot among spots that reads as the
// label of what it names: on its lane (owns) and within labelReach of its
// moment (near). Else each spot is slid a little along its line, away from
// what it names, and then dropped a row at a time, at its own moment, until
// it is clear: the drawing grows under it (the axis goes under the lowest
// label), so no label is ever cut or covered. A label that would have to
// leave its own lane for that is left out: on another lane it would tell a
// falsehood (redis3's "down" read as redis4's).
func (p *placer) try(label string, spots []Text, n subject) Text {
	ok := func(s Text) (box, bool) {
		b := p.textBox(float64(s.X), float64(s.Y), s.Anchor, label)
		return b, p.free(b) && p.owns(b, n.top, n.bottom, n.reach) && near(b, n.x0, n.x1)
	}
	take := func(s Text, b box) Text { p.add(b); s.Label = label; return s }
	for _, s := range spots {
		if b, fits := ok(s); fits {
			return take(s, b)
		}
	}
	for dx := 5; dx <= labelReach; dx += 5 {
		for _, s := range spots {
			if s.Anchor == "end" {
				s.X -= dx
			} else {
				s.X += dx
			}
			if b, fits := ok(s); fits {
				return take(s, b)
			}
		}
	}
	s := spots[0]
	b := p.textBox(float64(s.X), float64(s.Y), s.Anchor, label)
	switch {
	case b.x0 < 2:
		s.X += int(2 - b.x0 + 1)
	case b.x1 > p.width-2:
		s.X -= int(b.x1 - (p.width - 2) + 1)
	}
	if b.y0 < 0 {
		s.Y += int(-b.y0 + 1)
	}
	w := int(textWidth(label, labelSize, true))
	for range 40 {
		b = p.textBox(float64(s.X), float64(s.Y), s.Anchor, label)
		if !p.owns(b, n.top, n.bottom, n.reach) {
			return Text{}
		}
		// The spot itself, then the same row centred on the moment, or
		// ending at it, so a label a row down stays by its mark.
		mid := int(n.x0+n.x1) / 2
		for _, t := range []Text{s, {X: mid, Y: s.Y, Anchor: "middle"}, {X: mid + w/2 - 2, Y: s.Y, Anchor: "end"}, {X: mid - w/2 + 2, Y: s.Y, Anchor: "start"}} {
			if tb, fits := ok(t); fits {
				return take(t, tb)
			}
		}
		s.Y += rowHeight
	}
	return take(s, b)
}

// flag places a label on a moment's vertical line in the top band, on the
// first of rows rows (from baseline y0) where it fits: centred on the line,
// else starting or ending there, else held inside the drawing's edges.
func (p *placer) flag(x, y0 float64, label string, _ bool, rows int) Text {
	w := textWidth(label, labelSize, true)
	var spots []Text
	for r := range rows {
		y := int(y0) + r*rowHeight
		spots = append(spots,
			Text{X: int(x), Y: y, Anchor: "middle"},
			Text{X: int(x) + 4, Y: y, Anchor: "start"},
			Text{X: int(x) - 4, Y: y, Anchor: "end"},
			Text{X: int(p.width - 4), Y: y, Anchor: "end"},
		)
	}
	if x-w/2 < 4 {
		spots[0] = Text{X: 4, Y: int(y0), Anchor: "start"}
	}
	return p.try(label, spots, subject{math.Inf(-1), math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(1)})
}

// barLabel places a bar's label above its start, or further right along
// the same line while still over the bar, or under the bar.
func (p *placer) barLabel(x, w, top, bottom float64, label string) Text {
	spots := []Text{{X: int(x) + 4, Y: int(top) - 3, Anchor: "start"}}
	for dx := 20; dx <= 200 && float64(dx) < w; dx += 20 {
		spots = append(spots, Text{X: int(x) + 4 + dx, Y: int(top) - 3, Anchor: "start"})
	}
	spots = append(spots, Text{X: int(x) + 4, Y: int(bottom) + labelSize, Anchor: "start"})
	return p.try(label, spots, subject{x, x + w, top, bottom, math.Inf(1)})
}

// markLabel places a mark's label beside its circle: below right, above
// right, then on the left, then further down.
func (p *placer) markLabel(x, y, r float64, label string) Text {
	xi, yi, ri := int(x), int(y), int(r)
	return p.try(label, []Text{
		{X: xi + ri + 3, Y: yi + ri + 11, Anchor: "start"},
		{X: xi + ri + 3, Y: yi - ri - 1, Anchor: "start"},
		{X: xi - ri - 3, Y: yi + ri + 11, Anchor: "end"},
		{X: xi - ri - 3, Y: yi - ri - 1, Anchor: "end"},
		{X: xi + ri + 3, Y: yi + 5, Anchor: "start"},
		{X: xi - ri - 3, Y: yi + 5, Anchor: "end"},
		// A few pixels lower, clear of a bar that ends or starts at the
		// mark (etcd's expiry between A's key and B's), still on its lane.
		{X: xi + ri + 3, Y: yi + ri + 15, Anchor: "start"},
		{X: xi - ri - 3, Y: yi + ri + 15, Anchor: "end"},
		{X: xi, Y: yi + ri + 15, Anchor: "middle"},
		// Further along its own lane before a row down, where on a tight
		// stack of nodes it would stand on the next node's lane and read
		// as that node's ("down" under redis4 for redis3's crash).
		{X: xi + ri + 23, Y: yi + 5, Anchor: "start"},
		{X: xi + ri + 43, Y: yi + 5, Anchor: "start"},
		{X: xi + ri + 63, Y: yi + 5, Anchor: "start"},
		{X: xi, Y: yi + ri + 11 + rowHeight, Anchor: "middle"},
		{X: xi + ri + 3, Y: yi + ri + 11 + rowHeight, Anchor: "start"},
		{X: xi - ri - 3, Y: yi + ri + 11 + rowHeight, Anchor: "end"},
		{X: xi, Y: yi + ri + 11 + 2*rowHeight, Anchor: "middle"},
	}, subject{x, x, y, y, p.markReach()})
}

// underLanes places the label of a mark at x0..x1 (from y down) in a
// row under the lowest lane, at its moment, with a leader line up to it:
// for a label that found no room by its mark on its own lane (a tight
// stack of Redis nodes), where sliding it along would put it at another
// moment and a row down would put it on the next node's lane.
func (p *placer) underLanes(x0, x1, y float64, label string) (Text, Line) {
	mid := (x0 + x1) / 2
	row := p.lowest() + barHeight + labelSize
	for r := range 40 {
		ty := int(row) + r*rowHeight
		for _, s := range []Text{{X: int(mid), Y: ty, Anchor: "middle"}, {X: int(mid) - 2, Y: ty, Anchor: "start"}, {X: int(mid) + 2, Y: ty, Anchor: "end"}} {
			b := p.textBox(float64(s.X), float64(s.Y), s.Anchor, label)
			if p.free(b) && near(b, x0, x1) {
				p.add(b)
				s.Label = label
				return s, Line{X1: int(mid), Y1: int(y) + 1, X2: int(mid), Y2: int(b.y0) + 2, Class: "leader"}
			}
		}
	}
	return Text{}, Line{}
}

// markReach is how far from its lane's line a mark's label may stand: on a
// tight stack of nodes a label between two lines reads as the lower one's,
// as a bar's label above its bar does.
func (p *placer) markReach() float64 {
	if p.gap == 0 {
		return math.Inf(1)
	}
	return 0.4 * p.gap
}

// beside places a label right under or over the circle, starting or
// ending there, at the first free spot clear of the lane names, or nowhere.
func (p *placer) beside(x, y, r float64, label string) Text {
	xi, yi, ri := int(x), int(y), int(r)
	for _, s := range []Text{
		{X: xi - 2, Y: yi + ri + 2 + labelSize, Anchor: "start"},
		{X: xi + 2, Y: yi + ri + 2 + labelSize, Anchor: "end"},
		{X: xi - 2, Y: yi - ri - 6, Anchor: "start"},
		{X: xi + 2, Y: yi - ri - 6, Anchor: "end"},
	} {
		if b := p.textBox(float64(s.X), float64(s.Y), s.Anchor, label); p.free(b) && b.x0 >= max(2, p.left) && b.x1 <= p.width-2 {
			p.add(b)
			s.Label = label
			return s
		}
	}
	return Text{}
}

// textWidth estimates how wide label is at size px, erring wide: a Latin
// letter at most 0.72 em in a bold sans serif, anything else a full em.
func textWidth(label string, size float64, bold bool) float64 {
	per := 0.66
	if bold {
		per = 0.72
	}
	w := 0.0
	for _, r := range label {
		switch {
		case r == ' ' || r == '.' || r == '(' || r == ')' || r == '=':
			w += 0.5
		case r < 0x80:
			w += per
		default:
			w += 1.05
		}
	}
	return w * size
}

// markOf draws a mark of the model's (demo.Mark) on its lane: its glyph,
// class and label by what it marks.
func markOf(lang string, sc *demo.Scenario, m demo.Mark, y, x int, fresh bool) Mark {
	mk := Mark{X: x, Y: y, Fresh: fresh}
	switch m.What {
	case "expiry":
		mk.R, mk.Class, mk.Label = 5, "expired", Text{Label: T(lang, "expired") + " " + Clock(sc, m.At)}
	case "key-expiry":
		mk.R, mk.Class, mk.Label = 5, "expired", Text{Label: T(lang, "expired")}
	case "jump":
		mk.Class, mk.Glyph, mk.Label = "jump", "⏩", Text{Label: "+" + Duration(sc, m.By)}
	case "down":
		mk.Class, mk.Glyph, mk.Label = "down", "✕", Text{Label: T(lang, "down")}
	case "promoted":
		mk.Class, mk.Glyph, mk.Label = "promoted", "↑", Text{Label: T(lang, "promoted")}
	case "up":
		mk.Class, mk.Glyph, mk.Label = "up", "↻", Text{Label: T(lang, "restarted")}
	case "crash":
		mk.Class, mk.Glyph, mk.Label = "crash", "✕", Text{Label: T(lang, "crashed")}
	case "statement":
		mk.R, mk.Class, mk.Label = 4, "statement", Text{Label: m.Label}
	}
	return mk
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
func Clock(sc *demo.Scenario, at int) string { return demo.ShowTime(sc, at) }

// TimelineDesc says what d, the diagram of f, draws, in lang, for a
// screen reader: its lanes by name and the kinds of thing on them in this
// frame, so a database's caption speaks of its connections' locks and
// waits, not of a lock service's GC pause that it never has.
func TimelineDesc(lang string, d Diagram, f demo.Frame) string {
	t, _ := timelineOf(f)
	var lanes []string
	for _, l := range d.Lanes {
		lanes = append(lanes, l.Label)
	}
	var drawn []string
	add := func(yes bool, key string) {
		if yes {
			drawn = append(drawn, T(lang, key))
		}
	}
	marks := map[string]bool{}
	for _, m := range t.Marks {
		marks[m.What] = true
	}
	add(len(t.Holds) > 0, "tl.holds")
	add(len(t.Locks) > 0, "tl.locks")
	add(len(t.Pauses) > 0, "tl.pauses")
	add(len(t.Waits) > 0, "tl.waits")
	add(marks["statement"], "tl.statements")
	add(len(t.Writes) > 0, "tl.writes")
	add(marks["expiry"] || marks["key-expiry"], "tl.expiries")
	add(marks["down"] || marks["up"] || marks["promoted"] || marks["jump"], "tl.nodes")
	add(marks["crash"], "tl.crashes")
	if len(drawn) == 0 {
		return fmt.Sprintf(T(lang, "tl.desc.none"), listIn(lang, lanes))
	}
	return fmt.Sprintf(T(lang, "tl.desc"), listIn(lang, lanes), listIn(lang, drawn))
}

// listIn joins items as lang lists them: "A, B and C", 「A、B、C」.
func listIn(lang string, items []string) string {
	if lang == "ja" {
		return strings.Join(items, "、")
	}
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// Duration formats a span of time in the scenario's unit.
func Duration(sc *demo.Scenario, d int) string { return demo.ShowDuration(sc, d) }

func clientIndex(sc *demo.Scenario, name string) int {
	for i, c := range sc.Clients {
		if c == name {
			return i
		}
	}
	return 0
}

// usedLanes names the lanes (by NewDiagram's keys) that something is drawn
// on by the last frame of f's script, or in f itself: a hold, a lock, a
// pause, a wait, a mark or a write's two ends. The lock service's lane ("")
// counts when the scenario takes its lease, as the lease is the chapter's
// subject. Free play draws the script's lanes too, so the resource's lane
// is there before the visitor's first write (fencing-sql had none).
func usedLanes(f demo.Frame) map[string]bool {
	used := map[string]bool{}
	mark := func(t demo.Timeline) {
		for _, ss := range [][]demo.Span{t.Holds, t.Locks, t.Pauses, t.Waits} {
			for _, s := range ss {
				used[s.Lane] = true
			}
		}
		for _, w := range t.Writes {
			used[w.Client] = true
			used["\x00resource"] = true
		}
		for _, m := range t.Marks {
			used[m.Lane] = true
		}
	}
	t, _ := timelineOf(f)
	mark(t)
	if !f.Last() {
		if r, err := demo.Replay(f.Scenario, f.On, f.Scenario.Frames()); err == nil {
			last, _ := timelineOf(r.Frame())
			mark(last)
		}
	}
	return used
}

// overdue draws, on the lane of each client a finding names as having
// worked past its lease (an overlap, a stale or a contained write), the
// stretch from its lease's end by its own reckoning to the moment it
// stopped believing (or to now): the interval the verdict talks about.
// Where a pause already covers the lease's end, the pause band says it.
func overdue(lang string, f demo.Frame, t demo.Timeline, laneY map[string]int, x func(int) int, fresh func(int) bool) []Bar {
	named := map[string]int{} // client -> the latest moment a finding names
	for _, v := range t.Verdict {
		switch v.Kind {
		case demo.Overlap, demo.StaleWrite, demo.LateWrite, demo.Contained:
			named[v.Client] = max(named[v.Client], v.At)
		}
	}
	var bars []Bar
	for _, h := range f.Holdings {
		at, ok := named[h.Client]
		if !ok || h.Until < 0 || h.Until >= f.Now || (h.Ended >= 0 && h.Ended <= h.Until) {
			continue
		}
		cy, ok := laneY[h.Client]
		if !ok {
			continue
		}
		end := f.Now
		if h.Ended >= 0 {
			end = h.Ended
		}
		end = max(end, min(at, f.Now))
		paused := false
		for _, p := range t.Pauses {
			paused = paused || p.Lane == h.Client && p.From <= h.Until && p.To >= h.Until
		}
		if paused || end <= h.Until {
			continue
		}
		bars = append(bars, Bar{X: x(h.Until), Y: cy - barHeight/2, W: max(x(end)-x(h.Until), 2), H: barHeight, Class: "overdue", Label: Text{Label: T(lang, "diagram.overdue")}, Fresh: fresh(h.Until)})
	}
	return bars
}
