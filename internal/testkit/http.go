package testkit

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// Serve starts h on a loopback port for the test, closed when it ends.
func Serve(tb testing.TB, h http.Handler) *httptest.Server {
	tb.Helper()
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return srv
}

// Do sends r through h. No answer may be a 500, whatever the test sends.
func Do(tb testing.TB, h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	tb.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code >= 500 {
		tb.Fatalf("%s %s: status %d, want no 5xx; body:\n%s", r.Method, r.URL, w.Code, w.Body)
	}
	return w
}

// Get sends a GET with the given headers, as "Name", "value" pairs.
func Get(tb testing.TB, h http.Handler, target string, header ...string) *httptest.ResponseRecorder {
	tb.Helper()
	r := httptest.NewRequest(http.MethodGet, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	return Do(tb, h, r)
}

// Post sends form to target, the way htmx sends a click (htmx) or the way a
// browser without JavaScript submits the form.
func Post(tb testing.TB, h http.Handler, target string, form url.Values, htmx bool) *httptest.ResponseRecorder {
	tb.Helper()
	return Do(tb, h, PostRequest(target, form, htmx))
}

// PostRequest is the request Post sends.
func PostRequest(target string, form url.Values, htmx bool) *http.Request {
	r := httptest.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if htmx {
		r.Header.Set("HX-Request", "true")
	}
	return r
}

// Click submits the form of the control with data-testid=id on doc, with
// every field the form carries, as a browser would: to htmx's hx-post when
// htmx, else to the form's action.
func Click(tb testing.TB, h http.Handler, doc *goquery.Document, id string, htmx bool) *httptest.ResponseRecorder {
	tb.Helper()
	form := one(tb, doc, id).Closest("form")
	if form.Length() != 1 {
		tb.Fatalf("data-testid=%q is in no form", id)
	}
	target := form.AttrOr("action", "")
	if htmx {
		target = form.AttrOr("hx-post", target)
	}
	if target == "" {
		tb.Fatalf("the form of data-testid=%q goes nowhere", id)
	}
	values := url.Values{}
	form.Find("input[name]").Each(func(_ int, in *goquery.Selection) {
		values.Add(in.AttrOr("name", ""), in.AttrOr("value", ""))
	})
	return Post(tb, h, target, values, htmx)
}

// Parse reads an HTML page or fragment.
func Parse(tb testing.TB, body []byte) *goquery.Document {
	tb.Helper()
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		tb.Fatalf("parsing HTML: %v", err)
	}
	return doc
}

// MustStatus fails unless w has status want.
func MustStatus(tb testing.TB, w *httptest.ResponseRecorder, want int) {
	tb.Helper()
	if got := w.Code; got != want {
		tb.Fatalf("status=%d, want %d; body:\n%s", got, want, w.Body)
	}
}

func one(tb testing.TB, doc *goquery.Document, id string) *goquery.Selection {
	tb.Helper()
	sel := doc.Find(`[data-testid="` + id + `"]`)
	if n := sel.Length(); n != 1 {
		tb.Fatalf("%d elements with data-testid=%q, want 1", n, id)
	}
	return sel
}

// TestID returns the text of the one element with data-testid=id, with its
// white space collapsed. There must be exactly one.
func TestID(tb testing.TB, doc *goquery.Document, id string) string {
	tb.Helper()
	return strings.Join(strings.Fields(one(tb, doc, id).Text()), " ")
}

// Attr returns attribute name of the one element with data-testid=id.
func Attr(tb testing.TB, doc *goquery.Document, id, name string) string {
	tb.Helper()
	v, ok := one(tb, doc, id).Attr(name)
	if !ok {
		tb.Fatalf("data-testid=%q has no %s attribute", id, name)
	}
	return v
}
