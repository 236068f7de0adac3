package script_test

import (
	"errors"
	"fmt"
	. "github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/lockservice"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/internal/testkit"
	"reflect"
	"strings"
	"testing"
)

// loadError loads src and returns the *script.LoadError it must fail with.
func loadError(tb testing.TB, src string) *script.LoadError {
	tb.Helper()
	c, err := script.Load("test.yaml", []byte(src))
	if err == nil {
		tb.Fatalf("Load succeeded with %d scenarios, want an error; YAML:\n%s", len(c.Scenarios), src)
	}
	var le *script.LoadError
	if !errors.As(err, &le) {
		tb.Fatalf("Load error %v (%T) is not a *script.LoadError", err, err)
	}
	if got, want := le.File, "test.yaml"; got != want {
		tb.Fatalf("LoadError.File=%q, want %q", got, want)
	}
	return le
}

func TestLoadMinimalScenario(t *testing.T) {
	src := testkit.File(testkit.YAML("one", "A acquire 10", "tick 2", "A write x"), testkit.YAML("two", "tick 1"))
	c, err := script.Load("test.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Load: %v\n%s", err, src)
	}
	if got, want := c.IDs(), []string{"one", "two"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("IDs()=%q, want %q", got, want)
	}
	sc, ok := c.Get("one")
	if !ok {
		t.Fatal(`Get("one") found nothing`)
	}
	if _, ok := c.Get("three"); ok {
		t.Fatal(`Get("three") found a scenario`)
	}
	if got, want := sc.Clients, []string{"A", "B"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Clients=%q, want %q", got, want)
	}
	if got, want := sc.Frames(), 2; got != want {
		t.Fatalf("Frames()=%d, want %d", got, want)
	}
	want := []Action{
		{Who: "A", Verb: lockservice.Acquire, Args: lockservice.LeaseArgs{Lease: 10}, Line: testkit.LineOf(t, src, "A acquire 10"), Source: "A acquire 10"},
		{Verb: Tick, Args: TickArgs{Forward: 2}, Line: testkit.LineOf(t, src, "tick 2"), Source: "tick 2"},
		{Who: "A", Verb: Write, Args: WriteArgs{Value: "x"}, Line: testkit.LineOf(t, src, "A write x"), Source: "A write x"},
	}
	if got := sc.Moves[0].Do; !reflect.DeepEqual(got, want) {
		t.Fatalf("Do=\n%+v\nwant\n%+v", got, want)
	}
	if got, want := sc.Moves[0].Title.In("ja"), "一手"; got != want {
		t.Fatalf(`Title.In("ja")=%q, want %q`, got, want)
	}
	if got, want := sc.Moves[0].Title.In("fr"), "One move"; got != want {
		t.Fatalf(`Title.In("fr")=%q, want English %q`, got, want)
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		src  string
		at   string   // the text on the culprit's line; "" when the error has no line
		msg  []string // what Msg must mention
	}{
		{
			name: "bad YAML syntax",
			src:  testkit.Replace(t, testkit.File(testkit.YAML("s", "tick 1")), "resource: row-1", "resource: row-1: oops"),
			at:   "resource: row-1: oops",
		},
		{
			// The library counts a parser's lines from 0: the loader does not.
			name: "unclosed list",
			src:  testkit.Replace(t, testkit.File(testkit.YAML("s", "tick 1")), "clients: [A, B]", "clients: [A, B"),
			at:   "clients: [A, B",
			msg:  []string{"did not find expected ',' or ']'"},
		},
		{
			name: "unknown verb",
			src:  testkit.File(testkit.YAML("s", "A acquire 3", "A fly 3")),
			at:   "A fly 3",
			msg:  []string{`"fly"`, "unknown action"},
		},
		{
			name: "unknown client",
			src:  testkit.File(testkit.YAML("s", "A acquire 10", "C acquire 10")),
			at:   "C acquire 10",
			msg:  []string{`"C"`, "unknown client", "C acquire 10"},
		},
		{
			name: "paused client acts",
			src:  testkit.File(testkit.YAML("s", "A acquire 10", "A pause", "tick 1", "A write x")),
			at:   "A write x",
			msg:  []string{"A write x", "paused"},
		},
		{
			name: "resume by a client that is not paused",
			src:  testkit.File(testkit.YAML("s", "B resume")),
			at:   "B resume",
			msg:  []string{"B resume", "not paused"},
		},
		{
			name: "lease is not a number",
			src:  testkit.File(testkit.YAML("s", "A acquire ten")),
			at:   "A acquire ten",
			msg:  []string{`"ten"`},
		},
		{
			name: "negative tick",
			src:  testkit.File(testkit.YAML("s", "tick -1")),
			at:   "tick -1",
			msg:  []string{"tick -1"},
		},
		{
			name: "write of two words",
			src:  testkit.File(testkit.YAML("s", "A write x y")),
			at:   "A write x y",
			msg:  []string{"A write x y"},
		},
		{
			name: "move title without English",
			src:  testkit.Replace(t, testkit.File(testkit.YAML("s", "tick 1")), "{ja: 一手, en: One move}", "{ja: 一手}"),
			at:   "tick 1", // a move has no line of its own: its first action stands for it
			msg:  []string{"move 1 title", "English"},
		},
		{
			name: "move text without Japanese",
			src:  testkit.Replace(t, testkit.File(testkit.YAML("s", "tick 1")), "{ja: 本文, en: Text}", "{en: Text}"),
			at:   "tick 1",
			msg:  []string{"move 1 text", "Japanese"},
		},
		{
			name: "scenario title without Japanese",
			src:  testkit.Replace(t, testkit.File(testkit.YAML("s", "tick 1")), "{ja: 題, en: Title}", "{en: Title}"),
			msg:  []string{`"s"`, "title", "Japanese"},
		},
		{
			name: "initial text missing",
			src:  testkit.Replace(t, testkit.File(testkit.YAML("s", "tick 1")), "      text: {ja: 空, en: Empty}\n", ""),
			msg:  []string{"initial text", "missing"},
		},
		{
			name: "lesson without English",
			src:  testkit.Replace(t, testkit.File(testkit.YAML("s", "tick 1")), "{ja: 教訓, en: Lesson}", "{ja: 教訓}"),
			msg:  []string{"lesson", "English"},
		},
		{
			// Scenario carries no line of its own, so neither does this error.
			name: "duplicate scenario id",
			src:  testkit.File(testkit.YAML("twin", "tick 1"), testkit.YAML("other", "tick 1"), testkit.YAML("twin", "tick 2")),
			msg:  []string{`"twin"`, "twice"},
		},
		{
			name: "unknown top-level field",
			src:  "version: 2\n" + testkit.File(testkit.YAML("s", "tick 1")),
			at:   "version: 2",
			msg:  []string{`"version"`},
		},
		{
			name: "unknown scenario field",
			src:  testkit.Replace(t, testkit.File(testkit.YAML("s", "tick 1")), "    switch: fencing\n", "    switch: fencing\n    outcome: B wins\n"),
			at:   "outcome: B wins",
			msg:  []string{`"outcome"`},
		},
		{
			name: "unknown move field",
			src:  testkit.Replace(t, testkit.File(testkit.YAML("s", "tick 1")), "        do:\n", "        expect: rejected\n        do:\n"),
			at:   "expect: rejected",
			msg:  []string{`"expect"`},
		},
		{
			name: "no scenarios",
			src:  "scenarios: []\n",
			msg:  []string{"no scenarios"},
		},
		{
			name: "bad id",
			src:  testkit.File(testkit.YAML("GC_Pause", "tick 1")),
			msg:  []string{"id"},
		},
		{
			name: "move without actions",
			src:  testkit.File(testkit.YAML("s")),
			msg:  []string{"move 1", "do"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantLoadError(t, tt.src, tt.at, tt.msg...)
		})
	}
}

