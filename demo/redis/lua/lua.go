// Package lua runs the Lua scripts a client sends Redis with EVAL, a
// learner's among them, in a sandbox. It offers what Redis's own sandbox
// offers a script (the base library without loading code or touching
// globals, string, table and math, redis.call and its kin) and nothing
// more: no os, io, debug, package or coroutine, no random numbers, no
// addresses. A call is a pure function of the script, its KEYS and ARGV
// and the keyspace, so the model that runs it stays deterministic, and it
// is bounded: in instructions per call and per VM (a run, or a whole
// search), and in what it can grow. The package knows nothing of keys:
// redis.call goes to a Backend, which package redis binds to the model's
// node.
//
// The bounds, and why each is where it is:
//
//   - CallInstructions, 100,000 VM instructions a call: a lock script runs
//     a few dozen (the compare-and-delete script 14); an endless loop
//     stops within a few milliseconds, at the instruction that crossed it.
//   - SearchInstructions, 50,000,000 a VM: the finder may run a script
//     for each of hundreds of thousands of states, and one VM serves a
//     run and every copy of it a search makes. Past it every call is
//     refused, with an error a search ends on (Exhausted).
//   - CallMemory, 1 MiB a call of what a script can grow: every string it
//     makes (..., string.rep, format, gsub, table.concat and the rest) and
//     every slot it adds to a table is charged. Each instruction allocates
//     at most a few hundred bytes besides, so the two together bound a
//     call's memory to a few MiB, garbage the call leaves behind.
//   - MaxString, 64 KiB: no string a script makes is longer. A lock's
//     value is 40 bytes.
//   - MaxTableSlots: no table grows past 65,536 slots, as each is charged
//     16 bytes of the call's 1 MiB.
//   - MaxScript, 16 KiB of Lua, and a Lua call stack of 100 frames.
//   - MaxCallArgs and MaxArg: redis.call takes at most 32 arguments of at
//     most 1 KiB each; a reply nests at most 8 deep and holds at most 1,024
//     elements. The keyspace's own bounds are package redis's.
package lua

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"

	glua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// The sandbox's bounds (see the package comment for why each).
const (
	CallInstructions   = 100_000
	SearchInstructions = 50_000_000
	CallMemory         = 1 << 20
	MaxString          = 64 << 10
	MaxTableSlots      = CallMemory / slotBytes
	MaxScript          = 16 << 10
	CallStack          = 100
	MaxCallArgs        = 32
	MaxArg             = 1 << 10
	MaxReplyDepth      = 8
	MaxReplyElems      = 1 << 10
)

// slotBytes is what one table slot is charged: a Lua value in Go is an
// interface, two words.
const slotBytes = 16

// chunkName is what Redis names every script's chunk: its errors read
// "user_script:LINE: ...".
const chunkName = "user_script"

// Script is a compiled script: its name in the scenario, its text, and the
// SHA1 of the text, by which Redis knows it (EVALSHA) and names it in its
// errors. Compile it once; any number of VMs may run it.
type Script struct {
	Name  string
	Text  string
	SHA   string
	proto *glua.FunctionProto
}

// CompileError is a script that does not compile: a syntax error, or Lua
// that Redis's Lua 5.1 does not take (goto), at Line of the script.
type CompileError struct {
	Script string
	Line   int
	EN, JA string // the reason
}

func (e *CompileError) Error() string {
	return fmt.Sprintf("script %q does not compile: line %d: %s", e.Script, e.Line, e.EN)
}

// Text is the mistake in Japanese and English, for a page.
func (e *CompileError) Text() (ja, en string) {
	return fmt.Sprintf("スクリプト %q をコンパイルできない: %d 行目: %s", e.Script, e.Line, e.JA),
		e.Error()
}

// ScriptLine names the script and the line of it that is wrong, so that a
// loader can point at the file's line.
func (e *CompileError) ScriptLine() (string, int) { return e.Script, e.Line }

// Compile parses and compiles a script's text. Every concatenation,
// table constructor and assignment to a table's field becomes a call of
// the sandbox's own checked function (rewrite.go), so that what a script
// grows is charged; the rest compiles as written.
func Compile(name, text string) (*Script, error) {
	if len(text) > MaxScript {
		return nil, &CompileError{Script: name, Line: 1,
			EN: fmt.Sprintf("the script is %d bytes; this sandbox takes at most %d", len(text), MaxScript),
			JA: fmt.Sprintf("スクリプトが %d バイトある。このサンドボックスが受け付けるのは %d バイトまで", len(text), MaxScript)}
	}
	chunk, err := parse.Parse(strings.NewReader(text), chunkName)
	if err != nil {
		return nil, parseError(name, text, err)
	}
	if err := rewrite(chunk); err != nil {
		err.Script = name
		return nil, err
	}
	proto, err := glua.Compile(chunk, chunkName)
	if err != nil {
		line := 1
		var ce *glua.CompileError
		if errors.As(err, &ce) {
			line = ce.Line
		}
		return nil, &CompileError{Script: name, Line: line, EN: err.Error(), JA: err.Error()}
	}
	// The body is a function of no arguments, as Redis makes it: gopher-lua
	// compiles a chunk as taking ..., and would make every call an arg
	// table (Lua 5.0's) that nothing can read.
	proto.IsVarArg = 0
	sum := sha1.Sum([]byte(text))
	return &Script{Name: name, Text: text, SHA: hex.EncodeToString(sum[:]), proto: proto}, nil
}

// parseError words the parser's error with the line it stands on.
func parseError(name, text string, err error) *CompileError {
	e := &CompileError{Script: name, Line: 1, EN: "syntax error", JA: "構文エラー"}
	var pe *parse.Error
	if !errors.As(err, &pe) {
		e.EN = strings.TrimSpace(err.Error())
		e.JA = e.EN
		return e
	}
	if pe.Pos.Line == parse.EOF {
		e.Line = strings.Count(strings.TrimRight(text, "\n"), "\n") + 1
		e.EN = "the script ends too soon (" + pe.Message + "): an end, a ) or an expression is missing"
		e.JA = "スクリプトが途中で終わっている (" + pe.Message + ")。end や ) や式が足りない"
		return e
	}
	e.Line = pe.Pos.Line
	e.EN = fmt.Sprintf("%s near %q", pe.Message, pe.Token)
	e.JA = fmt.Sprintf("%q の付近で誤り (%s)", pe.Token, pe.Message)
	return e
}

// cache keeps the scripts compiled last, by name and text, so that a
// script is compiled once however many runs and searches play it. It is
// bounded: a public server compiles what learners send.
var cache = struct {
	sync.Mutex
	m     map[[2]string]*Script
	order [][2]string
}{m: map[[2]string]*Script{}}

// cacheSize is how many scripts the cache keeps: a few per lab, for a
// room of learners.
const cacheSize = 512

// Compiled is Compile, once per name and text.
func Compiled(name, text string) (*Script, error) {
	k := [2]string{name, text}
	cache.Lock()
	s, ok := cache.m[k]
	cache.Unlock()
	if ok {
		return s, nil
	}
	s, err := Compile(name, text)
	if err != nil {
		return nil, err
	}
	cache.Lock()
	defer cache.Unlock()
	if _, ok := cache.m[k]; !ok {
		if len(cache.order) >= cacheSize {
			delete(cache.m, cache.order[0])
			cache.order = cache.order[1:]
		}
		cache.m[k] = s
		cache.order = append(cache.order, k)
	}
	return s, nil
}
