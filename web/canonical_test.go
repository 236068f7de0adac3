package web

import (
	"net/http"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// rel=canonical: a search engine must be given an absolute address, so a
// server told its public URL names every page's, the frame's address
// without the visitor's run or presenter mode, and a server that only
// knows paths names none.
func TestCanonical(t *testing.T) {
	sc := testkit.Scenario(t, "gc-pause")
	frame := views.FrameURL(sc, true, 3, "en")
	pages := []struct{ name, target, want string }{
		{"index", views.IndexURL("ja"), views.IndexURL("ja")},
		{"frame", frame, frame},
		{"frame-with-run", frame + "&run=r1&present=1", frame},
		{"embed", views.Place{Place: demo.Place{Sc: sc, On: false, Step: 7}, Lang: "ja", View: views.EmbedView}.URL(), views.FrameURL(sc, false, 7, "ja")},
		{"tree", views.GuideTreeURL("en"), views.GuideTreeURL("en")},
		{"walk", views.GuideWalkURL("ja", "yes"), views.GuideWalkURL("ja", "yes")},
		{"quiz", views.GuideQuizURL("en"), views.GuideQuizURL("en")},
	}
	for _, public := range []string{"", "https://demo.example.org", "http://127.0.0.1:8080"} {
		cfg := DefaultConfig()
		cfg.PublicURL = public
		s := newTestServer(t, cfg)
		for _, p := range pages {
			t.Run(p.name+"/"+public, func(t *testing.T) {
				w := testkit.Get(t, s, p.target)
				testkit.MustStatus(t, w, http.StatusOK)
				links := testkit.Parse(t, w.Body.Bytes()).Find(`link[rel="canonical"]`)
				if public == "" {
					if links.Length() != 0 {
						t.Fatalf("%d rel=canonical links, want none without a public address", links.Length())
					}
					return
				}
				if links.Length() != 1 {
					t.Fatalf("%d rel=canonical links, want one", links.Length())
				}
				if got, want := links.AttrOr("href", ""), public+p.want; got != want {
					t.Fatalf("rel=canonical %q, want %q", got, want)
				}
			})
		}
	}
}
