// Package script reads the lesson's scenarios from their YAML file and checks
// them, so that package demo, which plays them, needs nothing beyond the
// standard library. It is the module's only reader of YAML. Every mistake is
// a *LoadError that names the file and, where it can, the line.
package script

import (
	"errors"
	"fmt"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/families"
	"github.com/goccy/go-yaml"
)

// LoadError says where scenarios.yaml is wrong.
type LoadError struct {
	File string
	Line int // 0 when the mistake has no one line
	Msg  string
}

func (e *LoadError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Load reads and checks scenarios. file names the source in error messages.
// Besides the shape of the YAML it checks what only a replay shows (an action
// by a client that is paused at that point, say), by playing every scenario to
// its end in both switch positions with demo.Rehearse: a scenario that loads
// always plays.
func Load(file string, data []byte) (*demo.Catalog, error) {
	return LoadWith(families.All, file, data)
}

// LoadWith is Load with the families of reg: a program with a store family
// of its own lists it there.
func LoadWith(reg *demo.Registry, file string, data []byte) (c *demo.Catalog, err error) {
	// The YAML library can panic on some malformed input (goccy/go-yaml
	// issue 735, fixed upstream after v1.19.2): a bad file must still be
	// an error that names the file, never a crash.
	defer func() {
		if p := recover(); p != nil {
			c, err = nil, &LoadError{File: file, Msg: fmt.Sprintf("the YAML could not be read (%v)", p)}
		}
	}()
	var doc document
	if err := yaml.UnmarshalWithOptions(data, &doc, yaml.Strict()); err != nil {
		return nil, yamlError(file, err)
	}
	if len(doc.Scenarios) == 0 {
		return nil, &LoadError{File: file, Msg: "no scenarios: the file needs a list under \"scenarios:\""}
	}
	scenarios := make([]*demo.Scenario, len(doc.Scenarios))
	for i, s := range doc.Scenarios {
		if s == nil {
			return nil, &LoadError{File: file, Msg: fmt.Sprintf("scenario %d is empty", i+1)}
		}
		sc := s.scenario()
		if err := check(reg, s, sc); err != nil {
			return nil, &LoadError{File: file, Line: err.line, Msg: fmt.Sprintf("scenario %q: %s", sc.ID, err.msg)}
		}
		scenarios[i] = sc
	}
	c, err = demo.NewCatalog(scenarios)
	if err != nil {
		return nil, &LoadError{File: file, Msg: err.Error()}
	}
	return c, nil
}

// lineError is a mistake found while decoding, with the line it is on.
type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string { return e.msg }

// yamlError turns the YAML library's error into a LoadError with the line.
func yamlError(file string, err error) error {
	var le *lineError
	if errors.As(err, &le) {
		return &LoadError{File: file, Line: le.line, Msg: le.msg}
	}
	var ye yaml.Error
	if errors.As(err, &ye) {
		line := 0
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			line = tk.Position.Line
		}
		return &LoadError{File: file, Line: line, Msg: ye.GetMessage()}
	}
	return &LoadError{File: file, Msg: err.Error()}
}
