// Package plainyaml reads the plain shape of YAML that scenarios.yaml and
// guide.yaml are written in (block mappings and sequences, one-line
// scalars, plain or quoted, and one-line lists and mappings of plain words)
// straight into the file's Go types (Decode), or into the YAML library's own
// yaml.Node (Parse), several times faster than the library. Reading them is
// most of a server's start.
//
// It never guesses: anything outside that shape (a block scalar, an anchor,
// a tag, a nested flow collection, a scalar that runs on to the next line,
// a tab in the indentation, and so on) makes Parse report false, and the
// caller reads the file with the library, whose answer, and whose error
// messages, are then the ones the user sees. A fuzz test holds Parse to the
// library: whatever Parse reads, the library reads to the same tree.
package plainyaml

import (
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Parse reads data into a document node as yaml.Unmarshal into a yaml.Node
// would (without comments), or reports false when data is not in the plain
// shape.
func Parse(data []byte) (*yaml.Node, bool) {
	root, ok := parse(data, 1)
	if !ok {
		return nil, false
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Line: int(root.line), Column: 1, Content: []*yaml.Node{root.yaml()}}, true
}

// parse reads data, whose first line is line first of its file, into the
// plain reader's own tree, or reports false.
func parse(data []byte, first int) (*node, bool) {
	p, ok := newParser(data, first)
	if !ok || len(p.lines) == 0 {
		return nil, false
	}
	if p.lines[0].indent != 0 {
		return nil, false
	}
	var root node
	p.block(0, &root)
	if p.bad || p.i != len(p.lines) {
		return nil, false
	}
	return &root, true
}

// node is what the plain reader reads: a yaml.Node's few fields the plain
// shape has, its children held by value, so that a file is a few large
// allocations rather than one per node.
type node struct {
	kind         yaml.Kind
	style        yaml.Style
	empty        bool // an empty value, which the library reads as null
	line, column int32
	value        string
	content      []node // a mapping's keys and values in turn
}

// tag is the tag the library gives n before it resolves a plain scalar's.
func (n *node) tag() string {
	switch {
	case n.kind == yaml.MappingNode:
		return "!!map"
	case n.kind == yaml.SequenceNode:
		return "!!seq"
	case n.empty:
		return "!!null"
	case n.style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
		return "!!str"
	}
	return ""
}

// yaml converts n to the library's node, as the library would have read it.
func (n *node) yaml() *yaml.Node {
	y := &yaml.Node{Kind: n.kind, Style: n.style, Tag: n.tag(), Value: n.value, Line: int(n.line), Column: int(n.column)}
	if len(n.content) > 0 {
		y.Content = make([]*yaml.Node, len(n.content))
		for i := range n.content {
			y.Content[i] = n.content[i].yaml()
		}
	}
	return y
}

// line is one line that holds something: its number, its indentation, and
// its text after the indentation (a whole-line comment is no line).
type line struct {
	n      int
	indent int
	text   string
}

type parser struct {
	lines []line
	i     int  // the next line to read
	bad   bool // the text left the plain shape
	// stack holds the children of the blocks being read, each block's
	// above its parent's, so that a block's list is allocated once, at
	// its length, when the block ends.
	stack []node
}

// push starts a block's children on the stack.
func (p *parser) push() int { return len(p.stack) }

// pop ends the block whose children start at base, and gives them.
func (p *parser) pop(base int) []node {
	if len(p.stack) == base {
		return nil
	}
	kids := slices.Clone(p.stack[base:])
	clear(p.stack[base:]) // the stack keeps no strings alive
	p.stack = p.stack[:base]
	return kids
}

// newParser cuts data into lines, refusing what the plain shape never has:
// a carriage return, a tab, a control character, text that is not UTF-8, a
// byte order mark, a document marker or a directive.
func newParser(data []byte, first int) (*parser, bool) {
	if !utf8.Valid(data) {
		return nil, false
	}
	text := string(data)
	p := &parser{lines: make([]line, 0, strings.Count(text, "\n")+1)}
	for n, more := first, true; more; n++ {
		var s string
		s, text, more = strings.Cut(text, "\n")
		if !plainChars(s) {
			return nil, false
		}
		text := strings.TrimLeft(s, " ")
		if text == "" || text[0] == '#' {
			continue
		}
		if strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...") || s[0] == '%' {
			return nil, false
		}
		p.lines = append(p.lines, line{n: n, indent: len(s) - len(text), text: strings.TrimRight(text, " ")})
	}
	return p, true
}

// plainChars reports whether a line has none of the characters the plain
// shape never has: a control character (a tab, a carriage return), a byte
// order mark, a line or paragraph separator.
func plainChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < ' ' || c == 0x7f {
				return false
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r < 0xa0 || r == 0xfeff || r == 0x2028 || r == 0x2029 {
			return false
		}
		i += size - 1
	}
	return true
}

// block reads the mapping or the sequence that starts at the next line, at
// its indentation.
func (p *parser) block(indent int, out *node) {
	l := p.lines[p.i]
	if l.text == "-" || strings.HasPrefix(l.text, "- ") {
		p.sequence(indent, out)
		return
	}
	p.mapping(indent, out)
}

