package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/follow"
	"github.com/distlock/fencing-demo/web/internal/respond"
)

// A cached answer is byte for byte what drawing the frame afresh gives, for
// every scenario and view, with and without a run and a follow link, both as
// it is and gunzipped; and the second visitor's ids land where the first's
// were.
func TestAnswersMatchRendering(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	for _, sc := range s.catalog.Scenarios {
		t.Run(sc.ID, func(t *testing.T) {
			t.Parallel() // every scenario drawn many ways: the longest test here
			checkAnswersMatch(t, s, sc)
		})
	}
}

// checkAnswersMatch is TestAnswersMatchRendering for one scenario.
func checkAnswersMatch(t *testing.T, s *Server, sc *demo.Scenario) {
	runs := []string{strings.Repeat("0123456789abcdef", 2), strings.Repeat("fedcba9876543210", 2)}
	fids := []string{strings.Repeat("a1b2c3d4", 4), strings.Repeat("9e8d7c6b", 4)}
	steps := []int{1, (sc.Frames() + 1) / 2, sc.Frames()}
	if testing.Short() && sc.ID != "gc-pause" {
		steps = []int{sc.Frames()}
	}
	for _, step := range steps {
		for _, here := range []views.Place{
			{Place: demo.Place{Sc: sc, On: true, Step: step}, Lang: "en"},
			{Place: demo.Place{Sc: sc, On: false, Step: step}, Lang: "ja", View: views.EmbedView},
			{Place: demo.Place{Sc: sc, On: sc.Default, Step: step}, Lang: "en", Present: true},
		} {
			for _, c := range []struct {
				page, run, follow bool
			}{{true, false, false}, {true, true, false}, {true, true, true}, {false, true, true}, {false, true, false}} {
				key := answerKey{here: here, page: c.page}
				for i := range runs {
					var ids respond.IDs
					if c.run {
						ids.Run = runs[i]
					}
					if c.follow {
						ids.Follow = fids[i]
					}
					want := drawn(t, s, key, ids)
					for _, gz := range []bool{false, true} {
						if got := served(t, s, key, ids, gz); !bytes.Equal(got, want) {
							t.Fatalf("%s %+v gzip %v: the cached answer differs from the drawn one:\n%s\nwant\n%s", here.URL(), c, gz, got, want)
						}
					}
				}
			}
		}
	}
}

// drawn renders key's answer directly, without the cache.
func drawn(t *testing.T, s *Server, key answerKey, ids respond.IDs) []byte {
	t.Helper()
	f := testkit.Frame(t, key.here.Sc, key.here.On, key.here.Step)
	link := ""
	if ids.Follow != "" {
		link = views.FollowURL(ids.Follow)
	}
	d := s.demoView(f, key.here, ids.Run, link)
	comp := views.DemoSwap(d)
	if key.page {
		comp = views.DemoPage(d)
	}
	var buf bytes.Buffer
	if err := comp.Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// served is key's answer through the cache, gunzipped when it came
// compressed.
func served(t *testing.T, s *Server, key answerKey, ids respond.IDs, gz bool) []byte {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	if gz {
		r.Header.Set("Accept-Encoding", "gzip")
	}
	w := httptest.NewRecorder()
	c := s.echo.NewContext(r, w)
	if err := s.writeFrame(c, key, ids); err != nil {
		t.Fatal(err)
	}
	if got := w.Header().Get("Content-Encoding") == "gzip"; got != gz {
		t.Fatalf("Content-Encoding %q, asked for gzip: %v", w.Header().Get("Content-Encoding"), gz)
	}
	if !gz {
		return w.Body.Bytes()
	}
	zr, err := gzip.NewReader(w.Body)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	return body
}

// Two visitors open the same frame with their own run cookies: each page
// carries its own key and its own lecture's follow link, never the other's,
// gzipped or not, marked private and varying by Cookie; and what the answer
// cache keeps, shared by every visitor, holds neither key nor follow id.
func TestAnswersKeepNoVisitorsKey(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	keys := []string{strings.Repeat("0123456789abcdef", 2), strings.Repeat("fedcba9876543210", 2)}
	for _, gz := range []string{"", "gzip"} {
		for i, key := range keys {
			other := keys[1-i]
			w := testkit.Get(t, s, gcPauseURL(true, 3, "en"), "Cookie", runCookieName+"="+key, "Accept-Encoding", gz)
			testkit.MustStatus(t, w, http.StatusOK)
			if got, want := w.Header().Get("Cache-Control"), "private, no-cache"; got != want {
				t.Fatalf("Cache-Control %q for a page with a run key, want %q", got, want)
			}
			if !strings.Contains(strings.Join(w.Header().Values("Vary"), ","), "Cookie") {
				t.Fatalf("Vary %q, want Cookie in it", w.Header().Values("Vary"))
			}
			body := w.Body.Bytes()
			if w.Header().Get("Content-Encoding") == "gzip" {
				zr, err := gzip.NewReader(w.Body)
				if err != nil {
					t.Fatal(err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			}
			doc := testkit.Parse(t, body)
			if got := runID(t, doc); got != key {
				t.Fatalf("visitor %d's page carries run key %q, want theirs %q", i, got, key)
			}
			if got, want := followLink(t, doc), lectureLink(key); got != want {
				t.Fatalf("visitor %d's follow link %q, want their lecture's %q", i, got, want)
			}
			for _, leak := range []string{other, follow.LectureID(other)} {
				if bytes.Contains(body, []byte(leak)) {
					t.Fatalf("visitor %d's page (%q) holds the other visitor's %q", i, gz, leak)
				}
			}
		}
	}
	kept := s.answers.Kept()
	if len(kept) == 0 {
		t.Fatal("the answer cache keeps nothing after four pages")
	}
	for _, a := range kept {
		for _, key := range keys {
			for _, id := range []string{key, follow.LectureID(key)} {
				if bytes.Contains(a, []byte(id)) {
					t.Fatalf("a cached answer holds a visitor's id %q", id)
				}
			}
		}
	}
}
