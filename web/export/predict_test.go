package export

import (
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
)

// In the static export a question's options are links, one per answer, to
// a file of the next frame with that answer marked against the model.
func TestExportPredictions(t *testing.T) {
	dir, _ := exportSite(t)
	sc, _ := testCatalog(t).Get("gc-pause")
	for _, tc := range []struct {
		lang        string
		on          bool
		guess, mark string
	}{
		{"en", true, "accepted", "Wrong ✗"},
		{"en", true, "rejected", "Right ✓"},
		{"ja", false, "accepted", "正解 ✓"},
	} {
		ask := views.Place{Place: demo.Place{Sc: sc, On: tc.on, Step: 6}, Lang: tc.lang, View: views.StaticView}
		doc := readPage(t, dir, views.StaticPath(ask))
		link := doc.Find(`a[data-testid="guess-` + tc.guess + `"]`)
		href, ok := link.Attr("href")
		if link.Length() != 1 || !ok {
			t.Fatalf("%s: no link for the answer %q", views.StaticPath(ask), tc.guess)
		}
		target, err := resolve(views.StaticPath(ask), href)
		if err != nil {
			t.Fatal(err)
		}
		if want := views.StaticGuessPath(ask.At(7), tc.guess); target != want {
			t.Fatalf("the answer %q links to %s, want %s", tc.guess, target, want)
		}
		marked := readPage(t, dir, target)
		if got := strings.Join(strings.Fields(marked.Find(`[data-testid="predict-mark"]`).Text()), " "); got != tc.mark {
			t.Errorf("%s marks %q, want %q", target, got, tc.mark)
		}
		if got := marked.Find(`[data-testid="step-index"]`).Text(); !strings.Contains(got, "7") {
			t.Errorf("%s shows frame %q, want 7", target, got)
		}
	}
}
