package script

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo/families"
)

// Read in pieces, scenarios.yaml gives what a read of the whole file gives,
// scenario for scenario, lines of actions included.
func TestPiecesReadAsTheWhole(t *testing.T) {
	data, err := os.ReadFile("../../scenarios.yaml")
	if err != nil {
		t.Fatal(err)
	}
	whole, err := read(families.All, "scenarios.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, 3, 7, 100} {
		pieces := split(data, n)
		if got, want := len(pieces), min(n, len(whole)); got != want {
			t.Fatalf("split(scenarios.yaml, %d): %d pieces, want %d", n, got, want)
		}
		inPieces, err := readPieces(families.All, "scenarios.yaml", pieces)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(inPieces, whole) {
			t.Fatalf("scenarios.yaml read in %d pieces differs from the whole file read at once", n)
		}
	}
}

// A file in any other shape is read whole: splitting it could change what it
// means.
func TestSplitLeavesOtherShapesWhole(t *testing.T) {
	item := "  - id: a\n    title: {ja: 題, en: Title}\n"
	for name, src := range map[string]string{
		"one item":          "scenarios:\n" + item,
		"a key after":       "scenarios:\n" + item + item + "version: 2\n",
		"a key before":      "version: 2\nscenarios:\n" + item + item,
		"a second document": "scenarios:\n" + item + "---\n" + item,
		"flow list":         "scenarios: [{id: a}, {id: b}]\n",
		"carriage returns":  strings.ReplaceAll("scenarios:\n"+item+item, "\n", "\r\n"),
		"not at the top":    "# c\n  scenarios:\n" + item + item,
	} {
		if got := split([]byte(src), 2); got != nil {
			t.Errorf("%s: split cut the file into %d pieces, want it read whole", name, len(got))
		}
	}
}
