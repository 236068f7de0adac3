package redis_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	. "github.com/distlock/fencing-demo/demo/redis"
	"github.com/distlock/fencing-demo/demo/redis/lua"
	"github.com/distlock/fencing-demo/demo/redis/redistest"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// The three scenarios' scripts, run by eval in place of the commands the
// scripts stand for, play the same frames: every client's belief, every
// holding, every finding, every key and TTL on every node, and the
// diagram's locks. What the verdict sees of a script is what it sees of
// the command.
func TestEvalPlaysAsTheCommands(t *testing.T) {
	for _, tc := range []struct {
		id   string
		swap func(a demo.Action) string
	}{
		{"release-other", func(a demo.Action) string {
			switch a.Verb {
			case Unlock:
				return a.Who + " eval release-checked lock:row-42 $value"
			case Del:
				return a.Who + " eval release-bare lock:row-42"
			}
			return ""
		}},
		{"naive-renewal", func(a demo.Action) string {
			switch a.Verb {
			case Extend:
				return a.Who + " eval renew-checked lock:row-42 $value 10000"
			case Expire:
				return a.Who + " eval renew-bare lock:row-42 $value 10000"
			}
			return ""
		}},
		{"incr-token", func(a demo.Action) string {
			if a.Verb == Incr {
				return a.Who + " eval token-incr lock:row-42:token"
			}
			return ""
		}},
	} {
		sc := testkit.Scenario(t, tc.id)
		ev := redistest.WithEvals(t, sc, tc.swap)
		for _, on := range []bool{false, true} {
			want, got := demo.NewRun(sc, on), demo.NewRun(ev, on)
			evals := 0
			for want.Step() {
				if !got.Step() {
					t.Fatalf("%s %s: the eval version stopped at frame %d: %v", tc.id, demo.OnOff(on), got.Index(), got.Err())
				}
				w, g := want.Frame(), got.Frame()
				for _, e := range g.Latest() {
					if _, ok := e.(EvalCommand); ok {
						evals++
					}
				}
				for _, x := range []struct {
					what      string
					got, want any
				}{
					{"clients", g.Clients, w.Clients}, {"holdings", g.Holdings, w.Holdings},
					{"violations", g.Violations, w.Violations}, {"keys", g.Store, w.Store},
					{"diagram's locks", g.Timeline().Locks, w.Timeline().Locks},
				} {
					if !reflect.DeepEqual(x.got, x.want) {
						t.Errorf("%s %s frame %d: %s differ:\n\teval:    %+v\n\tcommand: %+v", tc.id, demo.OnOff(on), w.Index, x.what, x.got, x.want)
					}
				}
			}
			if evals == 0 {
				t.Errorf("%s %s: no script was sent", tc.id, demo.OnOff(on))
			}
		}
	}
}

// labScenario loads a one-node Redis scenario with the given scripts and
// one move of actions.
func labScenario(tb testing.TB, scripts string, do ...string) *demo.Scenario {
	tb.Helper()
	src := testkit.OnStore(tb, "redis", testkit.YAML("lab", do...))
	src = testkit.Replace(tb, src, "    topology: consensus\n", "    topology: single\n")
	src = testkit.Replace(tb, src, "    initial:\n", scripts+"    initial:\n")
	c, err := script.Load("lab.yaml", []byte(testkit.File(src)))
	if err != nil {
		tb.Fatalf("Load: %v\n%s", err, testkit.Numbered(testkit.File(src)))
	}
	return c.Scenarios[0]
}

// script is one script of role, written as scripts: writes it.
func scriptYAML(name, role, lua string) string {
	var b strings.Builder
	b.WriteString("    scripts:\n      " + name + ":\n        role: " + role + "\n        lua: |\n")
	for _, l := range strings.Split(strings.TrimSpace(lua), "\n") {
		b.WriteString("          " + l + "\n")
	}
	return b.String()
}

// evalOf is the last frame's one EvalCommand.
func evalOf(tb testing.TB, f demo.Frame) EvalCommand {
	tb.Helper()
	var found []EvalCommand
	for _, e := range f.Events {
		if ev, ok := e.(EvalCommand); ok {
			found = append(found, ev)
		}
	}
	if len(found) != 1 {
		tb.Fatalf("%d EVALs in the frame, want 1", len(found))
	}
	return found[0]
}

