package web

import (
	"testing"
)

// The page's Content-Security-Policy allows no inline style (style-src
// 'self'), so a style attribute would be dropped by the browser, with an
// error in its console: no frame of any scenario has one.
func TestNoInlineStyle(t *testing.T) {
	for _, p := range everyFramePage(t) {
		if n := p.doc.Find("[style]"); n.Length() > 0 {
			h, _ := n.First().Attr("style")
			t.Errorf("%s: %d elements with a style attribute the CSP blocks, first %q", p.path, n.Length(), h)
		}
	}
}