// wantLoadError loads src, which must fail on the line containing at (no
// line when at is ""), with a message that mentions each of msg.
func wantLoadError(tb testing.TB, src, at string, msg ...string) {
	tb.Helper()
	le := loadError(tb, src)
	want := 0
	if at != "" {
		want = testkit.LineOf(tb, src, at)
	}
	if got := le.Line; got != want {
		tb.Fatalf("Line=%d, want %d (%q); error: %v\nYAML:\n%s", got, want, at, le, testkit.Numbered(src))
	}
	for _, m := range msg {
		if !strings.Contains(le.Msg, m) {
			tb.Errorf("Msg %q does not mention %q", le.Msg, m)
		}
	}
	prefix := "test.yaml: "
	if want > 0 {
		prefix = fmt.Sprintf("test.yaml:%d: ", want)
	}
	if got := le.Error(); !strings.HasPrefix(got, prefix) {
		tb.Errorf("Error()=%q, want it to start with %q", got, prefix)
	}
}

// A mistake in a later scenario is reported on its own line, not the first
// scenario's.
func TestLoadErrorLineInSecondScenario(t *testing.T) {
	src := testkit.File(testkit.YAML("first", "A acquire 10"), testkit.YAML("second", "tick 1", "B pause", "B release"))
	le := loadError(t, src)
	if got, want := le.Line, testkit.LineOf(t, src, "B release"); got != want {
		t.Fatalf("Line=%d, want %d; error: %v", got, want, le)
	}
	if !strings.Contains(le.Msg, `"second"`) {
		t.Fatalf("Msg %q does not name the scenario", le.Msg)
	}
}

