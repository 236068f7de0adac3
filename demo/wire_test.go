package demo_test

import (
	"fmt"
	. "github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/demotest"
	"reflect"
	"strings"
	"testing"
)

// The compare-and-delete and compare-and-renew scripts, typed here from the
// redis.io page on distributed locks rather than copied from wire.go.
const (
	docsUnlock = `if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end`
	docsRenew  = `if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("pexpire",KEYS[1],ARGV[2]) else return 0 end`
)

// short is how the wire shows a client's random value: its first 8 hex
// digits and an ellipsis.
func short(scenario, client string, attempt int) string {
	return LockValue(scenario, client, attempt)[:8] + "…"
}

// eventOf returns the one event of the given kind by client (to node, if node
// is not "") among the events of the move that led to frame.
func eventOf(tb testing.TB, f Frame, kind Kind, client, node string) Event {
	tb.Helper()
	var found []Event
	for _, e := range f.Latest() {
		if h := e.Header(); e.Kind() == kind && h.Client == client && (node == "" || h.Node == node) {
			found = append(found, e)
		}
	}
	if len(found) != 1 {
		tb.Fatalf("frame %d: %d %v events by %q to %q, want 1; events: %+v", f.Index, len(found), kind, client, node, f.Latest())
	}
	return found[0]
}

// The commands of the real scenarios, on the wire as the real systems spell
// them, with the answers the model computed.
func TestWireOfScenarioEvents(t *testing.T) {
	for _, tt := range []struct {
		name         string
		id           string
		on           bool
		frame        int
		kind         Kind
		client, node string
		call, reply  string
	}{
		{
			name: "SET NX PX taken", id: "watchdog", on: false, frame: 2, kind: SetCmd, client: "A",
			call:  "SET lock:row-42 " + short("watchdog", "A", 1) + " NX PX 30000",
			reply: "OK",
		},
		{
			name: "SET NX PX refused", id: "watchdog", on: true, frame: 6, kind: SetCmd, client: "B",
			call:  "SET lock:row-42 " + short("watchdog", "B", 1) + " NX PX 30000",
			reply: "(nil)",
		},
		{
			name: "SET NX without PX", id: "no-lease", on: false, frame: 2, kind: SetCmd, client: "A",
			call:  "SET lock:row-42 " + short("no-lease", "A", 1) + " NX",
			reply: "OK",
		},
		{
			name: "SETNX", id: "setnx-expire", on: false, frame: 2, kind: SetCmd, client: "A",
			call:  "SETNX lock:row-42 " + short("setnx-expire", "A", 1),
			reply: "(integer) 1",
		},
		{
			name: "DEL of someone else's lock", id: "release-other", on: false, frame: 5, kind: DelCmd, client: "A",
			call:  "DEL lock:row-42",
			reply: "(integer) 1",
		},
		{
			name: "compare-and-delete finds another value", id: "release-other", on: true, frame: 5, kind: UnlockCmd, client: "A",
			call:  "EVAL '" + docsUnlock + "' 1 lock:row-42 " + short("release-other", "A", 1),
			reply: "(integer) 0",
		},
		{
			name: "compare-and-delete of one's own lock", id: "watchdog", on: true, frame: 8, kind: UnlockCmd, client: "A",
			call:  "EVAL '" + docsUnlock + "' 1 lock:row-42 " + short("watchdog", "A", 1),
			reply: "(integer) 1",
		},
		{
			name: "watchdog renewal", id: "watchdog", on: true, frame: 3, kind: ExtendCmd, client: "A",
			call:  "EVAL '" + docsRenew + "' 1 lock:row-42 " + short("watchdog", "A", 1) + " 30000",
			reply: "(integer) 1",
		},
		{
			name: "WAIT", id: "redis-failover", on: true, frame: 3, kind: WaitCmd, client: "A",
			call:  "WAIT 1 0",
			reply: "(integer) 1",
		},
		{
			name: "Redlock SET on a node that answers", id: "redlock-quorum", on: false, frame: 4, kind: NodeTry, client: "A", node: "redis3",
			call:  "SET lock:row-42 " + short("redlock-quorum", "A", 1) + " NX PX 10000",
			reply: "OK",
		},
		{
			name: "Redlock SET on a node that is down", id: "redlock-quorum", on: false, frame: 4, kind: Unreachable, client: "A", node: "redis4",
			call:  "SET lock:row-42 " + short("redlock-quorum", "A", 1) + " NX PX 10000",
			reply: "no answer in 50 ms",
		},
		{
			name: "Redlock SET refused on a node A holds", id: "redlock-clock-jump", on: true, frame: 4, kind: NodeTry, client: "B", node: "redis3",
			call:  "SET lock:row-42 " + short("redlock-clock-jump", "B", 1) + " NX PX 10000",
			reply: "(nil)",
		},
		{
			name: "Redlock unlock on a node", id: "redlock-quorum", on: false, frame: 6, kind: UnlockCmd, client: "A", node: "redis1",
			call:  "EVAL '" + docsUnlock + "' 1 lock:row-42 " + short("redlock-quorum", "A", 1),
			reply: "(integer) 1",
		},
		{
			name: "Redlock unlock on a node that is down", id: "redlock-quorum", on: false, frame: 6, kind: Unreachable, client: "A", node: "redis5",
			call:  "EVAL '" + docsUnlock + "' 1 lock:row-42 " + short("redlock-quorum", "A", 1),
			reply: "no answer in 50 ms",
		},
		{
			name: "Acquire", id: "gc-pause", on: true, frame: 2, kind: Acquired, client: "A",
			call:  `Acquire("A", 10)`,
			reply: "(1, true)",
		},
		{
			name: "Write accepted", id: "gc-pause", on: true, frame: 2, kind: Accepted, client: "A",
			call:  `Write(1, "A")`,
			reply: "true",
		},
		{
			name: "Write rejected by fencing", id: "gc-pause", on: true, frame: 7, kind: Rejected, client: "A",
			call:  `Write(1, "A")`,
			reply: "false",
		},
		{
			name: "late Write accepted without fencing", id: "gc-pause", on: false, frame: 7, kind: Accepted, client: "A",
			call:  `Write(1, "A")`,
			reply: "true",
		},
		{
			name: "Redlock write carries token 0", id: "redlock-gc-pause", on: true, frame: 7, kind: Accepted, client: "A",
			call:  `Write(0, "A")`,
			reply: "true",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sc, ok := demotest.Catalog(t).Get(tt.id)
			if !ok {
				t.Fatalf("scenarios.yaml has no %q scenario", tt.id)
			}
			r, err := Replay(sc, tt.on, tt.frame)
			if err != nil {
				t.Fatal(err)
			}
			e := eventOf(t, r.Frame(), tt.kind, tt.client, tt.node)
			call, reply := e.Wire()
			if call != tt.call || reply != tt.reply {
				t.Fatalf("%s %s frame %d: Wire()=\n(%q, %q)\nwant\n(%q, %q)", tt.id, demotest.OnOff(tt.on), tt.frame, call, reply, tt.call, tt.reply)
			}
		})
	}
}

