package script_test

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	. "github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// FuzzLoad feeds any bytes to Load. It must never panic; an error must be a
// *script.LoadError whose line is in the input; a catalog that loads must play
// every scenario to its end in both switch positions, as Load promises; and
// written by Marshal it must load again as the same scenarios.
func FuzzLoad(f *testing.F) {
	real, err := os.ReadFile(testkit.ScenariosFile())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(real)
	minimal := testkit.File(testkit.YAML("s", "A acquire 10", "tick 2", "A write x"))
	f.Add([]byte(minimal))
	f.Add([]byte(testkit.File(testkit.OnStore(f, "redlock", testkit.YAML("r", "A cut redis4 redis5", "A redlock lock:k PX 100", "redis3 jump 500", "B redlock lock:k PX 100", "A write A")))))
	f.Add([]byte(testkit.File(testkit.OnStore(f, "replicated", testkit.YAML("p", "A set lock:k NX PX 30000", "A wait 1 0", "primary down", "replica promote", "B set lock:k NX PX 30000")))))
	// Broken variants: one mistake each.
	for _, broken := range []string{
		strings.Replace(string(real), "latency: 2", "latency: two", 1),
		strings.Replace(string(real), "- redis4 down", "- redis9 down", 1),
		strings.Replace(string(real), "if-on:", "if-maybe:", 1),
		strings.Replace(string(real), "NX PX 30000", "NX EX 30", 1),
		strings.Replace(minimal, "A acquire 10", "A pause", 1),
		strings.Replace(minimal, "    purpose: correctness\n", "", 1),
		strings.Replace(minimal, "clients: [A, B]", "clients: [A, A]", 1),
		minimal[:len(minimal)/2],
		"scenarios:\n  - [",
		"",
	} {
		f.Add([]byte(broken))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := script.Load("fuzz.yaml", data)
		if err != nil {
			var le *script.LoadError
			if !errors.As(err, &le) {
				t.Fatalf("Load error %v (%T) is not a *script.LoadError", err, err)
			}
			if c != nil {
				t.Fatalf("Load returned a catalog with the error %v", err)
			}
			if got, want := le.File, "fuzz.yaml"; got != want {
				t.Fatalf("LoadError.File=%q, want %q", got, want)
			}
			if lines := yamlLines(data); le.Line < 0 || le.Line > lines {
				t.Fatalf("LoadError.Line=%d, but the input has %d lines: %v", le.Line, lines, le)
			}
			return
		}
		if len(c.Scenarios) == 0 {
			t.Fatal("Load returned an empty catalog without an error")
		}
		// What loads is written by the same types and reads back the same.
		out, err := script.Marshal(c.Scenarios...)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		again, err := script.Load("written.yaml", out)
		if err != nil {
			t.Fatalf("the written file does not load: %v\n%s", err, out)
		}
		for i, sc := range c.Scenarios {
			if !reflect.DeepEqual(unlined(again.Scenarios[i]), unlined(sc)) {
				t.Fatalf("%s: written and read, it differs", sc.ID)
			}
		}
		for _, sc := range c.Scenarios {
			if got, ok := c.Get(sc.ID); !ok || got != sc {
				t.Fatalf("Get(%q) does not find the scenario", sc.ID)
			}
			for _, on := range []bool{false, true} {
				r, err := Replay(sc, on, sc.Frames())
				if err != nil {
					t.Fatalf("%s %s: a scenario that loaded fails to play: %v", sc.ID, OnOff(on), err)
				}
				if got, want := r.Index(), sc.Frames(); got != want {
					t.Fatalf("%s %s: Replay stopped at frame %d of %d", sc.ID, OnOff(on), got, want)
				}
			}
		}
	})
}

// yamlLines counts the lines of data as YAML does: a line ends at "\r\n", at
// "\n", or at a lone "\r".
func yamlLines(data []byte) int {
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	return bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte("\r")) + 1
}
