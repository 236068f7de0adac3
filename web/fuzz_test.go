package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// Fuzzing the parameters a visitor controls: the query string of a page and
// the form and action of a click. Whatever arrives, the answer is never a
// 5xx, the status is one the handlers mean to send, and a frame that is
// shown is the frame the parameters name.
//
//	go test -run '^$' -fuzz '^FuzzPage$' -fuzztime 30s
//	go test -run '^$' -fuzz '^FuzzAct$' -fuzztime 30s
//
// Seeds are in testdata/fuzz/FuzzPage and testdata/fuzz/FuzzAct as well.

// fuzzServer is the whole application with no limit on new runs (a fuzzer
// starts thousands) and a small cache.
func fuzzServer(f *testing.F) *Server {
	cfg := DefaultConfig()
	cfg.RunRate = 0
	cfg.MaxRuns = 1000
	return newTestServer(f, cfg)
}

// fuzzStatuses are the answers a visitor's parameters may get.
var fuzzStatuses = map[int]bool{200: true, 303: true, 400: true, 404: true, 405: true, 413: true}

// wantPlace is the frame that parameters v name for sc, as the handlers read
// them: ok is false when they do not name one (and the answer must not be a
// frame).
func wantPlace(sc *demo.Scenario, v url.Values, stepField string) (on bool, step int, ok bool) {
	on, step = sc.Default, 1
	switch v.Get(sc.Switch) {
	case "":
	case "on", "off":
		on = v.Get(sc.Switch) == "on"
	default:
		return on, step, false
	}
	if s := v.Get(stepField); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > sc.Frames() {
			return on, step, false
		}
		step = n
	}
	switch v.Get("lang") {
	case "", "ja", "en":
	default:
		return on, step, false
	}
	return on, step, true
}

// mustShowStep fails unless body shows frame step of sc with the switch on
// or off.
func mustShowStep(t *testing.T, sc *demo.Scenario, body []byte, on bool, step int) {
	t.Helper()
	if got, want := views.StepShown(body), strconv.Itoa(step)+" / "+strconv.Itoa(sc.Frames()); got != want {
		t.Fatalf("shows step %q, want %q", got, want)
	}
	doc := testkit.Parse(t, body)
	pressed := doc.Find(`#demo [data-testid="`+sc.Switch+`"]`).AttrOr("aria-pressed", "")
	if got, want := pressed, strconv.FormatBool(on); got != want {
		t.Fatalf("switch aria-pressed=%q, want %q", got, want)
	}
}

func FuzzPage(f *testing.F) {
	s := fuzzServer(f)
	for _, seed := range []struct {
		id, query string
		htmx      bool
	}{
		{"gc-pause", "fencing=on&step=3&lang=en", false},
		{"gc-pause", "fencing=off&step=7&lang=ja&run=" + strings.Repeat("ab", 16), false},
		{"gc-pause", "step=0", false},
		{"gc-pause", "step=99&fencing=maybe", true},
		{"gc-pause", "step=%zz&lang=fr", false},
		{"gc-pause", "step=3&step=4&fencing=on&fencing=off", false},
		{"gc-pause", "present=1&step=2", false},
		{"no-lease", "", false},
		{"nope", "step=1", false},
		{"", "", false},
		{"gc-pause", "run=ZZ&step=+2", false},
		{"gc-pause", ";;&&==", true},
	} {
		f.Add(seed.id, seed.query, seed.htmx)
	}
	f.Fuzz(func(t *testing.T, id, query string, htmx bool) {
		r := httptest.NewRequest(http.MethodGet, "/scenarios/"+url.PathEscape(id), nil)
		r.URL.RawQuery = query
		r.RequestURI = r.URL.RequestURI()
		if htmx {
			r.Header.Set("HX-Request", "true")
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r) // a panic that escaped the recover middleware fails the fuzzer here
		if !fuzzStatuses[w.Code] {
			t.Fatalf("GET %s: status %d, want one of 200, 303, 400, 404, 405, 413; body:\n%s", r.RequestURI, w.Code, w.Body)
		}
		if w.Code != http.StatusOK {
			return
		}
		sc, ok := s.catalog.Get(id)
		if !ok {
			t.Fatalf("GET %s: 200 for an unknown scenario", r.RequestURI)
		}
		q, _ := url.ParseQuery(query) // what Echo's QueryParams keeps of a broken query
		on, step, ok := wantPlace(sc, q, "step")
		if !ok {
			t.Fatalf("GET %s: 200 for parameters that name no frame", r.RequestURI)
		}
		mustShowStep(t, sc, w.Body.Bytes(), on, step)
	})
}

