package check

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// The check command says of each lab try the states the judge explored,
// as the page does: gc-pause's fencing, one search for the break and for
// every client's write, counted once.
func TestLabTryLineCountsTheSearchOnce(t *testing.T) {
	sc := testkit.Scenario(t, "gc-pause")
	var out strings.Builder
	if bad := labs("scenarios.yaml", sc, 2_000_000, &out); len(bad) > 0 {
		t.Fatal(bad)
	}
	i := slices.IndexFunc(sc.Lab.Tries, func(try demo.Try) bool { return try.Name == "fencing" })
	if i < 0 {
		t.Fatal("gc-pause has no fencing try")
	}
	built, err := demo.Apply(sc, sc.Lab.Tries[i].Build)
	if err != nil {
		t.Fatal(err)
	}
	j, err := find.Judge(demo.Place{Sc: built, On: built.Default, Step: 1}, find.Options{MaxStates: 2_000_000})
	if err != nil {
		t.Fatal(err)
	}
	want := "gc-pause, lab try fencing: holds (" + strconv.Itoa(j.Always.States) + " states, "
	if !strings.Contains(out.String(), want) {
		t.Errorf("the check says\n%s\nwant a line starting %q", out.String(), want)
	}
}
