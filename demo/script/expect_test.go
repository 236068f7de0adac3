package script_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// expecting is the test scenario (A takes the lock and writes) with an
// expect: block and a question about A's write.
func expecting(t *testing.T, expect string) string {
	t.Helper()
	sc := testkit.YAML("one", "A acquire 10", "tick 2", "A write x") + question("event", "          who: A\n", "accepted", "rejected")
	return testkit.File(testkit.Replace(t, sc, "    initial:\n", "    property: no-two-holders\n"+expect+"    initial:\n"))
}

const holds = `    expect:
      off:
        verdict: mutual-exclusion-held
        answer: accepted
        finder: none within 3
      on: {verdict: mutual-exclusion-held, answer: accepted}
      guide: {tree: [consensus], quiz: [2, 3]}
`

// What a scenario states it shows is read into its fields, per position.
func TestLoadExpect(t *testing.T) {
	c, err := script.Load("test.yaml", []byte(expecting(t, holds)))
	if err != nil {
		t.Fatal(err)
	}
	sc := c.Scenarios[0]
	off, on := sc.Expect[0], sc.Expect[1]
	if off.Verdict != "mutual-exclusion-held" || len(off.Findings) != 0 || !reflect.DeepEqual(off.Answers, []string{"accepted"}) {
		t.Fatalf("off=%+v", off)
	}
	if off.Finder == nil || *off.Finder != (demo.Expectation{N: 3}) || on.Finder != nil {
		t.Fatalf("finder: off %v, on %v; want none within 3 and nothing", off.Finder, on.Finder)
	}
	if !reflect.DeepEqual(sc.Guide.Tree, []string{"consensus"}) || !reflect.DeepEqual(sc.Guide.Quiz, []int{2, 3}) {
		t.Fatalf("guide=%+v", sc.Guide)
	}
	// The short form states the finder's answer alone.
	short := strings.Replace(holds, "      on: {verdict: mutual-exclusion-held, answer: accepted}\n", "      on: violation in 4\n", 1)
	c, err = script.Load("test.yaml", []byte(expecting(t, short)))
	if err != nil {
		t.Fatal(err)
	}
	if on := c.Scenarios[0].Expect[1]; on.Finder == nil || *on.Finder != (demo.Expectation{Found: true, N: 4}) || on.Verdict != "" {
		t.Fatalf("on=%+v, want the finder's violation in 4 alone", on)
	}
}

// A scenario whose model does not show what it states fails to load, on
// the line of the field that states it, saying what the model shows.
func TestLoadExpectDiffers(t *testing.T) {
	for _, tc := range []struct {
		name, old, new, at string
		want               []string
	}{
		{"verdict", "      off:\n        verdict: mutual-exclusion-held\n", "      off:\n        verdict: stale-write\n", "verdict: stale-write",
			[]string{"expect off", "the verdict at the last frame is mutual-exclusion-held, not stale-write"}},
		{"findings", "        answer: accepted\n        finder", "        findings:\n          - {kind: stale-write, at: 2, client: A}\n        answer: accepted\n        finder", "findings:",
			[]string{"expect off", "the findings at the last frame are none, not [stale-write at 2 by A]"}},
		{"answer", "{verdict: mutual-exclusion-held, answer: accepted}", "{verdict: mutual-exclusion-held, answer: rejected}", "on: {verdict",
			[]string{"expect on answer", `the model's answer to move 1's question is "accepted", not "rejected"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := expecting(t, testkit.Replace(t, holds, tc.old, tc.new))
			le := loadError(t, src)
			if got, want := le.Line, testkit.LineOf(t, src, tc.at); got != want {
				t.Errorf("error on line %d, want %d: %v", got, want, le)
			}
			for _, w := range tc.want {
				if !strings.Contains(le.Msg, w) {
					t.Errorf("error %q, want it to say %q", le.Msg, w)
				}
			}
			// Read gives the scenario all the same, with the difference.
			c, differs, err := script.Read("test.yaml", []byte(src))
			if err != nil || c == nil || len(differs) != 1 || differs[0].Line != le.Line {
				t.Fatalf("Read: %v, %d differences (%v), want the catalog and the one difference", err, len(differs), differs)
			}
		})
	}
}

// An expect: that the checks cannot read fails to load on its line.
func TestLoadExpectErrors(t *testing.T) {
	for _, tc := range []struct {
		name, old, new, at, want string
	}{
		{"unknown key", "      guide:", "      both:", "both:", `expect: "both": want off, on or guide`},
		{"unknown position key", "        answer: accepted\n        finder", "        answers: accepted\n        finder", "answers: accepted", `"expect off answers": want verdict, findings, answer or finder`},
		{"verdict misspelt", "        verdict: mutual-exclusion-held\n        answer", "        verdict: mutual-exclusion\n        answer", "        verdict: mutual-exclusion", `"mutual-exclusion" is no verdict's name`},
		{"findings without verdict", "        verdict: mutual-exclusion-held\n        answer", "        findings: [{kind: stale-write, at: 1}]\n        answer", "findings:", "the findings go with a verdict"},
		{"finding without time", "        verdict: mutual-exclusion-held\n        answer", "        verdict: stale-write\n        findings: [{kind: stale-write}]\n        answer", "findings:", "names its kind and when"},
		{"finding time", "        verdict: mutual-exclusion-held\n        answer", "        verdict: stale-write\n        findings: [{kind: stale-write, at: soon}]\n        answer", "findings:", `at: "soon" is not a time`},
		{"answers for questions", "        answer: accepted\n        finder", "        answer: [accepted, rejected]\n        finder", "answer: [accepted", "2 answers for the scenario's 1 questions"},
		{"finder's words", "finder: none within 3", "finder: nothing found", "finder: nothing", `want "violation in N" or "none within D"`},
		{"quiz number", "quiz: [2, 3]", "quiz: [two]", "quiz: [two]", `"two": a question's number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := expecting(t, testkit.Replace(t, holds, tc.old, tc.new))
			wantLoadError(t, src, tc.at, tc.want)
		})
	}
	// A finder's answer needs a property to look for.
	src := strings.Replace(expecting(t, holds), "    property: no-two-holders\n", "", 1)
	wantLoadError(t, src, "finder: none within 3", "needs a property")
}

// Every difference of a file comes back from Read, in the file's order.
func TestReadEveryDifference(t *testing.T) {
	wrong := strings.NewReplacer("verdict: mutual-exclusion-held\n", "verdict: two-holders\n", "answer: accepted}", "answer: rejected}").Replace(holds)
	src := expecting(t, wrong)
	_, differs, err := script.Read("test.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, d := range differs {
		lines = append(lines, d.Line)
	}
	if want := []int{testkit.LineOf(t, src, "verdict: two-holders"), testkit.LineOf(t, src, "on: {verdict")}; !reflect.DeepEqual(lines, want) {
		t.Fatalf("differences on lines %v, want %v: %v", lines, want, differs)
	}
	_, err = script.Load("test.yaml", []byte(src))
	var le *script.LoadError
	if !errors.As(err, &le) || le.Line != lines[0] {
		t.Fatalf("Load: %v, want the first difference", err)
	}
}
