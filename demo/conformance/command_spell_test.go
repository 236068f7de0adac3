package conformance

import (
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
)

// commandOf must rebuild exactly the command the page shows: spelled the
// page's way (the value shortened, the script quoted) its arguments are the
// page's call, for every command of every Redis scenario. Needs no server.
func TestConformanceCommandsSpellThePage(t *testing.T) {
	c := loadCatalog(t)
	for _, id := range family {
		sc, _ := c.Get(id)
		for _, on := range []bool{false, true} {
			r, err := demo.Replay(sc, on, sc.Frames())
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, e := range r.Frame().Events {
				cmd, ok := commandOf(e)
				if !ok {
					continue
				}
				n++
				call, _ := e.Wire()
				if got := spell(cmd.Args, e.Value); got != call {
					t.Errorf("%s/%s frame %d: args spell\n\t%s\nthe page shows\n\t%s", id, position(on), e.Frame, got, call)
				}
			}
			if n == 0 {
				t.Errorf("%s/%s: no command to check", id, position(on))
			}
		}
	}
}

// spell writes args as the page does.
func spell(args []string, value string) string {
	out := make([]string, len(args))
	for i, a := range args {
		switch {
		case i == 1 && args[0] == "EVAL":
			a = "'" + a + "'"
		case a == value && value != "":
			a = demo.Short(a)
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}