func lastFrame(tb testing.TB, sc *demo.Scenario) demo.Frame {
	tb.Helper()
	r, err := demo.Replay(sc, true, sc.Frames())
	if err != nil {
		tb.Fatalf("Replay: %v", err)
	}
	return r.Frame()
}

// The wire shows EVAL as Redis gets it, the script on one line and the
// value shortened; Args is the command whole, as a client sends it.
func TestEvalOnTheWire(t *testing.T) {
	checked := "if redis.call('get', KEYS[1]) == ARGV[1] then\n  return redis.call('del', KEYS[1])\nend\nreturn 0"
	sc := labScenario(t, scriptYAML("release-checked", "release", checked),
		"A set lock:row-42 NX PX 10000", "tick 1000", "A eval release-checked lock:row-42 $value")
	e := evalOf(t, lastFrame(t, sc))
	value := LockValue("lab", "A", 1)
	call, reply := e.Wire()
	want := `EVAL "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0" 1 lock:row-42 ` + value[:8] + "…"
	if call != want || reply != "(integer) 1" {
		t.Errorf("Wire()=\n\t%s => %s\nwant\n\t%s => (integer) 1", call, reply, want)
	}
	if got, want := e.Args(), []string{"EVAL", checked + "\n", "1", "lock:row-42", value}; !reflect.DeepEqual(got, want) {
		t.Errorf("Args()=%q, want %q", got, want)
	}
	if got := demo.EventLine(sc, e); !strings.HasSuffix(got, ": release-checked: deleted lock:row-42 (A's lock); A lets go of the lock") {
		t.Errorf("transcript line %q does not say what the script did", got)
	}
}

// A client that drew no value sends an empty one, which the wire prints as
// redis-cli takes it, "", not as nothing: read back, the line is the
// command sent.
func TestEvalOfAnEmptyValueOnTheWire(t *testing.T) {
	sc := labScenario(t, scriptYAML("release", "release", "return redis.call('del', KEYS[1])"),
		"A set lock:row-42 NX PX 10000", "tick 1000", "B eval release lock:row-42 $value")
	e := evalOf(t, lastFrame(t, sc))
	want := `EVAL "return redis.call('del', KEYS[1])" 1 lock:row-42 ""`
	if call, _ := e.Wire(); call != want {
		t.Errorf("Wire()=\n\t%s\nwant\n\t%s", call, want)
	}
	if got := e.Args(); got[len(got)-1] != "" {
		t.Errorf("Args()=%q, want B's empty value last", got)
	}
}

// A script that the sandbox stops is refused, in both languages with its
// line, and leaves the keys and the client as they were, even what it
// deleted before it ran into its bound.
func TestEvalStoppedChangesNothing(t *testing.T) {
	sc := labScenario(t, scriptYAML("greedy", "release", "redis.call('del', KEYS[1])\nwhile true do end"),
		"A set lock:row-42 NX PX 10000")
	r := demo.NewRun(sc, true)
	r.Step()
	before := r.Frame()
	a, err := demo.ParseAction(sc.Family, sc.Store, "A eval greedy lock:row-42")
	if err != nil {
		t.Fatal(err)
	}
	err = r.Free(a)
	var ae *demo.ActionError
	if !errors.As(err, &ae) {
		t.Fatalf("Free: %v, want an ActionError", err)
	}
	if !strings.Contains(ae.Msg, `script "greedy", line 2`) || !strings.Contains(ae.Msg, "instructions") ||
		!strings.Contains(ae.JA, "2 行目") || !strings.Contains(ae.JA, "命令") {
		t.Errorf("the refusal %q / %q does not name the script, the line and the reason", ae.Msg, ae.JA)
	}
	after := r.Frame()
	if !reflect.DeepEqual(after.Store, before.Store) || !reflect.DeepEqual(after.Clients, before.Clients) {
		t.Errorf("a refused script changed the frame:\n\tbefore %+v %+v\n\tafter  %+v %+v", before.Store, before.Clients, after.Store, after.Clients)
	}
}

