package web

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/lockservice"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// What the tests of package web share beyond the test kit: the whole server
// wired as main wires it, and how a gc-pause page looks to a visitor.

// newTestServer wires the whole application, as main does, with the
// repository's scenarios, guide and static files. Logs are dropped unless the
// test is verbose.
func newTestServer(tb testing.TB, cfg Config) *Server {
	tb.Helper()
	var w io.Writer = io.Discard
	if testing.Verbose() {
		w = tWriter{tb}
	}
	s, err := New(cfg, testkit.Catalog(tb), testkit.Guide(tb), testkit.Static(tb), slog.New(slog.NewTextHandler(w, nil)))
	if err != nil {
		tb.Fatal(err)
	}
	// Versions count moves from 1, as the tests expect; the server's own
	// start from the clock, so that they keep rising across a restart.
	s.follow.Clock = func() time.Time { return time.Unix(0, 0) }
	// Clicks come a second apart, at a person's pace, whatever the machine's
	// speed: two posts in a row are never taken for a double click's echo
	// (TestRunEchoOfDoubleClick times one itself).
	var mu sync.Mutex
	clock := time.Unix(0, 0)
	s.now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(time.Second)
		return clock
	}
	return s
}

// runCookieOf is the run key cookie a click's answer sets, as a Cookie
// header for the next request.
func runCookieOf(tb testing.TB, w *httptest.ResponseRecorder) string {
	tb.Helper()
	for _, c := range w.Result().Cookies() {
		if c.Name == runCookieName {
			if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" {
				tb.Fatalf("run cookie %+v, want HttpOnly, SameSite=Lax, Path=/", c)
			}
			return c.Name + "=" + c.Value
		}
	}
	tb.Fatalf("no run cookie in %q", w.Header().Values("Set-Cookie"))
	return ""
}

type tWriter struct{ tb testing.TB }

func (w tWriter) Write(p []byte) (int, error) { w.tb.Log(string(p)); return len(p), nil }

// gcPause loads the chapter's scenario from scenarios.yaml,
// independently of the server under test.
func gcPause(tb testing.TB) *demo.Scenario {
	tb.Helper()
	return testkit.Scenario(tb, "gc-pause")
}

// gcPauseURL is a frame's address as a visitor would copy it from the address
// bar. It is spelled out here rather than taken from views, so the test also
// pins the URL format.
func gcPauseURL(on bool, step int, lang string) string {
	return fmt.Sprintf("/scenarios/gc-pause?fencing=%s&step=%d&lang=%s", demo.OnOff(on), step, lang)
}

// place is what the hidden inputs of every control say: the run, the frame
// the click was made on, the switch and the language.
type place struct {
	run  string
	from int
	on   bool
	lang string
}

func (p place) form() url.Values {
	return url.Values{"run": {p.run}, "from": {strconv.Itoa(p.from)}, "fencing": {demo.OnOff(p.on)}, "lang": {p.lang}}
}

// click posts action (step, back, reset, switch) made on place p.
func click(tb testing.TB, h http.Handler, action string, p place, htmx bool) *httptest.ResponseRecorder {
	tb.Helper()
	return testkit.Post(tb, h, "/scenarios/gc-pause/"+action, p.form(), htmx)
}

// display is what a frame shows, as text on the screen.
type display struct {
	Index    string // "k / 7"
	Pressed  string // the fencing switch's aria-pressed
	Holder   string
	Token    string
	Expiry   string
	Now      string
	Value    string
	MaxToken string
	Rejected string
	Fenced   bool // the resource's badge says fencing on
}

// The words for a free lock and an empty resource.
var (
	freeWord  = map[string]string{"ja": "(空き)", "en": "(free)"}
	emptyWord = map[string]string{"ja": "(空)", "en": "(empty)"}
	noLease   = map[string]string{"ja": "なし (誰も保持していない)", "en": "none (nothing held)"}
)

