package script_test

import (
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// labRelease is a scenario on one Redis node with the given scripts: and
// moves' actions.
func labRelease(tb testing.TB, scripts string, do ...string) string {
	tb.Helper()
	src := testkit.OnStore(tb, "redis", testkit.YAML("lab", do...))
	src = testkit.Replace(tb, src, "    topology: consensus\n", "    topology: single\n")
	src = testkit.Replace(tb, src, "    initial:\n", scripts+"    initial:\n")
	return testkit.File(src)
}

const twoScripts = `    scripts:
      release-checked:
        role: release
        lua: |
          if redis.call('get', KEYS[1]) == ARGV[1] then
            return redis.call('del', KEYS[1])
          end
          return 0
      release-bare:
        role: release
        lua: "return redis.call('DEL', KEYS[1])"
`

// A scenario's scripts are read in the file's order with the line their
// Lua starts on, run by eval, and written back by Marshal as they were read.
func TestScriptsReadAndWritten(t *testing.T) {
	src := labRelease(t, twoScripts, "A set lock:1 NX PX 1000", "A eval release-checked lock:1 $value")
	c, err := script.Load("test.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Load: %v\n%s", err, testkit.Numbered(src))
	}
	sc := c.Scenarios[0]
	want := []demo.Script{
		{Name: "release-checked", Role: "release", Line: testkit.LineOf(t, src, "if redis.call('get'"),
			Lua: "if redis.call('get', KEYS[1]) == ARGV[1] then\n  return redis.call('del', KEYS[1])\nend\nreturn 0\n"},
		{Name: "release-bare", Role: "release", Line: testkit.LineOf(t, src, `lua: "return`),
			Lua: "return redis.call('DEL', KEYS[1])"},
	}
	if len(sc.Scripts) != len(want) {
		t.Fatalf("Scripts=%+v, want %+v", sc.Scripts, want)
	}
	for i := range want {
		if sc.Scripts[i] != want[i] {
			t.Errorf("Scripts[%d]=%+v, want %+v", i, sc.Scripts[i], want[i])
		}
	}
	out, err := script.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "    scripts:\n      release-checked:\n        role: release\n        lua: |\n          if redis.call") {
		t.Errorf("Marshal does not write the first script as a block under scripts:\n%s", out)
	}
	again, err := script.Load("written.yaml", out)
	if err != nil {
		t.Fatalf("the written file does not load: %v\n%s", err, out)
	}
	for i, s := range again.Scenarios[0].Scripts {
		if s.Name != want[i].Name || s.Role != want[i].Role || s.Lua != want[i].Lua {
			t.Errorf("written and read, script %d is %+v, want %+v", i, s, want[i])
		}
		if got := testkit.LineOf(t, string(out), strings.SplitN(s.Lua, "\n", 2)[0]); s.Line != got {
			t.Errorf("written and read, script %q starts on line %d, want %d", s.Name, s.Line, got)
		}
	}
}

// A script that does not compile stops the load on the file's line of the
// script's line, naming the script and the reason.
func TestScriptThatDoesNotParse(t *testing.T) {
	bad := `    scripts:
      release-typo:
        role: release
        lua: |
          local v = redis.call('get', KEYS[1])
          if v == ARGV[1] then
            return redis.call('del', KEYS[1]) +
          end
          return 0
`
	src := labRelease(t, bad, "tick 1")
	le := loadError(t, src)
	if want := testkit.LineOf(t, src, "          end"); le.Line != want {
		t.Errorf("LoadError.Line=%d, want %d (the script's line 4): %v\n%s", le.Line, want, le, testkit.Numbered(src))
	}
	for _, w := range []string{`"release-typo"`, "line 4", "near"} {
		if !strings.Contains(le.Msg, w) {
			t.Errorf("the error %q does not say %q", le.Msg, w)
		}
	}

	goto5 := strings.Replace(bad, "            return redis.call('del', KEYS[1]) +\n", "            return redis.call('del', KEYS[1])\n", 1)
	goto5 = strings.Replace(goto5, "          return 0\n", "          goto done\n          ::done::\n", 1)
	le = loadError(t, labRelease(t, goto5, "tick 1"))
	if !strings.Contains(le.Msg, "Lua 5.2") || !strings.Contains(le.Msg, "line 5") {
		t.Errorf("goto: the error %q does not say it is Lua 5.2 at line 5", le.Msg)
	}
}

func TestScriptMistakes(t *testing.T) {
	one := func(name, role, lua string) string {
		return "    scripts:\n      " + name + ":\n        role: " + role + "\n        lua: " + lua + "\n"
	}
	for _, tc := range []struct {
		name, src, want string
	}{
		{"unknown role", labRelease(t, one("r", "unlock", "return 1"), "tick 1"), `role "unlock"; want one of release, renew, acquire, token`},
		{"bad name", labRelease(t, one("Release", "release", "return 1"), "tick 1"), `script "Release": a name of lower-case letters`},
		{"unknown key", labRelease(t, "    scripts:\n      r:\n        role: release\n        code: return 1\n", "tick 1"), `unknown key "code" in a script`},
		{"not a mapping", labRelease(t, "    scripts: [a, b]\n", "tick 1"), "scripts: a mapping"},
		{"no such script", labRelease(t, one("r", "release", "return 1"), "A eval nosuch lock:1"), `the scenario has no script "nosuch" (it has: r)`},
		{"lease missing", labRelease(t, one("r", "renew", "return 1"), "A set lock:1 NX PX 10", "A eval r lock:1 $value"), "names the TTL its client asks for"},
		{"placeholder", labRelease(t, one("r", "release", "return 1"), "A eval r lock:1 $lease"), `the one placeholder is $value`},
		{"lock service", testkit.File(testkit.Replace(t, testkit.YAML("one", "tick 1"), "    initial:\n", one("r", "release", "return 1")+"    initial:\n")),
			"the lockservice store runs no scripts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			le := loadError(t, tc.src)
			if !strings.Contains(le.Msg, tc.want) {
				t.Errorf("the error %q does not say %q", le.Msg, tc.want)
			}
			if le.Line == 0 {
				t.Errorf("the error %v names no line", le)
			}
		})
	}
}