// Each role makes of the answer what its client does.
func TestEvalRoles(t *testing.T) {
	get := "return redis.call('get', KEYS[1]) == ARGV[1] and 1 or 0"
	for _, tc := range []struct {
		name, role, lua string
		do              []string
		outcome         Outcome
		holds           bool
		token           int64
	}{
		{"release lets go whatever the answer", RoleRelease, "return 0",
			[]string{"A set lock:1 NX PX 10000", "A eval s lock:1 $value"}, Released, false, 0},
		{"renew answered 1 keeps the lock", RoleRenew, get,
			[]string{"A set lock:1 NX PX 10000", "tick 5000", "A eval s lock:1 $value 10000"}, Renewed, true, 0},
		{"renew answered 0 learns it lost it", RoleRenew, "return 0",
			[]string{"A set lock:1 NX PX 10000", "A eval s lock:1 $value 10000"}, Lost, false, 0},
		{"renew of nothing held", RoleRenew, get, []string{"A eval s lock:1 $value 10000"}, NotHeld, false, 0},
		{"acquire OK holds", RoleAcquire, "return redis.call('set', KEYS[1], ARGV[1], 'nx', 'px', ARGV[2])",
			[]string{"A eval s lock:1 $value 10000"}, Acquired, true, 0},
		{"acquire nil does not", RoleAcquire, "return redis.call('set', KEYS[1], ARGV[1], 'nx', 'px', ARGV[2])",
			[]string{"B set lock:1 NX PX 10000", "A eval s lock:1 $value 10000"}, NotAcquired, false, 0},
		{"token from INCR", RoleToken, "return redis.call('incr', KEYS[1])",
			[]string{"A incr counter", "A eval s counter"}, GotToken, false, 2},
		{"no token from an error", RoleToken, "return redis.call('incr', KEYS[1])",
			[]string{"B set counter NX", "A eval s counter"}, NoToken, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := lastFrame(t, labScenario(t, scriptYAML("s", tc.role, tc.lua), tc.do...))
			e := evalOf(t, f)
			a := f.Clients[0]
			if e.Outcome != tc.outcome || a.Holds != tc.holds || a.Token != tc.token {
				t.Errorf("outcome %v, A holds=%v token=%d (answer %v); want %v, %v, %d", e.Outcome, a.Holds, a.Token, e.Answer, tc.outcome, tc.holds, tc.token)
			}
		})
	}
}

// An acquire script draws a fresh value, as every SET does, and its client
// holds the lock with it for the TTL it asked for; the diagram draws it.
func TestEvalAcquireHoldsWithAFreshValue(t *testing.T) {
	sc := labScenario(t, scriptYAML("acquire", RoleAcquire, "return redis.call('set', KEYS[1], ARGV[1], 'nx', 'px', ARGV[2])"),
		"A set lock:1 NX PX 1000", "tick 1000", "A eval acquire lock:1 $value 5000")
	f := lastFrame(t, sc)
	a := f.Clients[0]
	if want := LockValue("lab", "A", 2); a.Value != want || !a.Holds || a.Until != 6000 {
		t.Errorf("A: value %s holds %v until %d; want its second value %s, holding until 6000", a.Value, a.Holds, a.Until, want)
	}
	st, _ := Of(f)
	if k := st.Nodes[0].Keys; len(k) != 1 || k[0].Owner != "A" || k[0].TTL != 5000 {
		t.Errorf("keys %+v, want A's lock with 5000 ms left", k)
	}
	spans := f.Timeline().Locks
	if len(spans) != 2 || spans[1].Owner != "A" || spans[1].From != 1000 || spans[1].Until != 6000 {
		t.Errorf("the diagram's locks %+v: want A's second span from 1000 until 6000", spans)
	}
}

