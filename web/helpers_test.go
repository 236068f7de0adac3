package web

import (
	"io"
	"io/fs"
	"log/slog"
	"testing"

	"github.com/distlock/fencing-demo/demo"
)

// newTestServer wires the whole application, as main does, with the embedded
// scenarios and static files. Logs are dropped unless the test is verbose.
func newTestServer(tb testing.TB, cfg config) *server {
	tb.Helper()
	catalog, err := demo.Load("scenarios.yaml", scenariosYAML)
	if err != nil {
		tb.Fatal(err)
	}
	static, err := fs.Sub(staticFiles, "static")
	if err != nil {
		tb.Fatal(err)
	}
	var w io.Writer = io.Discard
	if testing.Verbose() {
		w = tWriter{tb}
	}
	s, err := newServer(cfg, catalog, static, slog.New(slog.NewTextHandler(w, nil)))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

type tWriter struct{ tb testing.TB }

func (w tWriter) Write(p []byte) (int, error) { w.tb.Log(string(p)); return len(p), nil }
