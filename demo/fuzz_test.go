package demo_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	. "github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/lockservice"
	"github.com/distlock/fencing-demo/demo/redis"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// FuzzRun plays random scripts on each store and checks, after every move,
// what no script may break: the lock service lends the lock to one client at
// a time and its tokens only grow; a fenced resource never takes a token below
// its maxToken and an unfenced one takes every write; a Redis node holds one
// value per key.
func FuzzRun(f *testing.F) {
	for _, seed := range fuzzRunSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		src := fuzzScript(data)
		c, err := script.Load("fuzz.yaml", []byte(src))
		if err != nil {
			t.Skip() // a script the engine refuses, such as a replica that cannot replicate
		}
		sc := c.Scenarios[0]
		for _, on := range []bool{false, true} {
			r := NewRun(sc, on)
			inv := &invariants{}
			inv.check(t, r)
			for r.Step() {
				inv.check(t, r)
			}
			if err := r.Err(); err != nil {
				t.Fatalf("switch %s: a script that loaded fails to play: %v\n%s", OnOff(on), err, testkit.Numbered(src))
			}
			if got, want := r.Index(), sc.Frames(); got != want {
				t.Fatalf("switch %s: the run stopped at frame %d of %d", OnOff(on), got, want)
			}
		}
	})
}

// The fuzz scripts' vocabulary. In a form, {C} is a client, {K} a key, {NODE}
// a node of the store, {NODES} the nodes whose bits are set in the action's
// number, and the other placeholders numbers from the list for the kind of
// number the verb takes.
var (
	fuzzStores   = []string{"lockservice", "redis", "replicated", "redlock"}
	fuzzFencings = []string{"switch", "on", "off"}
	fuzzClients  = []string{"A", "B", "C"}
	fuzzKeys     = []string{"lock:k", "lock:j"}
	fuzzTicks    = []string{"0", "1", "2", "3", "5", "10", "50", "100", "1000", "10000", "30000"}
	fuzzLeases   = []string{"-1", "0", "1", "2", "3", "5", "10", "20"}
	fuzzPX       = []string{"1", "2", "10", "60", "100", "1000", "10000", "30000"}
	fuzzSeconds  = []string{"1", "2", "10", "30"}
	fuzzJumps    = []string{"0", "10", "100", "1000", "15000", "60000"}
	fuzzForms    = map[string][]string{
		"lockservice": {"tick {N}", "{C} acquire {L}", "{C} renew {L}", "{C} release", "{C} write",
			"{C} pause", "{C} resume", "{C} crash"},
		"redis": {"tick {N}", "{C} set {K} NX PX {P}", "{C} set {K} NX", "{C} set {K} PX {P}", "{C} setnx {K}",
			"{C} expire {K} {S}", "{C} del {K}", "{C} unlock {K}", "{C} extend {K} {P}", "{C} write",
			"{C} pause", "{C} resume", "{C} crash", "{NODE} down", "{NODE} up", "{NODE} jump {J}", "{NODE} slew {J} 500",
			"{C} rtrylock {K} {P}", "{C} runlock {K}"},
		"replicated": {"tick {N}", "{C} set {K} NX PX {P}", "{C} set {K} NX", "{C} setnx {K}", "{C} expire {K} {S}",
			"{C} del {K}", "{C} unlock {K}", "{C} extend {K} {P}", "{C} wait 1 0", "{C} write",
			"{C} pause", "{C} resume", "{C} crash", "{NODE} down", "{NODE} up", "{NODE} jump {J}",
			"replica promote", "primary replicate"},
		"redlock": {"tick {N}", "{C} redlock {K} PX {P}", "{C} redlock-unlock {K}", "{C} cut {NODES}", "{C} heal",
			"{C} write", "{C} pause", "{C} resume", "{C} crash",
			"{NODE} down", "{NODE} up", "{NODE} jump {J}", "{NODE} slew {J} 500", "{C} redlock {K} PX {P} retry 1"},
	}
)

