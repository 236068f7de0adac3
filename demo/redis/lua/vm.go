package lua

import (
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"time"

	glua "github.com/yuin/gopher-lua"
)

// Backend runs the commands a script calls: the keyspace behind
// redis.call. A Redis error (a wrong type, a syntax error) is an error
// Reply; a command the model does not play is a *LimitError, which stops
// the call whatever the script does about it.
type Backend interface {
	Call(args []string) (Reply, error)
}

// VM runs scripts, one call at a time, in one Lua state reused from call
// to call: a run of the model keeps one, and every copy of the run a
// search makes shares it, so that a call costs microseconds and the
// search's total is counted in one place. Nothing a call does outlives
// it: the libraries and the globals are read-only, and KEYS and ARGV are
// new tables each call. A VM is safe for use by one goroutine at a time;
// its lock only keeps a mistaken second one from corrupting it.
type VM struct {
	mu      sync.Mutex
	L       *glua.LState
	globals *glua.LTable // what the script's globals read through to
	env     *glua.LTable // the script's globals: an empty, read-only proxy
	// readonly are the proxies a script may read and never write: its
	// globals and the libraries.
	readonly map[*glua.LTable]bool
	fns      map[*Script]*glua.LFunction
	onError  *glua.LFunction // the handler that finds an escaping error's line
	keep     *glua.LFunction // pcall's handler, which keeps the error as it is

	search int64 // instructions this VM may run in all
	total  int64 // instructions it has run

	// This call's.
	budget  budget
	mem     int
	script  *Script
	backend Backend
	errLine int
	ids     map[glua.LValue]int // tostring's names for tables and functions
}

// NewVM makes a VM with a total budget of SearchInstructions. Its Lua
// state is made on its first call, so a run that never sends a script
// costs nothing.
func NewVM() *VM { return NewVMWithin(SearchInstructions) }

// NewVMWithin makes a VM with a total budget of search instructions: a
// caller with a search of its own to bound (a lab's judge) says how much.
func NewVMWithin(search int64) *VM { return &VM{search: search} }

// Spent reports the error every call now fails with when the VM's total
// budget is spent; nil while it is not.
func (vm *VM) Spent() error {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	if vm.total >= vm.search {
		return vm.spentError(0)
	}
	return nil
}

// Instructions returns how many VM instructions the VM has run in all.
func (vm *VM) Instructions() int64 {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	return vm.total
}

// Run calls s with KEYS and ARGV, its redis.call going to b. A script that
// raises an error answers an error Reply, as Redis answers it, with the
// line it was raised on; a call that runs into one of the sandbox's
// bounds, or calls what the model does not play, is a *LimitError.
func (vm *VM) Run(s *Script, keys, argv []string, b Backend) (Reply, error) {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	if vm.L == nil {
		vm.open()
	}
	left := vm.search - vm.total
	if left <= 0 {
		return Reply{}, vm.spentError(0)
	}
	vm.budget = budget{vm: vm, limit: int(min(CallInstructions, left)), search: left <= CallInstructions}
	vm.mem, vm.script, vm.backend, vm.errLine, vm.ids = 0, s, b, 0, nil
	defer func() {
		vm.total += int64(vm.budget.n)
		vm.backend, vm.ids = nil, nil
	}()
	L := vm.L
	vm.globals.RawSetString("KEYS", vm.strings(keys))
	vm.globals.RawSetString("ARGV", vm.strings(argv))
	L.Push(vm.function(s))
	err := L.PCall(0, 1, vm.onError)
	ret := L.Get(-1)
	L.SetTop(0)
	if vm.budget.spent != nil {
		return Reply{}, vm.budget.spent
	}
	if err != nil {
		obj := ret
		if ae, ok := err.(*glua.ApiError); ok {
			obj = ae.Object
		}
		return vm.errorReply(obj), nil
	}
	r, lerr := vm.toReply(ret, 0)
	if lerr != nil {
		return Reply{}, lerr
	}
	return r, nil
}

// function is s's function in this VM, made once, its globals the
// sandbox's.
func (vm *VM) function(s *Script) *glua.LFunction {
	if fn, ok := vm.fns[s]; ok {
		return fn
	}
	fn := vm.L.NewFunctionFromProto(s.proto)
	fn.Env = vm.env
	if len(vm.fns) >= cacheSize {
		clear(vm.fns) // a VM that met this many scripts starts again
	}
	vm.fns[s] = fn
	return fn
}

// strings is a 1-based table of ss, as KEYS and ARGV are.
func (vm *VM) strings(ss []string) *glua.LTable {
	t := vm.L.CreateTable(len(ss), 0)
	for i, s := range ss {
		t.RawSetInt(i+1, glua.LString(s))
	}
	return t
}

