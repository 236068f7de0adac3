package follow

import (
	"testing"

	"github.com/distlock/fencing-demo/demo"
)

// A lecture's move as Redis keeps it reads back as the same place, free
// play's history (spaces, new lines and all) included.
func TestRelayMoveRoundTrip(t *testing.T) {
	sc := &demo.Scenario{ID: "gc-pause", Moves: make([]demo.Move, 6)}
	r := &Redis{lookup: func(id string) (*demo.Scenario, bool) { return sc, id == sc.ID }}
	for _, at := range []At{
		{Sc: sc, On: true, Step: 3},
		{Sc: sc, On: false, Step: 1, Play: "A acquire 10\ntick 10\nB sql UPDATE t SET v = 'x' WHERE id = 1"},
	} {
		got, v, err := r.parse("41 " + move(at))
		if err != nil || v != 41 || got != at {
			t.Fatalf("%+v read back as %+v, version %d, %v", at, got, v, err)
		}
	}
	for _, bad := range []string{"1 gc-pause on 3 !!", "1 gc-pause on 3 a b", "1 gc-pause on 9"} {
		if _, _, err := r.parse(bad); err == nil {
			t.Errorf("%q read as a move", bad)
		}
	}
}
