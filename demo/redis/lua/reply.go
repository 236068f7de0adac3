package lua

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	glua "github.com/yuin/gopher-lua"
)

// Kind is a Redis reply's type, in the protocol Redis speaks to a script
// (RESP2).
type Kind uint8

// The reply types.
const (
	Nil     Kind = iota // a nil bulk string
	Integer             // :1
	Bulk                // $3 abc
	Status              // +OK
	Error               // -ERR ...
	Array               // *2 ...
)

// Reply is one Redis reply: what a command answers a script, and what a
// script answers its client.
type Reply struct {
	Kind  Kind
	Int   int64   // Integer
	Str   string  // Bulk, Status, Error (with its code: "ERR ...", "WRONGTYPE ...")
	Elems []Reply // Array
	// Line is, for an error a script raised, the line it left the script
	// from; 0 for every other reply.
	Line int
}

// Replies that commands answer often.
var (
	OK   = Reply{Kind: Status, Str: "OK"}
	Zero = Int(0)
	One  = Int(1)
)

// Int is an integer reply.
func Int(n int64) Reply { return Reply{Kind: Integer, Int: n} }

// Str is a bulk string reply.
func Str(s string) Reply { return Reply{Kind: Bulk, Str: s} }

// Err is an error reply: code and message, as "ERR syntax error".
func Err(msg string) Reply { return Reply{Kind: Error, Str: msg} }

// String is the reply as redis-cli prints it, on one line: (integer) 1,
// "abc", OK, (nil), (error) ERR ..., 1) "a" 2) (integer) 3.
func (r Reply) String() string {
	switch r.Kind {
	case Integer:
		return "(integer) " + strconv.FormatInt(r.Int, 10)
	case Bulk:
		return quote(r.Str)
	case Status:
		return r.Str
	case Error:
		return "(error) " + r.Str
	case Array:
		if len(r.Elems) == 0 {
			return "(empty array)"
		}
		parts := make([]string, len(r.Elems))
		for i, e := range r.Elems {
			parts[i] = strconv.Itoa(i+1) + ") " + e.String()
		}
		return strings.Join(parts, " ")
	}
	return "(nil)"
}

// quote writes s between double quotes as redis-cli does: \" \\ \n \r \t
// \a \b escaped, other bytes that do not print as \xhh.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		default:
			if c < 0x20 || c >= 0x7f {
				fmt.Fprintf(&b, `\x%02x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// toReply is the reply to a script that returned v, as Redis 7 converts
// it: a number is an integer (its fraction cut off), a string a bulk
// string, true 1, false and nil a nil; a table with a string err field an
// error, with a string ok field a status, and otherwise an array of its
// elements up to the first nil. A reply that nests or holds more than the
// bounds allow is a *LimitError.
func (vm *VM) toReply(v glua.LValue, depth int) (Reply, *LimitError) {
	switch v := v.(type) {
	case glua.LNumber:
		return Int(toInteger(float64(v))), nil
	case glua.LString:
		return Str(string(v)), nil
	case glua.LBool:
		if v {
			return One, nil
		}
	case *glua.LTable:
		return vm.tableReply(v, depth)
	}
	return Reply{}, nil
}

func (vm *VM) tableReply(t *glua.LTable, depth int) (Reply, *LimitError) {
	if s, ok := t.RawGetString("err").(glua.LString); ok {
		return Err(string(s)), nil
	}
	if s, ok := t.RawGetString("ok").(glua.LString); ok {
		return Reply{Kind: Status, Str: strings.NewReplacer("\r", " ", "\n", " ").Replace(string(s))}, nil
	}
	if depth >= MaxReplyDepth {
		return Reply{}, vm.sizeError(fmt.Sprintf("the script's reply nests deeper than %d tables", MaxReplyDepth),
			fmt.Sprintf("スクリプトの応答の表の入れ子が %d 段より深い", MaxReplyDepth))
	}
	r := Reply{Kind: Array, Elems: []Reply{}}
	for i := 1; ; i++ {
		e := t.RawGetInt(i)
		if e == glua.LNil {
			return r, nil
		}
		if i > MaxReplyElems {
			return Reply{}, vm.sizeError(fmt.Sprintf("the script's reply holds more than %d elements", MaxReplyElems),
				fmt.Sprintf("スクリプトの応答の要素が %d 個を超える", MaxReplyElems))
		}
		er, err := vm.toReply(e, depth+1)
		if err != nil {
			return Reply{}, err
		}
		r.Elems = append(r.Elems, er)
	}
}

func (vm *VM) sizeError(en, ja string) *LimitError {
	return &LimitError{Script: vm.script.Name, Kind: Size, EN: en, JA: ja}
}

// toInteger is a Lua number as Redis makes it an integer reply: the
// fraction cut off, as C's cast does.
func toInteger(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return math.MinInt64
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// toLua is what redis.call gives the script for reply r: an integer a
// number, a bulk string a string, a nil false, an array a table (its nils
// false), a status {ok = ...} and an error {err = ...} (which call raises
// and pcall returns). Each string and slot is charged.
func (vm *VM) toLua(r Reply) glua.LValue {
	L := vm.L
	switch r.Kind {
	case Integer:
		return glua.LNumber(r.Int)
	case Bulk:
		return vm.str(r.Str)
	case Status, Error:
		t := L.CreateTable(0, 1)
		vm.grow(tableBytes + slotBytes)
		field := "ok"
		if r.Kind == Error {
			field = "err"
		}
		t.RawSetString(field, vm.str(r.Str))
		return t
	case Array:
		t := L.CreateTable(len(r.Elems), 0)
		vm.grow(tableBytes + len(r.Elems)*slotBytes)
		for i, e := range r.Elems {
			t.RawSetInt(i+1, vm.toLua(e))
		}
		return t
	}
	return glua.LFalse
}
