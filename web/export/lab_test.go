package export

import (
	"fmt"
	"strings"
	"testing"
)

// The static export has no server to judge a build: its index and every
// frame of a scenario with a lab say so where the live site links to the
// lab, and nothing leads to a lab's page, which is not exported.
func TestExportLabsNeedTheServer(t *testing.T) {
	dir, _ := exportSite(t)
	says := map[string]string{"en": "this static copy has no server to judge a build", "ja": "この静的な写しには組み立てを判定するサーバーが無い"}
	for _, lang := range []string{"en", "ja"} {
		index := readPage(t, dir, lang+"/index.html")
		if got := index.Find(`[data-testid="lab-static"]`).Text(); !strings.Contains(got, says[lang]) {
			t.Errorf("%s/index.html: %q, want it to say %q", lang, got, says[lang])
		}
		for _, sc := range testCatalog(t).Scenarios {
			name := fmt.Sprintf("%s/%s/on/1.html", lang, sc.ID)
			doc := readPage(t, dir, name)
			note := doc.Find(`[data-testid="lab-static"]`).Text()
			if (sc.Lab != nil) != strings.Contains(note, says[lang]) {
				t.Errorf("%s: the lab's note reads %q (the scenario has a lab: %v)", name, note, sc.Lab != nil)
			}
			if n := doc.Find(`a[href*="/lab"]`).Length(); n != 0 {
				t.Errorf("%s: %d links to a lab's page, which the export has not", name, n)
			}
		}
	}
}
