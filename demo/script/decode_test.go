package script

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/distlock/fencing-demo/internal/plainyaml"
)

// A start reads scenarios.yaml by the plain reader's own decoder, never
// the library's, and gets what the library gives, each action's line
// included.
func TestPlainDecoderReadsTheFile(t *testing.T) {
	data, err := os.ReadFile("../../scenarios.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var plain document
	if !plainyaml.Decode(data, &plain) {
		t.Fatal("plainyaml.Decode refused scenarios.yaml: every start would take the library's slower path")
	}
	var lib document
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&lib); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(plain, lib) {
		for i := range lib.Scenarios {
			if !reflect.DeepEqual(plain.Scenarios[i], lib.Scenarios[i]) {
				t.Fatalf("scenario %q: the plain decoder read\n%+v\nthe library\n%+v", lib.Scenarios[i].ID, plain.Scenarios[i], lib.Scenarios[i])
			}
		}
		t.Fatal("the plain decoder and the library read different documents")
	}
}
