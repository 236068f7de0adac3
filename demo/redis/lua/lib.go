package lua

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	glua "github.com/yuin/gopher-lua"
)

// The base library's functions that the sandbox checks or words its own
// way, and the three a rewritten script calls (rewrite.go).

// concat is a .. b: two strings or numbers joined, charged and bounded;
// anything else goes to a __concat metamethod, as in Lua.
func (vm *VM) concat(L *glua.LState) int {
	a, b := L.Get(1), L.Get(2)
	as, aok := stringy(a)
	bs, bok := stringy(b)
	if aok && bok {
		vm.fits(len(as) + len(bs))
		L.Push(vm.str(as + bs))
		return 1
	}
	mm := L.GetMetaField(a, "__concat")
	if mm == glua.LNil {
		mm = L.GetMetaField(b, "__concat")
	}
	if mm == glua.LNil {
		bad := a
		if aok {
			bad = b
		}
		L.RaiseError("attempt to concatenate a %s value", bad.Type())
	}
	L.Push(mm)
	L.Push(a)
	L.Push(b)
	L.Call(2, 1)
	return 1
}

// stringy is v as .. and the string library read it: a string, or a
// number written as Lua 5.1 writes one.
func stringy(v glua.LValue) (string, bool) {
	switch v := v.(type) {
	case glua.LString:
		return string(v), true
	case glua.LNumber:
		return number(float64(v)), true
	}
	return "", false
}

// number writes n as Lua 5.1 does ("%.14g"), so that 0.1 + 0.2 reads 0.3
// as it does in Redis.
func number(n float64) string {
	switch {
	case math.IsNaN(n):
		return "nan"
	case math.IsInf(n, 1):
		return "inf"
	case math.IsInf(n, -1):
		return "-inf"
	case n == math.Trunc(n) && math.Abs(n) < 1e14:
		return strconv.FormatInt(int64(n), 10)
	}
	return fmt.Sprintf("%.14g", n)
}

// setField is t[k] = v. A table's new slot is charged (an integer key
// past the end charges every slot up to it, which gopher-lua fills), and
// a table never ends in nils: setting its last element to nil shortens it,
// so # stays one step. A table with __newindex, or anything else, takes
// the assignment as the VM would.
func (vm *VM) setField(L *glua.LState) int {
	vm.assign(L, L.Get(1), L.Get(2), L.Get(3), false)
	return 0
}

func (vm *VM) assign(L *glua.LState, obj, k, v glua.LValue, raw bool) {
	t, ok := obj.(*glua.LTable)
	if !ok || !raw && t.RawGet(k) == glua.LNil && L.GetMetaField(t, "__newindex") != glua.LNil {
		L.SetTable(obj, k, v)
		return
	}
	if raw && vm.readonly[t] {
		L.RaiseError("Attempt to modify a readonly table")
	}
	switch n := k.(type) {
	case *glua.LNilType:
		L.RaiseError("table index is nil")
	case glua.LNumber:
		if math.IsNaN(float64(n)) {
			L.RaiseError("table index is NaN")
		}
	}
	old := t.RawGet(k)
	if v == glua.LNil {
		if old != glua.LNil {
			t.RawSet(k, glua.LNil)
			trim(t)
		}
		return
	}
	if old == glua.LNil {
		slots := 1
		if i, ok := arrayIndex(k); ok {
			slots = max(1, i-arrayLen(t))
		}
		vm.grow(slots * slotBytes)
	}
	t.RawSet(k, v)
}

// arrayIndex reports whether k is an integer gopher-lua keeps in a table's
// array part.
func arrayIndex(k glua.LValue) (int, bool) {
	n, ok := k.(glua.LNumber)
	if !ok || float64(n) != math.Trunc(float64(n)) || n < 1 || n >= glua.LNumber(glua.MaxArrayIndex) {
		return 0, false
	}
	return int(n), true
}

// trim drops the nils at the end of t's array part, which # would
// otherwise walk past on every use.
func trim(t *glua.LTable) {
	for n := arrayLen(t); n > 0 && t.RawGetInt(n) == glua.LNil; n-- {
		t.Remove(n)
	}
}

// arrayField is the index of gopher-lua's LTable.array, the array part,
// whose length no method tells: a table's growth is charged by it, and
// trim keeps its end free of nils. gopher-lua is pinned (go.mod); a
// version without the field stops the program as it starts.
var arrayField = func() int {
	f, ok := reflect.TypeFor[glua.LTable]().FieldByName("array")
	if !ok || f.Type != reflect.TypeFor[[]glua.LValue]() {
		panic("lua: gopher-lua's LTable has no array []LValue field; the sandbox cannot charge tables")
	}
	return f.Index[0]
}()

// arrayLen is the length of t's array part, nils at its end included.
func arrayLen(t *glua.LTable) int {
	return reflect.ValueOf(t).Elem().Field(arrayField).Len()
}

// table is a table constructor's table, its slots charged.
func (vm *VM) table(L *glua.LState) int {
	t := L.CheckTable(1)
	vm.grow(tableBytes + arrayLen(t)*slotBytes)
	for k, _ := t.Next(glua.LNil); k != glua.LNil; k, _ = t.Next(k) {
		if _, ok := arrayIndex(k); !ok {
			vm.grow(slotBytes)
		}
	}
	trim(t)
	L.Push(t)
	return 1
}

