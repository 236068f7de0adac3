package lua

import (
	"math"
	"sort"
	"strings"

	glua "github.com/yuin/gopher-lua"
)

// stringLib is Lua 5.1's string library, every function that makes a
// string charged and bounded, every function that walks one charged for
// the walk, without dump (bytecode).
func (vm *VM) stringLib(lib *glua.LTable) *glua.LTable {
	t := vm.L.NewTable()
	t.RawSetString("len", lib.RawGetString("len"))
	t.RawSetString("sub", lib.RawGetString("sub"))
	vm.set(t, map[string]glua.LGFunction{
		"byte": vm.strByte, "char": vm.strChar, "rep": vm.strRep, "format": vm.strFormat,
		"lower": vm.mapped(strings.ToLower), "upper": vm.mapped(strings.ToUpper), "reverse": vm.mapped(reverse),
		"find": func(L *glua.LState) int { return vm.find(L, true) }, "match": func(L *glua.LState) int { return vm.find(L, false) },
		"gmatch": vm.gmatch, "gsub": vm.gsub,
	})
	return t
}

// checkString is argument n as the string library reads it: a string, or
// a number as Lua 5.1 writes it.
func checkString(L *glua.LState, n int) string {
	if s, ok := stringy(L.Get(n)); ok {
		return s
	}
	L.TypeError(n, glua.LTString)
	return ""
}

// mapped is a function that makes a string as long as its argument.
func (vm *VM) mapped(f func(string) string) glua.LGFunction {
	return func(L *glua.LState) int {
		s := checkString(L, 1)
		vm.work(len(s))
		L.Push(vm.str(f(s)))
		return 1
	}
}

// reverse reverses bytes, as Lua does, not runes.
func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// strRep is string.rep(s, n), its length checked before it is made.
func (vm *VM) strRep(L *glua.LState) int {
	s, n := checkString(L, 1), L.CheckNumber(2)
	if n <= 0 || s == "" {
		L.Push(glua.LString(""))
		return 1
	}
	if size := float64(n) * float64(len(s)); size > MaxString {
		vm.tooLong(size)
	}
	count := int(n)
	vm.work(count * len(s))
	L.Push(vm.str(strings.Repeat(s, count)))
	return 1
}

// posrelat is a string position as Lua reads one: negative from the end.
func posrelat(pos, n int) int {
	if pos < 0 {
		pos += n + 1
	}
	return max(pos, 0)
}

func (vm *VM) strByte(L *glua.LState) int {
	s := checkString(L, 1)
	i := posrelat(L.OptInt(2, 1), len(s))
	j := posrelat(L.OptInt(3, i), len(s))
	i, j = max(i, 1), min(j, len(s))
	if i > j {
		return 0
	}
	vm.work(j - i + 1)
	for k := i; k <= j; k++ {
		L.Push(glua.LNumber(s[k-1]))
	}
	return j - i + 1
}

func (vm *VM) strChar(L *glua.LState) int {
	n := L.GetTop()
	b := make([]byte, n)
	for i := range n {
		c := L.CheckNumber(i + 1)
		if c < 0 || c > 255 || c != glua.LNumber(math.Trunc(float64(c))) {
			L.ArgError(i+1, "invalid value")
		}
		b[i] = byte(c)
	}
	vm.work(n)
	L.Push(vm.str(string(b)))
	return 1
}

// tableLib is Lua 5.1's table library: concat bounded, insert and remove
// charged and refusing the read-only tables, sort charged for its
// comparisons.
func (vm *VM) tableLib(lib *glua.LTable) *glua.LTable {
	t := vm.L.NewTable()
	t.RawSetString("getn", lib.RawGetString("getn"))
	t.RawSetString("maxn", lib.RawGetString("maxn"))
	vm.set(t, map[string]glua.LGFunction{
		"concat": vm.tableConcat, "insert": vm.tableInsert, "remove": vm.tableRemove, "sort": vm.tableSort,
	})
	return t
}

