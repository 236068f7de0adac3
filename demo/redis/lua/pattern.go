package lua

import (
	"strings"

	glua "github.com/yuin/gopher-lua"
)

// Lua 5.1's patterns, for find, match, gmatch and gsub, matched as Lua's
// own matcher does (lstrlib.c): backtracking, which a pattern can make
// take exponential time. Every step of the match is charged to the call's
// instruction budget and the recursion is bounded, so no pattern runs
// longer than an endless loop may.

const (
	maxCaptures   = 32  // LUA_MAXCAPTURES
	maxMatchDep   = 200 // the deepest a match recurses, as C's stack would allow
	capUnfinished = -1
	capPosition   = -2
	specials      = "^$*+?.([%-"
)

type matcher struct {
	vm    *VM
	L     *glua.LState
	src   string
	pat   string
	level int
	depth int
	caps  [maxCaptures]struct{ init, len int }
}

func (m *matcher) fail(format string, args ...any) {
	m.L.RaiseError(format, args...)
}

// step charges one step of the match.
func (m *matcher) step() {
	b := &m.vm.budget
	if b.n++; b.spent == nil && b.n > b.limit {
		m.vm.trip(m.vm.instructionsError())
	}
}

func (m *matcher) classEnd(p int) int {
	if p >= len(m.pat) {
		m.fail("malformed pattern (ends with '%%')")
	}
	c := m.pat[p]
	p++
	switch c {
	case '%':
		if p >= len(m.pat) {
			m.fail("malformed pattern (ends with '%%')")
		}
		return p + 1
	case '[':
		if p < len(m.pat) && m.pat[p] == '^' {
			p++
		}
		for {
			if p >= len(m.pat) {
				m.fail("malformed pattern (missing ']')")
			}
			c := m.pat[p]
			p++
			if c == '%' && p < len(m.pat) {
				p++
			}
			if p < len(m.pat) && m.pat[p] == ']' {
				return p + 1
			}
		}
	}
	return p
}

func matchClass(c, cl byte) bool {
	var res bool
	switch cl | 0x20 {
	case 'a':
		res = isAlpha(c)
	case 'c':
		res = c < 0x20 || c == 0x7f
	case 'd':
		res = c >= '0' && c <= '9'
	case 'l':
		res = c >= 'a' && c <= 'z'
	case 'p':
		res = c > 0x20 && c < 0x7f && !isAlpha(c) && !(c >= '0' && c <= '9')
	case 's':
		res = c == ' ' || c >= '\t' && c <= '\r'
	case 'u':
		res = c >= 'A' && c <= 'Z'
	case 'w':
		res = isAlpha(c) || c >= '0' && c <= '9'
	case 'x':
		res = c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f'
	case 'z':
		res = c == 0
	default:
		return cl == c
	}
	if cl >= 'A' && cl <= 'Z' {
		return !res
	}
	return res
}

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// bracket matches c against the set [...] from p to ec (its ']').
func (m *matcher) bracket(c byte, p, ec int) bool {
	sig := true
	if m.pat[p+1] == '^' {
		sig = false
		p++
	}
	for p++; p < ec; p++ {
		switch {
		case m.pat[p] == '%':
			p++
			if matchClass(c, m.pat[p]) {
				return sig
			}
		case p+2 < ec && m.pat[p+1] == '-':
			if m.pat[p] <= c && c <= m.pat[p+2] {
				return sig
			}
			p += 2
		case m.pat[p] == c:
			return sig
		}
	}
	return !sig
}

func (m *matcher) single(s, p, ep int) bool {
	if s >= len(m.src) {
		return false
	}
	c := m.src[s]
	switch m.pat[p] {
	case '.':
		return true
	case '%':
		return matchClass(c, m.pat[p+1])
	case '[':
		return m.bracket(c, p, ep-1)
	}
	return m.pat[p] == c
}

