package web

import (
	"bufio"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
	"github.com/labstack/echo/v4"
)

// The compress middleware (internal/respond): what it compresses, what it leaves
// alone, and that pooled compressors and buffers never mix two answers.

func TestCompressLeavesAlone(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	for name, w := range map[string]*httptest.ResponseRecorder{
		"small answer":    testkit.Get(t, s, "/healthz", "Accept-Encoding", "gzip"),
		"gzip refused":    testkit.Get(t, s, gcPauseURL(true, 3, "en"), "Accept-Encoding", "gzip;q=0, identity"),
		"no gzip offered": testkit.Get(t, s, gcPauseURL(true, 3, "en"), "Accept-Encoding", "br"),
	} {
		if got := w.Header().Get("Content-Encoding"); got != "" {
			t.Errorf("%s: Content-Encoding=%q, want none", name, got)
		}
		if !strings.Contains(w.Header().Get("Vary"), "Accept-Encoding") {
			t.Errorf("%s: Vary=%q, want Accept-Encoding", name, w.Header().Get("Vary"))
		}
	}
	// A compressed page keeps its type and says its compressed length.
	w := testkit.Get(t, s, gcPauseURL(true, 3, "en"), "Accept-Encoding", "deflate, gzip;q=0.8")
	testkit.MustStatus(t, w, http.StatusOK)
	if got, want := w.Header().Get("Content-Type"), "text/html; charset=UTF-8"; got != want {
		t.Fatalf("Content-Type=%q, want %q", got, want)
	}
	if got, want := w.Header().Get("Content-Length"), strconv.Itoa(w.Body.Len()); got != want {
		t.Fatalf("Content-Length=%q, want %q", got, want)
	}
	gunzip(t, w)
}

// A static file is sent as compressed at start-up, and unpacks to the file.
func TestCompressStaticOnce(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	u := s.assets.URL("htmx.min.js")
	plain := testkit.Get(t, s, u)
	w := testkit.Get(t, s, u, "Accept-Encoding", "gzip")
	testkit.MustStatus(t, w, http.StatusOK)
	if got, want := w.Body.String(), string(s.assets.files[strings.TrimPrefix(u, "/static/")].gz); got != want {
		t.Fatal("the static file was not sent as compressed at start-up")
	}
	if got := gunzip(t, w); string(got) != plain.Body.String() {
		t.Fatalf("unpacked to %d bytes, want the file's %d", len(got), plain.Body.Len())
	}
}

// A handler that flushes gets its bytes to the client at once, unbuffered
// and uncompressed.
func TestCompressStreams(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	release := make(chan struct{})
	s.echo.GET("/test-only/stream", func(c echo.Context) error {
		c.Response().Header().Set("Content-Type", "text/event-stream")
		c.Response().WriteHeader(http.StatusOK)
		io.WriteString(c.Response(), "data: "+strings.Repeat("x", 1000)+"\n\n")
		c.Response().Flush()
		<-release
		io.WriteString(c.Response(), "data: done\n\n")
		return nil
	})
	srv := httptest.NewServer(s)
	defer srv.Close()
	defer close(release)
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/test-only/stream", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if got := resp.Header.Get("Content-Encoding"); got != "" {
		t.Fatalf("Content-Encoding=%q on a stream, want none", got)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "data: xxx") {
		t.Fatalf("first line %q, %v: want the flushed event before the handler ends", line, err)
	}
}

// Many students clicking at once, each on their own frame and language, get
// their own frame: no answer borrows another's buffer or compressor.
func TestCompressConcurrent(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	sc := gcPause(t)
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			on, lang := i%2 == 0, []string{"ja", "en"}[i%4/2]
			for from := 1; from < sc.Frames(); from++ {
				r := testkit.PostRequest("/scenarios/gc-pause/step", place{from: from, on: on, lang: lang}.form(), true)
				r.Header.Set("Accept-Encoding", "gzip")
				w := httptest.NewRecorder()
				s.ServeHTTP(w, r)
				zr, err := gzip.NewReader(w.Body)
				if err != nil {
					errs <- err.Error()
					return
				}
				body, err := io.ReadAll(zr)
				if err != nil {
					errs <- err.Error()
					return
				}
				if got, want := views.StepShown(body), strconv.Itoa(from+1)+" / "+strconv.Itoa(sc.Frames()); got != want {
					errs <- "shows " + got + ", want " + want
					return
				}
				if want := `<div id="demo"`; !strings.Contains(string(body), want) || !strings.Contains(string(body), `lang" value="`+lang+`"`) {
					errs <- "an answer in the wrong language or not a demo"
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
