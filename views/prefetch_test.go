package views

import (
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// A page of the static export has the browser fetch the next frame's file
// while the reader reads (it has no script to prefetch with), and the last
// frame names none; its controls, links there, name no frame to prefetch.
func TestStaticPagePrefetchesTheNext(t *testing.T) {
	sc := testkit.Scenario(t, "gc-pause")
	for _, k := range []int{1, sc.Frames()} {
		r, err := demo.Replay(sc, true, k)
		if err != nil {
			t.Fatal(err)
		}
		here := Place{Place: demo.Place{Sc: sc, On: true, Step: k}, Lang: "en", View: StaticView}
		doc := render(t, DemoPage(Demo{Page: Page{Lang: "en", Chrome: true}, Frame: r.Frame(), Here: here}))
		links := doc.Find(`link[rel="prefetch"]`)
		want := ""
		if k < sc.Frames() {
			want = here.At(k + 1).URL()
		}
		if got := links.AttrOr("href", ""); links.Length() > 1 || got != want {
			t.Errorf("frame %d: %d prefetch links, href %q, want one to %q (none on the last frame)", k, links.Length(), got, want)
		}
		if n := doc.Find("[data-to]").Length(); n != 0 {
			t.Errorf("frame %d of the static export: %d controls name a frame to prefetch, want none", k, n)
		}
	}
}
