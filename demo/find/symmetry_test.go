package find

import (
	"slices"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// recipe is a search from zookeeper-recipe's start, whose C, D and E only
// lock: interchangeable. A and B lock, write their own names and unlock:
// interchangeable too, with the resource's value renamed with its writer.
func recipe(t *testing.T, on bool) *search {
	t.Helper()
	sc, _ := testkit.Catalog(t).Get("zookeeper-recipe")
	prop, _ := sc.Promise()
	s, err := newSearch(demo.Place{Sc: sc, On: on, Step: 1}, prop, Options{Depth: 6})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestInterchangeableClients(t *testing.T) {
	for _, on := range []bool{false, true} {
		if got := recipe(t, on).space.groups; !slices.EqualFunc(got, [][]int{{0, 1}, {2, 3, 4}}, slices.Equal) {
			t.Errorf("on=%v: interchangeable %v, want A and B, and C, D and E ([[0 1] [2 3 4]])", on, got)
		}
	}
	for _, id := range []string{"zookeeper-session-expiry", "etcd-lease", "lock-delay", "gc-pause", "deadlock"} {
		sc, _ := testkit.Catalog(t).Get(id)
		s, err := newSearch(demo.Place{Sc: sc, On: true, Step: 1}, demo.EngineProperties[0], Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.space.groups) > 0 {
			t.Errorf("%s: interchangeable %v, want none", id, s.space.groups)
		}
	}
}

// keyAfter is the search's key for the state play leads to, with the
// node's pauses spent and places in the programs as the finder counts them.
func keyAfter(t *testing.T, s *search, play string) [2]uint64 {
	t.Helper()
	r, err := demo.Place{Sc: s.start.Sc, On: s.start.On, Step: 1, Play: play}.Run()
	if err != nil {
		t.Fatal(err)
	}
	r.Lean()
	var n node
	for _, line := range strings.Split(play, "\n") {
		who, verb, _ := strings.Cut(line, " ")
		i := slices.IndexFunc(r.Clients(), func(c demo.Client) bool { return c.Name == who })
		switch {
		case i < 0:
		case strings.HasPrefix(verb, "pause"):
			n.paused |= 1 << i
		case verb != "resume" && verb != "crash":
			n.pcs += 1 << (4 * i)
		}
	}
	return s.key(r, n)
}

// Two states that differ only in which of C, D and E, or of A and B, did
// what share a key; two that are not a renaming of each other do not, nor
// do two that would be one only if A and C, or a client's own history,
// were renamed.
func TestRenamingsShareAKey(t *testing.T) {
	for _, on := range []bool{false, true} {
		s := recipe(t, on)
		same := [][2]string{
			{"C lock /locks/row-42\nD lock /locks/row-42", "D lock /locks/row-42\nC lock /locks/row-42"},
			{"C lock /locks/row-42\nD pause", "E lock /locks/row-42\nC pause"},
			{"D lock /locks/row-42\nD pause\ntick 10000", "E lock /locks/row-42\nE pause\ntick 10000"},
			{"A lock /locks/row-42\nC lock /locks/row-42\nE lock /locks/row-42", "A lock /locks/row-42\nD lock /locks/row-42\nC lock /locks/row-42"},
			{"A lock /locks/row-42\nA write A\nB lock /locks/row-42", "B lock /locks/row-42\nB write B\nA lock /locks/row-42"},
			{"A lock /locks/row-42\nA write A\nC lock /locks/row-42\nA pause", "B lock /locks/row-42\nB write B\nE lock /locks/row-42\nB pause"},
			{"A lock /locks/row-42\nA write A\nA unlock /locks/row-42\nB lock /locks/row-42", "B lock /locks/row-42\nB write B\nB unlock /locks/row-42\nA lock /locks/row-42"},
		}
		for _, p := range same {
			if keyAfter(t, s, p[0]) != keyAfter(t, s, p[1]) {
				t.Errorf("on=%v: %q and %q, a renaming of C, D and E, have different keys", on, p[0], p[1])
			}
		}
		apart := [][2]string{
			{"A lock /locks/row-42\nC lock /locks/row-42", "C lock /locks/row-42\nA lock /locks/row-42"},
			{"C lock /locks/row-42\nC pause", "C lock /locks/row-42\nD pause"},
			{"C lock /locks/row-42", "C lock /locks/row-42\nD lock /locks/row-42"},
			{"C lock /locks/row-42\nD lock /locks/row-42\nC pause", "C lock /locks/row-42\nD lock /locks/row-42\nD pause"},
			{"A pause", "C pause"},
			{"A lock /locks/row-42\nA write A\nB lock /locks/row-42", "A lock /locks/row-42\nA write A\nB lock /locks/row-42\nB pause"},
		}
		for _, p := range apart {
			if keyAfter(t, s, p[0]) == keyAfter(t, s, p[1]) {
				t.Errorf("on=%v: %q and %q, no renaming of C, D and E of each other, share a key", on, p[0], p[1])
			}
		}
	}
}

// The renaming is what keeps zookeeper-recipe's search small: without it,
// the same depth takes several times the states, and finds the same.
func TestSymmetryShrinksTheSearch(t *testing.T) {
	s, plain := recipe(t, true), recipe(t, true)
	plain.space.groups = nil
	got, err := s.explore()
	if err != nil {
		t.Fatal(err)
	}
	want, err := plain.explore()
	if err != nil {
		t.Fatal(err)
	}
	if got.Found != want.Found || got.Depth != want.Depth || got.OutOfBudget || want.OutOfBudget {
		t.Fatalf("renamed: found %v to depth %d; not: found %v to depth %d", got.Found, got.Depth, want.Found, want.Depth)
	}
	if got.States*3 > want.States {
		t.Errorf("to depth 6: %d states renamed, %d not: want under a third", got.States, want.States)
	}
}
