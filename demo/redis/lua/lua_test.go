package lua_test

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo/redis/lua"
	"github.com/distlock/fencing-demo/demo/redis/redistest"
)

// keys is a Backend of plain strings: GET, SET and DEL, enough to see
// what a script asks of its keyspace; anything else is Redis's unknown
// command.
type keys map[string]string

func (k keys) Call(a []string) (lua.Reply, error) {
	switch strings.ToLower(a[0]) {
	case "get":
		if v, ok := k[a[1]]; ok {
			return lua.Str(v), nil
		}
		return lua.Reply{}, nil
	case "set":
		k[a[1]] = a[2]
		return lua.OK, nil
	case "del":
		if _, ok := k[a[1]]; ok {
			delete(k, a[1])
			return lua.One, nil
		}
		return lua.Zero, nil
	case "incr":
		return lua.Err("ERR value is not an integer or out of range"), nil
	case "keys":
		return lua.Reply{}, &lua.LimitError{Kind: lua.Unplayed, EN: "KEYS is not played", JA: "KEYS は再現しない"}
	}
	return lua.Err("ERR Unknown Redis command called from script"), nil
}

// run compiles src and runs it once on a fresh VM with KEYS {"k"} and ARGV
// {"v"}, k holding v.
func run(tb testing.TB, src string) (lua.Reply, error) {
	tb.Helper()
	return runOn(tb, lua.NewVM(), src, keys{"k": "v"})
}

func runOn(tb testing.TB, vm *lua.VM, src string, b lua.Backend) (lua.Reply, error) {
	tb.Helper()
	s, err := lua.Compile("t", src)
	if err != nil {
		tb.Fatalf("Compile(%q): %v", src, err)
	}
	return vm.Run(s, []string{"k"}, []string{"v"}, b)
}

// Every reply as Redis 7.0 gives it to redis-cli, the script's return
// value converted as Redis converts it: the same texts the conformance
// suite gets from real Redis for the same scripts.
func TestRepliesAsRedisGivesThem(t *testing.T) {
	for _, tc := range redistest.Replies {
		got, err := run(t, tc.Script)
		if err != nil || got.String() != tc.Want {
			t.Errorf("%s\n\tgot  %v (err %v)\n\twant %s", tc.Script, got, err, tc.Want)
		}
	}
}

// A table's or a function's name in tostring is the order the call first
// named it in, not its address, as Redis's is: the same call answers the
// same in every run.
func TestToStringNamesNoAddress(t *testing.T) {
	const src = `local t = {} return tostring(t) .. tostring({}) .. tostring(t) .. tostring(type)`
	for range 2 {
		got, err := run(t, src)
		if want := `"table: 0x00000001table: 0x00000002table: 0x00000001function: 0x00000003"`; err != nil || got.String() != want {
			t.Errorf("got %v (err %v), want %s", got, err, want)
		}
	}
}

// A script's errors are Redis 7.0's, word for word, with the line the
// error left the script from.
func TestErrorsAsRedisGivesThem(t *testing.T) {
	for _, tc := range redistest.Errors {
		s, err := lua.Compile("t", tc.Script)
		if err != nil {
			t.Fatal(err)
		}
		got, err := lua.NewVM().Run(s, []string{"k"}, []string{"v"}, keys{"k": "v"})
		want := strings.Replace(tc.Want, "%s", s.SHA, 1)
		if err != nil || got.Kind != lua.Error || got.Str != want || got.Line != tc.Line {
			t.Errorf("%q\n\tgot  %v, line %d (err %v)\n\twant %s, line %d", tc.Script, got, got.Line, err, want, tc.Line)
		}
	}
}

