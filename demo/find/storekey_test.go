package find

import (
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// A step that leaves the store and the time as they were is keyed with the
// store's part written once for the state it left (storeKey), on a run that
// shares the state's store, as expand keys it: the key is the one written
// whole, for every step from every state of a few levels, renamed or not.
func TestStoreKeyKeptForStepsThatLeaveIt(t *testing.T) {
	for _, id := range []string{"zookeeper-recipe", "zookeeper-session-expiry", "etcd-lease", "deadlock", "gc-pause"} {
		sc, _ := testkit.Catalog(t).Get(id)
		prop, _ := sc.Promise()
		s, err := newSearch(demo.Place{Sc: sc, On: true, Step: 1}, prop, Options{})
		if err != nil {
			t.Fatal(err)
		}
		level, kept := []reached{{}}, 0
		for depth := 1; depth <= 4 && len(level) > 0; depth++ {
			var next []reached
			for _, st := range level {
				r := s.replayed(t, st)
				s.store.reset()
				for _, cand := range s.candidates(r, st.n) {
					var c demo.Run
					if r.Touches(cand.a) || !r.ShareTo(&c) {
						r.CopyTo(&c)
					}
					played, err := s.play(&c, cand.a)
					if err != nil {
						continue
					}
					same := !c.Touches(cand.a) && c.Now() == r.Now()
					if got, want := s.keyAfter(&c, cand.next, same), s.key(&c, cand.next); got != want {
						t.Fatalf("%s: %s after %v: key %x with the store's part kept, %x written whole", id, cand.a.Source, sources(st.played), got, want)
					}
					if same {
						kept++
					}
					if len(next) < 40 {
						next = append(next, reached{played: append(append([]demo.Action(nil), st.played...), played...), n: cand.next})
					}
				}
			}
			level = next
		}
		if kept == 0 {
			t.Errorf("%s: no step kept the store's part", id)
		}
	}
}
