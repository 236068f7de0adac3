package main

import (
	"os"
	"reflect"
	"testing"

	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/views/guidedata"
)

// The server starts from builtin_gen.go, not from the YAML files: it must be
// what a fresh read of the files gives, every scenario and every word.
func TestBuiltinIsCurrent(t *testing.T) {
	data, err := os.ReadFile("scenarios.yaml")
	if err != nil {
		t.Fatal(err)
	}
	catalog, err := script.Load("scenarios.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(catalog.Scenarios) != len(builtinScenarios) {
		t.Fatalf("scenarios.yaml has %d scenarios, builtin_gen.go %d: run go generate", len(catalog.Scenarios), len(builtinScenarios))
	}
	for i, sc := range catalog.Scenarios {
		if !reflect.DeepEqual(sc, builtinScenarios[i]) {
			t.Errorf("scenario %q in scenarios.yaml differs from builtin_gen.go: run go generate", sc.ID)
		}
	}
	data, err = os.ReadFile("guide.yaml")
	if err != nil {
		t.Fatal(err)
	}
	guide, err := guidedata.Load("guide.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(guide, builtinGuide) {
		t.Error("guide.yaml differs from builtin_gen.go: run go generate")
	}
}
