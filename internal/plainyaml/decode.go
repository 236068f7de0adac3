package plainyaml

import (
	"bytes"
	"encoding"
	"io"
	"reflect"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

// Decode reads data into v, a pointer, as a yaml.Decoder with KnownFields
// would, and reports whether it could: false when data is not in the plain
// shape, names a key that v has no field for, names one twice, or holds
// anything this decoder does not do exactly as the library does (a null
// where a value is wanted, a number it does not read the same way, a type
// with a map or a text unmarshaler in it). The caller then reads data with
// the library, into a fresh value (v may be partly filled), for the
// library's answer and its error.
//
// It reads straight from the plain reader's tree into v's fields, with the
// fields of each struct type listed once per process: decoding by way of
// the library's nodes took as long as reading them.
func Decode(data []byte, v any) bool {
	return DecodePiece(data, 1, v)
}

// DecodePiece is Decode of a piece of a file that starts at the file's
// line first, so that what keeps its line (an action) keeps the file's.
func DecodePiece(data []byte, first int, v any) bool {
	root, ok := parse(data, first)
	if !ok {
		return false
	}
	out := reflect.ValueOf(v)
	if out.Kind() != reflect.Pointer || out.IsNil() {
		return false
	}
	return decode(root, out.Elem())
}

var (
	unmarshalerType     = reflect.TypeFor[yaml.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	// the library's older interface, which it also calls
	obsoleteUnmarshalerType = reflect.TypeFor[interface {
		UnmarshalYAML(unmarshal func(any) error) error
	}]()
)

// decode sets out from n as the library's decoder does, or reports false.
func decode(n *node, out reflect.Value) bool {
	if n.null() {
		// The library sets a pointer or a list to nil and leaves any other
		// value as it was, which a list of them then drops: not ours to copy.
		switch out.Kind() {
		case reflect.Pointer, reflect.Slice:
			out.SetZero()
			return true
		}
		return false
	}
	for out.Kind() == reflect.Pointer {
		if out.IsNil() {
			out.Set(reflect.New(out.Type().Elem()))
		}
		out = out.Elem()
	}
	info := typeInfoOf(out.Type())
	switch {
	case info.self:
		// A type that reads its own YAML (an action keeps its line) is given
		// the library's node of its part of the file.
		return out.Addr().Interface().(yaml.Unmarshaler).UnmarshalYAML(n.yaml()) == nil
	case info.refused:
		return false
	}
	switch out.Kind() {
	case reflect.Struct:
		return decodeStruct(n, out, info.fields)
	case reflect.Slice:
		if n.kind != yaml.SequenceNode {
			return false
		}
		out.Set(reflect.MakeSlice(out.Type(), len(n.content), len(n.content)))
		for i := range n.content {
			if !decode(&n.content[i], out.Index(i)) {
				return false
			}
		}
		return true
	case reflect.String:
		if n.kind != yaml.ScalarNode {
			return false
		}
		out.SetString(n.value)
		return true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, ok := n.int()
		if !ok || out.OverflowInt(i) || out.Type() == reflect.TypeFor[time.Duration]() {
			return false
		}
		out.SetInt(i)
		return true
	case reflect.Bool:
		if n.tag() != "" || n.value != "true" && n.value != "false" {
			return false
		}
		out.SetBool(n.value == "true")
		return true
	}
	return false
}

// decodeStruct sets the fields of out from the mapping n: every key must
// name a field, once.
func decodeStruct(n *node, out reflect.Value, fields *fields) bool {
	if n.kind != yaml.MappingNode || fields == nil {
		return false
	}
	var seen []bool
	if len(n.content) > 2 {
		seen = make([]bool, len(fields.list))
	}
	for i := 0; i+1 < len(n.content); i += 2 {
		k := &n.content[i]
		f, ok := fields.byKey[k.value]
		if !ok || k.tag() != "" {
			return false
		}
		if seen != nil {
			if seen[f] {
				return false
			}
			seen[f] = true
		}
		if !decode(&n.content[i+1], out.FieldByIndex(fields.list[f])) {
			return false
		}
	}
	return true
}

// null reports whether the library reads n as null.
func (n *node) null() bool {
	if n.empty {
		return true
	}
	if n.tag() != "" {
		return false
	}
	switch n.value {
	case "", "~", "null", "Null", "NULL":
		return true
	}
	return false
}

// int reads a plain decimal integer, the only form the files use; any
// other (0x10, 1_000, +5, 1e3) is left to the library.
func (n *node) int() (int64, bool) {
	s := n.value
	if n.tag() != "" || s == "" {
		return 0, false
	}
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	if s == "" || len(s) > 18 || s[0] == '0' && len(s) > 1 {
		return 0, false
	}
	var i int64
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		i = i*10 + int64(c-'0')
	}
	if neg {
		i = -i
	}
	return i, true
}

// fields are the keys of one struct type as the library names them, each
// with the path to its field (an inline struct's keys are its parent's).
type fields struct {
	byKey map[string]int
	list  [][]int
}

// typeInfo is what decode needs to know of a type, found once per type.
type typeInfo struct {
	self    bool    // it reads its own node (yaml.Unmarshaler)
	refused bool    // it reads itself otherwise: left to the library
	fields  *fields // a struct's keys; nil when the struct is left to the library
}

var typeInfos sync.Map // reflect.Type -> *typeInfo

func typeInfoOf(t reflect.Type) *typeInfo {
	if info, ok := typeInfos.Load(t); ok {
		return info.(*typeInfo)
	}
	pt := reflect.PointerTo(t)
	info := &typeInfo{
		self:    pt.Implements(unmarshalerType),
		refused: pt.Implements(textUnmarshalerType) || pt.Implements(obsoleteUnmarshalerType),
	}
	if t.Kind() == reflect.Struct {
		info.fields = &fields{byKey: map[string]int{}}
		// As the library's getStructInfo, or nil for what this decoder
		// leaves to the library: an embedded field, an inline map or
		// pointer, a flag it does not know, a key twice.
		if !info.fields.add(t, nil) {
			info.fields = nil
		}
	}
	typeInfos.Store(t, info)
	return info
}

func (fs *fields) add(t reflect.Type, at []int) bool {
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return false
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		if tag == "" && !strings.Contains(string(f.Tag), ":") {
			tag = string(f.Tag) // the library's old bare tag
		}
		if tag == "-" {
			continue
		}
		name, flags, _ := strings.Cut(tag, ",")
		inline := false
		for _, flag := range strings.Split(flags, ",") {
			switch flag {
			case "", "omitempty", "flow":
			case "inline":
				inline = true
			default:
				return false
			}
		}
		path := append(append([]int(nil), at...), i)
		if inline {
			if f.Type.Kind() != reflect.Struct || reflect.PointerTo(f.Type).Implements(unmarshalerType) || !fs.add(f.Type, path) {
				return false
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		if _, twice := fs.byKey[name]; twice {
			return false
		}
		fs.byKey[name] = len(fs.list)
		fs.list = append(fs.list, path)
	}
	return true
}

// Unmarshal reads data into v, a pointer, as a yaml.Decoder with
// KnownFields does (a misspelt key is an error, not a silent gap): the
// plain shape by Decode, anything else, and any mistake, by the library,
// whose error it returns as it is. An empty file leaves v zero.
func Unmarshal(data []byte, v any) error {
	if Decode(data, v) {
		return nil
	}
	reflect.ValueOf(v).Elem().SetZero() // Decode may have filled part of it
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil && err != io.EOF {
		return err
	}
	return nil
}
