package conformance

import (
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// Every command line the page shows on a Redis node is one the suite sends:
// a model.Command, or a NoAnswer carrying one, whose durations scale without
// rounding. Needs no server, so it runs where redis-server is absent too.
func TestConformanceSendsEveryWireLine(t *testing.T) {
	c := testkit.Catalog(t)
	for _, id := range family {
		sc, ok := c.Get(id)
		if !ok {
			t.Fatalf("scenario %q is missing from scenarios.yaml", id)
		}
		for _, on := range []bool{false, true} {
			r, err := demo.Replay(sc, on, sc.Frames())
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, e := range r.Frame().Events {
				call, _ := e.Wire()
				if call == "" || e.Header().Node == "" {
					continue
				}
				cmd, _, ok := request(e)
				if !ok {
					t.Errorf("%s/%s frame %d: the page shows %q, which the suite does not send", id, position(on), e.Header().Frame, call)
					continue
				}
				n++
				if _, err := scaled(cmd); err != nil {
					t.Errorf("%s/%s frame %d: %v", id, position(on), e.Header().Frame, err)
				}
			}
			if n == 0 {
				t.Errorf("%s/%s: no command to check", id, position(on))
			}
		}
	}
}