// Commands no scenario of the catalog sends, in scenarios made for the test.
func TestWireOfSmallScenarios(t *testing.T) {
	for _, tt := range []struct {
		name         string
		store        string
		do           []string
		kind         Kind
		client       string
		call, reply  string
		fromScenario bool // call and reply hold %s for the client's value
	}{
		{
			name: "EXPIRE after SETNX", store: "redis", do: []string{"A setnx lock:row-42", "A expire lock:row-42 30"},
			kind: ExpireCmd, client: "A", call: "EXPIRE lock:row-42 30", reply: "(integer) 1",
		},
		{
			name: "EXPIRE of a missing key", store: "redis", do: []string{"A expire lock:row-42 30"},
			kind: ExpireCmd, client: "A", call: "EXPIRE lock:row-42 30", reply: "(integer) 0",
		},
		{
			name: "SETNX refused", store: "redis", do: []string{"A setnx lock:row-42", "B setnx lock:row-42"},
			kind: SetCmd, client: "B", call: "SETNX lock:row-42 %s", reply: "(integer) 0", fromScenario: true,
		},
		{
			name: "plain SET with PX", store: "redis", do: []string{"B set lock:row-42 px 100"},
			kind: SetCmd, client: "B", call: "SET lock:row-42 %s PX 100", reply: "OK", fromScenario: true,
		},
		{
			name: "DEL of a missing key", store: "redis", do: []string{"A del lock:row-42"},
			kind: DelCmd, client: "A", call: "DEL lock:row-42", reply: "(integer) 0",
		},
		{
			name: "watchdog finds the lock gone", store: "redis", do: []string{"A set lock:row-42 NX PX 100", "tick 100", "A extend lock:row-42 30000"},
			kind: ExtendCmd, client: "A", call: "EVAL '" + docsRenew + "' 1 lock:row-42 %s 30000", reply: "(integer) 0", fromScenario: true,
		},
		{
			name: "WAIT with the replica down", store: "replicated", do: []string{"A set lock:row-42 NX PX 100", "replica down", "A wait 1 0"},
			kind: WaitCmd, client: "A", call: "WAIT 1 0", reply: "(integer) 0",
		},
		{
			name: "Acquire refused", store: "lockservice", do: []string{"A acquire 10", "B acquire 10"},
			kind: AcquireDenied, client: "B", call: `Acquire("B", 10)`, reply: "(0, false)",
		},
		{
			name: "Renew", store: "lockservice", do: []string{"A acquire 10", "tick 5", "A renew 10"},
			kind: Renewed, client: "A", call: `Renew("A", 10)`, reply: "true",
		},
		{
			name: "Renew refused", store: "lockservice", do: []string{"A acquire 10", "tick 10", "A renew 10"},
			kind: RenewDenied, client: "A", call: `Renew("A", 10)`, reply: "false",
		},
		{
			name: "Release", store: "lockservice", do: []string{"A acquire 10", "A release"},
			kind: Released, client: "A", call: `Release("A")`, reply: "",
		},
		{
			name: "Release by another client", store: "lockservice", do: []string{"A acquire 10", "B release"},
			kind: ReleaseIgnored, client: "B", call: `Release("B")`, reply: "",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := demotest.Play(t, demotest.File(demotest.OnStore(t, tt.store, demotest.YAML("s", tt.do...))), true)
			e := eventOf(t, f, tt.kind, tt.client, "")
			wantCall, wantReply := tt.call, tt.reply
			if tt.fromScenario {
				wantCall = fmt.Sprintf(wantCall, short("s", tt.client, 1))
			}
			if call, reply := e.Wire(); call != wantCall || reply != wantReply {
				t.Fatalf("Wire()=(%q, %q), want (%q, %q)", call, reply, wantCall, wantReply)
			}
		})
	}
}

