package web

import (
	"net/http"
	"testing"

	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// The page's Content-Security-Policy allows no inline style (style-src
// 'self'), so a style attribute would be dropped by the browser, with an
// error in its console: no frame of any scenario has one.
func TestNoInlineStyle(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	for _, sc := range testkit.Catalog(t).Scenarios {
		for _, on := range []bool{false, true} {
			for k := 1; k <= sc.Frames(); k++ {
				target := views.FrameURL(sc, on, k, "en")
				w := testkit.Get(t, s, target)
				testkit.MustStatus(t, w, http.StatusOK)
				if n := testkit.Parse(t, w.Body.Bytes()).Find("[style]"); n.Length() > 0 {
					h, _ := n.First().Attr("style")
					t.Errorf("%s: %d elements with a style attribute the CSP blocks, first %q", target, n.Length(), h)
				}
			}
		}
	}
}
