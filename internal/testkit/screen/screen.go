// Package screen is what a test reads off a frame's page (lock service,
// resource, step, verdict) and what the model says it must read, in views'
// words: the one part of the test kit that needs package views.
package screen

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/lockservice"
	"github.com/distlock/fencing-demo/views"
)

// What a browser test reads off a frame of gc-pause (or any scenario with a
// lock service), and what the model says it must read.

// Checkpoint is one of the chapter's numbers: at frame Frame of gc-pause,
// with the switch On, the field Field (as Fields names it) shows Want.
type Checkpoint struct {
	On    bool
	Frame int
	Field string
	Want  string
}

// Checkpoints are the chapter's numbers, written out by hand: whatever the
// model computes, the page must show these.
var Checkpoints = []Checkpoint{
	{true, 5, "holder", "B"}, {true, 5, "token", "2"},
	{false, 5, "holder", "B"}, {false, 5, "token", "2"},
	{true, 7, "resource-value", `"B"`}, {true, 7, "max-token", "2"}, {true, 7, "rejected", "1"},
	{false, 7, "resource-value", `"A"`}, {false, 7, "rejected", "0"},
	{true, 7, "verdict", "contained"}, {false, 7, "verdict", "stale-write"},
}

// CheckCheckpoints fails early, with a clear message, when the model itself
// disagrees with the chapter.
func CheckCheckpoints(t testing.TB, sc *demo.Scenario) {
	t.Helper()
	if got, want := sc.Frames(), 7; got != want {
		t.Fatalf("model: gc-pause has %d frames, want the chapter's %d", got, want)
	}
	for _, cp := range Checkpoints {
		got := Field(Want(t, sc, cp.On, cp.Frame, "en"), cp.Field)
		if got != cp.Want {
			t.Errorf("model, fencing %s frame %d: %s=%q, want %q", demo.OnOff(cp.On), cp.Frame, cp.Field, got, cp.Want)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

// Screen is everything the page shows of a frame, read as a visitor reads it.
type Screen struct {
	Index        string `json:"index"`
	Holder       string `json:"holder"`
	Token        string `json:"token"`
	Expiry       string `json:"expiry"`
	Now          string `json:"now"`
	Value        string `json:"value"`
	MaxToken     string `json:"maxToken"`
	Rejected     string `json:"rejected"`
	Pressed      string `json:"pressed"`
	StepLabel    string `json:"stepLabel"`
	StepDisabled bool   `json:"stepDisabled"`
	Lesson       bool   `json:"lesson"`
	RejectMarks  int    `json:"rejectMarks"`
	StaleMarks   int    `json:"staleMarks"`
	Verdict      string `json:"verdict"`

	Href  string `json:"href"`
	Run   string `json:"run"`   // the run id in the step form
	Busy  int    `json:"busy"`  // requests in flight plus htmx swaps not yet settled
	Htmx  bool   `json:"htmx"`  // htmx has loaded
	Error string `json:"error"` // the error page's message, if one is shown
}

// ScreenJS reads a Screen. Text is innerText with spaces collapsed: what is
// on the Screen, not what is in the markup.
const ScreenJS = `(() => {
  const q = id => document.querySelector('[data-testid="' + id + '"]');
  const text = id => { const e = q(id); return e ? e.innerText.replace(/\s+/g, ' ').trim() : ''; };
  const step = q('step'), sw = q('fencing'), lesson = q('lesson'), tl = q('timeline');
  const form = step && step.form;
  return {
    index: text('step-index'), holder: text('holder'), token: text('token'),
    expiry: text('lease-expiry'), now: text('now'), value: text('resource-value'),
    maxToken: text('max-token'), rejected: text('rejected'),
    pressed: sw ? (sw.getAttribute('aria-pressed') || '') : '',
    stepLabel: text('step'), stepDisabled: !!(step && step.disabled),
    lesson: !!lesson && lesson.checkVisibility({visibilityProperty: true, opacityProperty: true}),
    rejectMarks: tl ? tl.querySelectorAll('g.mark.rejected').length : -1,
    staleMarks: tl ? tl.querySelectorAll('g.mark.stale').length : -1,
    verdict: q('verdict') ? (q('verdict').dataset.verdict || '') : '',
    href: location.href,
    run: form && form.elements.run ? form.elements.run.value : '',
    busy: (window.__inflight ? window.__inflight() : 0) +
      document.querySelectorAll('.htmx-request, .htmx-added, .htmx-settling, .htmx-swapping').length,
    htmx: typeof window.htmx === 'object',
    error: text('error-message'),
  };
})()`

// InflightJS counts the page's XMLHttpRequests that have not ended, so a wait
// can tell "the Screen shows frame k" from "and nothing more is coming".
const InflightJS = `(() => {
  let open = 0;
  window.__inflight = () => open;
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    open++;
    this.addEventListener('loadend', () => open--);
    return send.apply(this, args);
  };
})()`

// Fields lists a Screen's values by their data-testid.
func Fields(s Screen) [][2]string {
	return [][2]string{
		{"step-index", s.Index},
		{"holder", s.Holder},
		{"token", s.Token},
		{"lease-expiry", s.Expiry},
		{"now", s.Now},
		{"resource-value", s.Value},
		{"max-token", s.MaxToken},
		{"rejected", s.Rejected},
		{"fencing aria-pressed", s.Pressed},
		{"step disabled", strconv.FormatBool(s.StepDisabled)},
		{"lesson shown", strconv.FormatBool(s.Lesson)},
		{"rejected marks", strconv.Itoa(s.RejectMarks)},
		{"stale marks", strconv.Itoa(s.StaleMarks)},
		{"verdict", s.Verdict},
	}
}

func Field(s Screen, name string) string {
	for _, f := range Fields(s) {
		if f[0] == name {
			return f[1]
		}
	}
	panic("no Field " + name)
}

// Want is what the page must show for frame k: the model's frame,
// written as the template writes it.
func Want(t testing.TB, sc *demo.Scenario, on bool, k int, lang string) Screen {
	t.Helper()
	r, err := demo.Replay(sc, on, k)
	if err != nil {
		t.Fatalf("replaying %s fencing %s to frame %d: %v", sc.ID, demo.OnOff(on), k, err)
	}
	f := r.Frame()
	l, _ := lockservice.Of(f)
	s := Screen{
		Index:        fmt.Sprintf("%d / %d", f.Index, f.Total),
		Holder:       l.Holder,
		Token:        strconv.FormatInt(l.Token, 10),
		Expiry:       "t=" + strconv.Itoa(l.Expiry),
		Now:          "t=" + strconv.Itoa(f.Now),
		Value:        `"` + f.Data + `"`,
		MaxToken:     strconv.FormatInt(f.MaxToken, 10),
		Rejected:     strconv.Itoa(f.Rejected),
		Pressed:      strconv.FormatBool(on),
		StepDisabled: f.Last(),
		Lesson:       f.Last(),
	}
	if l.Holder == "" {
		s.Holder = "(" + views.T(lang, "free") + ")"
	}
	if l.NoLease() {
		s.Expiry = views.T(lang, "lease.none")
	}
	if l.Token == 0 {
		s.Token = "—"
	}
	if f.Data == "" {
		s.Value = views.T(lang, "empty")
	}
	for _, e := range f.Events {
		if e.Kind() == demo.Rejected {
			s.RejectMarks++
		}
	}
	s.Verdict = f.Verdict().Kind.String()
	for _, v := range f.Violations {
		if v.Kind == demo.StaleWrite {
			s.StaleMarks++
		}
	}
	return s
}