func FuzzAct(f *testing.F) {
	s := fuzzServer(f)
	run := strings.Repeat("cd", 16)
	for _, seed := range []struct {
		id, action, body string
		htmx, embed      bool
	}{
		{"gc-pause", "step", "from=1&fencing=on&lang=en", true, false},
		{"gc-pause", "step", "from=7&fencing=off&lang=ja&run=" + run, false, false},
		{"gc-pause", "back", "from=1&fencing=on&lang=en", true, false},
		{"gc-pause", "reset", "from=5&fencing=off&lang=en", false, true},
		{"gc-pause", "switch", "from=4&fencing=on&lang=ja&run=" + run, true, true},
		{"gc-pause", "last", "from=2", true, false},
		{"gc-pause", "jump", "from=2&fencing=on&lang=en", true, false},
		{"gc-pause", "step", "from=0&fencing=on", true, false},
		{"gc-pause", "step", "from=3&run=not-a-run", false, false},
		{"gc-pause", "step", "%%%", true, false},
		{"gc-pause", "step", "from=" + strings.Repeat("9", 20000), true, false},
		{"redis-failover", "step", "from=2&wait=on&lang=en", true, false},
		{"nope", "step", "", true, false},
		{"gc-pause", "", "", false, false},
	} {
		f.Add(seed.id, seed.action, seed.body, seed.htmx, seed.embed)
	}
	f.Fuzz(func(t *testing.T, id, action, body string, htmx, embed bool) {
		base := "/scenarios/"
		if embed {
			base = "/embed/"
		}
		target := base + url.PathEscape(id) + "/" + url.PathEscape(action)
		r := httptest.NewRequest(http.MethodPost, target, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if htmx {
			r.Header.Set("HX-Request", "true")
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if !fuzzStatuses[w.Code] {
			t.Fatalf("POST %s %q: status %d, want one of 200, 303, 400, 404, 405, 413; body:\n%s", target, body, w.Code, w.Body)
		}
		if w.Code != http.StatusOK && w.Code != http.StatusSeeOther {
			return
		}
		sc, ok := s.catalog.Get(id)
		if !ok {
			t.Fatalf("POST %s: %d for an unknown scenario", target, w.Code)
		}
		form, err := url.ParseQuery(body)
		if err != nil {
			t.Fatalf("POST %s %q: %d for a form that does not parse (%v)", target, body, w.Code, err)
		}
		on, from, ok := wantPlace(sc, form, "from")
		if !ok {
			t.Fatalf("POST %s %q: %d for a form that names no frame", target, body, w.Code)
		}
		step, known := from, true
		switch action {
		case "step":
			step = min(from+1, sc.Frames())
		case "back":
			step = max(from-1, 1)
		case "reset":
			step = 1
		case "last":
			step = sc.Frames()
		case "switch":
			on = !on
		default:
			known = false // an action added since: check only that the frame is real
		}
		var shownOn bool
		var shownStep int
		if w.Code == http.StatusSeeOther {
			loc, err := url.Parse(w.Header().Get("Location"))
			if err != nil {
				t.Fatalf("Location=%q: %v", w.Header().Get("Location"), err)
			}
			q := loc.Query()
			if q.Has("run") {
				t.Fatalf("Location=%q carries a run key", loc)
			}
			var ok bool
			if shownOn, shownStep, ok = wantPlace(sc, q, "step"); !ok || q.Get("step") == "" {
				t.Fatalf("Location=%q names no frame", loc)
			}
		} else {
			if !htmx {
				t.Fatalf("POST %s without htmx: 200, want a redirect", target)
			}
			b := w.Body.Bytes()
			shown := strings.Split(views.StepShown(b), " / ")
			if len(shown) != 2 || shown[1] != strconv.Itoa(sc.Frames()) {
				t.Fatalf("shows step %q, want k / %d", views.StepShown(b), sc.Frames())
			}
			shownStep, _ = strconv.Atoi(shown[0])
			shownOn = on
			if known {
				mustShowStep(t, sc, b, on, step)
			}
		}
		if shownStep < 1 || shownStep > sc.Frames() {
			t.Fatalf("POST %s %q: lands on step %d, want 1 to %d", target, body, shownStep, sc.Frames())
		}
		if known && (shownStep != step || shownOn != on) {
			t.Fatalf("POST %s %q: lands on step %d switch %v, want step %d switch %v", target, body, shownStep, shownOn, step, on)
		}
	})
}
