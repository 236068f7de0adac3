package testkit

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/script"
)

// The scenarios: the real scenarios.yaml, small scenario files built in
// YAML, and plays to a frame.

// ScenariosFile is the path of the real scenarios.yaml, the file the web
// app serves, found from this source file so any package's test can read it.
func ScenariosFile() string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..", "scenarios.yaml")
}

var (
	catalogOnce sync.Once
	catalog     *demo.Catalog
	catalogErr  error
)

// Catalog is the real scenarios.yaml, loaded once per test binary and
// shared: the scenarios are values no test changes, and loading them (which
// plays each to its end both ways) is not free.
func Catalog(tb testing.TB) *demo.Catalog {
	tb.Helper()
	catalogOnce.Do(func() {
		data, err := os.ReadFile(ScenariosFile())
		if err != nil {
			catalogErr = err
			return
		}
		catalog, catalogErr = script.Load("scenarios.yaml", data)
	})
	if catalogErr != nil {
		tb.Fatalf("Load(scenarios.yaml): %v", catalogErr)
	}
	return catalog
}

// Scenario returns the real scenario id.
func Scenario(tb testing.TB, id string) *demo.Scenario {
	tb.Helper()
	sc, ok := Catalog(tb).Get(id)
	if !ok {
		tb.Fatalf("scenarios.yaml has no %q scenario", id)
	}
	return sc
}

// LastFrame replays the real scenario id to its end.
func LastFrame(tb testing.TB, id string, on bool) demo.Frame {
	tb.Helper()
	sc := Scenario(tb, id)
	r, err := demo.Replay(sc, on, sc.Frames())
	if err != nil {
		tb.Fatalf("Replay(%s, %v): %v", id, on, err)
	}
	return r.Frame()
}

// Play loads src, which must hold one scenario, and plays it to its last
// frame with the switch on or off.
func Play(tb testing.TB, src string, on bool) demo.Frame {
	tb.Helper()
	c, err := script.Load("test.yaml", []byte(src))
	if err != nil {
		tb.Fatalf("Load: %v\n%s", err, Numbered(src))
	}
	sc := c.Scenarios[0]
	r, err := demo.Replay(sc, on, sc.Frames())
	if err != nil {
		tb.Fatalf("Replay: %v", err)
	}
	return r.Frame()
}

// Name is a scenario's name in one switch position, as its transcript is
// called: "gc-pause-fencing-on".
func Name(sc *demo.Scenario, on bool) string { return sc.ID + "-" + sc.Switch + "-" + demo.OnOff(on) }

// YAML returns one minimal valid scenario, as an item of the list under
// "scenarios:", with clients A and B on the lock service and a single move
// that does the given actions. Tests break it in one place at a time with
// Replace.
func YAML(id string, do ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `  - id: %s
    title: {ja: 題, en: Title}
    summary: {ja: 要約, en: Summary}
    lesson: {ja: 教訓, en: Lesson}
    sources:
      - title: {ja: 出典, en: Source}
        url: https://example.com/source
    purpose: correctness
    topology: consensus
    switch: fencing
    switch-label: {ja: フェンシング, en: Fencing}
    fencing: switch
    resource: row-1
    clients: [A, B]
    initial:
      title: {ja: 初期状態, en: Initial state}
      text: {ja: 空, en: Empty}
    moves:
      - title: {ja: 一手, en: One move}
        text: {ja: 本文, en: Text}
        do:
`, id)
	for _, a := range do {
		fmt.Fprintf(&b, "          - %s\n", a)
	}
	return b.String()
}

// File puts scenarios under "scenarios:", as scenarios.yaml does.
func File(scenarios ...string) string {
	return "scenarios:\n" + strings.Join(scenarios, "")
}

// OnStore moves a YAML scenario onto another store.
func OnStore(tb testing.TB, store, sc string) string {
	tb.Helper()
	return Replace(tb, sc, "    resource: row-1\n", "    store: "+store+"\n    resource: row-1\n")
}

// LineOf returns the 1-based number of the only line of src containing s.
func LineOf(tb testing.TB, src, s string) int {
	tb.Helper()
	line := 0
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, s) {
			if line != 0 {
				tb.Fatalf("%q is on lines %d and %d of the test YAML", s, line, i+1)
			}
			line = i + 1
		}
	}
	if line == 0 {
		tb.Fatalf("%q is not in the test YAML:\n%s", s, src)
	}
	return line
}

// Replace is strings.Replace that insists old is there, so a test cannot
// silently stop breaking what it means to break.
func Replace(tb testing.TB, s, old, new string) string {
	tb.Helper()
	if !strings.Contains(s, old) {
		tb.Fatalf("%q is not in the test YAML:\n%s", old, s)
	}
	return strings.Replace(s, old, new, 1)
}

// Numbered returns src with line numbers, for failure messages about lines.
func Numbered(src string) string {
	var b strings.Builder
	for i, l := range strings.Split(src, "\n") {
		fmt.Fprintf(&b, "%3d  %s\n", i+1, l)
	}
	return b.String()
}
