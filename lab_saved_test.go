package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// A learner builds a fix on the lab's page and saves it; the check command
// judges the saved file as the page's judge does: exit 0 when it holds
// (saying within which bounds), 1 when a history breaks it (printed as a
// script's lines) or the work never gets done, 2 when the file does not
// load.
func TestSavedLabBuildChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the whole program: skipped with -short")
	}
	base := start(t)
	sc := testkit.Scenario(t, "gc-pause")
	for _, tc := range []struct {
		try    string
		status int
		says   string
	}{
		{"fencing", 0, "holds for every history within the bounds"},
		{"check-then-write", 1, "a history of 7 actions breaks"},
		{"give-up", 1, "but no history gets to"},
	} {
		var b demo.Build
		for _, try := range sc.Lab.Tries {
			if try.Name == tc.try {
				b = try.Build
			}
		}
		built, err := views.Built(sc, b.String())
		if err != nil {
			t.Fatal(err)
		}
		// Saved from a frame of the build's, in the middle of its frames.
		here := views.Place{Place: demo.Place{Sc: built, On: built.Default, Step: 3}, Lang: "en"}
		yaml := get(t, base+here.SaveURL()+"&download=1")
		file := filepath.Join(t.TempDir(), "saved.yaml")
		if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errs bytes.Buffer
		err = checkCommandTo([]string{"-scenarios", file}, func(string) string { return "" }, &out, &errs)
		if got := exitCode(err); got != tc.status {
			t.Errorf("%s: exit %d, want %d (%v)\n%s%s", tc.try, got, tc.status, err, out.String(), errs.String())
		}
		if all := out.String() + errs.String(); !strings.Contains(all, tc.says) {
			t.Errorf("%s: the check says %q, want %q", tc.try, all, tc.says)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("scenarios:\n  - id: gc-pause-build\n    moves: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	if got := exitCode(checkCommandTo([]string{"-scenarios", bad}, func(string) string { return "" }, &out, &errs)); got != 2 {
		t.Errorf("a saved file that does not load: exit %d, want 2", got)
	}
}
