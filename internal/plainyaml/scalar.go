package plainyaml

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// scalar reads the value that ends a line: quoted, a one-line list, or
// plain; a comment may follow it. col is where it starts, from 1.
func (p *parser) scalar(text string, n, col int, out *node) {
	*out = node{kind: yaml.ScalarNode, line: int32(n), column: int32(col)}
	var rest string
	var ok bool
	switch text[0] {
	case '"':
		out.style = yaml.DoubleQuotedStyle
		out.value, rest, ok = doubleQuoted(text)
	case '\'':
		out.style = yaml.SingleQuotedStyle
		out.value, rest, ok = singleQuoted(text)
	case '[':
		p.list(text, n, col, out)
		return
	case '{':
		p.flowMap(text, n, col, out)
		return
	default:
		if i := strings.Index(text, " #"); i >= 0 {
			text = strings.TrimRight(text[:i], " ")
		}
		out.value, ok = text, plainOK(text)
	}
	if !ok || !onlyComment(rest) {
		p.bad = true
	}
}

// onlyComment reports whether what follows a value is nothing, or spaces
// and then a comment.
func onlyComment(rest string) bool {
	t := strings.TrimLeft(rest, " ")
	return t == "" || t[0] == '#' && len(t) < len(rest)
}

// doubleQuoted reads "...", with the escapes the files use; any other
// escape is left to the library.
func doubleQuoted(text string) (value, rest string, ok bool) {
	end := strings.IndexAny(text[1:], "\"\\") + 1
	if end > 0 && text[end] == '"' {
		return text[1:end], text[end+1:], true // no escape: the text as it is
	}
	var b strings.Builder
	for i := 1; i < len(text); i++ {
		switch c := text[i]; c {
		case '"':
			return b.String(), text[i+1:], true
		case '\\':
			if i+1 == len(text) {
				return "", "", false
			}
			i++
			switch e := text[i]; e {
			case '\\', '"', '/':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, err := strconv.ParseUint(text[i+1:min(i+5, len(text))], 16, 32)
				if err != nil || i+5 > len(text) || r >= 0xd800 && r < 0xe000 {
					return "", "", false
				}
				b.WriteRune(rune(r))
				i += 4
			default:
				return "", "", false
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", false // it runs on to the next line
}

// singleQuoted reads '...', where ” is a quote.
func singleQuoted(text string) (value, rest string, ok bool) {
	var b strings.Builder
	for i := 1; i < len(text); i++ {
		if text[i] != '\'' {
			b.WriteByte(text[i])
			continue
		}
		if i+1 < len(text) && text[i+1] == '\'' {
			b.WriteByte('\'')
			i++
			continue
		}
		return b.String(), text[i+1:], true
	}
	return "", "", false
}

// list reads a one-line list of plain words, such as [A, B].
func (p *parser) list(text string, n, col int, seq *node) {
	*seq = node{kind: yaml.SequenceNode, style: yaml.FlowStyle, line: int32(n), column: int32(col)}
	end := strings.IndexByte(text, ']')
	if end < 0 || !onlyComment(text[end+1:]) {
		p.bad = true
		return
	}
	inside := text[1:end]
	if strings.TrimSpace(inside) == "" {
		return
	}
	at := col + 1
	for _, word := range strings.Split(inside, ",") {
		w := strings.TrimLeft(word, " ")
		lead := len(word) - len(w)
		w = strings.TrimRight(w, " ")
		if !plainOK(w) || strings.ContainsAny(w, flowStops) {
			p.bad = true
			return
		}
		seq.content = append(seq.content, node{kind: yaml.ScalarNode, value: w, line: int32(n), column: int32(at + lead)})
		at += utf8.RuneCountInString(word) + 1
	}
}

// flowMap reads a one-line mapping of plain words, such as
// {off: violation in 5, on: none within 8}.
func (p *parser) flowMap(text string, n, col int, m *node) {
	*m = node{kind: yaml.MappingNode, style: yaml.FlowStyle, line: int32(n), column: int32(col)}
	end := strings.IndexByte(text, '}')
	if end < 0 || !onlyComment(text[end+1:]) {
		p.bad = true
		return
	}
	inside := text[1:end]
	if strings.TrimSpace(inside) == "" {
		return
	}
	at := col + 1
	for _, pair := range strings.Split(inside, ",") {
		k, v, ok := strings.Cut(pair, ": ")
		key := strings.TrimLeft(k, " ")
		val := strings.TrimLeft(v, " ")
		kcol := at + len(k) - len(key)
		vcol := at + utf8.RuneCountInString(k) + 2 + len(v) - len(val)
		key, val = strings.TrimRight(key, " "), strings.TrimRight(val, " ")
		if !ok || !plainOK(key) || !plainOK(val) || strings.ContainsAny(key+val, flowStops) {
			p.bad = true
			return
		}
		m.content = append(m.content,
			node{kind: yaml.ScalarNode, value: key, line: int32(n), column: int32(kcol)},
			node{kind: yaml.ScalarNode, value: val, line: int32(n), column: int32(vcol)})
		at += utf8.RuneCountInString(pair) + 1
	}
}

// flowStops are the characters that end a plain word inside [...] or {...}
// for the library (a question mark too, as libyaml's scanner has it), or that
// the plain shape never puts there (a colon, a comment sign).
const flowStops = "[]{}:#,?"