// match returns the end of the match of pat[p:] at src[s:], or -1.
func (m *matcher) match(s, p int) int {
	m.step()
	if m.depth++; m.depth > maxMatchDep {
		m.fail("pattern too complex")
	}
	defer func() { m.depth-- }()
	for {
		if p >= len(m.pat) {
			return s
		}
		switch m.pat[p] {
		case '(':
			if p+1 < len(m.pat) && m.pat[p+1] == ')' {
				return m.startCapture(s, p+2, capPosition)
			}
			return m.startCapture(s, p+1, capUnfinished)
		case ')':
			return m.endCapture(s, p+1)
		case '$':
			if p+1 == len(m.pat) {
				if s == len(m.src) {
					return s
				}
				return -1
			}
		case '%':
			if p+1 < len(m.pat) {
				switch c := m.pat[p+1]; {
				case c == 'b':
					if s = m.balance(s, p+2); s < 0 {
						return -1
					}
					p += 4
					continue
				case c == 'f':
					if s, p = m.frontier(s, p+2); s < 0 {
						return -1
					}
					continue
				case c >= '0' && c <= '9':
					if s = m.matchCapture(s, c); s < 0 {
						return -1
					}
					p += 2
					continue
				}
			}
		}
		ep := m.classEnd(p)
		ok := m.single(s, p, ep)
		if ep < len(m.pat) {
			switch m.pat[ep] {
			case '?':
				if ok {
					if r := m.match(s+1, ep+1); r >= 0 {
						return r
					}
				}
				p = ep + 1
				continue
			case '*':
				return m.maxExpand(s, p, ep)
			case '+':
				if !ok {
					return -1
				}
				return m.maxExpand(s+1, p, ep)
			case '-':
				return m.minExpand(s, p, ep)
			}
		}
		if !ok {
			return -1
		}
		s, p = s+1, ep
	}
}

func (m *matcher) maxExpand(s, p, ep int) int {
	i := 0
	for m.single(s+i, p, ep) {
		i++
	}
	m.vm.work(i)
	for ; i >= 0; i-- {
		if r := m.match(s+i, ep+1); r >= 0 {
			return r
		}
	}
	return -1
}

func (m *matcher) minExpand(s, p, ep int) int {
	for {
		if r := m.match(s, ep+1); r >= 0 {
			return r
		}
		if !m.single(s, p, ep) {
			return -1
		}
		s++
	}
}

func (m *matcher) startCapture(s, p, what int) int {
	if m.level >= maxCaptures {
		m.fail("too many captures")
	}
	m.caps[m.level].init, m.caps[m.level].len = s, what
	m.level++
	r := m.match(s, p)
	if r < 0 {
		m.level--
	}
	return r
}

func (m *matcher) endCapture(s, p int) int {
	l := -1
	for i := m.level - 1; i >= 0; i-- {
		if m.caps[i].len == capUnfinished {
			l = i
			break
		}
	}
	if l < 0 {
		m.fail("invalid pattern capture")
	}
	m.caps[l].len = s - m.caps[l].init
	r := m.match(s, p)
	if r < 0 {
		m.caps[l].len = capUnfinished
	}
	return r
}

func (m *matcher) balance(s, p int) int {
	if p+1 >= len(m.pat) {
		m.fail("unbalanced pattern")
	}
	if s >= len(m.src) || m.src[s] != m.pat[p] {
		return -1
	}
	b, e, cont := m.pat[p], m.pat[p+1], 1
	for i := s + 1; i < len(m.src); i++ {
		switch m.src[i] {
		case e:
			if cont--; cont == 0 {
				m.vm.work(i - s)
				return i + 1
			}
		case b:
			cont++
		}
	}
	m.vm.work(len(m.src) - s)
	return -1
}

// frontier is %f[set]: the position between a character not in set and
// one in it (the string's ends count as \0).
func (m *matcher) frontier(s, p int) (int, int) {
	if p >= len(m.pat) || m.pat[p] != '[' {
		m.fail("missing '[' after '%%f' in pattern")
	}
	ep := m.classEnd(p)
	prev, cur := byte(0), byte(0)
	if s > 0 {
		prev = m.src[s-1]
	}
	if s < len(m.src) {
		cur = m.src[s]
	}
	if m.bracket(prev, p, ep-1) || !m.bracket(cur, p, ep-1) {
		return -1, p
	}
	return s, ep
}

func (m *matcher) matchCapture(s int, c byte) int {
	l := int(c - '1')
	if l < 0 || l >= m.level || m.caps[l].len == capUnfinished {
		m.fail("invalid capture index")
	}
	capt := m.src[m.caps[l].init : m.caps[l].init+m.caps[l].len]
	m.vm.work(len(capt))
	if strings.HasPrefix(m.src[s:], capt) {
		return s + len(capt)
	}
	return -1
}

// capture is capture i of the match src[s:e]: a string, or a position.
func (m *matcher) capture(i, s, e int) glua.LValue {
	if i >= m.level {
		if i != 0 {
			m.fail("invalid capture index")
		}
		return m.vm.str(m.src[s:e])
	}
	c := m.caps[i]
	switch c.len {
	case capUnfinished:
		m.fail("unfinished capture")
	case capPosition:
		return glua.LNumber(c.init + 1)
	}
	return m.vm.str(m.src[c.init : c.init+c.len])
}

// push pushes the match's captures (the whole match when it has none)
// and returns how many.
func (m *matcher) push(s, e int, whole bool) int {
	n := m.level
	if n == 0 && whole {
		n = 1
	}
	for i := range n {
		m.L.Push(m.capture(i, s, e))
	}
	return n
}

