package views

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"
	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// render renders c and parses it.
func render(t *testing.T, c templ.Component) *goquery.Document {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// frameDoc renders the page of a real scenario's frame in lang.
func frameDoc(t *testing.T, id string, on bool, step int, lang string) (*goquery.Document, demo.Frame) {
	t.Helper()
	sc := testkit.Scenario(t, id)
	r, err := demo.Replay(sc, on, step)
	if err != nil {
		t.Fatal(err)
	}
	f := r.Frame()
	here := Place{Sc: sc, On: on, Step: step, Lang: lang}
	d := Demo{Page: Page{Lang: lang, Title: sc.Title.In(lang), Chrome: true}, Frame: f, Here: here}
	return render(t, DemoPage(d)), f
}

// The wire's replies that are not protocol, a refused connection and a
// timeout, are words, and a Japanese page says them in Japanese.
func TestWireRepliesInTheirLanguage(t *testing.T) {
	for _, tt := range []struct {
		id         string
		on         bool
		step       int
		lang, want string
		notWant    string
	}{
		{"redlock-quorum", false, 4, "ja", "接続拒否 (ECONNREFUSED)", "connection refused"},
		{"redlock-quorum", false, 4, "en", "connection refused", "接続拒否"},
		{"redlock-clock-jump", true, 2, "ja", "50 ms 応答なし (タイムアウト)", "no answer in"},
		{"redlock-clock-jump", true, 2, "en", "no answer in 50 ms", "応答なし"},
	} {
		doc, _ := frameDoc(t, tt.id, tt.on, tt.step, tt.lang)
		replies := doc.Find(".happened .wire .reply").Text()
		if !strings.Contains(replies, tt.want) || strings.Contains(replies, tt.notWant) {
			t.Errorf("%s %s frame %d (%s): replies %q, want %q and not %q", tt.id, demo.OnOff(tt.on), tt.step, tt.lang, replies, tt.want, tt.notWant)
		}
	}
}

// The frame's verdict is the model's headline, marked by its class; every
// finding is listed when there is more than one; and the diagram marks each
// one where it happened.
func TestVerdictOnTheFrame(t *testing.T) {
	for _, tt := range []struct {
		id       string
		on       bool
		step     int
		verdict  string
		class    string
		findings []string
	}{
		{"gc-pause", true, 5, "overlap-no-write", "warning", nil},
		{"gc-pause", true, 7, "contained", "contained", nil},
		{"gc-pause", false, 7, "stale-write", "broken", []string{"overlap-no-write", "stale-write"}},
		{"release-other", true, 7, "overlap-no-write", "warning", nil},
		{"release-other", false, 7, "two-holders", "broken", []string{"overlap-no-write", "two-holders"}},
		{"watchdog", true, 8, "mutual-exclusion-held", "held", nil},
		{"fencing-sql", true, 7, "contained", "contained", nil},
		{"fencing-sql", false, 7, "stale-write", "broken", []string{"overlap-no-write", "stale-write"}},
		{"reentrant", false, 3, "waits-on-itself", "broken", nil},
		{"reentrant", true, 7, "mutual-exclusion-held", "held", nil},
	} {
		for _, lang := range []string{"ja", "en"} {
			doc, f := frameDoc(t, tt.id, tt.on, tt.step, lang)
			v := doc.Find(`[data-testid="verdict"]`)
			if got := v.AttrOr("data-verdict", ""); got != tt.verdict {
				t.Errorf("%s %s frame %d: data-verdict=%q, want %q", tt.id, demo.OnOff(tt.on), tt.step, got, tt.verdict)
			}
			if !v.HasClass(tt.class) {
				t.Errorf("%s %s frame %d: verdict class %q, want %q", tt.id, demo.OnOff(tt.on), tt.step, v.AttrOr("class", ""), tt.class)
			}
			if want := Verdict(lang, f); !strings.Contains(v.Text(), want) {
				t.Errorf("%s frame %d (%s): verdict %q does not say %q", tt.id, tt.step, lang, v.Text(), want)
			}
			var listed []string
			v.Find(`[data-testid="violations"] li`).Each(func(_ int, li *goquery.Selection) {
				listed = append(listed, li.AttrOr("data-verdict", ""))
			})
			if strings.Join(listed, " ") != strings.Join(tt.findings, " ") {
				t.Errorf("%s %s frame %d: findings listed %q, want %q", tt.id, demo.OnOff(tt.on), tt.step, listed, tt.findings)
			}
			if got, want := doc.Find("svg text.alert-label").Length(), len(f.Violations); got != want {
				t.Errorf("%s %s frame %d: %d alerts on the diagram, want %d", tt.id, demo.OnOff(tt.on), tt.step, got, want)
			}
		}
	}
}

// The index shows each switch position's outcome in the model's terms and
// explains every kind in its legend.
func TestIndexOutcomesAndLegend(t *testing.T) {
	c := testkit.Catalog(t)
	var entries []Entry
	for _, sc := range c.Scenarios {
		off, on := testkit.LastFrame(t, sc.ID, false), testkit.LastFrame(t, sc.ID, true)
		entries = append(entries, Entry{Sc: sc, Off: off, On: on})
	}
	for _, lang := range []string{"ja", "en"} {
		doc := render(t, IndexPage(Index{Page: Page{Lang: lang, Chrome: true}, Groups: []Group{{Purpose: "efficiency", Topology: "single", Entries: entries}}}))
		for _, e := range entries {
			for _, f := range []demo.Frame{e.Off, e.On} {
				o := doc.Find(`[data-testid="scenario-` + e.Sc.ID + `"] [data-testid="outcome-` + demo.OnOff(f.On) + `"]`)
				k := f.Verdict().Kind
				if got := o.AttrOr("data-verdict", ""); got != k.String() {
					t.Errorf("%s %s: outcome %q, want %q", e.Sc.ID, demo.OnOff(f.On), got, k)
				}
				if !strings.Contains(o.Text(), VerdictShort(lang, k)) || !o.HasClass(k.Class().String()) {
					t.Errorf("%s %s (%s): outcome %q (class %q) does not show %q", e.Sc.ID, demo.OnOff(f.On), lang, o.Text(), o.AttrOr("class", ""), VerdictShort(lang, k))
				}
			}
		}
		for _, k := range VerdictKinds {
			if doc.Find(`[data-testid="legend-`+k.String()+`"]`).Length() != 1 {
				t.Errorf("%s: the legend lacks %s", lang, k)
			}
		}
	}
}
