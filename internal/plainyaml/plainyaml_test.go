package plainyaml

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// same says where two trees differ, or "" when Parse read what the library
// reads (comments aside, and a plain scalar's tag, which the library
// resolves from its value either way).
func same(got, want *yaml.Node, at string) string {
	switch {
	case got.Kind != want.Kind || got.ShortTag() != want.ShortTag() || got.Value != want.Value || got.Style != want.Style:
		return fmt.Sprintf("%s: got kind %v tag %s value %q style %v, want kind %v tag %s value %q style %v",
			at, got.Kind, got.ShortTag(), got.Value, got.Style, want.Kind, want.ShortTag(), want.Value, want.Style)
	case got.Line != want.Line || got.Column != want.Column && !(got.Kind == yaml.ScalarNode && got.ShortTag() == "!!null" && got.Value == ""):
		return fmt.Sprintf("%s %q: got line %d column %d, want %d:%d", at, want.Value, got.Line, got.Column, want.Line, want.Column)
	case len(got.Content) != len(want.Content):
		return fmt.Sprintf("%s: got %d children, want %d", at, len(got.Content), len(want.Content))
	}
	for i := range got.Content {
		if d := same(got.Content[i], want.Content[i], fmt.Sprintf("%s/%d", at, i)); d != "" {
			return d
		}
	}
	return ""
}

func library(t testing.TB, data []byte) (*yaml.Node, error) {
	var n yaml.Node
	err := yaml.Unmarshal(data, &n)
	return &n, err
}

// The project's own files are in the plain shape, and Parse reads them as
// the library does: the fast path is the one a start takes.
func TestProjectFiles(t *testing.T) {
	for _, name := range []string{"scenarios.yaml", "guide.yaml"} {
		data, err := os.ReadFile(filepath.Join("..", "..", name))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := Parse(data)
		if !ok {
			t.Fatalf("%s: Parse refused the project's own file", name)
		}
		want, err := library(t, data)
		if err != nil {
			t.Fatal(err)
		}
		if d := same(got, want, name); d != "" {
			t.Error(d)
		}
	}
}

func TestShapes(t *testing.T) {
	plain := []string{
		"a: 1\nb: [x, y]\nc:\n  - d: \"q\\\"uo\\u00e9\"\n    e: 'it''s'\n  - plain words, with [brackets] # comment\n",
		"k:\n- one\n- two\nnext: null\nempty:\n",
		"list:\n  -\n    deep: yes\n  - x: 1\n    y: -2\n",
		"ja: 日本語: ではない\n",
		"t: \"a # not a comment\"\nu: C#\n",
		"e: []\n",
		"expect: {off: violation in 5, on: none within 8}\nf: {}\n",
	}
	for _, s := range plain {
		got, ok := Parse([]byte(s))
		want, err := library(t, []byte(s))
		if err != nil {
			if ok {
				t.Errorf("%q: Parse read what the library refuses (%v)", s, err)
			}
			continue
		}
		if !ok {
			t.Errorf("%q: Parse refused a plain text", s)
			continue
		}
		if d := same(got, want, "doc"); d != "" {
			t.Errorf("%q: %s", s, d)
		}
	}
	refused := []string{
		"a: |\n  block\n", "a: &x 1\nb: *x\n", "a: !!str 1\n", "a: {b: {c: d}}\n", "a: {b}\n", "a: one\n  two\n",
		"a:\n\tb: 1\n", "---\na: 1\n", "a: \"runs\n  on\"\n", "? a\n: b\n", "a: [x?]\n", "a: {b: c?}\n", "- - x\n", "a: 'x' y\n", "\"q\": 1\n",
	}
	for _, s := range refused {
		if _, ok := Parse([]byte(s)); ok {
			t.Errorf("%q: Parse read it; it is not the plain shape", s)
		}
	}
}

// FuzzParse holds Parse to the library: whatever Parse reads, the library
// reads without error and to the same tree.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"scenarios.yaml", "guide.yaml"} {
		data, _ := os.ReadFile(filepath.Join("..", "..", name))
		for _, piece := range strings.SplitAfter(string(data), "\n  - id:") {
			if len(piece) < 4000 {
				f.Add([]byte(piece))
			}
		}
	}
	f.Add([]byte("a: [x, 'y']\nb:\n- c: d\n  e: \"f\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := Parse(data)
		if !ok {
			return
		}
		want, err := library(t, data)
		if err != nil {
			t.Fatalf("Parse read %q, which the library refuses: %v", data, err)
		}
		if d := same(got, want, "doc"); d != "" {
			t.Fatalf("%q: %s", data, d)
		}
	})
}

type shape struct {
	Name  string `yaml:"name"`
	Inner struct {
		X int `yaml:"x"`
	} `yaml:",inline"`
	Items []struct {
		Word string
	} `yaml:"items"`
}

func TestDecodeKnownFields(t *testing.T) {
	var s shape
	if !Decode([]byte("name: n\nx: 3\nitems:\n  - word: w\n"), &s) || s.Name != "n" || s.Inner.X != 3 || s.Items[0].Word != "w" {
		t.Fatalf("Decode = %+v, want name n, x 3, word w", s)
	}
	for _, bad := range []string{"nme: n\n", "items:\n  - wrd: w\n", "x: three\n"} {
		var s shape
		if Decode([]byte(bad), &s) {
			t.Errorf("%q: Decode accepted it; the library with KnownFields refuses it", bad)
		}
	}
}

// BenchmarkParse reads scenarios.yaml with Parse and, beside it, with the
// library, so their ratio is the time a start saves.
//
//	go test -run '^$' -bench . ./internal/plainyaml
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "..", "scenarios.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("plain", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, ok := Parse(data); !ok {
				b.Fatal("refused")
			}
		}
	})
	b.Run("library", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := library(b, data); err != nil {
				b.Fatal(err)
			}
		}
	})
}
