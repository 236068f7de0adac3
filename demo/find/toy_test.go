package find_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/families"
	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/views"
)

// A family from outside package demo that brings a failure nobody else has
// and promises of its own: a turnstile that lets one visitor in at a time
// when it counts (the switch), and lets anyone in when it does not. Its
// kind of failure, words and properties are declared here, in the family's
// own code, and no file of the engine's or of another family is edited for
// the finder to find the failure and the page to tell it.

// crowded: a visitor went in while another was still inside.
var crowded = demo.NewKind(demo.KindSpec{Name: "crowded", Class: demo.Broken, Words: demo.Words{
	Short:  demo.Text{JA: "満員", EN: "crowded"},
	Legend: demo.Text{JA: "一人しか入れない所に二人が入った。", EN: "Two were inside where only one may be."},
	Say: func(f *demo.Frame, v demo.Violation) demo.Text {
		return demo.Says("満員: %[1]s が %[3]s に入ったとき、%[2]s がまだ中にいた。",
			"Crowded: %[1]s went in at %[3]s while %[2]s was still inside.", v.Client, v.Other, demo.ShowTime(f.Scenario, v.At))
	},
}})

type gateState struct{ Inside []string }

type gate struct {
	inside []string
	passed int // visitors who went in and came out
}

type gateEvent struct {
	demo.Head
	Verb string
	OK   bool
}

func (e gateEvent) Kind() demo.Kind        { return demo.Kind("gate-" + e.Verb) }
func (e gateEvent) Wire() (string, string) { return strings.ToUpper(e.Verb), fmt.Sprint(e.OK) }

func (g *gate) Do(r *demo.Run, a demo.Action) error {
	in := -1
	for i, v := range g.inside {
		if v == a.Who {
			in = i
		}
	}
	switch a.Verb {
	case "enter":
		if in >= 0 {
			return &demo.ActionError{Action: a, Msg: a.Who + " is inside already"}
		}
		ok := len(g.inside) == 0 || !r.On()
		r.Log(gateEvent{Head: r.Head(a.Who, ""), Verb: "enter", OK: ok})
		if !ok {
			return nil
		}
		if len(g.inside) > 0 {
			r.Violate(demo.Violation{Kind: crowded, At: r.Now(), Client: a.Who, Other: g.inside[0]})
		}
		g.inside = append(g.inside, a.Who)
	case "leave":
		if in < 0 {
			return &demo.ActionError{Action: a, Msg: a.Who + " is not inside"}
		}
		g.inside = append(g.inside[:in:in], g.inside[in+1:]...)
		g.passed++
		r.Log(gateEvent{Head: r.Head(a.Who, ""), Verb: "leave", OK: true})
	}
	return nil
}

func (g *gate) Elapse(*demo.Run, int)      {}
func (g *gate) Forever(*demo.Run) string   { return "" }
func (g *gate) State(*demo.Run) any        { return gateState{Inside: append([]string(nil), g.inside...)} }
func noWords([]string) (any, error)        { return nil, nil }
func gateOffers(r *demo.Run) []demo.Offer  { return demo.ScriptOffers(r, true) }
func gateLanes(*demo.Scenario) []demo.Lane { return []demo.Lane{{Key: "", Label: "gate"}} }

var gateFamily = &demo.Family{
	Name:  "turnstile",
	Kinds: []demo.StoreKind{"turnstile"},
	Unit:  "ms",
	Verbs: []demo.VerbSpec{
		{Verb: "enter", Help: "go through the turnstile", Parse: noWords},
		{Verb: "leave", Help: "come back out", Parse: noWords},
	},
	New:      func(*demo.Scenario) demo.Store { return &gate{} },
	Lanes:    gateLanes,
	Offers:   gateOffers,
	Failures: []demo.ViolationKind{crowded},
	Properties: []demo.Property{
		{Name: "one-at-a-time", Kind: crowded,
			Says: demo.Text{JA: "中にいるのはいつも一人まで", EN: "never more than one inside"}},
		{Name: "someone-passes", Reached: func(r *demo.Run) bool { return r.Store().(*gate).passed > 0 },
			Says: demo.Text{JA: "誰かが通り抜けられる", EN: "someone gets through"}},
	},
}

