package conformance

import (
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/conformance/history"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// Every command line a Redis scenario's page prints, in the script, in
// its lab tries' histories and (without -short) in the finder's traces and
// the free-play histories the suite replays, reads back into the command the model sent, word for
// word, and its durations scale without rounding. Needs no server, so it
// runs where redis-server is absent too.
func TestConformanceReadsEveryWireLine(t *testing.T) {
	c := testkit.Catalog(t)
	for _, id := range family {
		sc, ok := c.Get(id)
		if !ok {
			t.Fatalf("scenario %q is missing from scenarios.yaml", id)
		}
		for _, on := range []bool{false, true} {
			hs := []history.History{{Place: demo.Place{Sc: sc, On: on, Step: sc.Frames()}, Kind: history.Script, Name: "script"}}
			if !testing.Short() {
				more, err := history.Of(sc, on, walks)
				if err != nil {
					t.Fatal(err)
				}
				hs = more
			}
			for _, h := range hs {
				if n := readsBack(t, h); n == 0 && h.Name == "script" {
					t.Errorf("%s: no command to check", h)
				}
			}
		}
		tries, err := history.Labs(sc)
		if err != nil {
			t.Fatal(err)
		}
		for _, try := range tries {
			for _, h := range try.Histories {
				if n := readsBack(t, h); n == 0 {
					t.Errorf("%s: no command to check", h)
				}
			}
		}
	}
}

// readsBack reads every command line of h's pages back and returns how many
// it read.
func readsBack(t *testing.T, h history.History) int {
	known := map[string][]string{}
	n := 0
	err := h.Frames(func(f history.Frame) error {
		evs, err := history.Sent(f)
		if err != nil {
			return err
		}
		for _, e := range evs {
			if e.Header().Node == "" {
				continue // a write to the chapter's resource, not to Redis
			}
			cmd, want, ok := request(e.Event)
			if !ok {
				t.Errorf("%s frame %d: the page shows %q, which the suite does not send", h, f.Index, e.Call)
				continue
			}
			c := e.Header().Client
			known[c] = drawn(known[c], cmd)
			_, diff := readBack(e.Call, cmd, known[c])
			switch {
			case diff != "":
				t.Errorf("%s frame %d: %s", h, f.Index, diff)
			case e.Reply != want:
				t.Errorf("%s frame %d: %s: the page shows %q, the model's reply is %q", h, f.Index, e.Call, e.Reply, want)
			}
			if _, err := scaled(cmd, cmd.Args()); err != nil {
				t.Errorf("%s frame %d: %v", h, f.Index, err)
			}
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
