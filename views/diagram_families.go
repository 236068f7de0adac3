package views

import (
	"strconv"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/eventlog"
	"github.com/distlock/fencing-demo/demo/partition"
)

// timelineOf is the diagram of frame f in model terms: the frame's own
// (demo.Frame.Timeline), and what the events of the families that need no
// lock say without drawing it themselves, for the verdict names them: a
// partition's owner on the coordinator's lane with its producer epoch and
// each worker's write with its epoch; a log's reads, write-backs, appends
// and the consumer's applies. flagged are the writes added here that a
// finding of the frame names (a stale owner's write, a lost update's).
func timelineOf(f demo.Frame) (t demo.Timeline, flagged map[int]bool) {
	t = f.Timeline()
	flagged = map[int]bool{}
	write := func(w demo.WriteResult) {
		for _, v := range f.Violations {
			if v.Client == w.Client && v.At == w.At {
				flagged[len(t.Writes)] = true
			}
		}
		t.Writes = append(t.Writes, w)
	}
	owner := -1 // the coordinator's open span
	for _, e := range f.Events {
		switch e := e.(type) {
		case partition.Assigned:
			if owner >= 0 {
				t.Locks[owner].To, t.Locks[owner].Open = e.At, false
			}
			owner = len(t.Locks)
			t.Locks = append(t.Locks, demo.Span{Lane: partition.Coordinator, Owner: e.Worker, From: e.At, To: f.Now, Open: true, Token: e.Epoch, Until: -1})
		case partition.Produced:
			write(demo.WriteResult{Head: e.Head, Token: e.Epoch, Value: e.Value, Before: e.Before, Max: e.Max, OK: e.OK})
		case eventlog.ReadBalance:
			_, reply := e.Wire() // the store's own words, as a statement's mark shows them
			t.Marks = append(t.Marks, demo.Mark{Lane: e.Client, At: e.At, What: "statement", Label: reply})
		case eventlog.PutBalance:
			write(demo.WriteResult{Head: e.Head, Value: strconv.FormatInt(e.Balance, 10), OK: true})
		case eventlog.Appended:
			_, reply := e.Wire()
			t.Marks = append(t.Marks, demo.Mark{Lane: e.Client, At: e.At, What: "statement", Label: reply})
		case eventlog.AppliedEvent:
			h := e.Head
			h.Client = eventlog.Consumer
			write(demo.WriteResult{Head: h, Value: strconv.FormatInt(e.Balance, 10), OK: true})
		}
	}
	return t, flagged
}
