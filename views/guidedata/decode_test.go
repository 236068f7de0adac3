package guidedata

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/distlock/fencing-demo/internal/plainyaml"
)

// A start reads guide.yaml by the plain reader's own decoder and gets what
// the library gives.
func TestPlainDecoderReadsTheGuide(t *testing.T) {
	data, err := os.ReadFile("../../guide.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var plain file
	if !plainyaml.Decode(data, &plain) {
		t.Fatal("plainyaml.Decode refused guide.yaml: every start would take the library's slower path")
	}
	var lib file
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&lib); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(plain, lib) {
		t.Fatal("the plain decoder and the library read different guides")
	}
}