// budget is a call's instruction budget, in the form gopher-lua asks of a
// context: its VM asks Done before every instruction, and an instruction
// that finds it closed raises Err. Done counts the instructions, so a
// call stops after exactly its limit, whatever the machine. The sandbox's
// other bounds close it too (trip), so that a call that ran into one
// stops at its next instruction even when the script catches the error.
type budget struct {
	vm     *VM
	n      int
	limit  int
	search bool        // the limit is what is left of the VM's total
	spent  *LimitError // the bound it ran into; nil while within them
}

var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (b *budget) Done() <-chan struct{} {
	b.n++
	if b.spent == nil && b.n <= b.limit {
		return nil // a nil channel is never ready: the instruction runs
	}
	if b.spent == nil {
		b.spent = b.vm.instructionsError()
	}
	return closed
}

func (b *budget) Err() error {
	if b.spent == nil {
		return nil
	}
	return b.spent
}

func (*budget) Deadline() (time.Time, bool) { return time.Time{}, false }
func (*budget) Value(any) any               { return nil }

// work charges n elementary steps of a library function's own (a
// pattern's match, a sort's comparisons) to the instruction budget, one
// instruction for every few, so that no function does unbounded work for
// one instruction.
func (vm *VM) work(n int) {
	b := &vm.budget
	b.n += n/8 + 1
	if b.spent == nil && b.n > b.limit {
		vm.trip(vm.instructionsError())
	}
}

// grow charges n bytes of what the call grows, failing the call past
// CallMemory.
func (vm *VM) grow(n int) {
	vm.mem += n
	if vm.mem > CallMemory {
		vm.trip(vm.limit(Memory, fmt.Sprintf("the script grew past %d bytes, the most one call may (strings it made and slots it added to tables)", CallMemory),
			fmt.Sprintf("スクリプトが 1 回の呼び出しで作れる上限 %d バイト (作った文字列と表に加えた枠) を超えた", CallMemory)))
	}
}

// str is a string the script made, charged and bounded.
func (vm *VM) str(s string) glua.LString {
	vm.fits(len(s))
	vm.grow(len(s))
	return glua.LString(s)
}

// fits fails the call when a string of n bytes would be longer than
// MaxString, before it is made.
func (vm *VM) fits(n int) {
	if n > MaxString || n < 0 {
		vm.tooLong(float64(n))
	}
}

// tooLong fails the call on a string of n bytes, which it will not make.
func (vm *VM) tooLong(n float64) {
	vm.trip(vm.limit(String, fmt.Sprintf("the script would build a string of %.0f bytes; no string may be longer than %d", n, MaxString),
		fmt.Sprintf("スクリプトが %.0f バイトの文字列を作ろうとした。文字列は %d バイトまで", n, MaxString)))
}

// trip stops the call on a bound: it raises now, and the budget stays
// closed, so that the call ends at its next instruction even if the
// script catches the error.
func (vm *VM) trip(e *LimitError) {
	if vm.budget.spent == nil {
		vm.budget.spent = e
	}
	vm.L.RaiseError("%s", vm.budget.spent.EN)
}

// line is the line the script is at: that of the innermost Lua function
// on the stack, past the Go functions it called.
func (vm *VM) line() int {
	L := vm.L
	for level := 0; level < CallStack+2; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		if _, err := L.GetInfo("Sl", dbg, glua.LNil); err == nil && dbg.What != "G" && dbg.CurrentLine > 0 {
			return dbg.CurrentLine
		}
	}
	return 0
}

// handleError is the handler of an error that leaves the script, called
// where it was raised: it notes the line, as Redis's handler does.
func (vm *VM) handleError(L *glua.LState) int {
	vm.errLine = vm.line()
	L.Push(L.Get(1))
	return 1
}

// address is how gopher-lua writes a table or a function into a message:
// its address, which would make the same error read differently in two
// runs.
var address = regexp.MustCompile(`(table|function|userdata|thread|channel): 0x[0-9a-f]+`)

// errorReply is the reply to a script that raised obj, in Redis 7's
// words: "ERR user_script:LINE: MESSAGE script: SHA, on @user_script:LINE."
// for an error Lua raised, or a Redis error's own text for one that
// redis.call raised, with where it left the script.
func (vm *VM) errorReply(obj glua.LValue) Reply {
	var msg string
	switch o := obj.(type) {
	case *glua.LTable:
		if s, ok := o.RawGetString("err").(glua.LString); ok {
			msg = string(s)
		} else {
			msg = "ERR unknown error"
		}
	case glua.LString:
		msg = "ERR " + address.ReplaceAllString(string(o), "$1: 0x…")
	default:
		msg = "ERR " + vm.plainString(obj)
	}
	line := vm.errLine
	return Reply{Kind: Error, Line: line,
		Str: msg + " script: " + vm.script.SHA + ", on @" + chunkName + ":" + strconv.Itoa(line) + "."}
}
