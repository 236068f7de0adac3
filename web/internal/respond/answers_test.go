package respond

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
)

// page is a stand-in for a frame's answer: the ids appear several times,
// in text that compresses well around them.
func page(extra string) Draw {
	return func(ids IDs) (templ.Component, error) {
		return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
			body := strings.Repeat("<p>a frame of the lesson</p>", 40)
			_, err := io.WriteString(w, body+ids.Run+body+"<a href=/follow/"+ids.Follow+">"+ids.Run+extra+body)
			return err
		}), nil
	}
}

// The answer sent from the cache is what drawing it afresh gives, plain and
// gunzipped, for two visitors in turn; a page with a zero byte (which the
// gaps' blanks cannot hold) is still right, left to Compress to gzip; and what the cache keeps holds
// no visitor's id.
func TestAnswersAreTheDrawing(t *testing.T) {
	as := NewAnswers[string](8)
	visitors := []IDs{
		{Run: strings.Repeat("0123456789abcdef", 2), Follow: strings.Repeat("a1b2c3d4", 4)},
		{Run: strings.Repeat("fedcba9876543210", 2), Follow: strings.Repeat("9e8d7c6b", 4)},
		{Run: strings.Repeat("0123456789abcdef", 2)},
		{},
	}
	for _, extra := range []string{"", "\x00"} {
		for _, ids := range visitors {
			comp, _ := page(extra)(ids)
			var want bytes.Buffer
			if err := comp.Render(context.Background(), &want); err != nil {
				t.Fatal(err)
			}
			for _, gz := range []bool{false, true} {
				if got := write(t, as, "frame"+extra, ids, page(extra), gz, gz && extra == ""); !bytes.Equal(got, want.Bytes()) {
					t.Fatalf("ids %+v gzip %v: the cached answer differs from the drawn one", ids, gz)
				}
			}
		}
	}
	for _, kept := range as.Kept() {
		for _, ids := range visitors[:2] {
			if bytes.Contains(kept, []byte(ids.Run)) || bytes.Contains(kept, []byte(ids.Follow)) {
				t.Fatalf("a kept answer holds a visitor's id (%+v)", ids)
			}
		}
	}
}

// write sends key's answer for ids, asking for gzip or not, and returns its
// body, gunzipped when it must come compressed.
func write(t *testing.T, as *Answers[string], key string, ids IDs, draw Draw, ask, gz bool) []byte {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	if ask {
		r.Header.Set("Accept-Encoding", "gzip")
	}
	w := httptest.NewRecorder()
	if err := as.Write(echo.New().NewContext(r, w), key, ids, draw); err != nil {
		t.Fatal(err)
	}
	if got := w.Header().Get("Content-Encoding") == "gzip"; got != gz {
		t.Fatalf("Content-Encoding %q, want gzip: %v", w.Header().Get("Content-Encoding"), gz)
	}
	if !gz {
		return w.Body.Bytes()
	}
	zr, err := gzip.NewReader(w.Body)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	return body
}
