package lua

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	glua "github.com/yuin/gopher-lua"
)

// redisLib is the redis table a script sees: call and pcall to the
// Backend, the reply helpers, sha1hex, and log, which goes nowhere.
func (vm *VM) redisLib() *glua.LTable {
	L := vm.L
	t := L.NewTable()
	vm.set(t, map[string]glua.LGFunction{
		"call":  func(L *glua.LState) int { return vm.call(L, true) },
		"pcall": func(L *glua.LState) int { return vm.call(L, false) },
		"error_reply": func(L *glua.LState) int {
			L.Push(vm.toLua(Err(errorText(vm.onlyString(L)))))
			return 1
		},
		"status_reply": func(L *glua.LState) int {
			L.Push(vm.toLua(Reply{Kind: Status, Str: vm.onlyString(L)}))
			return 1
		},
		"sha1hex": func(L *glua.LState) int {
			sum := sha1.Sum([]byte(L.CheckString(1)))
			L.Push(glua.LString(hex.EncodeToString(sum[:])))
			return 1
		},
		"log": func(L *glua.LState) int {
			if L.GetTop() < 2 {
				L.RaiseError("redis.log() requires two arguments or more.")
			}
			return 0
		},
		"replicate_commands": func(L *glua.LState) int { L.Push(glua.LTrue); return 1 },
	})
	for i, name := range []string{"LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING"} {
		t.RawSetString(name, glua.LNumber(i))
	}
	return t
}

// onlyString is the one string argument of error_reply and status_reply.
func (vm *VM) onlyString(L *glua.LState) string {
	s, ok := L.Get(1).(glua.LString)
	if L.GetTop() != 1 || !ok {
		L.RaiseError("wrong number or type of arguments")
	}
	return string(s)
}

// errorText is redis.error_reply's text as Redis 7 makes it: a message
// that starts with its code keeps it ("E2 bad"), one without gets ERR's;
// a leading "-" is dropped.
func errorText(msg string) string {
	msg = "-" + strings.TrimPrefix(msg, "-")
	code, rest, found := strings.Cut(msg[1:], " ")
	if !found {
		return "ERR " + strings.Trim(msg[1:], "\r\n")
	}
	return code + " " + strings.Trim(rest, "\r\n")
}

// call is redis.call (raise true) and redis.pcall: the arguments as Redis
// reads them, the command to the Backend, and its reply as the script
// gets it. An error reply is raised by call and returned by pcall, as in
// Redis 7.
func (vm *VM) call(L *glua.LState, raise bool) int {
	args, bad := vm.args(L)
	var r Reply
	if bad != "" {
		r = Err("ERR " + bad)
	} else {
		var err error
		r, err = vm.backend.Call(args)
		var le *LimitError
		if errors.As(err, &le) {
			e := *le
			e.Script, e.Line = vm.script.Name, vm.line()
			vm.trip(&e)
		} else if err != nil {
			vm.trip(vm.limit(Unplayed, err.Error(), err.Error()))
		}
	}
	v := vm.toLua(r)
	if r.Kind == Error && raise {
		L.Error(v, 0)
	}
	L.Push(v)
	return 1
}

// args reads redis.call's arguments: strings, or numbers written as Redis
// writes them; bad is Redis's complaint when they are not.
func (vm *VM) args(L *glua.LState) (args []string, bad string) {
	n := L.GetTop()
	if n == 0 {
		return nil, "Please specify at least one argument for this redis lib call"
	}
	if n > MaxCallArgs {
		vm.trip(vm.limit(Size, fmt.Sprintf("redis.call takes at most %d arguments here; the script passed %d", MaxCallArgs, n),
			fmt.Sprintf("ここでの redis.call の引数は %d 個まで。スクリプトは %d 個渡した", MaxCallArgs, n)))
	}
	args = make([]string, n)
	for i := range n {
		switch v := L.Get(i + 1).(type) {
		case glua.LString:
			args[i] = string(v)
		case glua.LNumber:
			args[i] = argNumber(float64(v))
		default:
			return nil, "Lua redis lib command arguments must be strings or integers"
		}
		if len(args[i]) > MaxArg {
			vm.trip(vm.limit(Size, fmt.Sprintf("an argument of redis.call is %d bytes; this model's Redis takes at most %d", len(args[i]), MaxArg),
				fmt.Sprintf("redis.call の引数が %d バイトある。このモデルの Redis が受け付けるのは %d バイトまで", len(args[i]), MaxArg)))
		}
	}
	return args, ""
}

// argNumber writes a number argument as Redis 7 does (fpconv_dtoa): an
// integer in full, anything else in the shortest form that reads back.
func argNumber(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
