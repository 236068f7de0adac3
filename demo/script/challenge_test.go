package script_test

import (
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// withChallenges is a minimal scenario with a property and the given
// challenges: items of its challenges: list.
func withChallenges(tb testing.TB, items string) string {
	tb.Helper()
	return withEntry(tb, "    challenges:\n"+items)
}

// withEntry is a minimal lock-service scenario with the property
// no-stale-write and the given entries after it.
func withEntry(tb testing.TB, entries string) string {
	tb.Helper()
	sc := testkit.YAML("one", "A acquire 10", "tick 2", "A write x")
	sc = testkit.Replace(tb, sc, "    clients: [A, B]\n", "    clients: [A, B]\n    property: no-stale-write\n"+entries)
	return testkit.File(sc)
}

const breakItem = `      - id: one-break
        kind: break
        from: 1
        position: "off"
        moves: 6
        title: {ja: 壊す, en: Break it}
        task: {ja: 課題, en: The task}
`

// The real file's challenges load, each in its scenario, break and fix,
// and Marshal writes them back as they were read (TestMarshalRoundTrip
// holds every field).
func TestChallengesLoad(t *testing.T) {
	c := testkit.Catalog(t)
	for id, kind := range map[string]demo.ChallengeKind{
		"gc-pause-break": demo.BreakIt, "gc-pause-fix": demo.FixIt,
		"release-other-break": demo.BreakIt,
		"lost-update-break":   demo.BreakIt, "lost-update-fix": demo.FixIt,
	} {
		ch, ok := c.Challenge(id)
		if !ok {
			t.Errorf("no challenge %s", id)
			continue
		}
		if ch.Kind != kind || !strings.HasPrefix(id, ch.Sc.ID) || ch.Title.EN == "" || ch.Task.JA == "" {
			t.Errorf("%s: kind %s in %s, want %s in its scenario with a title and a task", id, ch.Kind, ch.Sc.ID, kind)
		}
	}
	src := withChallenges(t, breakItem)
	one, err := script.Load("test.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Load: %v\n%s", err, testkit.Numbered(src))
	}
	out, err := script.Marshal(one.Scenarios...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "challenges:\n      - id: one-break\n        kind: break\n        from: 1\n        position: \"off\"\n        moves: 6\n") {
		t.Errorf("Marshal wrote the challenge as:\n%s", out)
	}
}

// A challenge that is wrong is an error naming the file and its line.
func TestChallengeLoadErrors(t *testing.T) {
	fix := "      - id: one-fix\n        kind: fix\n        title: {ja: 直す, en: Fix it}\n        task: {ja: 課題, en: The task}\n"
	for _, tc := range []struct {
		name, items, old, new, want string
	}{
		{"kind", breakItem, "kind: break", "kind: mend", `kind "mend": want break or fix`},
		{"position", breakItem, `position: "off"`, `position: "up"`, `position "up": want on or off`},
		{"from", breakItem, "from: 1", "from: 9", "from 9: the scenario has frames 1 to 2"},
		{"moves", breakItem, "moves: 6", "moves: 0", "moves 0: want 1 to 20"},
		{"task", breakItem, "task: {ja: 課題, en: The task}", "task: {ja: 課題}", "challenge one-break task has no English (en)"},
		{"fix without a lab", fix, "", "", "a fix is made in the scenario's lab, and it has none"},
		{"fix with moves", fix, "kind: fix", "kind: fix\n        moves: 3", "a fix starts from the lab's starter"},
		{"already broken", breakItem, "from: 1", "from: 2", "already breaks no-stale-write"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			items := tc.items
			if tc.old != "" {
				items = testkit.Replace(t, items, tc.old, tc.new)
			}
			src := withChallenges(t, items)
			if tc.name == "already broken" {
				// A stale write at frame 2: B holds after A's lease ran out.
				src = testkit.File(testkit.Replace(t, testkit.YAML("one", "A acquire 10", "A pause", "tick 11", "B acquire 10", "B write y", "A resume", "A write x"),
					"    clients: [A, B]\n", "    clients: [A, B]\n    property: no-stale-write\n    challenges:\n"+items))
			}
			le := loadError(t, src)
			if !strings.Contains(le.Msg, tc.want) {
				t.Fatalf("error %q, want it to say %q", le.Msg, tc.want)
			}
			if got, want := le.Line, testkit.LineOf(t, src, "- id: one-"); got != want {
				t.Errorf("line %d, want %d, the challenge's", got, want)
			}
		})
	}
	// Two challenges of one id, in two scenarios: the second's line.
	a := testkit.Replace(t, testkit.YAML("one", "A acquire 10"), "    clients: [A, B]\n", "    clients: [A, B]\n    property: no-stale-write\n    challenges:\n"+breakItem)
	b := testkit.Replace(t, testkit.YAML("two", "A acquire 10"), "    clients: [A, B]\n", "    clients: [A, B]\n    property: no-stale-write\n    challenges:\n"+breakItem)
	src := testkit.File(a, b)
	le := loadError(t, src)
	if !strings.Contains(le.Msg, `already a challenge of "one"`) || le.Line != strings.Count(src[:strings.LastIndex(src, "- id: one-break")], "\n")+1 {
		t.Fatalf("duplicate id: %v, want the second's line", le)
	}
}
