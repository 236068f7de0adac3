package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// The check command answers with its exit status. As the finder: 1 for a
// history that breaks the property (printed as a script's lines), 0 for
// none. As the judge of a scenarios file: 1 when an expectation does not
// hold, each printed with its file and line, 0 when all hold. Both: 2 for a
// command line that is wrong or a file that does not load.
func TestCheckCommand(t *testing.T) {
	file := mine(t, okExpect)
	wrong := func(old, new string) string { return mine(t, strings.Replace(okExpect, old, new, 1)) }
	badVerdict := wrong("verdict: mutual-exclusion-held\n        finder", "verdict: stale-write\n        finder")
	badFinder := wrong("finder: none within 3", "finder: violation in 3")
	badGuide := wrong("tree: [consensus]", "tree: [avoid]")
	broken := mine(t, strings.Replace(okExpect, "      off:\n", "      off: [\n", 1))
	for _, tc := range []struct {
		args   []string
		status int
		says   string
	}{
		{[]string{"check", "gc-pause", "-switch", "off"}, 1, "  - A write A\n"},
		{[]string{"check", "-switch", "on", "-depth", "4", "gc-pause"}, 0, "none up to depth 4"},
		{[]string{"check", "lost-update", "-switch", "off"}, 1, "  - B sql COMMIT\n"},
		{[]string{"check", "gc-pause", "-switch", "on", "-depth", "3", "-scenarios", file}, 0, "none up to depth 3"},
		{[]string{"check", "nope"}, 2, `no scenario "nope"`},
		{[]string{"check", "gc-pause", "-switch", "maybe"}, 2, "-switch takes on or off"},
		{[]string{"check", "gc-pause", "-depth", "0"}, 2, "-depth takes 1 to 20"},
		{[]string{"check", "-scenarios", file}, 0, "all 4 expectations of 1 scenarios hold"},
		{[]string{"check", "-scenarios", file, "gc-pause"}, 0, "gc-pause, guide: tree consensus\nall 4 expectations of 1 scenarios hold"},
		{[]string{"check", "-scenarios", badVerdict}, 1, badVerdict + ":" + line(t, badVerdict, "verdict: stale-write") + `: scenario "gc-pause": expect off: the verdict at the last frame is mutual-exclusion-held, not stale-write`},
		{[]string{"check", "-scenarios", badFinder}, 1, badFinder + ":" + line(t, badFinder, "finder: violation in 3") + `: scenario "gc-pause": expect off finder: the finder finds none within 3, not violation in 3`},
		{[]string{"check", "-scenarios", badGuide}, 1, badGuide + ":" + line(t, badGuide, "guide:") + `: scenario "gc-pause": expect guide: tree avoid of guide.yaml do not link to it`},
		{[]string{"check", "-scenarios", broken}, 2, broken + ":" + line(t, broken, "off: [")},
		{[]string{"check", "-scenarios", filepath.Join(t.TempDir(), "none.yaml")}, 2, "no such file"},
	} {
		var out, errs bytes.Buffer
		err := checkCommandTo(tc.args[1:], func(string) string { return "" }, &out, &errs)
		if got := exitCode(err); got != tc.status {
			t.Errorf("%v: exit %d, want %d (%v)\n%s", tc.args, got, tc.status, err, out.String())
		}
		if all := out.String() + errs.String() + errString(err); !strings.Contains(all, tc.says) {
			t.Errorf("%v: output %q does not say %q", tc.args, all, tc.says)
		}
	}
}

// With no scenario named, check judges the built-in scenarios.yaml: every
// expectation it states holds, the finder's searched for as written.
func TestCheckBuiltIn(t *testing.T) {
	if testing.Short() {
		t.Skip("searches every scenario as deep as it states: skipped with -short (demo/find's tests search the same)")
	}
	var out, errs bytes.Buffer
	if err := checkCommandTo(nil, func(string) string { return "" }, &out, &errs); err != nil {
		t.Fatalf("check: %v\n%s%s", err, out.String(), errs.String())
	}
	if n := len(testkit.Catalog(t).Scenarios); !strings.Contains(out.String(), " expectations of "+strconv.Itoa(n)+" scenarios hold\n") {
		t.Fatalf("check says:\n%s", out.String())
	}
}

// okExpect is what the test scenario (A takes the lock and writes, under
// the chapter's lock service) shows, as its expect: states it.
const okExpect = `    property: no-two-holders
    expect:
      off:
        verdict: mutual-exclusion-held
        finder: none within 3
      on: {verdict: mutual-exclusion-held}
      guide: {tree: [consensus]}
`

// mine writes a lecturer's scenarios file of one scenario with expect, and
// returns its path. The scenario is their own gc-pause, whose id the
// guide's consensus leaf links to.
func mine(t *testing.T, expect string) string {
	t.Helper()
	src := testkit.File(testkit.Replace(t, testkit.YAML("gc-pause", "A acquire 10", "tick 2", "A write x"), "    initial:\n", expect+"    initial:\n"))
	path := filepath.Join(t.TempDir(), "mine.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func line(t *testing.T, path, s string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strconv.Itoa(testkit.LineOf(t, string(b), s))
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// A learner's fix saved as a scenario is a solution the check command
// judges as the page's judge does: exit 0 when it holds, saying within
// which bounds; 1 when a history breaks it, printed as a script's lines, or
// when it never gets the work done; 2 when it does not load.
func TestCheckSavedSolution(t *testing.T) {
	sc := testkit.Scenario(t, "gc-pause")
	save := func(name string) string {
		for _, try := range sc.Lab.Tries {
			if try.Name != name {
				continue
			}
			built, err := demo.Apply(sc, try.Build)
			if err != nil {
				t.Fatal(err)
			}
			out, err := script.Marshal(built)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), name+".yaml")
			if err := os.WriteFile(path, out, 0o644); err != nil {
				t.Fatal(err)
			}
			return path
		}
		t.Fatalf("gc-pause's lab has no try %s", name)
		return ""
	}
	for _, tc := range []struct {
		try    string
		status int
		says   string
	}{
		{"fencing", 0, "holds for every history within the bounds"},
		{"starter", 1, "a history of 5 actions breaks \"no late write from an expired holder lands over another holder's data\":\n    - A acquire 10\n"},
		{"give-up", 1, "but no history gets to \"the work gets done: every client gets a write taken by the resource\"; the closest:"},
	} {
		var out, errs bytes.Buffer
		err := checkCommandTo([]string{"-scenarios", save(tc.try)}, func(string) string { return "" }, &out, &errs)
		if got := exitCode(err); got != tc.status {
			t.Errorf("%s: exit %d, want %d (%v)\n%s", tc.try, got, tc.status, err, out.String())
		}
		if all := out.String() + errs.String(); !strings.Contains(all, tc.says) {
			t.Errorf("%s: output %q does not say %q", tc.try, all, tc.says)
		}
	}
}