// sequence reads the items "- ..." at indent.
func (p *parser) sequence(indent int, seq *node) {
	first := p.lines[p.i]
	*seq = node{kind: yaml.SequenceNode, line: int32(first.n), column: int32(indent + 1)}
	base := p.push()
	defer func() { seq.content = p.pop(base) }()
	for !p.bad && p.i < len(p.lines) {
		l := p.lines[p.i]
		if l.indent != indent || !(l.text == "-" || strings.HasPrefix(l.text, "- ")) {
			break
		}
		var item node
		p.item(l, &item)
		p.stack = append(p.stack, item)
	}
	if p.i < len(p.lines) && p.lines[p.i].indent > indent {
		p.bad = true // an item's text runs on, or an indentation YAML would refuse
	}
}

// item reads one item of a sequence: a nested block, a mapping that starts
// on the dash's line, or a scalar.
func (p *parser) item(l line, out *node) {
	if l.text == "-" {
		p.i++
		p.value(l.indent, l.n, len(l.text)+l.indent+1, true, out)
		return
	}
	rest := strings.TrimLeft(l.text[1:], " ")
	indent := l.indent + len(l.text) - len(rest)
	if rest == "-" || strings.HasPrefix(rest, "- ") || rest[0] == '?' {
		p.bad = true // a list in a list on one line, a complex key
		return
	}
	if isEntry(rest) {
		p.lines[p.i] = line{n: l.n, indent: indent, text: rest}
		p.mapping(indent, out)
		return
	}
	p.i++
	p.scalar(rest, l.n, indent+1, out)
}

// mapping reads the entries "key: value" at indent.
func (p *parser) mapping(indent int, m *node) {
	first := p.lines[p.i]
	*m = node{kind: yaml.MappingNode, line: int32(first.n), column: int32(indent + 1)}
	base := p.push()
	defer func() { m.content = p.pop(base) }()
	for !p.bad && p.i < len(p.lines) {
		l := p.lines[p.i]
		if l.indent != indent || l.text == "-" || strings.HasPrefix(l.text, "- ") {
			break
		}
		key, rest, ok := entry(l.text)
		if !ok {
			p.bad = true
			return
		}
		p.i++
		var v node
		if rest == "" {
			p.value(indent, l.n, indent+utf8.RuneCountInString(l.text)+1, false, &v)
		} else {
			p.scalar(rest, l.n, indent+utf8.RuneCountInString(l.text[:len(l.text)-len(rest)])+1, &v)
		}
		p.stack = append(p.stack, node{kind: yaml.ScalarNode, value: key, line: int32(l.n), column: int32(indent + 1)}, v)
	}
	if p.i < len(p.lines) && p.lines[p.i].indent > indent {
		p.bad = true
	}
}

// value reads what follows a key or a dash that ends its line: a block
// indented further (or, under a key, a sequence at the key's own
// indentation), or else an empty value, a null.
func (p *parser) value(indent, n, col int, inItem bool, out *node) {
	if p.i < len(p.lines) {
		next := p.lines[p.i]
		seqHere := !inItem && next.indent == indent && (next.text == "-" || strings.HasPrefix(next.text, "- "))
		if next.indent > indent || seqHere {
			p.block(next.indent, out)
			return
		}
	}
	*out = node{kind: yaml.ScalarNode, empty: true, line: int32(n), column: int32(col)}
}

// isEntry reports whether text starts a mapping entry: a plain key, then a
// colon that ends the line or is followed by a space.
func isEntry(text string) bool {
	_, _, ok := entry(text)
	return ok
}

// entry cuts "key: rest" (or "key:") into its key and the rest. The key is
// plain: a quoted key, or one that starts with an indicator, is refused.
func entry(text string) (key, rest string, ok bool) {
	if text == "" || strings.ContainsRune("-?:,[]{}#&*!|>'\"%@`", rune(text[0])) && !(text[0] == '-' && len(text) > 1 && text[1] != ' ') {
		return "", "", false
	}
	i := strings.Index(text, ": ")
	switch {
	case i < 0 && strings.HasSuffix(text, ":"):
		key = text[:len(text)-1]
	case i < 0:
		return "", "", false
	default:
		key, rest = text[:i], strings.TrimLeft(text[i+2:], " ")
	}
	if key == "" || strings.Contains(key, " #") || strings.HasSuffix(key, " ") || !plainOK(key) {
		return "", "", false
	}
	if strings.HasPrefix(rest, "#") {
		rest = "" // "key: # a comment"
	}
	return key, rest, true
}

// plainOK reports whether s is a one-line plain scalar that reads as itself:
// no ": " or " #" inside, no colon at its end, and no indicator at its
// start (a dash or a colon may start it when a non-space follows).
func plainOK(s string) bool {
	if s == "" || strings.Contains(s, ": ") || strings.Contains(s, " #") || strings.HasSuffix(s, ":") {
		return false
	}
	c := s[0]
	if strings.ContainsRune(",[]{}#&*!|>'\"%@`", rune(c)) {
		return false
	}
	if (c == '-' || c == '?' || c == ':') && (len(s) == 1 || s[1] == ' ') {
		return false
	}
	return !strings.HasPrefix(s, "---") && !strings.HasPrefix(s, "...")
}
