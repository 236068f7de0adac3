package demo_test

import (
	"flag"
	"fmt"
	. "github.com/distlock/fencing-demo/demo"
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

// transcript plays sc with the switch on or off and writes down every frame:
// the frame's English title, the actions of the move that led to it (those
// played in this switch position), a "----" line, the events those actions
// produced with the commands and answers on the wire, the state the frame
// shows and the verdict.
func transcript(tb testing.TB, sc *Scenario, on bool) string {
	tb.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "# %s, %s %s: %s\n", sc.ID, sc.Switch, OnOff(on), sc.Title.EN)
	fmt.Fprintf(&b, "# store %s, resource %s (fencing %s), clients %s\n", sc.Store, sc.Resource, sc.Fencing, strings.Join(sc.Clients, ", "))
	r := NewRun(sc, on)
	for {
		f := r.Frame()
		fmt.Fprintf(&b, "\nframe %d/%d: %s\n", f.Index, f.Total, f.Title.EN)
		if f.Index > 1 {
			for _, a := range sc.Moves[f.Index-2].Do {
				if a.When == "" || a.When == OnOff(on) {
					fmt.Fprintf(&b, "> %s\n", a.Source)
				}
			}
		}
		b.WriteString("----\n")
		for _, e := range f.Latest() {
			fmt.Fprintf(&b, "%s\n", describe(sc, e))
		}
		writeState(&b, &f)
		if !r.Step() {
			break
		}
	}
	if err := r.Err(); err != nil {
		tb.Fatalf("%s: %v", testkit.Name(sc, on), err)
	}
	return b.String()
}

// clock writes a time in the scenario's unit.
func clock(sc *Scenario, t int) string {
	if sc.Unit() == "ms" {
		return fmt.Sprintf("t=%dms", t)
	}
	return fmt.Sprintf("t=%d", t)
}

// describe puts one event in a line: when, who, what was sent and what the
// store or the resource answered.
func describe(sc *Scenario, e Event) string {
	h := e.Header()
	who := h.Client
	if h.Node != "" {
		if who != "" {
			who += " -> "
		}
		who += h.Node
	}
	at := clock(sc, h.At) + " " + who
	if call, reply := e.Wire(); call != "" {
		line := fmt.Sprintf("%s: %s", at, call)
		if e, ok := e.(NoAnswer); ok {
			reply = "connection refused"
			if !e.Refused() {
				reply = fmt.Sprintf("no answer in %d ms", e.Waited)
			}
		}
		if reply != "" {
			line += " => " + reply
		}
		switch e := e.(type) {
		case AcquireCall:
			if e.OK {
				line += ", lease until " + clock(sc, e.Expiry)
			}
		case RenewCall:
			if e.OK {
				line += ", lease until " + clock(sc, e.Expiry)
			}
		case SQLStatement:
			if !e.Waiting && e.Waited() > 0 {
				line += fmt.Sprintf(" (after waiting %dms)", e.Waited())
			}
		case RedissonUnlock:
			if !e.Found {
				line += ": IllegalMonitorStateException"
			}
		case CoordCall:
			line += coordNote(e)
		case WriteResult:
			if e.OK {
				line += fmt.Sprintf(", replacing %q (maxToken was %d)", e.Before, e.Max)
			} else {
				line += fmt.Sprintf(" (maxToken %d)", e.Max)
			}
		}
		return line
	}
	switch e := e.(type) {
	case LeaseExpiry:
		return fmt.Sprintf("%s: lease token=%d expired", at, e.Token)
	case KeyExpiry:
		return fmt.Sprintf("%s: %s expired (%s's lock)", at, e.Key, e.Client)
	case RedlockResult:
		q := e.Quorum
		verdict := "holds the lock"
		if !q.Held() {
			verdict = "fails"
		}
		return fmt.Sprintf("%s: %d/%d nodes (quorum %d), validity = %d - %d - %d = %d ms: %s",
			at, q.Locked, len(sc.NodeNames()), q.Need, q.TTL, q.Elapsed, q.Drift, q.Validity, verdict)
	case ClockJumped:
		return fmt.Sprintf("%s: clock jumps %d ms forward", at, e.By)
	case ClockSlewing:
		return fmt.Sprintf("%s: clock to be slewed %d ms, at most %d ppm", at, e.By, e.Rate)
	case RetryDelay:
		return fmt.Sprintf("%s: waits %d ms (random, 0-%d) before trying again", at, e.Delay, e.Max)
	case WatchdogSkipped:
		return fmt.Sprintf("%s: paused, its watchdog does not renew", at)
	case BlockedWait:
		return fmt.Sprintf("%s: blocked in WAIT for %d replica(s)", at, e.Replicas)
	case Replication:
		return fmt.Sprintf("%s: shipped %d write(s) to the replica", at, e.Shipped)
	case SkippedWrite:
		return fmt.Sprintf("%s: does not hold the lock, does not write %q", at, e.Value)
	case DeadlockCheck:
		return fmt.Sprintf("%s: deadlock check after deadlock_timeout finds the cycle %s", at, strings.Join(append(e.Cycle, e.Cycle[0]), " -> "))
	case LockHeld, WatchFired, SessionEnded:
		return at + ": " + coordStory(sc, e)
	}
	return fmt.Sprintf("%s: %s", at, e.Kind())
}