// Nothing but Redis's sandbox: no loading of code, no os, io, debug,
// package or coroutine, no print and no random numbers; and nothing a
// script can change outlives its call.
func TestSandboxHasOnlyWhatRedisOffers(t *testing.T) {
	for _, name := range []string{"os", "io", "debug", "package", "coroutine", "require", "module", "dofile",
		"loadfile", "load", "loadstring", "getfenv", "setfenv", "collectgarbage", "print", "newproxy", "_printregs", "channel"} {
		got, err := run(t, "return "+name)
		if err != nil || !strings.Contains(got.Str, "Script attempted to access nonexistent global variable '"+name+"'") {
			t.Errorf("%s: got %v (err %v), want the nonexistent global error", name, got, err)
		}
	}
	for _, f := range []string{"string.dump", "math.random", "math.randomseed"} {
		if got, err := run(t, "return type("+f+")"); err != nil || got.String() != `"nil"` {
			t.Errorf("type(%s) = %v (err %v), want nil", f, got, err)
		}
	}
	for _, src := range []string{
		"string.x = 1", "redis.call = nil", "table.insert(string, 1)", "rawset(_G, 'x', 1)", "rawset(math, 'pi', 3)",
		"_G.KEYS = {}", "setmetatable(_G, nil)", "getmetatable('').__index = {}", "setmetatable('', {})", "setmetatable(1, {})",
	} {
		got, err := run(t, src)
		if err != nil || got.Kind != lua.Error {
			t.Errorf("%s: got %v (err %v), want an error", src, got, err)
		}
	}
	vm := lua.NewVM()
	b := keys{"k": "v"}
	// A call that changes what it can reach (KEYS, ARGV, its own tables)
	// leaves nothing for the next.
	for _, src := range []string{"KEYS[1] = 'x'; ARGV[2] = 'y'; local t = {} setmetatable(t, {}) return 1",
		"return KEYS[1] .. #ARGV"} {
		got, err := runOn(t, vm, src, b)
		if err != nil {
			t.Fatal(err)
		}
		if src[0] == 'r' && got.String() != `"k1"` {
			t.Errorf("after a call that changed KEYS and ARGV, the next sees %v, want \"k1\"", got)
		}
	}
}

// limit runs src and returns the LimitError it must stop with.
func limit(tb testing.TB, vm *lua.VM, src string) *lua.LimitError {
	tb.Helper()
	got, err := runOn(tb, vm, src, keys{"k": "v"})
	var le *lua.LimitError
	if !errors.As(err, &le) {
		tb.Fatalf("%q: got %v, err %v; want a *LimitError", src, got, err)
	}
	return le
}

// An endless loop, a string past the bound, a table past the call's
// memory, a pattern that backtracks for ever: each stops within the
// call's budget, at its line, with the reason in both languages, and a
// pcall around it does not save the call.
func TestBoundsStopACall(t *testing.T) {
	for _, tc := range []struct {
		src  string
		kind lua.Limit
		line int
	}{
		{"local n = 0\nwhile true do n = n + 1 end", lua.Instructions, 2},
		{"local s = 'x'\nwhile true do s = s .. s end", lua.String, 2},
		{"return string.rep('x', 1e9)", lua.String, 1},
		{"return string.rep('ab', 40000)", lua.String, 1},
		{"local s = string.rep('x', 60000)\nreturn string.format('%s%s', s, s)", lua.String, 2},
		{"local t = {}\nfor i = 1, 1e6 do t[i] = i end", lua.Instructions, 2},
		{"local t = {}\nt[200000] = 1", lua.Memory, 2},
		{"local t, s = {}, string.rep('x', 30000)\nfor i = 1, 100 do t[i] = s .. i end", lua.Memory, 2},
		{"local s = string.rep('x', 50000)\nlocal t = {s, s}\nreturn table.concat(t)", lua.String, 3},
		{"return string.gsub(string.rep('x', 40000), 'x', 'yy')", lua.String, 1},
		{"return string.find(string.rep('a', 30000), '.-.-.-.-b')", lua.Instructions, 1},
		{"local ok = pcall(function() while true do end end)\nreturn 1", lua.Instructions, 1},
		{"return pcall(string.rep, 'x', 1e9)", lua.String, 1},
		{"return redis.call('keys', '*')", lua.Unplayed, 1},
		{"return redis.call('get', string.rep('k', 2000))", lua.Size, 1},
		{"local t = {} t[1] = t return t", lua.Size, 0},
	} {
		le := limit(t, lua.NewVM(), tc.src)
		if le.Kind != tc.kind || le.Line != tc.line || le.Script != "t" {
			t.Errorf("%q: stopped as %v at line %d (%v); want kind %v at line %d", tc.src, le.Kind, le.Line, le, tc.kind, tc.line)
		}
		ja, en := le.Text()
		if !strings.Contains(en, `script "t"`) || !strings.Contains(ja, `スクリプト "t"`) || ja == en {
			t.Errorf("%q: the error's words are not in both languages: %q / %q", tc.src, ja, en)
		}
	}
}

// The instruction budget counts instructions, not time: an endless loop
// runs exactly CallInstructions of them and stops at the next, on any
// machine, and the VM's total counts each call's.
func TestInstructionBudgetIsExact(t *testing.T) {
	vm := lua.NewVM()
	le := limit(t, vm, "while true do end")
	if le.Kind != lua.Instructions {
		t.Fatalf("stopped as %v, want Instructions", le)
	}
	if got, want := vm.Instructions(), int64(lua.CallInstructions+1); got != want {
		t.Errorf("the VM ran %d instructions, want %d: the budget and the one that crossed it", got, want)
	}
	if _, err := runOn(t, vm, "return 1", keys{}); err != nil {
		t.Fatal(err)
	}
	if got, want := vm.Instructions(), int64(lua.CallInstructions+1+2); got != want {
		t.Errorf("after return 1, the VM ran %d instructions, want %d", got, want)
	}
}

