package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
)

// The floor is what a step could cost at the very least on this machine: a
// minimal net/http server that sends the server's own step answers, captured
// from it once (gzip and every header as sent), picked by the click's form
// and nothing else. The load command measures a step beside it in the same
// run (-floor), so their ratio holds whatever else the machine is doing:
//
//	go run ./cmd/fencing-load floor -target http://127.0.0.1:8099 -port 8097
//	go run ./cmd/fencing-load load -target http://127.0.0.1:8099 -floor http://127.0.0.1:8097
//
// It answers POST .../step (the load command's clicks) and GET /_bench/stats
// (its own CPU time, as the server's bench build does).

// captured is one answer as the server sent it.
type captured struct {
	header http.Header
	body   []byte
}

func floor(ctx context.Context, sc *demo.Scenario, args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("floor", flag.ContinueOnError)
	fl.SetOutput(stderr)
	target := fl.String("target", "http://127.0.0.1:8080", "the running server whose answers to capture (loopback only)")
	port := fl.String("port", "8097", "the loopback port the floor listens on")
	if err := fl.Parse(args); err != nil {
		return err
	}
	base, err := loopbackTarget(*target)
	if err != nil {
		return err
	}
	answers, err := capture(ctx, base, sc)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", *port))
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: floorHandler(sc, answers), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	fmt.Fprintf(stdout, "floor: %d answers captured from %s, serving on http://%s\n", len(answers), base, ln.Addr())
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// floorKey picks an answer by the form fields that decide it.
func floorKey(on, lang, from string) string { return on + "|" + lang + "|" + from }

func floorHandler(sc *demo.Scenario, answers map[string]captured) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/_bench/stats" {
			_ = json.NewEncoder(w).Encode(serverStats{CPUSeconds: processCPU()})
			return
		}
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/step") {
			http.NotFound(w, r)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		a, ok := answers[floorKey(r.PostForm.Get(sc.Switch), r.PostForm.Get(views.LangParam), r.PostForm.Get(views.FromField))]
		if !ok {
			http.Error(w, "no such answer captured", http.StatusBadRequest)
			return
		}
		h := w.Header()
		for k, v := range a.header {
			h[k] = v
		}
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(a.body)
	})
}

// capture asks the server for every step the load command sends, on one
// run, as htmx asks with gzip, and keeps each answer as it came.
func capture(ctx context.Context, base string, sc *demo.Scenario) (map[string]captured, error) {
	transport := newLoadTransport(1)
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: requestTimeout}
	answers := map[string]captured{}
	run := ""
	for _, on := range []bool{true, false} {
		for _, lang := range []string{"ja", "en"} {
			for from := 1; from < sc.Frames(); from++ {
				here := views.Place{Place: demo.Place{Sc: sc, On: on, Step: from}, Lang: lang}
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+here.Action("step"), strings.NewReader(here.Form(run).Encode()))
				if err != nil {
					return nil, err
				}
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.Header.Set("HX-Request", "true")
				req.Header.Set("Accept-Encoding", "gzip")
				resp, err := client.Do(req)
				if err != nil {
					return nil, err
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					return nil, err
				}
				if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "gzip" {
					return nil, fmt.Errorf("capturing a step from %d: %s, Content-Encoding %q", from, resp.Status, resp.Header.Get("Content-Encoding"))
				}
				if run == "" {
					if run = runInBody(gunzipped(body)); run == "" {
						return nil, errors.New("capturing: the first answer carries no run id")
					}
				}
				h := resp.Header.Clone()
				h.Del("Date") // net/http writes its own
				answers[floorKey(demo.OnOff(on), lang, strconv.Itoa(from))] = captured{header: h, body: body}
			}
		}
	}
	return answers, nil
}

// processCPU is this process's CPU time, user and system, in seconds.
func processCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
