package views_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/families"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/views"
)

// A store family from outside package demo, written only against its
// exported interface: a "latch" that any client can take and nobody can
// give back, so that the second taker is turned away. It is one type, its
// verb table, its events, its state and one line for its panel: what a new
// family costs.

type latchArgs struct{ Name string }

type latchTaken struct {
	demo.Head
	Name string
	OK   bool
}

func (e latchTaken) Kind() demo.Kind        { return demo.Pick(e.OK, "latch-taken", "latch-refused") }
func (e latchTaken) Wire() (string, string) { return "TAKE " + e.Name, fmt.Sprint(e.OK) }
func (e latchTaken) Draw(d *demo.Drawing) {
	if e.OK {
		d.Start("", e.Client, e.At, 0, -1)
	}
}

type latchState struct{ Holder string }

type latch struct{ holder string }

func (l *latch) Do(r *demo.Run, a demo.Action) error {
	c := r.Client(a.Who)
	e := latchTaken{Head: r.Head(c.Name, ""), Name: a.Args.(latchArgs).Name, OK: l.holder == ""}
	if e.OK {
		l.holder = c.Name
		r.Hold(c, -1)
	}
	r.Log(e)
	return nil
}
func (l *latch) Elapse(*demo.Run, int)    {}
func (l *latch) Forever(*demo.Run) string { return "" }
func (l *latch) State(*demo.Run) any      { return latchState{l.holder} }

var latchFamily = &demo.Family{
	Name:  "latch",
	Kinds: []demo.StoreKind{"latch"},
	Unit:  "ms",
	Verbs: []demo.VerbSpec{{Verb: "take", Form: "NAME", Help: "take the latch", Parse: func(w []string) (any, error) {
		if len(w) != 1 {
			return nil, errors.New("want NAME")
		}
		return latchArgs{w[0]}, nil
	}}},
	New:   func(*demo.Scenario) demo.Store { return &latch{} },
	Lanes: func(*demo.Scenario) []demo.Lane { return []demo.Lane{{Key: "", Label: "latch"}} },
	Transcript: func(b *strings.Builder, f *demo.Frame) bool {
		fmt.Fprintf(b, "  latch: held by %q\n", f.Store.(latchState).Holder)
		return false
	},
}

const latchScenario = `scenarios:
  - id: latch
    title: {ja: ラッチ, en: A latch}
    summary: {ja: 一度だけ取れる, en: Taken once}
    lesson: {ja: 二人目は断られる, en: The second taker is turned away}
    purpose: correctness
    topology: single
    switch: second
    switch-label: {ja: 二人目, en: second taker}
    store: latch
    resource: row-42
    clients: [A, B]
    sources:
      - title: {ja: "Martin Kleppmann: How to do distributed locking (2016)", en: "Martin Kleppmann: How to do distributed locking (2016)"}
        url: https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html
    initial:
      title: {ja: 始め, en: Start}
      text: {ja: 誰も持っていない, en: Nobody holds the latch}
    moves:
      - title: {ja: 二人が取る, en: Both take it}
        text: {ja: A と B が取りに行く, en: A and B take the latch}
        do:
          - A take door
          - if-on: B take door
          - A write A
`

func TestAFamilyOfOnesOwn(t *testing.T) {
	reg := demo.NewRegistry(append(families.All.Families(), latchFamily)...)
	c, err := script.LoadWith(reg, "latch.yaml", []byte(latchScenario))
	if err != nil {
		t.Fatal(err)
	}
	// One line for its panel.
	views.RegisterPanel(latchFamily, views.Panel{
		Store: func(d views.Demo) templ.Component {
			return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
				_, err := fmt.Fprintf(w, `<section class="panel" data-testid="latch">held by %s</section>`, d.Frame.Store.(latchState).Holder)
				return err
			})
		},
		Describe: func(lang string, f demo.Frame, e demo.Event) (string, bool) {
			if e, ok := e.(latchTaken); ok {
				return fmt.Sprintf("%s takes %s: %t", e.Client, e.Name, e.OK), true
			}
			return "", false
		},
	})
	sc := c.Scenarios[0]
	if got, want := sc.Frames(), 2; got != want {
		t.Fatalf("Frames()=%d, want %d", got, want)
	}
	f, err := demo.Place{Sc: sc, On: true, Step: 2}.Frame()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.Store.(latchState).Holder, "A"; got != want {
		t.Fatalf("holder=%q, want %q", got, want)
	}
	transcript, err := demo.Transcript(sc, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"> B take door", "t=0ms B: TAKE door => false", `latch: held by "A"`, `row-42: "A"`} {
		if !strings.Contains(transcript, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, transcript)
		}
	}

	here := views.Place{Place: demo.Place{Sc: sc, On: true, Step: 2}, Lang: "en"}
	var buf bytes.Buffer
	d := views.Demo{Page: views.Page{Lang: "en", Title: "latch", Chrome: true}, Frame: f, Here: here}
	if err := views.DemoPage(d).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := doc.Find(`[data-testid="latch"]`).Text(), "held by A"; got != want {
		t.Errorf("the latch's panel says %q, want %q", got, want)
	}
	if got := doc.Find(`[data-testid="resource-value"]`).Text(); !strings.Contains(got, `"A"`) {
		t.Errorf("the resource's panel says %q, want A's write", got)
	}
	if page := doc.Text(); !strings.Contains(page, "B takes door: false") {
		t.Errorf("the move's events lack B's refusal:\n%s", page)
	}
	var lanes []string
	doc.Find("text.lane-label").Each(func(_ int, s *goquery.Selection) { lanes = append(lanes, s.Text()) })
	if !strings.Contains(strings.Join(lanes, " "), "latch") {
		t.Errorf("the diagram's lanes are %q, want one for the latch", lanes)
	}
}

// Every registered family has its panel: a family added to demo/families
// without its line in the views' registry would show a bare page.
func TestEveryFamilyHasAPanel(t *testing.T) {
	for _, fam := range families.All.Families() {
		if !views.HasPanel(fam) {
			t.Errorf("family %s has no panel: add its line to familyPanels (views/panels.go)", fam.Name)
		}
	}
}

// A panel that draws the whole row (the store's data in the resource's
// place) belongs to a family that owns its data, whose clients the engine
// offers no write to a resource the page does not show; and the others the
// other way round.
func TestWholePanelsOwnTheirData(t *testing.T) {
	for _, fam := range families.All.Families() {
		sc := &demo.Scenario{Family: fam}
		if got, want := views.OwnsResource(sc), fam.OwnsResource; got != want {
			t.Errorf("%s: the panel draws the whole row: %v; the family owns its data: %v", fam.Name, got, want)
		}
	}
}
