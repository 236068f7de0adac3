package web

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"

	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/internal/testkit/screen"
)

// traceEvent is one event of a DevTools trace (the Trace Event Format).
type traceEvent struct {
	Name string  `json:"name"`
	Ph   string  `json:"ph"`
	Ts   float64 `json:"ts"`
	Dur  float64 `json:"dur"`
	Pid  int     `json:"pid"`
	Tid  int     `json:"tid"`
	Args struct {
		Data struct {
			Type string `json:"type"`
		} `json:"data"`
	} `json:"args"`
}

// BenchmarkBrowserStepTrace records a DevTools trace (Tracing domain,
// devtools.timeline) of Step clicks, prefetched and client-side (refPage),
// and prints where the renderer's main thread spent the time from the click
// to the frame painted: the click's handlers, style, layout, paint. It
// breaks BrowserStepLatency's parts of a click down further (the frame's
// rendering most), to be read, not a figure to track:
//
//	go test -run '^$' -bench BrowserStepTrace -benchtime 1x ./web
func BenchmarkBrowserStepTrace(b *testing.B) {
	sc := gcPause(b)
	s := newTestServer(b, DefaultConfig())
	ref := refPage(b, s, sc)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ref" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(ref)
			return
		}
		s.ServeHTTP(w, r)
	}))
	b.Cleanup(srv.Close)
	b.Cleanup(s.follow.Close)
	browser := testkit.Chromium(b, 10*time.Minute)
	for b.Loop() {
		for _, kind := range []string{"prefetched", "client-side"} {
			ctx := testkit.NewTab(b, browser, 3*time.Minute)
			if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: screen.InflightJS}); err != nil {
				b.Fatal(err)
			}
			var mu sync.Mutex
			var events []traceEvent
			done := make(chan struct{}, 1)
			chromedp.Listen(ctx, func(ev any) {
				switch ev := ev.(type) {
				case *tracing.EventDataCollected:
					mu.Lock()
					for _, v := range ev.Value {
						var e traceEvent
						if json.Unmarshal(v, &e) == nil {
							events = append(events, e)
						}
					}
					mu.Unlock()
				case *tracing.EventTracingComplete:
					done <- struct{}{}
				}
			})
			target := srv.URL + gcPauseURL(true, 1, "en")
			if kind == "client-side" {
				target = srv.URL + "/ref"
			}
			if err := chromedp.Do(ctx, chromedp.Navigate(target)); err != nil {
				b.Fatal(err)
			}
			for k := 1; k < 4; k++ {
				waitReady(b, ctx, kind, k)
				mu.Lock()
				events = nil
				mu.Unlock()
				if _, err := chromedp.Call(ctx, tracing.Start, tracing.StartParams{TraceConfig: &tracing.TraceConfig{
					IncludedCategories: []string{"devtools.timeline", "blink.user_timing"}}}); err != nil {
					b.Fatal(err)
				}
				t, err := chromedp.Run(ctx, chromedp.Evaluate[paintTime](readerPause+".then("+clickPaint+")", chromedp.EvalAwaitPromise))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := chromedp.Call(ctx, tracing.End, struct{}{}); err != nil {
					b.Fatal(err)
				}
				<-done
				mu.Lock()
				fmt.Fprintf(os.Stderr, "== %s, click from frame %d: %.1f ms (parse %.1f, the swap %.1f, to the frame %.1f, its rendering %.1f)\n", kind, k, t.Ms, t.Parse, t.Swap, t.Wait, t.Render)
				printMainThread(events)
				mu.Unlock()
			}
			chromedp.Cancel(ctx)
		}
	}
}

// printMainThread prints the renderer main thread's events from the click's
// dispatch on, longer than 0.2 ms, indented by nesting.
func printMainThread(events []traceEvent) {
	var start float64
	tid := -1
	for _, e := range events {
		if e.Name == "EventDispatch" && e.Args.Data.Type == "click" {
			start, tid = e.Ts, e.Tid
			break
		}
	}
	if tid < 0 {
		fmt.Fprintln(os.Stderr, "no click in the trace")
		return
	}
	var main []traceEvent
	for _, e := range events {
		if e.Tid == tid && e.Ph == "X" && e.Ts >= start-1000 && e.Dur >= 200 {
			main = append(main, e)
		}
	}
	slices.SortFunc(main, func(a, b traceEvent) int { return cmp.Or(cmp.Compare(a.Ts, b.Ts), cmp.Compare(b.Dur, a.Dur)) })
	var open []float64 // ends of the enclosing events
	for _, e := range main {
		for len(open) > 0 && e.Ts >= open[len(open)-1] {
			open = open[:len(open)-1]
		}
		name := e.Name
		if e.Args.Data.Type != "" {
			name += " " + e.Args.Data.Type
		}
		fmt.Fprintf(os.Stderr, "%8.1f %s%-30s %6.1f ms\n", (e.Ts-start)/1000, strings.Repeat("  ", len(open)), name, e.Dur/1000)
		open = append(open, e.Ts+e.Dur)
	}
}
