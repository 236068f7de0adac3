package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/distlock/fencing-demo/views"
)

// framePage is one frame's whole page, as a visitor without a run gets it.
type framePage struct {
	path string
	lang string
	doc  *goquery.Document
}

var (
	framePagesOnce sync.Once
	framePages     []framePage
	framePagesErr  string
)

// everyFramePage is the page of every frame of every scenario, in both
// switch positions and both languages: drawn and parsed once per test
// binary for the tests that look at all of them, which read the documents
// and never change them.
func everyFramePage(t *testing.T) []framePage {
	t.Helper()
	framePagesOnce.Do(func() {
		s := newTestServer(t, DefaultConfig())
		for _, sc := range s.catalog.Scenarios {
			for _, on := range []bool{false, true} {
				for _, lang := range []string{"en", "ja"} {
					for k := 1; k <= sc.Frames(); k++ {
						path := views.FrameURL(sc, on, k, lang)
						rec := httptest.NewRecorder()
						s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
						if rec.Code != http.StatusOK {
							framePagesErr = fmt.Sprintf("GET %s: %d", path, rec.Code)
							return
						}
						doc, err := goquery.NewDocumentFromReader(rec.Body)
						if err != nil {
							framePagesErr = fmt.Sprintf("GET %s: %v", path, err)
							return
						}
						framePages = append(framePages, framePage{path: path, lang: lang, doc: doc})
					}
				}
			}
		}
	})
	if framePagesErr != "" {
		t.Fatal(framePagesErr)
	}
	return framePages
}
