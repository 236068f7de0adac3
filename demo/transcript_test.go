package demo_test

import (
	"flag"
	"fmt"
	. "github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/lockservice"
	"github.com/distlock/fencing-demo/internal/testkit"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Golden transcripts, in the manner of etcd-io/raft's data-driven tests: for
// every scenario and switch position, testdata/<id>-<switch>-<on|off>.txt tells
// what each move did and what the lock service and the resource answered. The
// file is both the test and the scenario's best documentation; read it like a
// story. After a deliberate change to the model or to scenarios.yaml, rewrite
// the files and read the diff:
//
//	go test ./demo -run TestTranscripts -update
var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata/")

func TestTranscripts(t *testing.T) {
	c := testkit.Catalog(t)
	for _, sc := range c.Scenarios {
		for _, on := range []bool{true, false} {
			name := testkit.Name(sc, on)
			t.Run(name, func(t *testing.T) {
				got := transcript(t, sc, on)
				path := filepath.Join("testdata", name+".txt")
				if *update {
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v\n(to write it: go test ./demo -run TestTranscripts -update)", err)
				}
				if d := firstDiff(string(want), got); d != "" {
					t.Fatalf("%s no longer matches the model:\n%s\n"+
						"If the change is intended: go test ./demo -run TestTranscripts -update, and read the diff.", path, d)
				}
			})
		}
	}
}

// transcript is sc's golden transcript, as the engine writes it.
func transcript(tb testing.TB, sc *Scenario, on bool) string {
	tb.Helper()
	got, err := Transcript(sc, on)
	if err != nil {
		tb.Fatalf("%s: %v", testkit.Name(sc, on), err)
	}
	return got
}

// firstDiff compares two transcripts line by line. It returns "" when they are
// equal, and otherwise the first line that differs, with its number and the
// lines just before it for context.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		wl, gl := lineAt(w, i), lineAt(g, i)
		if wl == gl {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "first difference at line %d:\n", i+1)
		for j := max(0, i-3); j < i; j++ {
			fmt.Fprintf(&b, "   %4d  %s\n", j+1, g[j])
		}
		fmt.Fprintf(&b, "-  %4d  %s\n", i+1, wl)
		fmt.Fprintf(&b, "+  %4d  %s\n", i+1, gl)
		b.WriteString("(- in the file, + from the model)")
		return b.String()
	}
	return ""
}

func lineAt(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "<end of file>"
}

func TestFirstDiff(t *testing.T) {
	for _, tt := range []struct {
		name, want, got string
		diff            string // "" when equal, else what the report must contain
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"changed line", "a\nb\nc\n", "a\nB\nc\n", "first difference at line 2:\n      1  a\n-     2  b\n+     2  B\n"},
		{"model says more", "a\n", "a\nb\n", "-     2  \n+     2  b\n"},
		{"file says more", "a\nb\nc", "a\nb", "-     3  c\n+     3  <end of file>\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := firstDiff(tt.want, tt.got)
			if tt.diff == "" {
				if d != "" {
					t.Fatalf("firstDiff of equal text=%q, want \"\"", d)
				}
				return
			}
			if !strings.Contains(d, tt.diff) {
				t.Fatalf("firstDiff=\n%s\nwant it to contain\n%s", d, tt.diff)
			}
		})
	}
}

// The chapter's outcome, asserted directly so the golden files are not the
// only guard: with fencing on A's late write bounces off and row-42 keeps B's
// value; with fencing off it lands and B's value is destroyed.
func TestGCPauseOutcome(t *testing.T) {
	sc, ok := testkit.Catalog(t).Get("gc-pause")
	if !ok {
		t.Fatal("scenarios.yaml has no gc-pause scenario")
	}
	if got, want := sc.Switch, "fencing"; got != want {
		t.Fatalf("gc-pause switch=%q, want %q", got, want)
	}
	for _, tt := range []struct {
		on       bool
		last     Kind
		data     string
		rejected int
		writes   int
	}{
		{on: true, last: Rejected, data: "B", rejected: 1, writes: 2},
		{on: false, last: Accepted, data: "A", rejected: 0, writes: 3},
	} {
		t.Run(testkit.Name(sc, tt.on), func(t *testing.T) {
			r, err := Replay(sc, tt.on, sc.Frames())
			if err != nil {
				t.Fatal(err)
			}
			f := r.Frame()
			if got, want := f.Fenced, tt.on; got != want {
				t.Fatalf("Fenced=%v, want %v", got, want)
			}
			// The lock service is the same either way: B holds token 2.
			if l, _ := lockservice.Of(f); l.Holder != "B" || l.Token != 2 {
				t.Fatalf("holder=(%q, %d), want (B, 2)", l.Holder, l.Token)
			}
			// A is awake and still believes it holds the lock with token 1.
			a := f.Clients[0]
			if a.Name != "A" || a.Paused || !a.Holds || a.Token != 1 {
				t.Fatalf("client A=%+v, want A running and believing it holds token 1", a)
			}
			// The last event is A's late write with token 1, over B's value.
			latest := f.Latest()
			if len(latest) == 0 {
				t.Fatal("the last frame has no events")
			}
			e, ok := latest[len(latest)-1].(WriteResult)
			if !ok {
				t.Fatalf("last event=%+v, want A's write", latest[len(latest)-1])
			}
			if e.Client != "A" || e.Token != 1 || e.Value != "A" || e.Before != "B" || e.Max != 2 {
				t.Fatalf("last event=%+v, want A writing \"A\" with token 1 over \"B\" at maxToken 2", e)
			}
			if got, want := e.Kind(), tt.last; got != want {
				t.Fatalf("A's late write: %v, want %v", got, want)
			}
			if got, want := f.Data, tt.data; got != want {
				t.Fatalf("%s=%q, want %q", sc.Resource, got, want)
			}
			if got, want := f.MaxToken, int64(2); got != want {
				t.Fatalf("maxToken=%d, want %d", got, want)
			}
			if got, want := f.Rejected, tt.rejected; got != want {
				t.Fatalf("rejected=%d, want %d", got, want)
			}
			if got, want := f.Writes, tt.writes; got != want {
				t.Fatalf("accepted writes=%d, want %d", got, want)
			}
		})
	}
}