// find is string.find (find) and string.match.
func (vm *VM) find(L *glua.LState, find bool) int {
	src, pat := checkString(L, 1), checkString(L, 2)
	init := posrelat(L.OptInt(3, 1), len(src)) - 1
	init = min(max(init, 0), len(src))
	if find && (glua.LVAsBool(L.Get(4)) || !strings.ContainsAny(pat, specials)) {
		vm.work(len(src) - init)
		if i := strings.Index(src[init:], pat); i >= 0 {
			L.Push(glua.LNumber(init + i + 1))
			L.Push(glua.LNumber(init + i + len(pat)))
			return 2
		}
		L.Push(glua.LNil)
		return 1
	}
	anchor := strings.HasPrefix(pat, "^")
	if anchor {
		pat = pat[1:]
	}
	m := &matcher{vm: vm, L: L, src: src, pat: pat}
	for s := init; ; s++ {
		m.level = 0
		if e := m.match(s, 0); e >= 0 {
			if find {
				L.Push(glua.LNumber(s + 1))
				L.Push(glua.LNumber(e))
				return m.push(-1, -1, false) + 2
			}
			return m.push(s, e, true)
		}
		if s >= len(src) || anchor {
			break
		}
	}
	L.Push(glua.LNil)
	return 1
}

// gmatch is string.gmatch: an iterator over the matches, each step a
// search from where the last match ended.
func (vm *VM) gmatch(L *glua.LState) int {
	src, pat := checkString(L, 1), checkString(L, 2)
	pos := 0
	L.Push(L.NewFunction(func(L *glua.LState) int {
		m := &matcher{vm: vm, L: L, src: src, pat: pat}
		for s := pos; s <= len(src); s++ {
			m.level = 0
			if e := m.match(s, 0); e >= 0 {
				pos = e
				if e == s {
					pos++ // an empty match: go on at least one
				}
				return m.push(s, e, true)
			}
		}
		pos = len(src) + 1
		return 0
	}))
	return 1
}

// gsub is string.gsub: each match replaced by a string (with %0-%9), a
// table's value or a function's answer, the result bounded as it grows.
func (vm *VM) gsub(L *glua.LState) int {
	src, pat := checkString(L, 1), checkString(L, 2)
	repl := L.Get(3)
	switch repl.Type() {
	case glua.LTNumber, glua.LTString, glua.LTFunction, glua.LTTable:
	default:
		L.ArgError(3, "string/function/table expected")
	}
	maxN := L.OptInt(4, len(src)+1)
	anchor := strings.HasPrefix(pat, "^")
	if anchor {
		pat = pat[1:]
	}
	m := &matcher{vm: vm, L: L, src: src, pat: pat}
	var b strings.Builder
	add := func(s string) {
		vm.fits(b.Len() + len(s))
		b.WriteString(s)
	}
	s, n := 0, 0
	for n < maxN {
		m.level = 0
		e := m.match(s, 0)
		if e >= 0 {
			n++
			add(m.replacement(repl, s, e))
		}
		switch {
		case e > s:
			s = e
		case s < len(src):
			add(src[s : s+1])
			s++
		default:
			s = len(src) + 1
		}
		if s > len(src) || anchor {
			break
		}
	}
	if s < len(src) {
		add(src[s:])
	}
	vm.work(b.Len())
	L.Push(vm.str(b.String()))
	L.Push(glua.LNumber(n))
	return 2
}

// replacement is what the match src[s:e] is replaced by.
func (m *matcher) replacement(repl glua.LValue, s, e int) string {
	L := m.L
	var v glua.LValue
	switch r := repl.(type) {
	case glua.LString, glua.LNumber:
		news, _ := stringy(r)
		var b strings.Builder
		for i := 0; i < len(news); i++ {
			c := news[i]
			if c != '%' || i+1 >= len(news) {
				b.WriteByte(c)
				continue
			}
			i++
			switch d := news[i]; {
			case d == '0':
				b.WriteString(m.src[s:e])
			case d >= '1' && d <= '9':
				cs, _ := stringy(m.capture(int(d-'1'), s, e))
				b.WriteString(cs)
			default:
				b.WriteByte(d)
			}
			m.vm.fits(b.Len())
		}
		return b.String()
	case *glua.LFunction:
		L.Push(r)
		L.Call(m.push(s, e, true), 1)
		v = L.Get(-1)
		L.Pop(1)
	case *glua.LTable:
		v = L.GetTable(r, m.capture(0, s, e))
	}
	if !glua.LVAsBool(v) {
		return m.src[s:e]
	}
	out, ok := stringy(v)
	if !ok {
		L.RaiseError("invalid replacement value (a %s)", v.Type())
	}
	return out
}