// A VM's total budget bounds a whole search: past it every call is
// refused with an error the search ends on, however little the call
// would run.
func TestSearchBudgetIsSpent(t *testing.T) {
	vm := lua.NewVMWithin(1000)
	s, err := lua.Compile("t", `return redis.call('get', KEYS[1])`)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for ; calls < 1000; calls++ {
		if _, err := vm.Run(s, []string{"k"}, nil, keys{}); err != nil {
			var le *lua.LimitError
			if !errors.As(err, &le) || !le.Exhausted() {
				t.Fatalf("call %d: %v, want the VM's budget spent", calls, err)
			}
			break
		}
	}
	if calls == 0 || calls == 1000 {
		t.Fatalf("the budget of 1000 instructions was spent after %d calls", calls)
	}
	if vm.Spent() == nil {
		t.Error("Spent() is nil after a call refused for the spent budget")
	}
	if _, err := vm.Run(s, []string{"k"}, nil, keys{}); err == nil {
		t.Error("a call after the budget was spent ran")
	}
}

// A script that does not compile names its line, as the page shows it.
func TestCompileErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct {
		src  string
		line int
		says string
	}{
		{"return 1 +", 1, "ends too soon"},
		{"local a = 1\nlocal b = = 2\nreturn a", 2, `near "="`},
		{"if true then\n  return 1\n", 2, "ends too soon"},
		{"local s = 'abc\nreturn s", 2, "unterminated string"},
		{"goto x\n::x::", 1, "Lua 5.2"},
		{"local a = 1\nreturn ...", 2, "cannot use '...' outside a vararg function"},
		{strings.Repeat("-", lua.MaxScript+1), 1, "at most"},
	} {
		_, err := lua.Compile("mine", tc.src)
		var ce *lua.CompileError
		if !errors.As(err, &ce) {
			t.Fatalf("%q: %v, want a *CompileError", tc.src, err)
		}
		ja, en := ce.Text()
		if ce.Line != tc.line || !strings.Contains(en, tc.says) || !strings.Contains(en, `"mine"`) || !strings.Contains(ja, "行目") {
			t.Errorf("%q: line %d, %q / %q; want line %d saying %q", tc.src, ce.Line, en, ja, tc.line, tc.says)
		}
	}
}

// The library's functions give what Lua 5.1 gives (testdata/library.txt,
// which the conformance suite holds real Redis to as well).
func TestLibraryAsLua51(t *testing.T) {
	vm := lua.NewVM()
	for _, c := range redistest.LibraryCases(t) {
		got, err := runOn(t, vm, c.Script(), keys{})
		if err != nil || got.Kind != lua.Bulk || got.Str != c.Want {
			t.Errorf("line %d: %s\n\tgot  %v (err %v)\n\twant %q", c.Line, c.Expr, got, err, c.Want)
		}
	}
}

// What a call allocates in all is bounded: what it grows is charged up to
// CallMemory, and every instruction allocates at most a few hundred bytes
// besides, closures, boxed numbers and the value stack, so the worst
// scripts found stay near 3.5 MiB (the bound here leaves room for the
// runtime's own). A call that leaves nothing behind leaves it to the GC.
func TestCallMemoryIsBounded(t *testing.T) {
	for _, src := range []string{
		"while true do local f = function() end end",
		"local f = nil while true do local g = f f = function() return g end end",
		"local t = {} local i = 0 while true do i = i + 1 t[i] = {} end",
		"local s = string.rep('x', 60000) while true do local u = s .. 'y' end",
		"while true do local t = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10} end",
		"while true do local a, b = string.byte(string.rep('x', 8000), 1, -1) end",
		"local t = {} while true do t[#t + 1] = tostring(#t) end",
		"while true do pcall(error, {}) end",
	} {
		s, err := lua.Compile("m", src)
		if err != nil {
			t.Fatal(err)
		}
		vm := lua.NewVM()
		if _, err := vm.Run(s, nil, nil, keys{}); err == nil { // the Lua state is made on the first call
			t.Fatalf("%q ended", src)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = vm.Run(s, nil, nil, keys{})
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Fatalf("%q ended", src)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
			t.Errorf("%q allocated %.1f MiB in one call", src, float64(got)/(1<<20))
		}
	}
}