// Mistakes in the grammar of the Redis family: who may do what on which
// store, and the shape of the scenario around it.
func TestLoadErrorsRedisGrammar(t *testing.T) {
	redlock := func(do ...string) string {
		return testkit.File(testkit.OnStore(t, "redlock", testkit.YAML("s", do...)))
	}
	redis := func(do ...string) string {
		return testkit.File(testkit.OnStore(t, "redis", testkit.YAML("s", do...)))
	}
	replicated := func(do ...string) string {
		return testkit.File(testkit.OnStore(t, "replicated", testkit.YAML("s", do...)))
	}
	lockservice := func(do ...string) string { return testkit.File(testkit.YAML("s", do...)) }
	for _, tt := range []struct {
		name string
		src  string
		at   string   // the text on the culprit's line; "" when the error has no line
		msg  []string // what Msg must mention
	}{
		{
			name: "unknown node in a 5-node redlock",
			src:  redlock("redis4 down", "redis9 down"),
			at:   "redis9 down",
			msg:  []string{`unknown node "redis9"`, "redis1, redis2, redis3, redis4, redis5"},
		},
		{
			name: "cut from an unknown node",
			src:  redlock("A cut redis2 redis6"),
			at:   "A cut redis2 redis6",
			msg:  []string{`unknown node "redis6"`},
		},
		{
			name: "node verb on the lock service",
			src:  lockservice("A acquire 10", "redis1 down"),
			at:   "redis1 down",
			msg:  []string{`unknown node "redis1"`, "the lock service has no nodes"},
		},
		{
			name: "all nodes on the lock service",
			src:  lockservice("all jump 100"),
			at:   "all jump 100",
			msg:  []string{"jump does not apply to the lockservice store"},
		},
		{
			name: "redis verb on the lock service",
			src:  lockservice("A set k NX PX 10"),
			at:   "A set k NX PX 10",
			msg:  []string{"set does not apply to the lockservice store"},
		},
		{
			name: "lock service verb on a redis store",
			src:  redis("A acquire 10"),
			at:   "A acquire 10",
			msg:  []string{"acquire does not apply to the redis store"},
		},
		{
			name: "single-node verb on redlock",
			src:  redlock("A set k NX PX 10"),
			at:   "A set k NX PX 10",
			msg:  []string{"set does not apply to the redlock store"},
		},
		{
			name: "redlock on one node",
			src:  redis("A redlock k PX 10"),
			at:   "A redlock k PX 10",
			msg:  []string{"redlock does not apply to the redis store"},
		},
		{
			name: "WAIT without a replica",
			src:  redis("A set k NX PX 10", "A wait 1 0"),
			at:   "A wait 1 0",
			msg:  []string{"wait does not apply to the redis store"},
		},
		{
			name: "promote on one node",
			src:  redis("redis promote"),
			at:   "redis promote",
			msg:  []string{"promote does not apply to the redis store"},
		},
		{
			name: "promote a primary",
			src:  replicated("tick 1", "primary promote"),
			at:   "primary promote",
			msg:  []string{"primary is not a replica"},
		},
		{
			name: "replicate from a replica",
			src:  replicated("A set k NX PX 10", "replica replicate"),
			at:   "replica replicate",
			msg:  []string{"cannot replicate"},
		},
		{
			name: "replicate to a replica that is down",
			src:  replicated("A set k NX PX 10", "replica down", "primary replicate"),
			at:   "primary replicate",
			msg:  []string{"cannot replicate"},
		},
		{
			name: "conditional key other than if-on and if-off",
			src:  lockservice("A acquire 10", "if-maybe: B acquire 10"),
			at:   "if-maybe: B acquire 10",
			msg:  []string{`"if-maybe"`, "if-on or if-off"},
		},
		{
			name: "conditional action with a bad action",
			src:  lockservice("if-on: A acquire soon"),
			at:   "if-on: A acquire soon",
			msg:  []string{`"soon"`},
		},
		{
			name: "unknown SET option",
			src:  redis("A set k NX EX 10"),
			at:   "A set k NX EX 10",
			msg:  []string{`unknown SET option "EX"`},
		},
		{
			name: "SET PX without a number",
			src:  redis("A set k NX PX"),
			at:   "A set k NX PX",
			msg:  []string{"KEY nx [px MS]"},
		},
		{
			name: "SET PX 0",
			src:  redis("A set k NX PX 0"),
			at:   "A set k NX PX 0",
			msg:  []string{"PX must be at least 1 ms"},
		},
		{
			name: "redlock without PX",
			src:  redlock("A redlock k 10000"),
			at:   "A redlock k 10000",
			msg:  []string{"KEY px MS"},
		},
		{
			name: "EXPIRE of 0 seconds",
			src:  redis("A setnx k", "A expire k 0"),
			at:   "A expire k 0",
			msg:  []string{"at least 1"},
		},
		{
			name: "a client named like the redis node",
			src:  testkit.Replace(t, redis("tick 1"), "clients: [A, B]", "clients: [A, redis]"),
			msg:  []string{`client "redis"`, "not a node's name"},
		},
		{
			name: "a client named like a redlock node",
			src:  testkit.Replace(t, redlock("tick 1"), "clients: [A, B]", "clients: [redis3, B]"),
			msg:  []string{`client "redis3"`},
		},
		{
			name: "a client named all",
			src:  testkit.Replace(t, lockservice("tick 1"), "clients: [A, B]", "clients: [A, all]"),
			msg:  []string{`client "all"`},
		},
		{
			name: "missing purpose",
			src:  testkit.Replace(t, lockservice("tick 1"), "    purpose: correctness\n", ""),
			msg:  []string{"purpose", "efficiency, correctness"},
		},
		{
			name: "unknown purpose",
			src:  testkit.Replace(t, lockservice("tick 1"), "purpose: correctness", "purpose: speed"),
			msg:  []string{`purpose "speed"`},
		},
		{
			name: "missing topology",
			src:  testkit.Replace(t, lockservice("tick 1"), "    topology: consensus\n", ""),
			msg:  []string{"topology", "single, replicated, quorum, consensus"},
		},
		{
			name: "missing switch-label",
			src:  testkit.Replace(t, lockservice("tick 1"), "    switch-label: {ja: フェンシング, en: Fencing}\n", ""),
			msg:  []string{"switch-label is missing"},
		},
		{
			name: "switch-label without Japanese",
			src:  testkit.Replace(t, lockservice("tick 1"), "switch-label: {ja: フェンシング, en: Fencing}", "switch-label: {en: Fencing}"),
			msg:  []string{"switch-label has no Japanese"},
		},
		{
			name: "no sources",
			src: testkit.Replace(t, lockservice("tick 1"),
				"    sources:\n      - title: {ja: 出典, en: Source}\n        url: https://example.com/source\n", ""),
			msg: []string{"no sources", "sources:"},
		},
		{
			name: "a source without Japanese",
			src:  testkit.Replace(t, lockservice("tick 1"), "title: {ja: 出典, en: Source}", "title: {en: Source}"),
			msg:  []string{"source 1 title has no Japanese"},
		},
		{
			name: "a source that is no https address",
			src:  testkit.Replace(t, lockservice("tick 1"), "url: https://example.com/source", "url: javascript:alert(1)"),
			msg:  []string{"source 1", "not an https:// address"},
		},
		{
			name: "unknown store",
			src:  testkit.File(testkit.OnStore(t, "chubby", testkit.YAML("s", "tick 1"))),
			msg:  []string{`store "chubby"`},
		},
		{
			name: "nodes on a store that is not redlock",
			src:  testkit.Replace(t, redis("tick 1"), "    store: redis\n", "    store: redis\n    nodes: 3\n"),
			msg:  []string{"nodes, latency and timeout are for the redlock store only"},
		},
		{
			name: "too many redlock nodes",
			src:  testkit.Replace(t, redlock("tick 1"), "    store: redlock\n", "    store: redlock\n    nodes: 10\n"),
			msg:  []string{"nodes: 10", "1 to 9"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantLoadError(t, tt.src, tt.at, tt.msg...)
		})
	}
}

