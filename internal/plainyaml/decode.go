package plainyaml

import (
	"bytes"
	"io"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Decode reads data into v, a pointer, as a yaml.Decoder with KnownFields
// would, and reports whether it could: false when data is not in the plain
// shape, names a key that v has no field for, or does not decode. The
// caller then reads data with the library, into a fresh value (v may be
// partly filled), for the library's answer and its error.
func Decode(data []byte, v any) bool {
	doc, ok := Parse(data)
	if !ok {
		return false
	}
	fields := map[reflect.Type]map[string]reflect.Type{}
	if !known(doc.Content[0], reflect.TypeOf(v), fields) {
		return false
	}
	return doc.Decode(v) == nil
}

var unmarshaler = reflect.TypeFor[yaml.Unmarshaler]()

// known reports whether every key of a mapping under n names a field of the
// struct that t decodes it into. A type that reads its own YAML is trusted
// to check its own keys.
func known(n *yaml.Node, t reflect.Type, fields map[reflect.Type]map[string]reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		if t.Implements(unmarshaler) {
			return true
		}
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshaler) {
		return true
	}
	switch {
	case n.Kind == yaml.SequenceNode && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
		for _, c := range n.Content {
			if !known(c, t.Elem(), fields) {
				return false
			}
		}
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Map:
		for i := 1; i < len(n.Content); i += 2 {
			if !known(n.Content[i], t.Elem(), fields) {
				return false
			}
		}
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Struct:
		fs, ok := fields[t]
		if !ok {
			fs = map[string]reflect.Type{}
			addFields(t, fs)
			fields[t] = fs
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			ft, ok := fs[n.Content[i].Value]
			if !ok || !known(n.Content[i+1], ft, fields) {
				return false
			}
		}
	}
	return true
}

// addFields lists the keys of struct t as the library names them: the yaml
// tag's name, or the field's name in lower case; an inline struct's keys
// are its parent's.
func addFields(t reflect.Type, fs map[string]reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, flags, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case name == "-":
		case strings.Contains(flags, "inline") && f.Type.Kind() == reflect.Struct:
			addFields(f.Type, fs)
		case name == "":
			fs[strings.ToLower(f.Name)] = f.Type
		default:
			fs[name] = f.Type
		}
	}
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