// fuzzScript decodes fuzz bytes into a one-scenario scenarios.yaml. The first
// byte picks the store; the second the fencing and, for Redlock, the number of
// nodes; each following pair of bytes one action, a move of its own: the
// first byte of the pair picks the form (low six bits) and whether it plays
// always, with the switch on or with it off (top two bits), the second the
// client and the numbers. A client that has crashed ticks instead, a paused
// one resumes, and pause, resume and crash are never conditional, so every
// client action can be played in both switch positions; on a replicated pair
// no node action is conditional either, and a promote or replicate that the
// pair's state forbids ticks instead.
func fuzzScript(data []byte) string {
	at := func(i int) int {
		if i < len(data) {
			return int(data[i])
		}
		return 0
	}
	store := fuzzStores[at(0)%len(fuzzStores)]
	fencing := fuzzFencings[at(1)%len(fuzzFencings)]
	nodes := 1 + at(1)/len(fuzzFencings)%9
	var names []string
	switch store {
	case "redis":
		names = []string{"redis"}
	case "replicated":
		names = []string{"primary", "replica"}
	case "redlock":
		for i := range nodes {
			names = append(names, fmt.Sprintf("redis%d", i+1))
		}
	}
	pick := func(list []string, n int) string { return list[n%len(list)] }
	paused := map[string]bool{}
	crashed := map[string]bool{}
	down := map[string]bool{} // replicated: which node is down
	promoted := false         // replicated: the replica has been promoted
	var actions []string
	for i := 2; i+1 < len(data) && len(actions) < 24; i += 2 {
		op, arg := at(i), at(i+1)
		forms := fuzzForms[store]
		form := forms[(op&0x3f)%len(forms)]
		cond := op >> 6 // 0, 1: always; 2: if-on; 3: if-off
		who := pick(fuzzClients, arg)
		n := arg / len(fuzzClients)
		if strings.HasPrefix(form, "{C} ") {
			switch {
			case crashed[who]:
				form = "tick {N}"
			case paused[who]:
				form = "{C} resume"
			case form == "{C} resume":
				form = "{C} pause"
			}
		}
		if store == "replicated" && !strings.HasPrefix(form, "{C} ") && form != "tick {N}" {
			// The pair's state decides whether promote and replicate can be
			// played, so node actions play in both positions alike.
			cond = 0
			switch {
			case form == "replica promote" && promoted,
				form == "primary replicate" && (promoted || down["primary"] || down["replica"]):
				form = "tick {N}"
			case form == "replica promote":
				promoted = true
			}
		}
		switch form {
		case "{C} pause":
			paused[who], cond = true, 0
		case "{C} resume":
			paused[who], cond = false, 0
		case "{C} crash":
			crashed[who], cond = true, 0
		}
		node, cut := "", ""
		if len(names) > 0 {
			node = pick(names, n)
			switch form {
			case "{NODE} down":
				down[node] = true
			case "{NODE} up":
				down[node] = false
			}
			var nodes []string // the nodes whose bits are set in n
			for i, name := range names {
				if n>>i&1 == 1 {
					nodes = append(nodes, name)
				}
			}
			if len(nodes) == 0 {
				nodes = names[:1]
			}
			cut = strings.Join(nodes, " ")
		}
		a := strings.NewReplacer(
			"{C}", who, "{K}", fuzzKeys[n>>6&1], "{NODE}", node, "{NODES}", cut,
			"{N}", pick(fuzzTicks, n), "{L}", pick(fuzzLeases, n), "{P}", pick(fuzzPX, n),
			"{S}", pick(fuzzSeconds, n), "{J}", pick(fuzzJumps, n),
		).Replace(form)
		if form == "{C} write" {
			a += fmt.Sprintf(" %s%d", who, len(actions)+1)
		}
		switch cond {
		case 2:
			a = "if-on: " + a
		case 3:
			a = "if-off: " + a
		}
		actions = append(actions, a)
	}
	if len(actions) == 0 {
		actions = []string{"tick 1"}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `scenarios:
  - id: fuzz
    title: {ja: 題, en: Title}
    summary: {ja: 要約, en: Summary}
    lesson: {ja: 教訓, en: Lesson}
    sources: [{title: {ja: 出典, en: Source}, url: "https://example.com/source"}]
    purpose: correctness
    topology: single
    switch: fencing
    switch-label: {ja: フェンシング, en: Fencing}
    store: %s
    fencing: %s
    resource: row-1
    clients: [A, B, C]
`, store, fencing)
	if store == "redlock" {
		fmt.Fprintf(&b, "    nodes: %d\n", nodes)
	}
	b.WriteString(`    initial:
      title: {ja: 初期状態, en: Initial state}
      text: {ja: 空, en: Empty}
    moves:
`)
	for _, a := range actions {
		fmt.Fprintf(&b, "      - title: {ja: 一手, en: One move}\n        text: {ja: 本文, en: Text}\n        do:\n          - %s\n", a)
	}
	return b.String()
}