// The keyspace answers as Redis 7 does, errors included, on the model's
// clock; what it does not play is refused with a clear error.
func TestEvalKeyspace(t *testing.T) {
	for _, tc := range []struct{ lua, want string }{
		{"return redis.call('set', KEYS[1], 'v', 'NX', 'PX', 5000)", "OK"},
		{"redis.call('set', KEYS[1], 'v') return redis.call('set', KEYS[1], 'w', 'nx')", "(nil)"},
		{"return redis.call('set', KEYS[1], 'w', 'xx')", "(nil)"},
		{"return redis.call('set', KEYS[1], 'v', 'nx', 'xx')", "(error) ERR syntax error script: %s, on @user_script:1."},
		{"return redis.call('set', KEYS[1], 'v', 'px', 0)", "(error) ERR invalid expire time in 'set' command script: %s, on @user_script:1."},
		{"return redis.pcall('set', KEYS[1], 'v', 'px', 'x')", "(error) ERR value is not an integer or out of range"},
		{"redis.call('set', KEYS[1], 'v', 'ex', 10) return redis.call('pttl', KEYS[1])", "(integer) 10000"},
		{"redis.call('set', KEYS[1], 'v', 'px', 2500) return redis.call('ttl', KEYS[1])", "(integer) 3"},
		{"redis.call('set', KEYS[1], 'v') return redis.call('ttl', KEYS[1])", "(integer) -1"},
		{"return redis.call('pttl', KEYS[1])", "(integer) -2"},
		{"redis.call('set', KEYS[1], 'v') return redis.call('pexpire', KEYS[1], 0) + redis.call('exists', KEYS[1])", "(integer) 1"},
		{"return redis.call('pexpire', KEYS[1], 100)", "(integer) 0"},
		{"redis.call('set', KEYS[1], 'v') return redis.call('expire', KEYS[1], 3)", "(integer) 1"},
		{"redis.call('set', 'a', 1) redis.call('set', 'b', 2) return redis.call('del', 'a', 'b', 'c')", "(integer) 2"},
		{"redis.call('set', 'a', 1) return redis.call('exists', 'a', 'a', 'z')", "(integer) 2"},
		{"redis.call('incr', KEYS[1]) return redis.call('incrby', KEYS[1], 41)", "(integer) 42"},
		{"redis.call('set', KEYS[1], 'x') return redis.call('incr', KEYS[1])", "(error) ERR value is not an integer or out of range script: %s, on @user_script:1."},
		{"redis.call('hset', KEYS[1], 'f', 1) return redis.call('get', KEYS[1])", "(error) WRONGTYPE Operation against a key holding the wrong kind of value script: %s, on @user_script:1."},
		{"return redis.call('hincrby', KEYS[1], 'f', 2) + redis.call('hincrby', KEYS[1], 'f', 3)", "(integer) 7"},
		{"redis.call('hset', KEYS[1], 'f', 4) return {redis.call('hget', KEYS[1], 'f'), redis.call('hexists', KEYS[1], 'g'), redis.call('hdel', KEYS[1], 'f'), redis.call('exists', KEYS[1])}",
			`1) "4" 2) (integer) 0 3) (integer) 1 4) (integer) 0`},
		{"return redis.call('publish', 'ch', 'hi')", "(integer) 0"},
		{"return redis.pcall('wait', 1, 0)", "(error) ERR This Redis command is not allowed from script"},
		{"return redis.pcall('get')", "(error) ERR Wrong number of args calling Redis command from script"},
	} {
		sc := labScenario(t, scriptYAML("s", RoleRelease, tc.lua), "A eval s lock:1")
		e := evalOf(t, lastFrame(t, sc))
		s, _ := lua.Compile("s", tc.lua+"\n")
		if want := strings.Replace(tc.want, "%s", s.SHA, 1); e.Answer.String() != want {
			t.Errorf("%s\n\tgot  %v\n\twant %s", tc.lua, e.Answer, want)
		}
	}
	for _, tc := range []struct{ lua, says string }{
		{"return redis.call('keys', '*')", "does not play KEYS from a script"},
		{"return redis.call('set', KEYS[1], 'v', 'keepttl')", "does not play SET's KEEPTTL option"},
		{"redis.call('hset', KEYS[1], 'f', 1) return redis.call('hset', KEYS[1], 'g', 1)", `one field holding a number; "g" would be another`},
		{"for i = 1, 100 do redis.call('set', 'k' .. i, i) end", "at most 64 keys"},
	} {
		sc := labScenario(t, scriptYAML("s", RoleRelease, tc.lua), "tick 1")
		a, _ := demo.ParseAction(sc.Family, sc.Store, "A eval s lock:1")
		err := demo.NewRun(sc, true).Free(a)
		var ae *demo.ActionError
		if !errors.As(err, &ae) || !strings.Contains(ae.Msg, tc.says) || ae.JA == "" {
			t.Errorf("%s: %v, want a refusal saying %q", tc.lua, err, tc.says)
		}
	}
}