// What no client sent has nothing on the wire.
func TestWireOfStoreEvents(t *testing.T) {
	h := Head{Client: "A", Node: "redis1"}
	v := LockValue("s", "A", 1)
	for _, e := range []Event{
		LeaseExpiry{Head: h, Token: 1}, KeyExpiry{Head: h, Key: "lock:row-42", Value: v},
		RedlockResult{Head: h, Key: "lock:row-42", Value: v, Quorum: Quorum{Locked: 3, Need: 3, Validity: 1}},
		RedlockResult{Head: h, Key: "lock:row-42", Value: v},
		SkippedWrite{Head: h, Value: "A"},
		ClientChange{Head: h, What: Paused}, ClientChange{Head: h, What: Resumed}, ClientChange{Head: h, What: Crashed},
		ClientChange{Head: h, What: CutOff}, ClientChange{Head: h, What: Healed},
		NodeChange{Head: h, What: NodeDown}, NodeChange{Head: h, What: NodeUp}, NodeChange{Head: h, What: Promoted},
		NodeChange{Head: h, What: MonotonicOn}, Replication{Head: h, Shipped: 1}, ClockJumped{Head: h, By: 500},
	} {
		if call, reply := e.Wire(); call != "" || reply != "" {
			t.Errorf("%v: Wire()=(%q, %q), want nothing", e.Kind(), call, reply)
		}
	}
}

func TestShort(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"abcdef12", "abcdef12"},
		{"abcdef123", "abcdef12…"},
		{LockValue("s", "A", 1), LockValue("s", "A", 1)[:8] + "…"},
	} {
		if got := Short(tt.in); got != tt.want {
			t.Errorf("Short(%q)=%q, want %q", tt.in, got, tt.want)
		}
	}
}

// Args is the command word for word, the full random value included, as the
// conformance suite sends it to a real Redis; Wire only shortens the value.
func TestArgsOfScenarioCommands(t *testing.T) {
	for _, tt := range []struct {
		id    string
		on    bool
		frame int
		kind  Kind
		node  string
		args  func(v string) []string
		reply string
	}{
		{"watchdog", false, 2, SetCmd, "", func(v string) []string {
			return []string{"SET", "lock:row-42", v, "NX", "PX", "30000"}
		}, "OK"},
		{"setnx-expire", false, 2, SetCmd, "", func(v string) []string {
			return []string{"SETNX", "lock:row-42", v}
		}, "(integer) 1"},
		{"release-other", true, 5, UnlockCmd, "", func(v string) []string {
			return []string{"EVAL", docsUnlock, "1", "lock:row-42", v}
		}, "(integer) 0"},
		{"watchdog", true, 3, ExtendCmd, "", func(v string) []string {
			return []string{"EVAL", docsRenew, "1", "lock:row-42", v, "30000"}
		}, "(integer) 1"},
		{"redis-failover", true, 3, WaitCmd, "", func(string) []string {
			return []string{"WAIT", "1", "0"}
		}, "(integer) 1"},
		{"redlock-quorum", false, 4, NodeTry, "redis3", func(v string) []string {
			return []string{"SET", "lock:row-42", v, "NX", "PX", "10000"}
		}, "OK"},
	} {
		t.Run(fmt.Sprintf("%s-%d-%v", tt.id, tt.frame, tt.kind), func(t *testing.T) {
			sc := demotest.Scenario(t, tt.id)
			r, err := Replay(sc, tt.on, tt.frame)
			if err != nil {
				t.Fatal(err)
			}
			cmd, ok := eventOf(t, r.Frame(), tt.kind, "A", tt.node).(Command)
			if !ok {
				t.Fatalf("%v is not a Command", tt.kind)
			}
			want := tt.args(LockValue(tt.id, "A", 1))
			if got := cmd.Args(); !reflect.DeepEqual(got, want) {
				t.Fatalf("Args()=%q, want %q", got, want)
			}
			if got := cmd.Reply(); got != tt.reply {
				t.Fatalf("Reply()=%q, want %q", got, tt.reply)
			}
			if call, _ := cmd.Wire(); strings.Contains(call, LockValue(tt.id, "A", 1)) {
				t.Fatalf("Wire()=%q shows the whole value; the screen shortens it", call)
			}
		})
	}
}
