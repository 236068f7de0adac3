package find

import (
	"slices"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// mergesChecked bounds the merges each case checks, so the test takes a
// second or two (a fifth of that under -short).
func mergesChecked() int {
	if testing.Short() {
		return 300
	}
	return 1500
}

// reached is a state met by the test's own search: the steps played to it,
// and its node.
type reached struct {
	played []demo.Action
	n      node
}

// Two states the key takes for one play alike: wherever a search meets a
// state whose key it has seen (every seventh such state), each step from
// it, renamed as the two states' clients correspond, is offered, played or
// refused as the same step from the state met first, and leads to the same
// key, with the same kinds of violation, for a few steps on. That is what the key's reductions (sessions by their future,
// the past by its order, interchangeable clients renamed) must keep true;
// a reduction that merged two states with different futures fails here.
func TestMergedStatesPlayAlike(t *testing.T) {
	cases := []struct {
		id    string
		on    bool
		depth int
	}{
		{"zookeeper-recipe", true, 5}, {"zookeeper-recipe", false, 5},
		{"zookeeper-session-expiry", true, 6}, {"etcd-lease", true, 6}, {"lock-delay", true, 6},
	}
	for _, tc := range cases {
		sc, _ := testkit.Catalog(t).Get(tc.id)
		prop, _ := sc.Promise()
		s, err := newSearch(demo.Place{Sc: sc, On: tc.on, Step: 1}, prop, Options{})
		if err != nil {
			t.Fatal(err)
		}
		checked, merged := 0, 0
		first := map[[2]uint64]reached{}
		level := []reached{{}}
		first[s.key(s.root, node{})] = level[0]
		for depth := 1; depth <= tc.depth; depth++ {
			var next []reached
			for _, st := range level {
				s.eachStep(t, st, func(to reached, c *demo.Run) {
					k := s.key(c, to.n)
					was, seen := first[k]
					switch {
					case !seen:
						first[k] = to
						next = append(next, to)
					default:
						// Every seventh merge, so that every depth has some.
						if merged++; merged%7 == 0 && checked < mergesChecked() {
							checked++
							s.playAlike(t, was, to, merged)
						}
					}
				})
			}
			level = next
		}
		if checked == 0 {
			t.Errorf("%s: no merged states to check", testkit.Name(sc, tc.on))
		}
	}
}

// eachStep plays every step the finder tries from st, calling f with each
// state it leads to.
func (s *search) eachStep(t *testing.T, st reached, f func(reached, *demo.Run)) {
	t.Helper()
	r := s.replayed(t, st)
	for _, cand := range s.candidates(r, st.n) {
		c, _ := r.Clone()
		played, err := s.play(c, cand.a)
		if err != nil {
			continue
		}
		f(reached{played: append(slices.Clone(st.played), played...), n: cand.next}, c)
	}
}

// replayed is a lean run of st's steps from the start.
func (s *search) replayed(t *testing.T, st reached) *demo.Run {
	t.Helper()
	r, err := s.start.Run()
	if err != nil {
		t.Fatal(err)
	}
	r.Lean()
	for _, a := range st.played {
		if err := r.Free(a); err != nil {
			t.Fatalf("%v: %v", st.played, err)
		}
	}
	return r
}

// playAlike holds a and b, which share a key, to playing alike for a few
// steps on: b's client for a's client i is the one the two keys' renamings
// put in i's place. At each step both offer the same steps, renamed; each
// is played or refused alike and leads to the same key, with the same
// kinds of violation; then the walk goes on along one of them, picked by
// pick.
func (s *search) playAlike(t *testing.T, a, b reached, pick int) {
	t.Helper()
	ra, rb := s.replayed(t, a), s.replayed(t, b)
	na, nb := a.n, b.n
	for step := 0; step < 4; step++ {
		toA, toB := s.places(ra, na), s.places(rb, nb)
		candsA := slices.Clone(s.candidates(ra, na))
		candsB := slices.Clone(s.candidates(rb, nb))
		if len(candsA) != len(candsB) {
			t.Fatalf("%q and %q share a key, and offer %d and %d steps", sources(a.played), sources(b.played), len(candsA), len(candsB))
		}
		var nextA, nextB *demo.Run
		var nodeA, nodeB node
		for k, cand := range candsA {
			other := s.counterpart(cand, toA, toB, nb)
			if !slices.ContainsFunc(candsB, func(c candidate) bool { return c.a.Source == other.a.Source && c.next == other.next }) {
				t.Fatalf("%q and %q share a key; %q is offered after the first, not %q after the other", sources(a.played), sources(b.played), cand.a.Source, other.a.Source)
			}
			ca, _ := ra.Clone()
			cb, _ := rb.Clone()
			_, errA := s.play(ca, cand.a)
			_, errB := s.play(cb, other.a)
			okA, okB := errA == nil, errB == nil
			if okA != okB {
				t.Fatalf("%q then %q (played %v) and %q then %q (played %v): one played, the other not",
					sources(a.played), cand.a.Source, okA, sources(b.played), other.a.Source, okB)
			}
			if !okA {
				continue
			}
			if s.key(ca, cand.next) != s.key(cb, other.next) || !sameKinds(ca.Violations(), cb.Violations()) {
				t.Fatalf("%q then %q and %q then %q share a key before the step, not after it",
					sources(a.played), cand.a.Source, sources(b.played), other.a.Source)
			}
			if nextA == nil || k == pick%len(candsA) {
				nextA, nextB, nodeA, nodeB = ca, cb, cand.next, other.next
			}
		}
		if nextA == nil {
			return
		}
		ra, rb, na, nb = nextA, nextB, nodeA, nodeB
		pick = pick*31 + 7
	}
}

// places is each client's place in r's canonical renaming (none: its own).
func (s *search) places(r *demo.Run, n node) []int {
	p := make([]int, len(r.Clients()))
	var rn *demo.Renaming
	if s.renaming != nil {
		rn = s.canonical(r, n)
	}
	for i := range p {
		p[i] = rn.To(i)
	}
	return p
}

// counterpart is cand's step as b's client in the same place takes it.
func (s *search) counterpart(cand candidate, toA, toB []int, nb node) candidate {
	i := slices.IndexFunc(s.space.own, func(o ownActions) bool { return o.pause.Who == cand.a.Who })
	if i < 0 {
		return candidate{cand.a, nb} // the world's: nobody's to rename
	}
	j := slices.Index(toB, toA[i])
	next := nb
	switch cand.a.Verb {
	case demo.Pause:
		next.paused |= 1 << j
		return candidate{s.space.own[j].pause, next}
	case demo.Resume:
		return candidate{s.space.own[j].resume, next}
	case demo.Crash:
		return candidate{s.space.own[j].crash, next}
	}
	next.pcs += 1 << (4 * j)
	return candidate{s.space.programs[j][nb.pc(j)], next}
}

func sameKinds(a, b []demo.Violation) bool {
	return slices.EqualFunc(a, b, func(v, w demo.Violation) bool { return v.Kind == w.Kind })
}

func sources(as []demo.Action) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Source)
	}
	return out
}
