package history_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/conformance/history"
	"github.com/distlock/fencing-demo/demo/redis"
	"github.com/distlock/fencing-demo/demo/sql"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// The walks are the same every time, of the stated length, and every action
// of them plays where it stands.
func TestWalksAreFixedAndPlayable(t *testing.T) {
	sc := testkit.Scenario(t, "release-other")
	for _, on := range []bool{false, true} {
		a, err := history.Walks(sc, on, 4)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := history.Walks(sc, on, 4)
		if !slices.Equal(a, b) {
			t.Fatalf("two draws of the walks differ:\n%v\n%v", a, b)
		}
		for _, h := range a {
			n := strings.Count(h.Play, "\n") + 1
			if h.Play == "" || n < history.MinWalk || n > history.MaxWalk {
				t.Errorf("%s: %d actions, want %d to %d", h, n, history.MinWalk, history.MaxWalk)
			}
			if _, err := h.Run(); err != nil {
				t.Errorf("%s: %v", h, err)
			}
		}
	}
}

// The finder's histories are those `go run . check` reports: gc-pause with
// fencing off breaks its property in five actions, and the finder met three
// other kinds of violation on the way.
func TestFinderHistories(t *testing.T) {
	sc := testkit.Scenario(t, "gc-pause")
	hs, err := history.Finder(sc, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) < 2 || hs[0].Kind != history.Trace || strings.Count(hs[0].Play, "\n")+1 != 5 {
		t.Fatalf("gc-pause, fencing off: %v; want the 5-action trace first, then the others met", hs)
	}
	for _, h := range hs[1:] {
		if h.Kind != history.AlsoMet {
			t.Errorf("%s: kind %s, want %s", h, h.Kind, history.AlsoMet)
		}
	}
}

// Frames plays every frame of a history in order, the script's up to its
// step and then one per action, and the page of each prints, for each event
// of its move, the call the model's event says went on the wire.
func TestFramesAndTheirWire(t *testing.T) {
	sc := testkit.Scenario(t, "redis-failover")
	hs, err := history.Walks(sc, true, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		var seen []int
		sent := 0
		err := h.Frames(func(f history.Frame) error {
			seen = append(seen, f.Index)
			evs, err := history.Sent(f)
			if err != nil {
				return err
			}
			for _, e := range evs {
				if call, _ := e.Wire(); call != e.Call {
					t.Errorf("%s frame %d: the page prints %q, the event %q", h, f.Index, e.Call, call)
				}
				sent++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		acts := strings.Count(h.Play, "\n") + 1
		if want := h.Step + acts; len(seen) != want || seen[len(seen)-1] != want {
			t.Errorf("%s: frames %v, want 1 to %d", h, seen, want)
		}
		if sent == 0 {
			t.Errorf("%s: no command on the wire", h)
		}
	}
}

// Every scenario's histories play, in both positions.
func TestEveryScenarioHasHistories(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the finder on every scenario: not under -short")
	}
	for _, sc := range testkit.Catalog(t).Scenarios {
		for _, on := range []bool{false, true} {
			hs, err := history.Of(sc, on, 2)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hs {
				if _, err := h.Run(); err != nil {
					t.Errorf("%s: %v", h, err)
				}
			}
			if sc.Family.Offers != nil && len(hs) < 3 {
				t.Errorf("%s/%s: %d histories, want the script and two walks at least", sc.ID, demo.OnOff(on), len(hs))
			}
		}
	}
}

// Every lab of a Redis or database scenario gives each of its tries the
// histories the suites replay: its script, which plays to its last frame,
// and the history the lab's page plays beside the judge's answer: for a
// try the judge breaks, its break, of the length the try states; for one
// that holds, its example of the good thing; for one that never gets the
// work done, the history that came closest.
func TestEveryLabTryHasHistories(t *testing.T) {
	stores := []demo.StoreKind{redis.SingleStore, redis.ReplicatedStore, redis.RedlockStore, sql.DatabaseStore}
	labs := map[string]int{}
	for _, sc := range testkit.Catalog(t).Scenarios {
		if sc.Lab == nil || !slices.Contains(stores, sc.Store) {
			continue
		}
		tries, err := history.Labs(sc)
		if err != nil {
			t.Fatal(err)
		}
		labs[sc.Family.Name]++
		if len(tries) != len(sc.Lab.Tries) || len(tries) == 0 {
			t.Errorf("lab %s: %d tries with histories, the lab has %d", sc.ID, len(tries), len(sc.Lab.Tries))
		}
		for _, try := range tries {
			if try.Unbuilt != nil {
				t.Errorf("lab %s/%s: the model does not build it: %v", sc.ID, try.Name, try.Unbuilt)
				continue
			}
			if len(try.Histories) == 0 || try.Histories[0].Kind != history.LabScript {
				t.Errorf("lab %s/%s: histories %v, want its script first", sc.ID, try.Name, try.Histories)
				continue
			}
			if _, err := try.Histories[0].Run(); err != nil {
				t.Errorf("%s: %v", try.Histories[0], err)
			}
			// The history the lab's page plays beside the judge's answer.
			want := history.LabGood
			switch {
			case strings.HasPrefix(try.Expect, "broken in "):
				want = history.LabBreak
			case strings.HasPrefix(try.Expect, "never"):
				want = history.LabNear
			}
			if len(try.Histories) != 2 || try.Histories[1].Kind != want {
				t.Errorf("lab %s/%s, %s: histories %v, want the script and the %s", sc.ID, try.Name, try.Expect, try.Histories, want)
				continue
			}
			h := try.Histories[1]
			n := strings.Count(h.Play, "\n") + 1
			if want == history.LabBreak && try.Expect != fmt.Sprintf("broken in %d", n) {
				t.Errorf("%s: the break has %d actions, the try says %s", h, n, try.Expect)
			}
			if _, err := h.Run(); err != nil {
				t.Errorf("%s: %v", h, err)
			}
		}
	}
	if labs["redis"] == 0 || labs["sql"] == 0 {
		t.Errorf("labs by family %v: want a lab of Redis and one of a database at least", labs)
	}
}

// A try whose script the sandbox stops on a bound real Redis does not have
// (an endless loop) has no histories to replay, and says why in the
// model's words, for the suites to log.
func TestLabTryTheModelDoesNotBuild(t *testing.T) {
	sc := *testkit.Scenario(t, "release-other")
	lab := *sc.Lab
	loop := lab.Tries[0]
	loop.Name, loop.Build.Scripts = "endless", map[string]string{"release": "while true do end"}
	lab.Tries = []demo.Try{loop}
	sc.Lab = &lab
	tries, err := history.Labs(&sc)
	if err != nil {
		t.Fatal(err)
	}
	if len(tries) != 1 || tries[0].Unbuilt == nil || len(tries[0].Histories) != 0 {
		t.Fatalf("an endless release: %+v; want no histories and why", tries)
	}
	msg := tries[0].Unbuilt.Error()
	t.Log(msg)
	if !strings.Contains(msg, "instructions") {
		t.Errorf("an endless release: %q does not say the script ran out of instructions", msg)
	}
}