// A narration that names an action its frame does not contain, in either
// position, fails to load: a write, a token, an unlock, a wait.
func TestLoadNarrationMustBeTrueInBothPositions(t *testing.T) {
	for _, tt := range []struct {
		name, text string
		do         []string
		msg        string
	}{
		{"a write only one position makes", "A writes", []string{"A acquire 10", "if-on: A write x"}, "names a write by A"},
		{"a token the write does not carry", "A writes with its token", []string{"A write x"}, "names a token sent with a write by A"},
		{"an unlock nobody sends", "A finishes and releases", []string{"A acquire 10"}, "names an unlock by A"},
		{"a wait nobody waits", "B waits", []string{"A acquire 10", "B acquire 10"}, "names a wait by B"},
		{"another client's write", "A takes the lock, and B writes", []string{"A acquire 10", "A write x"}, "names a write by B"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := testkit.File(testkit.Replace(t, testkit.YAML("s", tt.do...), "text: {ja: 本文, en: Text}", "text: {ja: 本文, en: \""+tt.text+"\"}"))
			le := loadError(t, src)
			if !strings.Contains(le.Msg, tt.msg) || le.Line == 0 {
				t.Fatalf("LoadError %v: want line of the move and %q", le, tt.msg)
			}
		})
	}
}