// writable is table argument 1, which the function changes.
func (vm *VM) writable(L *glua.LState) *glua.LTable {
	t := L.CheckTable(1)
	if vm.readonly[t] {
		L.RaiseError("Attempt to modify a readonly table")
	}
	return t
}

func (vm *VM) tableConcat(L *glua.LState) int {
	t := L.CheckTable(1)
	sep := ""
	if L.GetTop() >= 2 && L.Get(2) != glua.LNil {
		sep = checkString(L, 2)
	}
	i, j := L.OptInt(3, 1), L.OptInt(4, t.Len())
	if j-i >= MaxTableSlots {
		vm.fits(MaxString + 1)
	}
	var parts []string
	size := 0
	for k := i; k <= j; k++ {
		s, ok := stringy(t.RawGetInt(k))
		if !ok {
			L.RaiseError("invalid value (at index %d) in table for 'concat'", k)
		}
		size += len(s) + len(sep)
		vm.fits(size - len(sep))
		parts = append(parts, s)
	}
	vm.work(size)
	L.Push(vm.str(strings.Join(parts, sep)))
	return 1
}

// tableInsert is table.insert(t, v) or table.insert(t, pos, v); a pos past
// the end grows the table to it, as Lua 5.1's does, each slot charged.
func (vm *VM) tableInsert(L *glua.LState) int {
	t := vm.writable(L)
	n := arrayLen(t)
	switch L.GetTop() {
	case 2:
		vm.assign(L, t, glua.LNumber(t.Len()+1), L.Get(2), true)
	case 3:
		pos := L.CheckInt(2)
		if pos < 1 || pos > n {
			vm.assign(L, t, glua.LNumber(pos), L.Get(3), true)
			return 0
		}
		vm.work(n - pos)
		vm.grow(slotBytes)
		t.Insert(pos, L.Get(3))
	default:
		L.RaiseError("wrong number of arguments to 'insert'")
	}
	return 0
}

func (vm *VM) tableRemove(L *glua.LState) int {
	t := vm.writable(L)
	n := t.Len()
	pos := L.OptInt(2, n)
	if n == 0 || pos < 1 || pos > n {
		return 0
	}
	vm.work(n - pos)
	L.Push(t.Remove(pos))
	trim(t)
	return 1
}

// tableSort sorts the array part, in place, as Lua 5.1's does, its
// comparisons charged: each by its own instructions when the script gives
// a function, and n log n steps for the sort's own.
func (vm *VM) tableSort(L *glua.LState) int {
	t := vm.writable(L)
	n := t.Len()
	if n > 1 {
		vm.work(n * (bitsLen(n) + 1))
	}
	var cmp *glua.LFunction
	if L.GetTop() >= 2 && L.Get(2) != glua.LNil {
		cmp = L.CheckFunction(2)
	}
	vals := make([]glua.LValue, n)
	for i := range vals {
		vals[i] = t.RawGetInt(i + 1)
	}
	sort.Sort(sorter{L: L, fn: cmp, vals: vals})
	for i, v := range vals {
		t.RawSetInt(i+1, v)
	}
	return 0
}

func bitsLen(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}

type sorter struct {
	L    *glua.LState
	fn   *glua.LFunction
	vals []glua.LValue
}

func (s sorter) Len() int      { return len(s.vals) }
func (s sorter) Swap(i, j int) { s.vals[i], s.vals[j] = s.vals[j], s.vals[i] }
func (s sorter) Less(i, j int) bool {
	if s.fn == nil {
		return s.L.LessThan(s.vals[i], s.vals[j])
	}
	s.L.Push(s.fn)
	s.L.Push(s.vals[i])
	s.L.Push(s.vals[j])
	s.L.Call(2, 1)
	v := s.L.Get(-1)
	s.L.Pop(1)
	return glua.LVAsBool(v)
}
