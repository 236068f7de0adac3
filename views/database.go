package views

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/sql"
)

// describeSQL puts a database event, or a call to the lock service beside
// the database, in a sentence; ok is false for any other event.
func describeSQL(lang string, f demo.Frame, e demo.Event) (string, bool) {
	sc := f.Scenario
	switch e := e.(type) {
	case sql.SQLStatement:
		via := ""
		if e.Node != "" {
			via = fmt.Sprintf(T(lang, "db.via"), e.Node)
		}
		switch {
		case e.Waiting:
			return fmt.Sprintf(T(lang, "ev.sql-waiting"), e.Client, via, e.Lock, e.Holder), true
		case e.Err != nil:
			return fmt.Sprintf(T(lang, "ev.sql-error"), e.Client, via, e.Err.Code) + waited(lang, sc, e), true
		}
		return fmt.Sprintf(T(lang, "ev.sql"), e.Client, via, e.Tag) + waited(lang, sc, e), true
	case sql.DeadlockCheck:
		return fmt.Sprintf(T(lang, "ev.deadlock-check"), e.Session, strings.Join(append(e.Cycle, e.Cycle[0]), " → ")), true
	case sql.Refused:
		return fmt.Sprintf(T(lang, "ev.sql-refused"), e.Client, e.Max), true
	case sql.Disconnected:
		if e.Crashed {
			return gone(lang, e), true
		}
		return fmt.Sprintf(T(lang, "ev.sql-closed"), e.Client), true
	}
	// The lock service beside the database speaks for its own calls.
	return describeLock(lang, f, e)
}

// gone is a connection whose client died: the server ends its backend,
// with what that undid.
func gone(lang string, e sql.Disconnected) string {
	s := fmt.Sprintf(T(lang, "ev.sql-gone"), e.Client, e.Session, e.Pid)
	if e.RolledBack {
		s += T(lang, "ev.sql-gone.rollback")
	}
	if len(e.Freed) > 0 {
		s += fmt.Sprintf(T(lang, "ev.sql-gone.freed"), strings.Join(e.Freed, ", "))
	}
	return s
}

func waited(lang string, sc *demo.Scenario, e sql.SQLStatement) string {
	if e.Waited() <= 0 {
		return ""
	}
	return fmt.Sprintf(T(lang, "db.waited"), Duration(sc, e.Waited()))
}

// panelsScroll makes the panels a region the keyboard can scroll, in
// presenter mode, where they may scroll inside.
func panelsScroll(d Demo) templ.Attributes {
	if !d.Here.Present {
		return templ.Attributes{}
	}
	return templ.Attributes{"tabindex": "0", "role": "region", "aria-label": T(d.Lang, "panels")}
}

// scrollable lets the keyboard reach a region that may scroll inside in
// presenter mode (a long move's narration on a small projector).
func scrollable(d Demo) templ.Attributes {
	if !d.Here.Present {
		return templ.Attributes{}
	}
	return templ.Attributes{"tabindex": "0"}
}

// database is the frame's database.
func database(d Demo) sql.State {
	db, _ := sql.Of(d.Frame)
	return db
}

// WaitGraph is the wait-for graph laid out for SVG: each connection a node
// on a circle, each waiter an arrow to the connection whose lock it waits
// for. A deadlock is a cycle of arrows.
type WaitGraph struct {
	Width, Height int
	Nodes         []GraphNode
	Arrows        []Arrow
}

// GraphNode is one connection in the wait-for graph.
type GraphNode struct {
	X, Y  int
	R     int // the circle's radius: room for the label inside it
	Label string
	Class string
}

// Arrow is one "waits for" edge.
type Arrow struct {
	X1, Y1, X2, Y2 int
	Label          string
	LX, LY         int
}

// NewWaitGraph lays out the connections of db in a row when there are two
// (as in most lessons) and on a circle when there are more, so that no
// arrow runs through a third connection on its way; an arrow for each
// waiter. Each circle is as wide as its label.
func NewWaitGraph(d Demo) WaitGraph {
	db := database(d)
	n := len(db.Sessions)
	g := WaitGraph{Width: 320, Height: 84}
	if n > 2 {
		g.Height = 190
	}
	pos := map[string]GraphNode{}
	for i, s := range db.Sessions {
		x, y := float64(g.Width)/2, float64(g.Height)/2
		switch {
		case n == 2:
			x = 60 + float64(i*(g.Width-120))
		case n > 2:
			a := -math.Pi/2 + 2*math.Pi*float64(i)/float64(n)
			x, y = x+105*math.Cos(a), y+65*math.Sin(a)
		}
		class := "conn c" + strconv.Itoa(clientIndexOf(d, s.Client))
		if s.Client == "" {
			class = "conn idle"
		}
		label := s.Name
		if s.Client != "" && s.Client != s.Name {
			label += " (" + s.Client + ")"
		}
		r := max(22, int(textWidth(label, graphText, true)/2)+6)
		node := GraphNode{X: int(x), Y: int(y), R: r, Label: label, Class: class}
		pos[s.Name] = node
		g.Nodes = append(g.Nodes, node)
	}
	for _, e := range db.Edges {
		a, b := pos[e.From], pos[e.To]
		// Along the line from a to b, bent to its left: two arrows between
		// the same pair, one each way, then stand apart as a loop.
		dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
		l := max(math.Hypot(dx, dy), 1)
		ux, uy := dx/l, dy/l
		px, py := uy, -ux
		const off = 12
		at := func(n GraphNode, sign float64) (int, int) {
			r := float64(n.R) + 2
			return int(float64(n.X) + sign*ux*r + px*off), int(float64(n.Y) + sign*uy*r + py*off)
		}
		x1, y1 := at(a, 1)
		x2, y2 := at(b, -1)
		label := e.Lock
		// A queue of waiters for one row is a chain of arrows all named
		// after that row: on a circle their names meet in the middle, so
		// the row is named once, on the first.
		for _, o := range g.Arrows {
			if o.Label == e.Lock {
				label = ""
			}
		}
		g.Arrows = append(g.Arrows, Arrow{
			X1: x1, Y1: y1, X2: x2, Y2: y2,
			Label: label, LX: (a.X+b.X)/2 + int(px*off*2.2), LY: (a.Y+b.Y)/2 + int(py*off*2.2) + 4,
		})
	}
	return g
}

// sqlChecked: every database scenario is replayed against PostgreSQL; the
// lock service beside it is the chapter's own code.
func sqlChecked(sc *demo.Scenario) string {
	if sql.UsesLockService(sc) {
		return "checked.postgres.leases"
	}
	return "checked.postgres"
}

// graphText is the wait-for graph's node label size (app.css).
const graphText = 13