// writeState writes the state block of a frame: the clock, the store, the
// resource, what each client believes, and the verdict.
func writeState(b *strings.Builder, f *Frame) {
	sc := f.Scenario
	fmt.Fprintf(b, "state:\n  now: %s\n", clock(sc, f.Now))
	if f.Database != nil {
		writeDatabase(b, f)
		return
	}
	if sc.Store == LockServiceStore {
		switch {
		case f.Holder != "":
			fmt.Fprintf(b, "  lock: %s holds token %d, lease until %s\n", f.Holder, f.Token, clock(sc, f.Expiry))
		case f.Expiry == 0: // never lent: a lease lasts at least one tick
			b.WriteString("  lock: free\n")
		default:
			fmt.Fprintf(b, "  lock: free (last lease until %s)\n", clock(sc, f.Expiry))
		}
	}
	for _, n := range f.Nodes {
		var keys []string
		for _, k := range n.Keys {
			ttl := "no TTL"
			if k.TTL >= 0 {
				ttl = fmt.Sprintf("TTL %dms", k.TTL)
			}
			value := Short(k.Value)
			if k.Count > 0 {
				value = fmt.Sprintf("{%s -> %d}", value, k.Count)
			}
			keys = append(keys, fmt.Sprintf("%s=%s (%s, %s)", k.Key, value, k.Owner, ttl))
		}
		state := "up"
		if !n.Up {
			state = "down"
		}
		if n.Role != "" {
			state += " " + n.Role
		}
		if n.Offset != 0 {
			state += fmt.Sprintf(" clock+%dms", n.Offset)
		}
		if n.Slew != 0 {
			state += fmt.Sprintf(" slewing %dms to go at %dppm", n.Slew, n.SlewRate)
		}
		if len(keys) == 0 {
			keys = []string{"empty"}
		}
		fmt.Fprintf(b, "  %s: %s, %s\n", n.Name, state, strings.Join(keys, ", "))
	}
	if f.Coord != nil {
		writeCoord(b, sc, f.Coord)
	}
	fencing := "fencing off"
	if f.Fenced {
		fencing = "fencing on"
	}
	fmt.Fprintf(b, "  %s: %q maxToken=%d rejected=%d accepted=%d (%s)\n",
		sc.Resource, f.Data, f.MaxToken, f.Rejected, f.Writes, fencing)
	for _, c := range f.Clients {
		state := "running"
		switch {
		case c.Crashed:
			state = "crashed"
		case c.Paused:
			state = "paused"
		case c.Blocked:
			state = "blocked in WAIT"
		}
		switch {
		case c.Holds && c.Token > 0:
			fmt.Fprintf(b, "  %s: %s, believes it holds token %d\n", c.Name, state, c.Token)
		case c.Holds && c.Until >= 0:
			fmt.Fprintf(b, "  %s: %s, believes it holds the lock until %s\n", c.Name, state, clock(sc, c.Until))
		case c.Holds:
			fmt.Fprintf(b, "  %s: %s, believes it holds the lock for ever\n", c.Name, state)
		case c.Token != 0:
			fmt.Fprintf(b, "  %s: %s, does not hold the lock (last token %d)\n", c.Name, state, c.Token)
		default:
			fmt.Fprintf(b, "  %s: %s, does not hold the lock\n", c.Name, state)
		}
	}
	top := f.Verdict()
	fmt.Fprintf(b, "verdict: %s (%s)\n", top.Kind, top.Kind.Class())
	for _, v := range f.Violations {
		switch v.Kind {
		case TwoHolders:
			fmt.Fprintf(b, "  %s: %s and %s hold the lock at once, from %s\n", v.Kind, v.Other, v.Client, clock(sc, v.At))
		case StaleWrite:
			fmt.Fprintf(b, "  %s: %s wrote %q at %s after its lock ran out, overwriting %q (%s's)\n", v.Kind, v.Client, v.Value, clock(sc, v.At), v.Before, v.Other)
		case Stuck:
			fmt.Fprintf(b, "  %s: %s crashed holding a lock with no expiry (seen at %s)\n", v.Kind, v.Client, clock(sc, v.At))
		case Overlap:
			fmt.Fprintf(b, "  %s: %s works on past its lease while %s holds the lock, from %s\n", v.Kind, v.Client, v.Other, clock(sc, v.At))
		case Contained:
			fmt.Fprintf(b, "  %s: %s worked on past its lease while %s held the lock, from %s; its write was rejected (token %d < maxToken %d)\n", v.Kind, v.Client, v.Other, clock(sc, v.At), v.Token, v.Max)
		}
	}
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
			if f.Holder != "B" || f.Token != 2 {
				t.Fatalf("holder=(%q, %d), want (B, 2)", f.Holder, f.Token)
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