const gateScenario = `scenarios:
  - id: turnstile
    title: {ja: 改札, en: A turnstile}
    summary: {ja: 一人ずつ, en: One at a time}
    lesson: {ja: 数えない改札は満員になる, en: A turnstile that does not count lets a crowd in}
    purpose: correctness
    topology: single
    switch: count
    switch-label: {ja: 数える, en: counting}
    store: turnstile
    resource: hall
    clients: [A, B]
    property: one-at-a-time
    sources:
      - title: {ja: "Martin Kleppmann: How to do distributed locking (2016)", en: "Martin Kleppmann: How to do distributed locking (2016)"}
        url: https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html
    initial:
      title: {ja: 始め, en: Start}
      text: {ja: 誰も中にいない, en: Nobody is inside}
    moves:
      - title: {ja: 二人が入る, en: Both go in}
        text: {ja: A と B が入りに行き、A が出る, en: "A and B go in, and A comes out"}
        do:
          - A enter
          - B enter
          - A leave
`

func TestAFamilyBringsItsOwnFailure(t *testing.T) {
	reg := demo.NewRegistry(append(families.All.Families(), gateFamily)...)
	c, err := script.LoadWith(reg, "turnstile.yaml", []byte(gateScenario))
	if err != nil {
		t.Fatal(err)
	}
	sc := c.Scenarios[0]
	always, ok := sc.Promise()
	if !ok || always.Name != "one-at-a-time" {
		t.Fatalf("the scenario's promise is %q (found %v), want the family's one-at-a-time", always.Name, ok)
	}
	sometimes, ok := demo.PropertyOf(gateFamily, "someone-passes")
	if !ok || !sometimes.Sometimes() {
		t.Fatalf("someone-passes: found %v, sometimes %v", ok, sometimes.Sometimes())
	}
	for _, tc := range []struct {
		on         bool
		prop       demo.Property
		found      bool
		trace, say string
	}{
		// Not counting, the shortest crowd is two visitors going in.
		{false, always, true, "A enter|B enter", "Crowded: B went in at t=0s while A was still inside."},
		// Counting, nobody is ever crowded in, and yet someone gets through:
		// a fix, not a turnstile that lets nobody in.
		{true, always, false, "", "No violation up to depth 8"},
		{true, sometimes, true, "A enter|A leave", `"someone gets through" can happen: here in 2 actions.`},
	} {
		res, err := find.Find(demo.Place{Sc: sc, On: tc.on, Step: 1}, tc.prop, find.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var trace []string
		for _, a := range res.Trace {
			trace = append(trace, a.Source)
		}
		if res.Found != tc.found || strings.Join(trace, "|") != tc.trace {
			t.Errorf("on=%v %s: found %v %q, want %v %q", tc.on, tc.prop.Name, res.Found, trace, tc.found, tc.trace)
		}
		if tc.found && !tc.prop.Sometimes() && res.Violation.Kind != crowded {
			t.Errorf("on=%v: the violation found is %s, want crowded", tc.on, res.Violation.Kind)
		}
		// The page tells it in the family's words, in both languages.
		for _, lang := range []string{"en", "ja"} {
			here := views.Place{Place: demo.Place{Sc: sc, On: tc.on, Step: 1}, Lang: lang}
			f, err := views.NewFind(here, res)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := views.FindResult(f).Render(context.Background(), &buf); err != nil {
				t.Fatal(err)
			}
			doc, err := goquery.NewDocumentFromReader(&buf)
			if err != nil {
				t.Fatal(err)
			}
			text := strings.Join(strings.Fields(doc.Text()), " ")
			if lang == "en" && !strings.Contains(text, tc.say) {
				t.Errorf("on=%v %s: the page says %q, want %q", tc.on, tc.prop.Name, text, tc.say)
			}
			if lang == "ja" && tc.found && !tc.prop.Sometimes() && !strings.Contains(text, "満員: B が t=0s に入ったとき、A がまだ中にいた。") {
				t.Errorf("on=%v: the Japanese page says %q, without the family's words", tc.on, text)
			}
		}
	}
	var ae *demo.ActionError
	if _, err := (demo.Place{Sc: sc, On: true, Step: 1, Play: "A leave"}).Run(); !errors.As(err, &ae) {
		t.Errorf("A leaving before it went in: %v, want the family's refusal", err)
	}
}
