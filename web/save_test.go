package web

import (
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// "Save as a scenario" teaches what was played: every scenario saved at its
// last frame in both positions, and a free-play history of every family
// played in either position, loads back as -scenarios loads a file and
// plays the same frames, with the same verdicts and the same panels, frame
// by frame; a saved script has the original's transcript.
func TestSavedPlaysTheSame(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	var places []demo.Place
	for _, sc := range s.catalog.Scenarios {
		for _, on := range []bool{false, true} {
			places = append(places, demo.Place{Sc: sc, On: on, Step: sc.Frames()})
		}
	}
	places = append(places, freePlayPerFamily(t, s.catalog)...)
	for _, p := range places {
		name := testkit.Name(p.Sc, p.On)
		if p.Free() {
			name += "/free"
		}
		t.Run(name, func(t *testing.T) {
			saved, mine := loadSaved(t, s, p)
			if !p.Free() {
				sameTranscript(t, p.Sc, saved, p.On)
			}
			for k := 1; k <= saved.Frames(); k++ {
				at := p.At(min(k, p.Step))
				for _, line := range strings.Split(p.Play, "\n")[:max(0, k-p.Step)] {
					at = at.Then(mustParse(t, p.Sc, line))
				}
				to := demo.Place{Sc: saved, On: p.On, Step: k}
				sameFrame(t, at, to)
				// Drawing every frame twice is the slow part: -short draws
				// the last, where the verdict is.
				if k == saved.Frames() || !testing.Short() {
					samePanels(t, s, at, mine, to)
				}
			}
		})
	}
}

// pool-exhaustion saved at frame 6 with the switch off ends as the original
// frame does, in too many clients: its max_connections is saved with it.
func TestSavedKeepsTheLesson(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	p := demo.Place{Sc: testkit.Scenario(t, "pool-exhaustion"), Step: 6}
	saved, _ := loadSaved(t, s, p)
	if saved.MaxConns != p.Sc.MaxConns || saved.MaxConns == 0 {
		t.Fatalf("max-connections=%d saved, want %d", saved.MaxConns, p.Sc.MaxConns)
	}
	f := testkit.Frame(t, saved, false, saved.Frames())
	if got, want := f.Verdict().Kind.String(), "too-many-clients"; got != want {
		t.Fatalf("the saved pool-exhaustion ends in %s, want %s", got, want)
	}
}

// loadSaved gets p's save from s as a download, loads it as -scenarios
// loads a file, and returns the saved scenario and a server of its file.
func loadSaved(t *testing.T, s *Server, p demo.Place) (*demo.Scenario, *Server) {
	t.Helper()
	w := testkit.Get(t, s, views.Place{Place: p, Lang: "en", FreePlay: p.Free()}.SaveURL()+"&download=1")
	testkit.MustStatus(t, w, http.StatusOK)
	cat, err := script.Load("saved.yaml", w.Body.Bytes())
	if err != nil {
		t.Fatalf("the saved file does not load: %v\n%s", err, testkit.Numbered(w.Body.String()))
	}
	saved, ok := cat.Get(script.SavedID(p.Sc))
	if !ok || saved.Default != p.On {
		t.Fatalf("the saved file holds %q, want %s starting with the switch %s", cat.IDs(), script.SavedID(p.Sc), demo.OnOff(p.On))
	}
	mine, err := New(DefaultConfig(), cat, testkit.Guide(t), testkit.Static(t), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return saved, mine
}

// sameTranscript holds the saved script's transcript to the original's,
// but for the heading, which names the scenario.
func sameTranscript(t *testing.T, sc, saved *demo.Scenario, on bool) {
	t.Helper()
	want, err := demo.Transcript(sc, on)
	if err != nil {
		t.Fatal(err)
	}
	got, err := demo.Transcript(saved, on)
	if err != nil {
		t.Fatal(err)
	}
	_, want, _ = strings.Cut(want, "\n")
	_, got, _ = strings.Cut(got, "\n")
	if got != want {
		t.Fatalf("the saved script's transcript differs from the original's:\n%s\nwant\n%s", got, want)
	}
}

// sameFrame holds the saved scenario's frame at to to the original's at
// from: the same narration, time, events, verdict and findings.
func sameFrame(t *testing.T, from, to demo.Place) {
	t.Helper()
	want, got := freeFrame(t, from), freeFrame(t, to)
	if got.Narration != want.Narration || got.Now != want.Now || len(got.Events) != len(want.Events) {
		t.Fatalf("frame %d: %q at t=%d with %d events, want %q at t=%d with %d", to.Step, got.Title.EN, got.Now, len(got.Events), want.Title.EN, want.Now, len(want.Events))
	}
	for i, e := range got.Latest() {
		if g, w := demo.EventLine(to.Sc, e), demo.EventLine(from.Sc, want.Latest()[i]); g != w {
			t.Fatalf("frame %d event %d: %s, want %s", to.Step, i+1, g, w)
		}
	}
	if g, w := views.Findings(got), views.Findings(want); !slices.Equal(g, w) || got.Verdict() != want.Verdict() {
		t.Fatalf("frame %d: verdict %v %v, want %v %v", to.Step, got.Verdict(), g, want.Verdict(), w)
	}
}

// samePanels holds the page of the saved scenario's frame at to, on server
// mine, to the original's at from, on s: the same verdict and panels drawn.
func samePanels(t *testing.T, s *Server, from demo.Place, mine *Server, to demo.Place) {
	t.Helper()
	page := func(h http.Handler, p demo.Place) *goquery.Document {
		w := testkit.Get(t, h, views.Place{Place: p, Lang: "en", FreePlay: p.Free()}.URL())
		testkit.MustStatus(t, w, http.StatusOK)
		return testkit.Parse(t, w.Body.Bytes())
	}
	original, copy := page(s, from), page(mine, to)
	for _, part := range []string{`[data-testid="verdict"]`, ".panels"} {
		g, _ := goquery.OuterHtml(copy.Find(part))
		w, _ := goquery.OuterHtml(original.Find(part))
		if g != w || w == "" {
			t.Fatalf("frame %d: %s differs:\n%s\nwant\n%s", to.Step, part, g, w)
		}
	}
}

// freePlayPerFamily is a short free-play history in one scenario of each
// family that has free play, from its second frame, in each position: each
// step the next client's first offer that plays, so that the clients take
// turns.
func freePlayPerFamily(t *testing.T, c *demo.Catalog) []demo.Place {
	t.Helper()
	seen := map[string]bool{}
	var out []demo.Place
	for _, sc := range c.Scenarios {
		if seen[sc.Family.Name] || sc.Family.Offers == nil {
			continue
		}
		seen[sc.Family.Name] = true
		for _, on := range []bool{false, true} {
			p := demo.Place{Sc: sc, On: on, Step: 2}
			for turn := 0; turn < 4; turn++ {
				offers, err := p.Offers()
				if err != nil {
					t.Fatalf("%s: %v", sc.ID, err)
				}
				var enabled []demo.Offer
				for _, o := range offers {
					if o.Enabled() && !o.Beyond {
						enabled = append(enabled, o)
					}
				}
				if len(enabled) == 0 {
					break
				}
				p = p.Then(enabled[turn*7%len(enabled)].Action)
			}
			out = append(out, p)
		}
	}
	return out
}
