package redis_test

import (
	"fmt"
	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/lockservice"
	. "github.com/distlock/fencing-demo/demo/redis"
	"github.com/distlock/fencing-demo/internal/testkit"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// The compare-and-delete and compare-and-renew scripts, typed here from the
// redis.io page on distributed locks rather than copied from wire.go.
const (
	docsUnlock = `if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end`
	docsRenew  = `if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("pexpire",KEYS[1],ARGV[2]) else return 0 end`
)

// shortField is how the wire shows a Redisson client's hash field: the
// UUID's first 8 hex digits, an ellipsis and the thread id.
func shortField(scenario, client string) string {
	f := RedissonField(scenario, client)
	return f[:8] + "…" + f[strings.LastIndexByte(f, ':'):]
}

// short is how the wire shows a client's random value: its first 8 hex
// digits and an ellipsis.
func short(scenario, client string, attempt int) string {
	return LockValue(scenario, client, attempt)[:8] + "…"
}

// eventOf returns the one event of the given kind by client (to node, if node
// is not "") among the events of the move that led to frame.
func eventOf(tb testing.TB, f demo.Frame, kind demo.Kind, client, node string) demo.Event {
	tb.Helper()
	var found []demo.Event
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
		kind         demo.Kind
		client, node string
		call, reply  string
	}{
		{
			name: "SET NX PX taken", id: "no-lease", on: true, frame: 2, kind: SetCmd, client: "A",
			call:  "SET lock:row-42 " + short("no-lease", "A", 1) + " NX PX 30000",
			reply: "OK",
		},
		{
			name: "SET NX PX refused", id: "no-lease", on: true, frame: 4, kind: SetCmd, client: "B",
			call:  "SET lock:row-42 " + short("no-lease", "B", 1) + " NX PX 30000",
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
			name: "Redisson lock()", id: "watchdog", on: true, frame: 2, kind: RLockCmd, client: "A",
			call:  "EVAL ‹lock: HINCRBY+PEXPIRE if free or mine, else PTTL› 1 lock:row-42 30000 " + shortField("watchdog", "A"),
			reply: "(nil)",
		},
		{
			name: "Redisson tryLock() finds A's lock with 29 s left", id: "watchdog", on: true, frame: 6, kind: RLockCmd, client: "B",
			call:  "EVAL ‹lock: HINCRBY+PEXPIRE if free or mine, else PTTL› 1 lock:row-42 30000 " + shortField("watchdog", "B"),
			reply: "(integer) 29000",
		},
		{
			name: "Redisson tryLock() after A's lease ran out", id: "watchdog", on: false, frame: 6, kind: RLockCmd, client: "B",
			call:  "EVAL ‹lock: HINCRBY+PEXPIRE if free or mine, else PTTL› 1 lock:row-42 30000 " + shortField("watchdog", "B"),
			reply: "(nil)",
		},
		{
			name: "watchdog renewal", id: "watchdog", on: true, frame: 3, kind: RRenewCmd, client: "A",
			call:  "EVAL ‹renew: PEXPIRE if mine, 1, else 0› 1 lock:row-42 30000 " + shortField("watchdog", "A"),
			reply: "(integer) 1",
		},
		{
			name: "Redisson unlock()", id: "watchdog", on: true, frame: 8, kind: RUnlockCmd, client: "A",
			call: "EVAL ‹unlock: HINCRBY -1, at 0 DEL+PUBLISH; nil if not mine› 3 lock:row-42 redisson_lock__channel:{lock:row-42} " +
				"redisson_unlock_latch:{lock:row-42}:" + RequestID("watchdog", "A", 1)[:8] + "… 0 30000 " + shortField("watchdog", "A") + " publish 13500",
			reply: "(integer) 1",
		},
		{
			name: "Redisson unlock() of a lock that is B's now", id: "watchdog", on: false, frame: 8, kind: RUnlockCmd, client: "A",
			call: "EVAL ‹unlock: HINCRBY -1, at 0 DEL+PUBLISH; nil if not mine› 3 lock:row-42 redisson_lock__channel:{lock:row-42} " +
				"redisson_unlock_latch:{lock:row-42}:" + RequestID("watchdog", "A", 1)[:8] + "… 0 30000 " + shortField("watchdog", "A") + " publish 13500",
			reply: "(nil)",
		},
		{
			name: "DEL of the unlock latch", id: "watchdog", on: true, frame: 8, kind: LatchDelCmd, client: "A",
			call:  "DEL redisson_unlock_latch:{lock:row-42}:" + RequestID("watchdog", "A", 1)[:8] + "…",
			reply: "(integer) 1",
		},
		{
			name: "DEL of a latch the failed unlock never set", id: "watchdog", on: false, frame: 8, kind: LatchDelCmd, client: "A",
			call:  "DEL redisson_unlock_latch:{lock:row-42}:" + RequestID("watchdog", "A", 1)[:8] + "…",
			reply: "(integer) 0",
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
			reply: "", // refused: the page says so in its own language
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
			reply: "",
		},
		{
			name: "Acquire", id: "gc-pause", on: true, frame: 2, kind: lockservice.Acquired, client: "A",
			call:  `Acquire("A", 10)`,
			reply: "(1, true)",
		},
		{
			name: "Write accepted", id: "gc-pause", on: true, frame: 2, kind: demo.Accepted, client: "A",
			call:  `Write(1, "A")`,
			reply: "true",
		},
		{
			name: "Write rejected by fencing", id: "gc-pause", on: true, frame: 7, kind: demo.Rejected, client: "A",
			call:  `Write(1, "A")`,
			reply: "false",
		},
		{
			name: "late Write accepted without fencing", id: "gc-pause", on: false, frame: 7, kind: demo.Accepted, client: "A",
			call:  `Write(1, "A")`,
			reply: "true",
		},
		{
			name: "Redlock write carries token 0", id: "redlock-gc-pause", on: true, frame: 7, kind: demo.Accepted, client: "A",
			call:  `Write(0, "A")`,
			reply: "true",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sc, ok := testkit.Catalog(t).Get(tt.id)
			if !ok {
				t.Fatalf("scenarios.yaml has no %q scenario", tt.id)
			}
			r, err := demo.Replay(sc, tt.on, tt.frame)
			if err != nil {
				t.Fatal(err)
			}
			e := eventOf(t, r.Frame(), tt.kind, tt.client, tt.node)
			call, reply := e.Wire()
			if call != tt.call || reply != tt.reply {
				t.Fatalf("%s %s frame %d: Wire()=\n(%q, %q)\nwant\n(%q, %q)", tt.id, demo.OnOff(tt.on), tt.frame, call, reply, tt.call, tt.reply)
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
		kind         demo.Kind
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
			name: "WAIT with the replica down answers the count reached at its timeout", store: "replicated",
			do:   []string{"A set lock:row-42 NX PX 1000", "replica down", "A wait 1 100"},
			kind: WaitCmd, client: "A", call: "WAIT 1 100", reply: "(integer) 0",
		},
		{
			name: "compare-and-delete of one's own lock", store: "redis", do: []string{"A set lock:row-42 NX PX 100", "A unlock lock:row-42"},
			kind: UnlockCmd, client: "A", call: "EVAL '" + docsUnlock + "' 1 lock:row-42 %s", reply: "(integer) 1", fromScenario: true,
		},
		{
			name: "Redisson re-entry", store: "redis", do: []string{"A rlock lock:row-42 30000", "tick 5", "A rlock lock:row-42 30000", "A runlock lock:row-42"},
			kind: RUnlockCmd, client: "A",
			call: "EVAL ‹unlock: HINCRBY -1, at 0 DEL+PUBLISH; nil if not mine› 3 lock:row-42 redisson_lock__channel:{lock:row-42} " +
				"redisson_unlock_latch:{lock:row-42}:" + RequestID("s", "A", 1)[:8] + "… 0 30000 " + shortField("s", "A") + " publish 13500",
			reply: "(integer) 0",
		},
		{
			name: "Redisson renewal after the lock was lost", store: "redis", do: []string{"A rlock lock:row-42 100", "tick 100", "A rrenew lock:row-42 100"},
			kind: RRenewCmd, client: "A", call: "EVAL ‹renew: PEXPIRE if mine, 1, else 0› 1 lock:row-42 100 " + shortField("s", "A"), reply: "(integer) 0",
		},
		{
			name: "Acquire refused", store: "lockservice", do: []string{"A acquire 10", "B acquire 10"},
			kind: lockservice.AcquireDenied, client: "B", call: `Acquire("B", 10)`, reply: "(0, false)",
		},
		{
			name: "Renew", store: "lockservice", do: []string{"A acquire 10", "tick 5", "A renew 10"},
			kind: lockservice.Renewed, client: "A", call: `Renew("A", 10)`, reply: "true",
		},
		{
			name: "Renew refused", store: "lockservice", do: []string{"A acquire 10", "tick 10", "A renew 10"},
			kind: lockservice.RenewDenied, client: "A", call: `Renew("A", 10)`, reply: "false",
		},
		{
			name: "Release", store: "lockservice", do: []string{"A acquire 10", "A release"},
			kind: lockservice.Released, client: "A", call: `Release("A")`, reply: "",
		},
		{
			name: "Release by another client", store: "lockservice", do: []string{"A acquire 10", "B release"},
			kind: lockservice.ReleaseIgnored, client: "B", call: `Release("B")`, reply: "",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := testkit.Play(t, testkit.File(testkit.OnStore(t, tt.store, testkit.YAML("s", tt.do...))), true)
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
	h := demo.Head{Client: "A", Node: "redis1"}
	v := LockValue("s", "A", 1)
	for _, e := range []demo.Event{
		lockservice.LeaseExpiry{Head: h, Token: 1}, KeyExpiry{Head: h, Key: "lock:row-42", Value: v},
		RedlockResult{Head: h, Key: "lock:row-42", Value: v, Quorum: Quorum{Locked: 3, Need: 3, Validity: 1}},
		RedlockResult{Head: h, Key: "lock:row-42", Value: v},
		demo.SkippedWrite{Head: h, Value: "A"},
		demo.ClientChange{Head: h, What: demo.Paused}, demo.ClientChange{Head: h, What: demo.Resumed}, demo.ClientChange{Head: h, What: demo.Crashed},
		demo.ClientChange{Head: h, What: CutOff}, demo.ClientChange{Head: h, What: Healed},
		NodeChange{Head: h, What: NodeDown}, NodeChange{Head: h, What: NodeUp}, NodeChange{Head: h, What: Promoted},
		Replication{Head: h, Shipped: 1}, ClockJumped{Head: h, By: 500}, ClockSlewing{Head: h, By: 500, Rate: 500},
		WatchdogSkipped{Head: h}, RetryDelay{Head: h, Delay: 7, Max: 200}, BlockedWait{Head: h, Replicas: 1},
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
		if got := demo.Short(tt.in); got != tt.want {
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
		kind  demo.Kind
		node  string
		args  func(v string) []string
		reply string
	}{
		{"no-lease", true, 2, SetCmd, "", func(v string) []string {
			return []string{"SET", "lock:row-42", v, "NX", "PX", "30000"}
		}, "OK"},
		{"setnx-expire", false, 2, SetCmd, "", func(v string) []string {
			return []string{"SETNX", "lock:row-42", v}
		}, "(integer) 1"},
		{"release-other", true, 5, UnlockCmd, "", func(v string) []string {
			return []string{"EVAL", docsUnlock, "1", "lock:row-42", v}
		}, "(integer) 0"},
		{"redlock-quorum", false, 6, UnlockCmd, "redis1", func(v string) []string {
			return []string{"EVAL", docsUnlock, "1", "lock:row-42", v}
		}, "(integer) 1"},
		{"redis-failover", true, 3, WaitCmd, "", func(string) []string {
			return []string{"WAIT", "1", "0"}
		}, "(integer) 1"},
		{"redlock-quorum", false, 4, NodeTry, "redis3", func(v string) []string {
			return []string{"SET", "lock:row-42", v, "NX", "PX", "10000"}
		}, "OK"},
	} {
		t.Run(fmt.Sprintf("%s-%d-%v", tt.id, tt.frame, tt.kind), func(t *testing.T) {
			sc := testkit.Scenario(t, tt.id)
			r, err := demo.Replay(sc, tt.on, tt.frame)
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

// Redisson's scripts, word for word as the conformance suite sends them: the
// lock and renewal scripts with KEYS = [lock] and ARGV = [lease, field], the
// unlock script with KEYS = [lock, channel, latch] and ARGV = [0, lease,
// field, "publish", latch TTL], then the DEL of the latch.
func TestArgsOfRedissonCommands(t *testing.T) {
	field := RedissonField("watchdog", "A")
	if ok, _ := regexp.MatchString(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}:1$`, field); !ok {
		t.Fatalf("field=%q, want a UUID and thread id 1", field)
	}
	latch := "redisson_unlock_latch:{lock:row-42}:" + RequestID("watchdog", "A", 1)
	for _, tt := range []struct {
		frame  int
		kind   demo.Kind
		script string
		args   []string
		reply  string
	}{
		{2, RLockCmd, RedissonLockScript, []string{"1", "lock:row-42", "30000", field}, "(nil)"},
		{3, RRenewCmd, RedissonRenewScript, []string{"1", "lock:row-42", "30000", field}, "(integer) 1"},
		{8, RUnlockCmd, RedissonUnlockScript, []string{"3", "lock:row-42", "redisson_lock__channel:{lock:row-42}", latch,
			"0", "30000", field, "publish", "13500"}, "(integer) 1"},
		{8, LatchDelCmd, "", []string{"DEL", latch}, "(integer) 1"},
	} {
		t.Run(tt.kind.String(), func(t *testing.T) {
			r, err := demo.Replay(testkit.Scenario(t, "watchdog"), true, tt.frame)
			if err != nil {
				t.Fatal(err)
			}
			cmd := eventOf(t, r.Frame(), tt.kind, "A", "").(Command)
			want := tt.args
			if tt.script != "" {
				want = append([]string{"EVAL", tt.script}, tt.args...)
			}
			if got := cmd.Args(); !reflect.DeepEqual(got, want) {
				t.Fatalf("Args()=%q, want %q", got, want)
			}
			if got := cmd.Reply(); got != tt.reply {
				t.Fatalf("Reply()=%q, want %q", got, tt.reply)
			}
		})
	}
	// The scripts send the commands Redisson's do, so that real Redis
	// answers them alike.
	for _, tt := range []struct {
		name, script string
		calls        []string
	}{
		{"lock", RedissonLockScript, []string{"'exists'", "'hexists'", "'hincrby', KEYS[1], ARGV[2], 1", "'pexpire', KEYS[1], ARGV[1]", "return nil", "'pttl'"}},
		{"renew", RedissonRenewScript, []string{"'hexists', KEYS[1], ARGV[2]", "'pexpire', KEYS[1], ARGV[1]", "return 1", "return 0"}},
		{"unlock", RedissonUnlockScript, []string{"'get', KEYS[3]", "'hexists', KEYS[1], ARGV[3]", "return nil", "'hincrby', KEYS[1], ARGV[3], -1",
			"'pexpire', KEYS[1], ARGV[2]", "'del', KEYS[1]", "redis.call(ARGV[4], KEYS[2], ARGV[1])", "'set', KEYS[3], reply, 'px', ARGV[5]"}},
	} {
		for _, c := range tt.calls {
			if !strings.Contains(tt.script, c) {
				t.Errorf("the %s script does not have %q:\n%s", tt.name, c, tt.script)
			}
		}
	}
}

// A node that is down refuses the connection after one round trip; only a
// node the network cuts off costs the client its timeout.
func TestRefusedAndTimedOut(t *testing.T) {
	for _, tt := range []struct {
		id      string
		on      bool
		frame   int
		node    string
		refused bool
		waited  int
	}{
		{"redlock-quorum", false, 4, "redis4", true, 0},
		{"redlock-quorum", false, 4, "redis5", true, 0},
		{"redlock-clock-jump", true, 2, "redis4", false, 50},
	} {
		r, err := demo.Replay(testkit.Scenario(t, tt.id), tt.on, tt.frame)
		if err != nil {
			t.Fatal(err)
		}
		e := eventOf(t, r.Frame(), Unreachable, "A", tt.node).(NoAnswer)
		if e.Refused() != tt.refused || e.Waited != tt.waited {
			t.Errorf("%s %s: Refused()=%v Waited=%d, want %v and %d", tt.id, tt.node, e.Refused(), e.Waited, tt.refused, tt.waited)
		}
	}
}
