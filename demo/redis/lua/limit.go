package lua

import "fmt"

// Limit is which of the sandbox's bounds a call ran into.
type Limit uint8

// The bounds.
const (
	Instructions Limit = iota + 1 // CallInstructions in one call
	Search                        // SearchInstructions in one VM: a run, or a search
	Memory                        // CallMemory grown in one call
	String                        // MaxString in one string
	Size                          // a reply, or redis.call's arguments, past their bounds
	Unplayed                      // a command the model does not play
)

// LimitError is a call that the sandbox stopped: it ran into a bound, or
// called what the model does not play. It is no answer of Redis's: Redis
// has no such bounds, so the call is refused rather than answered.
type LimitError struct {
	Script string
	Line   int // the line of the script it stopped at; 0 when before any
	Kind   Limit
	EN, JA string // what happened
}

func (e *LimitError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("script %q, line %d: %s", e.Script, e.Line, e.EN)
	}
	return fmt.Sprintf("script %q: %s", e.Script, e.EN)
}

// Text is the error in Japanese and English, for a page.
func (e *LimitError) Text() (ja, en string) {
	if e.Line > 0 {
		return fmt.Sprintf("スクリプト %q の %d 行目: %s", e.Script, e.Line, e.JA), e.Error()
	}
	return fmt.Sprintf("スクリプト %q: %s", e.Script, e.JA), e.Error()
}

// Exhausted reports whether the error is the VM's total budget spent: a
// search that meets it ends there, as every later call would meet it too.
func (e *LimitError) Exhausted() bool { return e.Kind == Search }

// limit is a bound met at the script's current line.
func (vm *VM) limit(k Limit, en, ja string) *LimitError {
	return &LimitError{Script: vm.script.Name, Line: vm.line(), Kind: k, EN: en, JA: ja}
}

// instructionsError is the call's instruction budget spent: its own, or
// what was left of the VM's total.
func (vm *VM) instructionsError() *LimitError {
	if vm.budget.search {
		return vm.spentError(vm.line())
	}
	return vm.limit(Instructions,
		fmt.Sprintf("the script ran %d instructions without finishing, the most one call may run (an endless loop?)", CallInstructions),
		fmt.Sprintf("スクリプトが 1 回の呼び出しの上限 %d 命令を実行しても終わらない (無限ループ?)", CallInstructions))
}

// spentError is the VM's total budget spent.
func (vm *VM) spentError(line int) *LimitError {
	name := ""
	if vm.script != nil {
		name = vm.script.Name
	}
	return &LimitError{Script: name, Line: line, Kind: Search,
		EN: fmt.Sprintf("the scripts have run %d instructions in this run or search, the most it may; it stops here", vm.search),
		JA: fmt.Sprintf("この実行 (または探索) でスクリプトが上限の %d 命令を使い切った。ここで打ち切る", vm.search)}
}
