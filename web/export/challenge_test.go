package export

import (
	"strings"
	"testing"
)

// The static export leaves the challenges out, as judging one needs the
// server: its index says so where the live site links to them, and no page
// links to a challenge or offers to submit one.
func TestExportChallengesNeedTheServer(t *testing.T) {
	dir, _ := exportSite(t)
	says := map[string]string{"en": "Judging a challenge needs the server", "ja": "課題の判定にはサーバーが要る"}
	for _, lang := range []string{"en", "ja"} {
		index := readPage(t, dir, lang+"/index.html")
		if got := index.Find(`[data-testid="challenges-static"]`).Text(); !strings.Contains(got, says[lang]) {
			t.Errorf("%s/index.html: %q, want it to say %q", lang, got, says[lang])
		}
		for _, name := range []string{lang + "/index.html", lang + "/gc-pause/off/1.html"} {
			doc := readPage(t, dir, name)
			if n := doc.Find(`a[href*="challenges"], form[action*="challenges"]`).Length(); n != 0 {
				t.Errorf("%s: %d links or forms to a challenge, which the export has not", name, n)
			}
		}
	}
}