// Where a position's title or text says what only that position does, the
// narration loads, and each position shows its own.
func TestLoadTitleAndTextPerPosition(t *testing.T) {
	sc := testkit.Replace(t, testkit.YAML("s", "A acquire 10", "if-on: A write x"),
		"      - title: {ja: 一手, en: One move}\n        text: {ja: 本文, en: Text}\n",
		"      - title: {ja: 一手, en: One move}\n        title-on: {ja: 書く, en: A writes}\n"+
			"        text-on: {ja: A が書く, en: A takes the lock and writes}\n        text-off: {ja: A が取る, en: A takes the lock}\n")
	for _, tt := range []struct {
		on          bool
		title, text string
	}{{true, "A writes", "A takes the lock and writes"}, {false, "One move", "A takes the lock"}} {
		f := testkit.Play(t, testkit.File(sc), tt.on)
		if f.Title.EN != tt.title || f.Text.EN != tt.text {
			t.Errorf("on=%v: title %q text %q, want %q and %q", tt.on, f.Title.EN, f.Text.EN, tt.title, tt.text)
		}
	}
}

// The shipped scenarios say, in the position and language they are shown in,
// only what is true there (issue 18's list, point by point, and issue 32's
// after it). frame 0 is the scenario's lesson; a frame from 2 is that
// frame's title and text.
func TestScenarioTextsTrueWhereShown(t *testing.T) {
	c := testkit.Catalog(t)
	for _, tt := range []struct {
		point     int
		id        string
		positions []bool
		frame     int
		lang      string
		want      []string
		notWant   []string
	}{
		{1, "etcd-lease", both, 2, "en", []string{`NewMutex(session, "/locks/row-42")`}, []string{`"/locks/row-42/")`}},
		{2, "watchdog", on, 2, "ja", []string{"HINCRBY で 1 増やし、PEXPIRE 30000 で期限を付けて nil を返す"}, []string{"HINCRBY と PEXPIRE 30000、あれば nil"}},
		{5, "redis-failover", both, 5, "en", []string{"down-after-milliseconds", "30000", "tuned down"}, nil},
		{5, "redis-failover", both, 5, "ja", []string{"down-after-milliseconds", "30000"}, []string{"に話す"}},
		{6, "redlock-clock-jump", both, 0, "en", []string{"#416 (2012)", "#7012 (2020)", "not for key expiry"}, []string{"2022"}},
		{7, "redlock-gc-pause", both, 7, "en", []string{"check-and-set", "antirez"}, []string{"has nothing to compare"}},
		{7, "redlock-gc-pause", both, 0, "en", []string{"does not provide the required monotonicity", "we set its state to", "take an active role in checking tokens"}, nil},
		{8, "release-other", both, 0, "en", []string{"contains it"}, []string{"Only a fencing token, checked by the resource, stops that overlap"}},
		{8, "release-other", both, 0, "ja", []string{"封じ込め"}, []string{"その重なりを止められる"}},
		{9, "lock-delay", off, 7, "en", []string{"Without a lock-delay"}, []string{"Once the lock-delay is over", "tries again"}},
		{9, "lock-delay", on, 7, "en", []string{"Once the lock-delay is over"}, nil},
		{10, "optimistic-version", both, 0, "en", []string{"ends at 8", "ends at 5", "No lock is taken"}, []string{"Carol"}},
		{13, "watchdog", both, 0, "en", []string{"IllegalMonitorStateException", "too late", "RFencedLock", "lockAndGetToken()"}, []string{"and the holder does not notice"}},
		{13, "watchdog", both, 8, "en", []string{"first A hears of it"}, nil},
		{14, "advisory-pooler", on, 3, "en", []string{"s2"}, []string{"came back last"}},
		{14, "advisory-pooler", off, 3, "en", []string{"came back last"}, nil},
		{15, "reentrant", off, 6, "en", []string{"still stuck"}, []string{"finishes and unlocks"}},
		{15, "reentrant", off, 4, "en", nil, []string{"finishes and unlocks"}},
		{15, "fencing-sql", off, 7, "en", []string{"without a token"}, []string{"old token"}},
		{15, "deadlock", on, 7, "en", nil, []string{"ROLLBACK", "failed"}},
		{16, "redis-failover", both, 3, "ja", []string{"作業に入る"}, []string{"ロックを信じ"}},
		{16, "zookeeper-session-expiry", both, 7, "ja", nil, []string{"サーバーと話していない"}},
		{16, "reentrant", both, 0, "ja", nil, []string{"待っている接続の持ち主の接続"}},
		{17, "job-queue", both, 0, "en", []string{"keeps the lock on the row it skipped"}, nil},
		{18, "redlock-quorum", both, 4, "en", []string{"retries once", "retry 3 times"}, nil},
		// Point 32: reentrant's stuck refresh() does no work, its lesson is
		// true where no unlock runs; lock-delay's B took the lock two steps
		// before the last.
		{32, "reentrant", off, 4, "en", []string{"still stuck", "finds no cycle"}, []string{"is done", "works for a second"}},
		{32, "reentrant", off, 4, "ja", []string{"止まっていて"}, []string{"仕事は 1 秒"}},
		{32, "reentrant", both, 0, "en", []string{"unlocked as many times as it was taken", "until the last unlock", "for as long as the program is stuck"}, []string{"as takes", "which is why B's"}},
		{32, "reentrant", both, 0, "ja", []string{"最後の unlock までは", "f を返し続ける"}, []string{"だから B の"}},
		{32, "lock-delay", off, 7, "en", []string{"since just after A's session was invalidated"}, []string{"in the last step"}},
		{32, "lock-delay", off, 7, "ja", []string{"無効になった直後から"}, []string{"前の手で"}},
		{32, "job-queue", both, 0, "en", []string{"both jobs are done at 510 ms", "second job is done only at 1010 ms"}, nil},
		{32, "lease-length", both, 0, "ja", []string{"10 ティックのリース", "13 ティックの停止", "60 ティックを超える停止"}, []string{"10 のリース", "13 の停止", "60 を超える"}},
		{32, "lease-length", both, 0, "en", []string{"Renew", "a lease of 10 ticks", "longer than 60 ticks"}, nil},
		// Titles that said a client did what it only tried, in one position.
		{32, "release-other", both, 5, "en", []string{"sends its release"}, []string{"finishes and releases"}},
		{32, "watchdog", off, 8, "en", []string{"calls unlock()"}, []string{"and releases"}},
		{32, "redlock-clock-jump", on, 4, "en", []string{"goes for nodes 3 to 5"}, []string{"locks nodes"}},
		{32, "flash-sale", on, 4, "en", []string{"try to take one off"}, nil},
		{32, "optimistic-version", on, 4, "en", []string{"tries to write"}, nil},
		{32, "lost-update", on, 3, "en", []string{"asks for the same row", "sends SELECT ... FOR UPDATE"}, []string{"reads the balance", "B reads the same row"}},
		{32, "deadlock", off, 4, "en", []string{"sends its UPDATE of account 2", "B holds that row's lock"}, []string{"A adds 30"}},
		{32, "deadlock", off, 5, "en", []string{"sends the UPDATE of its second row", "A holds that row's lock"}, []string{"B adds 50"}},
		{32, "deadlock", on, 5, "en", []string{"queued behind its first"}, []string{"B updates its second row"}},
		{32, "advisory-pooler", off, 4, "en", []string{"tries to let go"}, nil},
	} {
		sc, ok := c.Get(tt.id)
		if !ok {
			t.Fatalf("point %d: no scenario %s", tt.point, tt.id)
		}
		for _, pos := range tt.positions {
			text := sc.Lesson.In(tt.lang)
			if tt.frame > 0 {
				r, err := Replay(sc, pos, tt.frame)
				if err != nil {
					t.Fatal(err)
				}
				f := r.Frame()
				text = f.Title.In(tt.lang) + "\n" + f.Text.In(tt.lang)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("point %d, %s on=%v frame %d (%s): %q does not say %q", tt.point, tt.id, pos, tt.frame, tt.lang, text, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(text, w) {
					t.Errorf("point %d, %s on=%v frame %d (%s): %q still says %q", tt.point, tt.id, pos, tt.frame, tt.lang, text, w)
				}
			}
		}
	}
	// Every lesson rests on its sources, listed with it (a scenario without
	// any fails to load: see TestLoadErrors).
	for _, sc := range c.Scenarios {
		if len(sc.Sources) == 0 {
			t.Errorf("%s lists no sources", sc.ID)
		}
	}
}

var (
	both = []bool{false, true}
	on   = []bool{true}
	off  = []bool{false}
)