// fuzzOp encodes one action for fuzzScript: the form's index in the store's
// list, the condition (0 always, 2 if-on, 3 if-off), the client's index and
// the index n into the number lists.
func fuzzOp(tb testing.TB, store, form string, cond, client, n int) []byte {
	tb.Helper()
	i := slices.Index(fuzzForms[store], form)
	if i < 0 {
		tb.Fatalf("no form %q for %s", form, store)
	}
	return []byte{byte(cond<<6 | i), byte(n*len(fuzzClients) + client)}
}

// fuzzInput is the bytes fuzzScript decodes into the given actions on store,
// with the given fencing and, for Redlock, 5 nodes.
func fuzzInput(tb testing.TB, store, fencing string, ops ...[]byte) []byte {
	tb.Helper()
	data := []byte{byte(slices.Index(fuzzStores, store)), byte(4*len(fuzzFencings) + slices.Index(fuzzFencings, fencing))}
	for _, op := range ops {
		data = append(data, op...)
	}
	return data
}

// fuzzRunSeeds are the scenarios of the lesson, retold in the fuzzer's
// vocabulary.
func fuzzRunSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	const a, b = 0, 1
	ls, rd, rp, rl := "lockservice", "redis", "replicated", "redlock"
	return [][]byte{
		// gc-pause: lease 10 (index 6), pause past it, B takes and writes,
		// A resumes and writes with its old token.
		fuzzInput(tb, ls, "switch",
			fuzzOp(tb, ls, "{C} acquire {L}", 0, a, 6), fuzzOp(tb, ls, "{C} write", 0, a, 0),
			fuzzOp(tb, ls, "{C} pause", 0, a, 0), fuzzOp(tb, ls, "tick {N}", 0, a, 5),
			fuzzOp(tb, ls, "{C} acquire {L}", 0, b, 6), fuzzOp(tb, ls, "{C} write", 0, b, 0),
			fuzzOp(tb, ls, "{C} resume", 0, a, 0), fuzzOp(tb, ls, "{C} write", 0, a, 0)),
		// release-other: A's key runs out, B takes it, A's DEL or unlock.
		fuzzInput(tb, rd, "off",
			fuzzOp(tb, rd, "{C} set {K} NX PX {P}", 0, a, 4), fuzzOp(tb, rd, "tick {N}", 0, a, 7),
			fuzzOp(tb, rd, "{C} set {K} NX PX {P}", 0, b, 4), fuzzOp(tb, rd, "{C} del {K}", 3, a, 0),
			fuzzOp(tb, rd, "{C} unlock {K}", 2, a, 0), fuzzOp(tb, rd, "{C} set {K} NX PX {P}", 0, 2, 4),
			fuzzOp(tb, rd, "{C} write", 0, b, 0), fuzzOp(tb, rd, "{C} write", 0, 2, 0)),
		// setnx-expire and a crash, then a clock jump on the node.
		fuzzInput(tb, rd, "switch",
			fuzzOp(tb, rd, "{C} setnx {K}", 0, a, 0), fuzzOp(tb, rd, "{C} crash", 0, a, 0),
			fuzzOp(tb, rd, "{NODE} jump {J}", 0, a, 4), fuzzOp(tb, rd, "{C} set {K} NX PX {P}", 0, b, 5)),
		// redis-failover: A locks, WAIT with the switch on, failover, B locks.
		fuzzInput(tb, rp, "off",
			fuzzOp(tb, rp, "{C} set {K} NX PX {P}", 0, a, 7), fuzzOp(tb, rp, "{C} wait 1 0", 2, a, 0),
			fuzzOp(tb, rp, "{NODE} down", 0, a, 0), fuzzOp(tb, rp, "replica promote", 0, a, 0),
			fuzzOp(tb, rp, "{C} set {K} NX PX {P}", 0, b, 7), fuzzOp(tb, rp, "{C} write", 0, a, 0),
			fuzzOp(tb, rp, "{C} write", 0, b, 0)),
		// redlock-clock-jump: A cut from nodes, a jump, B locks too.
		fuzzInput(tb, rl, "switch",
			fuzzOp(tb, rl, "{C} cut {NODES}", 0, a, 0b11000), fuzzOp(tb, rl, "{C} redlock {K} PX {P}", 0, a, 6),
			fuzzOp(tb, rl, "tick {N}", 0, a, 8),
			fuzzOp(tb, rl, "{NODE} jump {J}", 0, a, 22), // redis3 jumps 15000 ms
			fuzzOp(tb, rl, "{C} cut {NODES}", 0, b, 0b00011), fuzzOp(tb, rl, "{C} redlock {K} PX {P}", 0, b, 6),
			fuzzOp(tb, rl, "{C} write", 0, a, 0), fuzzOp(tb, rl, "{C} write", 0, b, 0)),
	}
}

