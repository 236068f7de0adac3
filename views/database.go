package views

import (
	"fmt"
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
	}
	// The lock service beside the database speaks for its own calls.
	return describeLock(lang, f, e)
}

func waited(lang string, sc *demo.Scenario, e sql.SQLStatement) string {
	if e.Waited() <= 0 {
		return ""
	}
	return fmt.Sprintf(T(lang, "db.waited"), Duration(sc, e.Waited()))
}

// verdictSQL is the verdict of the database's own kinds in words.
func verdictSQL(lang string, sc *demo.Scenario, v demo.Violation) (string, bool) {
	key := "verdict." + v.Kind.String()
	at := Clock(sc, v.At)
	switch v.Kind {
	case demo.MutualExclusionHeld:
		if familyPanels[sc.Family.Name].NoAnomaly {
			return T(lang, "verdict.safe.database"), true
		}
	case demo.LostUpdate:
		return fmt.Sprintf(T(lang, key), v.Client, v.Value, at, v.Other, v.Before), true
	case demo.Deadlock:
		if v.Value == "" {
			return fmt.Sprintf(T(lang, key+".formed"), v.Client, v.Other, at), true
		}
		ms, _ := strconv.Atoi(v.Before)
		return fmt.Sprintf(T(lang, key), v.Client, v.Other, at, Clock(sc, ms), v.Value), true
	case demo.QueuedBehind:
		ms, _ := strconv.Atoi(v.Before)
		return fmt.Sprintf(T(lang, key), v.Client, Duration(sc, ms), v.Other, v.Value), true
	case demo.WaitsOnItself:
		return fmt.Sprintf(T(lang, key), v.Client, v.Value, at), true
	}
	return "", false
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
	Label string
	Class string
}

// Arrow is one "waits for" edge.
type Arrow struct {
	X1, Y1, X2, Y2 int
	Label          string
	LX, LY         int
}

// NewWaitGraph lays out the connections of db in a row (two, as in most
// lessons) or on a circle, with an arrow for each waiter.
func NewWaitGraph(d Demo) WaitGraph {
	db := database(d)
	g := WaitGraph{Width: 320, Height: 84}
	n := len(db.Sessions)
	pos := map[string][2]int{}
	for i, s := range db.Sessions {
		x := 60 + i*(g.Width-120)/max(n-1, 1)
		y := g.Height / 2
		if n == 1 {
			x = g.Width / 2
		}
		pos[s.Name] = [2]int{x, y}
		class := "conn c" + strconv.Itoa(clientIndexOf(d, s.Client))
		if s.Client == "" {
			class = "conn idle"
		}
		label := s.Name
		if s.Client != "" && s.Client != s.Name {
			label += " (" + s.Client + ")"
		}
		g.Nodes = append(g.Nodes, GraphNode{X: x, Y: y, Label: label, Class: class})
	}
	for _, e := range db.Edges {
		a, b := pos[e.From], pos[e.To]
		// Two arrows between the same pair bend apart: above for one way,
		// below for the other, so a two-way cycle shows as a loop.
		off := -14
		if a[0] > b[0] {
			off = 14
		}
		dir := 1
		if b[0] < a[0] {
			dir = -1
		}
		g.Arrows = append(g.Arrows, Arrow{
			X1: a[0] + dir*22, Y1: a[1] + off, X2: b[0] - dir*22, Y2: b[1] + off,
			Label: e.Lock, LX: (a[0] + b[0]) / 2, LY: a[1] + off*2 + 4,
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
