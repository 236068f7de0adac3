package script

import (
	"bytes"

	"go.yaml.in/yaml/v3"

	"github.com/distlock/fencing-demo/demo"
)

// Marshal writes scenarios as a scenarios file, in the shape Load reads and
// with the same document types, so that every field is written as it is
// read: the file loads back as the same scenarios, their expectations
// included.
func Marshal(scenarios ...*demo.Scenario) ([]byte, error) {
	var doc document
	for _, sc := range scenarios {
		doc.Scenarios = append(doc.Scenarios, scenarioOf(sc))
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
