// Package testkit is what the tests of every package share: the repository's
// own scenarios (loaded once per test binary), guide and static files; small
// scenario files built in YAML; requests sent through a handler and the page
// read back by data-testid; and one way to start Chromium and wait, by
// polling, until a page shows what a test waits for.
//
// It knows nothing of packages views and web, so their own tests can use it
// too; what the screen must show, in views' words, is testkit/screen.
package testkit

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views/guidedata"
)

var (
	rootOnce sync.Once
	root     string
	rootErr  error
)

// Root is the repository's top directory: where go.mod, scenarios.yaml,
// guide.yaml and static/ are.
func Root(tb testing.TB) string {
	tb.Helper()
	rootOnce.Do(func() {
		dir, err := os.Getwd()
		if err != nil {
			rootErr = err
			return
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				root = dir
				return
			}
			up := filepath.Dir(dir)
			if up == dir {
				rootErr = fs.ErrNotExist
				return
			}
			dir = up
		}
	})
	if rootErr != nil {
		tb.Fatalf("finding the repository's go.mod: %v", rootErr)
	}
	return root
}

// Path is a file of the repository, from its top.
func Path(tb testing.TB, name string) string {
	tb.Helper()
	return filepath.Join(Root(tb), filepath.FromSlash(name))
}

// Guide is the repository's guide.yaml.
func Guide(tb testing.TB) *guidedata.Guide {
	tb.Helper()
	b, err := os.ReadFile(Path(tb, "guide.yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	g, err := guidedata.Load("guide.yaml", b)
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// Static is the repository's static/ directory.
func Static(tb testing.TB) fs.FS {
	tb.Helper()
	return os.DirFS(Path(tb, "static"))
}

// Frame replays the model to frame step of sc with the switch on or off.
func Frame(tb testing.TB, sc *demo.Scenario, on bool, step int) demo.Frame {
	tb.Helper()
	r, err := demo.Replay(sc, on, step)
	if err != nil {
		tb.Fatalf("Replay(%s, %v, %d): %v", sc.ID, on, step, err)
	}
	return r.Frame()
}
