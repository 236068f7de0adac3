package history

import (
	"bytes"
	"context"
	"fmt"

	"github.com/PuerkitoBio/goquery"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
)

// Line is what the page prints for one event of a move: the command as it
// went on the wire and the reply beside it ("" where the page shows
// none).
type Line struct {
	Call, Reply string
}

// Wire renders f's page, as a visitor at f.Here sees it, and returns what its
// narration prints for each event of the move that led to f, in the order
// of f.Latest(): the suites send these words, not the model's, so that a
// page that says something other than what the model played is caught.
func Wire(f Frame) ([]Line, error) {
	doc, err := Page(f)
	if err != nil {
		return nil, err
	}
	return Lines(f, doc)
}

// Lines reads what doc, f's page, prints for each event of f's move.
func Lines(f Frame, doc *goquery.Document) ([]Line, error) {
	var lines []Line
	doc.Find("ul.happened li").Each(func(_ int, li *goquery.Selection) {
		if li.HasClass("earlier") {
			return // a fold of the earlier events: its items are listed themselves
		}
		lines = append(lines, Line{
			Call:  li.Find("code.call").First().Text(),
			Reply: li.Find("code.reply").Last().Text(),
		})
	})
	if n := len(f.Latest()); len(lines) != n {
		return nil, fmt.Errorf("frame %d: the page lists %d events of the move, the frame has %d", f.Index, len(lines), n)
	}
	return lines, nil
}

// Page renders f's page in English.
func Page(f Frame) (*goquery.Document, error) {
	// The free-play offers are left out: they change nothing the suites
	// read (the narration's wire, the panels), and trying each of them
	// costs more than the page.
	d := views.Demo{Page: views.Page{Lang: f.Here.Lang, Title: f.Scenario.Title.In(f.Here.Lang), Chrome: true}, Frame: f.Frame, Here: f.Here}
	var buf bytes.Buffer
	if err := views.DemoPage(d).Render(context.Background(), &buf); err != nil {
		return nil, fmt.Errorf("frame %d: render: %w", f.Index, err)
	}
	return goquery.NewDocumentFromReader(&buf)
}

// Sent pairs each event of f's move that went on the wire with what the
// page prints for it.
func Sent(f Frame) ([]Event, error) {
	lines, err := Wire(f)
	if err != nil {
		return nil, err
	}
	var out []Event
	for i, e := range f.Latest() {
		call, _ := e.Wire()
		if call == "" && lines[i].Call == "" {
			continue
		}
		if call == "" || lines[i].Call == "" {
			return nil, fmt.Errorf("frame %d: the model's event %d (%s) has the call %q, the page prints %q", f.Index, i+1, e.Kind(), call, lines[i].Call)
		}
		out = append(out, Event{Event: e, Line: lines[i]})
	}
	return out, nil
}

// Event is a model's event with what the page prints for it.
type Event struct {
	demo.Event
	Line
}

// Shown is a frame of a history as its page shows it: the page, and what
// it prints for each event of the move that led to the frame.
type Shown struct {
	Frame
	Doc   *goquery.Document
	Lines []Line // none for the first frame
}

// Show plays h and renders every frame's page, as a suite does before it
// starts a replay, so that no rendering takes the replay's real time.
func Show(h History) ([]Shown, error) {
	var out []Shown
	err := h.Frames(func(f Frame) error {
		s := Shown{Frame: f}
		var err error
		if s.Doc, err = Page(f); err != nil {
			return err
		}
		if f.Index > 1 {
			s.Lines, err = Lines(f, s.Doc)
		}
		out = append(out, s)
		return err
	})
	return out, err
}