// invariants checks a run after each move, remembering what it saw of the
// events so far.
type invariants struct {
	seen      int    // events already checked
	holder    string // the lock service's holder, by its events
	lastToken int64  // the last token an Acquired event issued
	now       int    // the previous frame's time
}

func (inv *invariants) check(tb testing.TB, r *Run) {
	tb.Helper()
	f := r.Frame()
	if f.Now < inv.now {
		tb.Fatalf("frame %d: time went back from %d to %d", f.Index, inv.now, f.Now)
	}
	inv.now = f.Now
	for _, e := range f.Events[inv.seen:] {
		if h := e.Header(); h.Frame != f.Index {
			tb.Fatalf("frame %d: new event %+v is marked for frame %d", f.Index, e, h.Frame)
		}
		switch e := e.(type) {
		case lockservice.AcquireCall:
			if !e.OK {
				break
			}
			// The lock service never lends the lock to two clients at once:
			// an acquisition finds it free, released or run out.
			if inv.holder != "" {
				tb.Fatalf("frame %d: %s acquired token %d while %s held the lock", f.Index, e.Client, e.Token, inv.holder)
			}
			if e.Token <= inv.lastToken {
				tb.Fatalf("frame %d: %s got token %d after token %d: tokens must strictly increase", f.Index, e.Client, e.Token, inv.lastToken)
			}
			inv.holder, inv.lastToken = e.Client, e.Token
		case lockservice.RenewCall:
			if e.OK && e.Client != inv.holder {
				tb.Fatalf("frame %d: %s renewed a lock held by %q", f.Index, e.Client, inv.holder)
			}
		case lockservice.ReleaseCall, lockservice.LeaseExpiry:
			if e.Kind() == lockservice.ReleaseIgnored {
				break
			}
			if h := e.Header(); h.Client != inv.holder {
				tb.Fatalf("frame %d: %v for %s, but the holder was %q", f.Index, e.Kind(), h.Client, inv.holder)
			}
			inv.holder = ""
		case WriteResult:
			if e.OK && f.Fenced && e.Token < e.Max {
				tb.Fatalf("frame %d: the fenced resource took token %d below its maxToken %d", f.Index, e.Token, e.Max)
			}
			if e.OK {
				break
			}
			if !f.Fenced {
				tb.Fatalf("frame %d: the unfenced resource rejected %+v", f.Index, e)
			}
			if e.Token >= e.Max {
				tb.Fatalf("frame %d: the fenced resource rejected token %d, not below its maxToken %d", f.Index, e.Token, e.Max)
			}
		}
	}
	inv.seen = len(f.Events)

	if l, ok := lockservice.Of(f); ok {
		holder, token := l.Holder, l.Token
		if holder != inv.holder {
			tb.Fatalf("frame %d: Holder()=%q, but the events say %q", f.Index, holder, inv.holder)
		}
		if (holder == "") != (token == 0) || holder != "" && token != inv.lastToken {
			tb.Fatalf("frame %d: Holder()=(%q, %d), last token issued %d", f.Index, holder, token, inv.lastToken)
		}
		for _, v := range f.Violations {
			if v.Kind == TwoHolders {
				tb.Fatalf("frame %d: two holders on the lock service: %+v", f.Index, v)
			}
		}
	}
	if !f.Fenced && f.Rejected != 0 {
		tb.Fatalf("frame %d: the unfenced resource rejected %d writes", f.Index, f.Rejected)
	}
	st, _ := redis.Of(f)
	for _, n := range st.Nodes {
		var keys []string
		for _, k := range n.Keys {
			if slices.Contains(keys, k.Key) {
				tb.Fatalf("frame %d: %s shows two values for %s: %+v", f.Index, n.Name, k.Key, n.Keys)
			}
			keys = append(keys, k.Key)
		}
	}
}

