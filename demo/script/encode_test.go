package script_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// Every scenario of scenarios.yaml, written by Marshal and loaded again, is
// the scenario it was: each field is read and written by the same types.
// Only the lines differ, as the written file lays them out anew.
func TestMarshalRoundTrip(t *testing.T) {
	c := testkit.Catalog(t)
	out, err := script.Marshal(c.Scenarios...)
	if err != nil {
		t.Fatal(err)
	}
	again, err := script.Load("written.yaml", out)
	if err != nil {
		t.Fatalf("the written file does not load: %v\n%s", err, testkit.Numbered(string(out)))
	}
	if got, want := again.IDs(), c.IDs(); !slices.Equal(got, want) {
		t.Fatalf("written and read: %q, want %q", got, want)
	}
	for i, sc := range c.Scenarios {
		if got, want := unlined(again.Scenarios[i]), unlined(sc); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: written and read, it differs:\n got %+v\nwant %+v", sc.ID, got, want)
		}
	}
	// And the written file writes itself again to the letter.
	if twice, err := script.Marshal(again.Scenarios...); err != nil || string(twice) != string(out) {
		t.Fatalf("the written file, read and written again, differs (%v)", err)
	}
}

// unlined is a copy of sc with every line number of its file cleared.
func unlined(sc *demo.Scenario) demo.Scenario {
	u := *sc
	u.Setup = unlinedActions(sc.Setup)
	u.Moves = slices.Clone(sc.Moves)
	for i := range u.Moves {
		u.Moves[i].Do = unlinedActions(u.Moves[i].Do)
	}
	for i := range u.Expect {
		e := &u.Expect[i]
		e.VerdictLine, e.FindingsLine, e.AnswersLine, e.FinderLine = 0, 0, 0, 0
	}
	u.Guide.Line = 0
	if sc.Lab != nil {
		lab := *sc.Lab
		lab.Tries = slices.Clone(lab.Tries)
		for i := range lab.Tries {
			lab.Tries[i].Line = 0
		}
		u.Lab = &lab
	}
	u.Scripts = slices.Clone(sc.Scripts)
	for i := range u.Scripts {
		u.Scripts[i].Line = 0
	}
	// A challenge points back at its scenario, which is another copy.
	u.Challenges = slices.Clone(sc.Challenges)
	for i := range u.Challenges {
		u.Challenges[i].Line, u.Challenges[i].Sc = 0, nil
	}
	return u
}

func unlinedActions(as []demo.Action) []demo.Action {
	as = slices.Clone(as)
	for i := range as {
		as[i].Line = 0
	}
	return as
}