// expect is how frame f must look in lang.
func expect(f demo.Frame, lang string) display {
	l, _ := lockservice.Of(f)
	d := display{
		Index:    fmt.Sprintf("%d / %d", f.Index, f.Total),
		Pressed:  strconv.FormatBool(f.On),
		Holder:   l.Holder,
		Token:    strconv.FormatInt(l.Token, 10),
		Expiry:   fmt.Sprintf("t=%d", l.Expiry),
		Now:      fmt.Sprintf("t=%d", f.Now),
		Value:    strconv.Quote(f.Data),
		MaxToken: strconv.FormatInt(f.MaxToken, 10),
		Rejected: strconv.Itoa(f.Rejected),
		Fenced:   f.Fenced,
	}
	if l.Holder == "" {
		d.Holder = freeWord[lang]
	}
	if l.Token == 0 {
		d.Token = "—"
	}
	if f.Data == "" {
		d.Value = emptyWord[lang]
	}
	if l.NoLease() {
		d.Expiry = noLease[lang]
	}
	return d
}

// shown reads what a page or fragment displays.
func shown(tb testing.TB, doc *goquery.Document) display {
	tb.Helper()
	badge := doc.Find("#h-res .badge")
	if n := badge.Length(); n != 1 {
		tb.Fatalf("%d resource badges, want 1", n)
	}
	return display{
		Index:    testkit.TestID(tb, doc, "step-index"),
		Pressed:  testkit.Attr(tb, doc, "fencing", "aria-pressed"),
		Holder:   testkit.TestID(tb, doc, "holder"),
		Token:    testkit.TestID(tb, doc, "token"),
		Expiry:   testkit.TestID(tb, doc, "lease-expiry"),
		Now:      testkit.TestID(tb, doc, "now"),
		Value:    testkit.TestID(tb, doc, "resource-value"),
		MaxToken: testkit.TestID(tb, doc, "max-token"),
		Rejected: testkit.TestID(tb, doc, "rejected"),
		Fenced:   badge.HasClass("on"),
	}
}

// mustShow fails unless doc displays frame f in lang, field by field.
func mustShow(tb testing.TB, doc *goquery.Document, f demo.Frame, lang string) {
	tb.Helper()
	if got, want := shown(tb, doc), expect(f, lang); got != want {
		tb.Fatalf("frame %d (fencing %s, %s) shows\n %+v\nwant\n %+v", f.Index, demo.OnOff(f.On), lang, got, want)
	}
	// The event log lists every event so far, once: a move played twice
	// would show here even if the totals happened to agree.
	if got, want := doc.Find("details.log li").Length(), len(f.Events); got != want {
		tb.Fatalf("event log has %d entries, want %d", got, want)
	}
	_, lesson := doc.Find(`[data-testid="lesson"]`).Attr("data-testid")
	if got, want := lesson, f.Last(); got != want {
		tb.Fatalf("lesson shown=%v at frame %d, want %v", got, f.Index, want)
	}
}

// runID returns the run id that every control of doc carries.
func runID(tb testing.TB, doc *goquery.Document) string {
	tb.Helper()
	// The controls' forms; a question's answers and its Ask carry the run too.
	inputs := doc.Find(`#demo .controls form:not(.options):not(.ask-room) input[name="run"]`)
	if got, want := inputs.Length(), 5; got != want {
		tb.Fatalf("%d run inputs, want %d (step, back, reset, take over, switch)", got, want)
	}
	id := inputs.First().AttrOr("value", "")
	inputs.Each(func(i int, s *goquery.Selection) {
		if got := s.AttrOr("value", ""); got != id {
			tb.Fatalf("run input %d=%q, want %q like the first", i, got, id)
		}
	})
	return id
}

var runIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

func mustRunID(tb testing.TB, id string) {
	tb.Helper()
	if !runIDPattern.MatchString(id) {
		tb.Fatalf("run id %q, want 32 lower-case hex digits", id)
	}
}

// mustFragment fails unless body is a fragment for htmx, not a whole page.
func mustFragment(tb testing.TB, body []byte) {
	tb.Helper()
	lower := bytes.ToLower(body)
	if bytes.Contains(lower, []byte("<html")) || bytes.Contains(lower, []byte("<!doctype")) {
		tb.Fatalf("htmx got a whole page, want a fragment:\n%s", body)
	}
}
