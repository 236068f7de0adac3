package plainyaml

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The types FuzzDecode reads into: every kind of field the two files'
// types have (strings, ints, bools, lists, pointers, an inline struct, a
// flow mapping, a type that reads its own node), under keys the files use.
type (
	fuzzText struct {
		JA string `yaml:"ja"`
		EN string `yaml:"en"`
	}
	fuzzAction struct {
		text, when string
		line       int
	}
	fuzzTitle struct {
		Title fuzzText `yaml:"title"`
		Text  fuzzText `yaml:"text"`
	}
	fuzzMove struct {
		Narration fuzzTitle    `yaml:",inline"`
		TitleOn   *fuzzText    `yaml:"title-on"`
		Do        []fuzzAction `yaml:"do"`
	}
	fuzzScenario struct {
		ID      string       `yaml:"id"`
		Title   fuzzText     `yaml:"title"`
		Default bool         `yaml:"default"`
		Nodes   int          `yaml:"nodes"`
		Latency int8         `yaml:"latency"`
		Clients []string     `yaml:"clients"`
		Setup   []fuzzAction `yaml:"setup"`
		Moves   []fuzzMove   `yaml:"moves"`
		Expect  struct {
			Off string `yaml:"off"`
			On  string `yaml:"on"`
		} `yaml:"expect"`
		Children []fuzzScenario `yaml:"children"`
		Step     *int           `yaml:"step"`
	}
	fuzzDoc struct {
		Scenarios []*fuzzScenario `yaml:"scenarios"`
		Quiz      []fuzzText      `yaml:"quiz"`
	}
)

// UnmarshalYAML reads a line of text or {if-on: text}, with its line, as
// the scenarios' actions do.
func (a *fuzzAction) UnmarshalYAML(n *yaml.Node) error {
	switch {
	case n.Kind == yaml.ScalarNode:
		a.text = n.Value
	case n.Kind == yaml.MappingNode && len(n.Content) == 2 && n.Content[0].Value == "if-on":
		a.text, a.when = n.Content[1].Value, "on"
	default:
		return errors.New("an action is a line or {if-on: ...}")
	}
	a.line = n.Line
	return nil
}

// FuzzDecode holds Decode to the library: whatever Decode reads, a
// yaml.Decoder with KnownFields reads without error to the same value.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"scenarios.yaml", "guide.yaml"} {
		data, _ := os.ReadFile(filepath.Join("..", "..", name))
		for _, piece := range strings.SplitAfter(string(data), "\n  - id:") {
			if len(piece) < 3000 {
				f.Add([]byte(piece))
			}
		}
	}
	f.Add([]byte(fuzzSeed))
	f.Fuzz(func(t *testing.T, data []byte) {
		var got fuzzDoc
		if !Decode(data, &got) {
			return
		}
		if d := sameAsLibrary(data, got); d != "" {
			t.Fatal(d)
		}
	})
}

// fuzzSeed has every kind of field fuzzDoc has, and Decode reads it.
const fuzzSeed = "scenarios:\n  - id: a\n    title: {ja: x, en: y}\n    default: true\n    nodes: -3\n    clients: [A, B]\n" +
	"    setup:\n      - A acquire 10\n      - if-on: B write x\n    moves:\n      - title:\n          ja: t\n          en: \"u\"\n        text: {ja: v, en: w}\n        title-on:\n        do: [tick 2]\n" +
	"    expect: {off: violation in 5, on: none within 8}\n    step: 4\n    children:\n      - id: b\n  -\nquiz:\n  - ja: q\n    en: r\n"

// sameAsLibrary says how the library's reading of data differs from got,
// or "" when it reads the same.
func sameAsLibrary(data []byte, got fuzzDoc) string {
	var want fuzzDoc
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&want); err != nil {
		return fmt.Sprintf("Decode read %q, which the library refuses: %v", data, err)
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Sprintf("%q: Decode read\n%+v\nthe library\n%+v", data, got, want)
	}
	return ""
}

func TestDecodeSeed(t *testing.T) {
	var got fuzzDoc
	if !Decode([]byte(fuzzSeed), &got) {
		t.Fatal("Decode refused the seed, in the plain shape")
	}
	if d := sameAsLibrary([]byte(fuzzSeed), got); d != "" {
		t.Fatal(d)
	}
	if s := got.Scenarios; len(s) != 2 || s[1] != nil || s[0].Setup[1] != (fuzzAction{"B write x", "on", 9}) || *s[0].Step != 4 {
		t.Fatalf("Decode read %+v", got)
	}
	// What the library reads otherwise than a plain reading would guess,
	// or refuses, Decode leaves to it.
	for _, s := range []string{
		"scenarios:\n  - nodes: 0x10\n", "scenarios:\n  - default: yes\n", "scenarios:\n  - id: a\n    id: b\n",
		"scenarios:\n  - clients: [A, ~]\n", "scenarios:\n  - nodes: '3'\n", "scenarios:\n  - latency: 300\n",
		"scenarios:\n  - setup: [{if-maybe: x}]\n", "scenarios:\n  - titel: x\n", "quiz:\n  -\n",
	} {
		var v fuzzDoc
		if Decode([]byte(s), &v) {
			t.Errorf("%q: Decode read it; the library reads it otherwise or refuses it", s)
		}
	}
}