// The decoder writes the script it is given: the seeds, the lesson's stories,
// decode to the actions they spell and all load.
func TestFuzzScriptSeeds(t *testing.T) {
	seeds := fuzzRunSeeds(t)
	src := fuzzScript(seeds[0])
	for _, want := range []string{"store: lockservice", "fencing: switch", "- A acquire 10", "- A write A2", "- A pause", "- tick 10\n", "- B acquire 10", "- A resume"} {
		if !strings.Contains(src, want) {
			t.Errorf("the gc-pause seed decodes without %q:\n%s", want, src)
		}
	}
	src = fuzzScript(seeds[3])
	for _, want := range []string{"store: replicated", "fencing: off", "- A set lock:k NX PX 30000", "- if-on: A wait 1 0", "- primary down", "- replica promote"} {
		if !strings.Contains(src, want) {
			t.Errorf("the failover seed decodes without %q:\n%s", want, src)
		}
	}
	for i, seed := range seeds {
		src := fuzzScript(seed)
		if _, err := script.Load("fuzz.yaml", []byte(src)); err != nil {
			t.Errorf("seed %d: %v\n%s", i, err, testkit.Numbered(src))
		}
	}
	// A client that crashed does nothing more, and one that is paused
	// resumes before anything else.
	src = fuzzScript(fuzzInput(t, "lockservice", "on",
		fuzzOp(t, "lockservice", "{C} crash", 0, 0, 0), fuzzOp(t, "lockservice", "{C} acquire {L}", 0, 0, 0),
		fuzzOp(t, "lockservice", "{C} pause", 0, 1, 0), fuzzOp(t, "lockservice", "{C} write", 2, 1, 0),
		fuzzOp(t, "lockservice", "{C} resume", 3, 2, 0)))
	for _, want := range []string{"- A crash", "- tick 0", "- B pause", "- B resume", "- C pause"} {
		if !strings.Contains(src, want) {
			t.Errorf("decodes without %q:\n%s", want, src)
		}
	}
	if _, err := script.Load("fuzz.yaml", []byte(src)); err != nil {
		t.Errorf("%v\n%s", err, testkit.Numbered(src))
	}
}
