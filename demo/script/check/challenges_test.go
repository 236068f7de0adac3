package check

import (
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// A break's moves must be at least the finder's shortest: moves below it
// is the check's error, naming the file and the challenge's line; at it,
// the challenge holds, with its par.
func TestChallengeMovesBelowPar(t *testing.T) {
	item := `      - id: one-break
        kind: break
        from: 1
        position: "off"
        moves: MOVES
        title: {ja: 壊す, en: Break it}
        task: {ja: 課題, en: The task}
`
	for _, tc := range []struct {
		moves string
		want  string // "" for none
	}{
		{"4", "test.yaml:LINE: scenario \"one\": challenge one-break: moves 4 is below the finder's shortest break: none within 4"},
		{"5", ""},
	} {
		sc := testkit.Replace(t, testkit.YAML("one", "A acquire 10", "tick 2", "A write x"), "    clients: [A, B]\n",
			"    clients: [A, B]\n    property: no-stale-write\n    challenges:\n"+strings.Replace(item, "MOVES", tc.moves, 1))
		src := testkit.File(sc)
		c, err := script.Load("test.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		ch, _ := c.Challenge("one-break")
		got := challenges("test.yaml", ch.Sc, 100_000, io.Discard)
		want := strings.Replace(tc.want, "LINE", itoa(testkit.LineOf(t, src, "- id: one-break")), 1)
		switch {
		case tc.want == "" && len(got) > 0:
			t.Errorf("moves %s: %q, want none", tc.moves, got)
		case tc.want != "" && (len(got) != 1 || got[0] != want):
			t.Errorf("moves %s: %q, want %q", tc.moves, got, want)
		}
		if par, err := Par(ch, 100_000); tc.want == "" && (err != nil || par != 5) {
			t.Errorf("par %d (%v), want 5, the finder's shortest", par, err)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// Every break challenge of scenarios.yaml can be done: its moves are at
// least the finder's shortest break from its start.
func TestRealChallengesWithinPar(t *testing.T) {
	for _, ch := range testkit.Catalog(t).Challenges() {
		if ch.Kind != demo.BreakIt {
			continue
		}
		par, err := Par(ch, 200_000)
		if err != nil || par == 0 || par > ch.Moves {
			t.Errorf("%s: par %d (%v) with %d moves: the finder's shortest must fit", ch.ID, par, err, ch.Moves)
		}
	}
}
