package lua

import (
	"math"

	glua "github.com/yuin/gopher-lua"
)

// open makes the VM's Lua state and the sandbox a script sees: Redis's
// libraries, read-only, and nothing else.
func (vm *VM) open() {
	L := glua.NewState(glua.Options{
		SkipOpenLibs:  true,
		CallStackSize: CallStack,
		// The value stack: what unpack or string.byte may push at once.
		RegistrySize: 1024, RegistryMaxSize: 8192, RegistryGrowStep: 512,
	})
	for _, open := range []glua.LGFunction{glua.OpenBase, glua.OpenTable, glua.OpenString, glua.OpenMath} {
		L.Push(L.NewFunction(open))
		L.Call(0, 0)
	}
	vm.L, vm.fns, vm.readonly = L, map[*Script]*glua.LFunction{}, map[*glua.LTable]bool{}
	L.SetContext(&vm.budget) // asked before every instruction: the call's budget
	vm.onError, vm.keep = L.NewFunction(vm.handleError), L.NewFunction(keepError)

	lib := L.Get(glua.GlobalsIndex).(*glua.LTable)
	g := L.NewTable()
	for _, name := range []string{"assert", "error", "getmetatable", "ipairs", "next", "pairs",
		"rawequal", "rawget", "select", "type", "xpcall", "_VERSION"} {
		g.RawSetString(name, lib.RawGetString(name))
	}
	vm.set(g, map[string]glua.LGFunction{
		"pcall": vm.pcall, "rawset": vm.rawset, "setmetatable": vm.setmetatable,
		"tostring": vm.tostring, "tonumber": tonumber, "unpack": vm.unpack,
		fnConcat: vm.concat, fnSet: vm.setField, fnTable: vm.table,
	})
	g.RawSetString("string", vm.readOnly(vm.stringLib(lib.RawGetString("string").(*glua.LTable))))
	g.RawSetString("table", vm.readOnly(vm.tableLib(lib.RawGetString("table").(*glua.LTable))))
	g.RawSetString("math", vm.readOnly(mathLib(L, lib.RawGetString("math").(*glua.LTable))))
	g.RawSetString("redis", vm.readOnly(vm.redisLib()))

	// A global that does not exist is an error, as in Redis 7, and the
	// globals are read-only: the script reads them through an empty
	// proxy, whose every write is refused.
	missing := L.NewTable()
	missing.RawSetString("__index", L.NewFunction(func(L *glua.LState) int {
		L.RaiseError("Script attempted to access nonexistent global variable '%s'", L.CheckString(2))
		return 0
	}))
	L.SetMetatable(g, missing)
	vm.globals, vm.env = g, vm.readOnly(g)
	g.RawSetString("_G", vm.env)

	// A string's methods are the read-only string library's; its
	// metatable cannot be read or changed.
	mt := L.NewTable()
	mt.RawSetString("__index", g.RawGetString("string"))
	mt.RawSetString("__metatable", glua.LFalse)
	L.SetMetatable(glua.LString(""), mt)
}

// readOnly is a proxy of t that reads t's fields and refuses every write,
// as Redis 7's read-only tables do. Its metatable is protected, and the
// sandbox's rawset and table functions refuse it.
func (vm *VM) readOnly(t *glua.LTable) *glua.LTable {
	L := vm.L
	p, mt := L.NewTable(), L.NewTable()
	mt.RawSetString("__index", t)
	mt.RawSetString("__newindex", L.NewFunction(func(L *glua.LState) int {
		L.RaiseError("Attempt to modify a readonly table")
		return 0
	}))
	mt.RawSetString("__metatable", glua.LFalse)
	L.SetMetatable(p, mt)
	vm.readonly[p] = true
	return p
}

func (vm *VM) set(t *glua.LTable, fns map[string]glua.LGFunction) {
	for name, fn := range fns {
		t.RawSetString(name, vm.L.NewFunction(fn))
	}
}

// mathLib is the math library without random and randomseed: a script's
// answer depends on the keyspace and its arguments only.
func mathLib(L *glua.LState, lib *glua.LTable) *glua.LTable {
	t := L.NewTable()
	for _, name := range []string{"abs", "acos", "asin", "atan", "atan2", "ceil", "cos", "cosh", "deg",
		"exp", "floor", "fmod", "frexp", "huge", "ldexp", "log", "log10", "max", "min", "mod", "modf",
		"pi", "pow", "rad", "sin", "sinh", "sqrt", "tan", "tanh"} {
		t.RawSetString(name, lib.RawGetString(name))
	}
	t.RawSetString("huge", glua.LNumber(math.Inf(1))) // HUGE_VAL; gopher-lua's is the largest float
	return t
}

// keepError is pcall's error handler: the error as it was raised, with no
// traceback built for it (gopher-lua builds one when there is no handler,
// which a loop of failing pcalls would pay for on every turn).
func keepError(L *glua.LState) int {
	L.Push(L.Get(1))
	return 1
}