// tableBytes is what a new table is charged besides its slots.
const tableBytes = 64

// rawset is rawset, charged, and refusing the read-only tables.
func (vm *VM) rawset(L *glua.LState) int {
	t := L.CheckTable(1)
	vm.assign(L, t, L.CheckAny(2), L.CheckAny(3), true)
	L.SetTop(1)
	return 1
}

// setmetatable takes a table only, as Lua 5.1's: gopher-lua's would set
// the metatable of every number, say, for every call after.
func (vm *VM) setmetatable(L *glua.LState) int {
	t := L.CheckTable(1)
	L.CheckTypes(2, glua.LTNil, glua.LTTable)
	if mt := L.GetMetatable(t); mt != glua.LNil {
		if m, ok := t.Metatable.(*glua.LTable); ok && m.RawGetString("__metatable") != glua.LNil {
			L.RaiseError("cannot change a protected metatable")
		}
	}
	L.SetMetatable(t, L.Get(2))
	L.SetTop(1)
	return 1
}

// pcall is pcall without the traceback gopher-lua builds for every error
// caught, so that a loop of failing calls costs what its instructions do.
func (vm *VM) pcall(L *glua.LState) int {
	L.CheckAny(1)
	if err := L.PCall(L.GetTop()-1, glua.MultRet, vm.keep); err != nil {
		L.Push(glua.LFalse)
		if ae, ok := err.(*glua.ApiError); ok {
			L.Push(ae.Object)
		} else {
			L.Push(glua.LString(err.Error()))
		}
		return 2
	}
	L.Insert(glua.LTrue, 1)
	return L.GetTop()
}

// tostring writes numbers as Lua 5.1 does and names a table or a function
// by the order the call first wrote it, not by its address, so that the
// same call writes the same string in every run.
func (vm *VM) tostring(L *glua.LState) int {
	v := L.CheckAny(1)
	if mm := L.GetMetaField(v, "__tostring"); mm != glua.LNil {
		L.Push(mm)
		L.Push(v)
		L.Call(1, 1)
		if _, ok := L.Get(-1).(glua.LString); !ok {
			L.RaiseError("'__tostring' must return a string")
		}
		return 1
	}
	L.Push(vm.str(vm.plainString(v)))
	return 1
}

func (vm *VM) plainString(v glua.LValue) string {
	if s, ok := stringy(v); ok {
		return s
	}
	switch v.Type() {
	case glua.LTNil, glua.LTBool:
		return v.String()
	}
	if vm.ids == nil {
		vm.ids = map[glua.LValue]int{}
	}
	id, ok := vm.ids[v]
	if !ok {
		id = len(vm.ids) + 1
		vm.ids[v] = id
	}
	return fmt.Sprintf("%s: 0x%08x", v.Type(), id)
}

// unpack is unpack, its work charged.
func (vm *VM) unpack(L *glua.LState) int {
	t := L.CheckTable(1)
	i, j := L.OptInt(2, 1), L.OptInt(3, t.Len())
	if j-i >= MaxTableSlots {
		L.RaiseError("too many results to unpack")
	}
	vm.work(j - i + 1)
	for k := i; k <= j; k++ {
		L.Push(t.RawGetInt(k))
	}
	return max(0, j-i+1)
}

// tonumber reads a number as Lua 5.1 does (C's strtod, then strtoul for a
// base): "1e2" and " 0x1A " are numbers, "12abc" is not.
func tonumber(L *glua.LState) int {
	v := L.CheckAny(1)
	base := L.OptInt(2, 10)
	if base == 10 {
		if n, ok := v.(glua.LNumber); ok {
			L.Push(n)
			return 1
		}
		s, ok := v.(glua.LString)
		if !ok {
			L.Push(glua.LNil)
			return 1
		}
		L.Push(str2number(string(s)))
		return 1
	}
	if base < 2 || base > 36 {
		L.ArgError(2, "base out of range")
	}
	s := strings.Trim(checkString(L, 1), cSpace)
	n, err := strconv.ParseUint(s, base, 64)
	if err != nil || s == "" || strings.ContainsAny(s, "_+-") {
		L.Push(glua.LNil)
		return 1
	}
	L.Push(glua.LNumber(n))
	return 1
}

// cSpace is C's isspace.
const cSpace = " \t\n\v\f\r"

func str2number(s string) glua.LValue {
	s = strings.Trim(s, cSpace)
	if s == "" || strings.Contains(s, "_") {
		return glua.LNil
	}
	unsigned := strings.TrimLeft(s, "+-")
	if hex, ok := strings.CutPrefix(strings.ToLower(unsigned), "0x"); ok && !strings.Contains(hex, "p") {
		n, err := strconv.ParseUint(hex, 16, 64)
		if err != nil {
			return glua.LNil
		}
		if strings.HasPrefix(s, "-") {
			return glua.LNumber(-float64(n))
		}
		return glua.LNumber(n)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return glua.LNil
	}
	return glua.LNumber(f)
}
