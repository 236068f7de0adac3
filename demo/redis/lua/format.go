package lua

import (
	"fmt"
	"math"
	"strings"

	glua "github.com/yuin/gopher-lua"
)

// strFormat is Lua 5.1's string.format: each directive read as C's printf
// reads it, with Lua 5.1's limits (two digits of width and of precision),
// and the result's length reckoned before anything is made, so that no
// width or argument makes a string past MaxString.
func (vm *VM) strFormat(L *glua.LState) int {
	f := checkString(L, 1)
	var b strings.Builder
	arg := 1
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		i++
		if i < len(f) && f[i] == '%' {
			b.WriteByte('%')
			continue
		}
		spec, conv, next := directive(L, f, i)
		i = next
		arg++
		if L.GetTop() < arg {
			L.ArgError(arg, "no value")
		}
		s := vm.formatOne(L, arg, spec, conv)
		vm.fits(b.Len() + len(s))
		b.WriteString(s)
	}
	vm.work(b.Len())
	L.Push(vm.str(b.String()))
	return 1
}

// directive reads the flags, width and precision at f[i:] and the
// conversion after them; next is the conversion's index.
func directive(L *glua.LState, f string, i int) (spec string, conv byte, next int) {
	start := i
	for i < len(f) && strings.IndexByte("-+ #0", f[i]) >= 0 {
		i++
	}
	if i-start > 5 {
		L.RaiseError("invalid format (repeated flags)")
	}
	digits := func() {
		n := 0
		for i < len(f) && f[i] >= '0' && f[i] <= '9' {
			i++
			n++
		}
		if n > 2 {
			L.RaiseError("invalid format (width or precision too long)")
		}
	}
	digits()
	if i < len(f) && f[i] == '.' {
		i++
		digits()
	}
	if i >= len(f) {
		L.RaiseError("invalid option '%%' to 'format'")
	}
	return "%" + f[start:i], f[i], i
}

// formatOne formats argument n by one directive.
func (vm *VM) formatOne(L *glua.LState, n int, spec string, conv byte) string {
	switch conv {
	case 'd', 'i':
		return fmt.Sprintf(spec+"d", toInteger(float64(L.CheckNumber(n))))
	case 'o', 'x', 'X':
		return fmt.Sprintf(spec+string(conv), uint64(toInteger(float64(L.CheckNumber(n)))))
	case 'u':
		return fmt.Sprintf(spec+"d", uint64(toInteger(float64(L.CheckNumber(n)))))
	case 'c':
		return fmt.Sprintf(spec+"c", rune(byte(toInteger(float64(L.CheckNumber(n))))))
	case 'e', 'E', 'f', 'g', 'G':
		x := float64(L.CheckNumber(n))
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Sprintf(strings.TrimRight(spec, "0123456789.")+"s", number(x))
		}
		return fmt.Sprintf(spec+string(conv), x)
	case 'q':
		s := checkString(L, n)
		vm.fits(2*len(s) + 2)
		return quoteLua(s)
	case 's':
		return padString(spec, checkString(L, n))
	}
	L.RaiseError("invalid option '%%%c' to 'format'", conv)
	return ""
}

// padString is %s by bytes, as C counts, not by runes, as Go does.
func padString(spec, s string) string {
	width, prec, left := 0, -1, strings.Contains(spec, "-")
	body := strings.TrimLeft(spec[1:], "-+ #0")
	w, p, dot := strings.Cut(body, ".")
	fmt.Sscan(w, &width)
	if dot {
		prec = 0
		fmt.Sscan(p, &prec)
	}
	if prec >= 0 && prec < len(s) {
		s = s[:prec]
	}
	if pad := width - len(s); pad > 0 {
		if left {
			return s + strings.Repeat(" ", pad)
		}
		return strings.Repeat(" ", pad) + s
	}
	return s
}

// quoteLua is %q: s between double quotes, read back by Lua as s.
func quoteLua(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\r':
			b.WriteString(`\r`)
		case 0:
			b.WriteString(`\000`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
