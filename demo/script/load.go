// Package script reads the lesson's scenarios from their YAML file and checks
// them, so that package demo, which plays them, needs nothing beyond the
// standard library. Every mistake is a *LoadError that names the file and,
// where it can, the line.
package script

import (
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/families"
	"github.com/distlock/fencing-demo/internal/plainyaml"
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
//
// Parsing the YAML is most of a server's start, so a file in the plain shape
// is read by internal/plainyaml, in pieces at the same time (see split), two
// a CPU so that a long piece does not leave a CPU idle; any mistake is then
// looked for again in the whole file with the YAML library, so the error is
// the one a plain read gives.
func Load(file string, data []byte) (*demo.Catalog, error) {
	return LoadWith(families.All, file, data)
}

// LoadWith is Load with the families of reg: a program with a store family
// of its own lists it there.
func LoadWith(reg *demo.Registry, file string, data []byte) (*demo.Catalog, error) {
	if pieces := split(data, 2*runtime.GOMAXPROCS(0)); pieces != nil {
		if scenarios, err := readPieces(reg, file, pieces); err == nil {
			return catalog(file, scenarios)
		}
	}
	scenarios, err := read(reg, file, data)
	if err != nil {
		return nil, err
	}
	return catalog(file, scenarios)
}

func catalog(file string, scenarios []*demo.Scenario) (*demo.Catalog, error) {
	c, err := demo.NewCatalog(scenarios)
	if err != nil {
		return nil, &LoadError{File: file, Msg: err.Error()}
	}
	return c, nil
}

// readPieces reads each piece on a goroutine of its own and puts their
// scenarios back in the file's order.
func readPieces(reg *demo.Registry, file string, pieces []piece) ([]*demo.Scenario, error) {
	read1 := make([][]*demo.Scenario, len(pieces))
	errs := make([]error, len(pieces))
	var wg sync.WaitGroup
	for i, p := range pieces {
		wg.Go(func() { read1[i], errs[i] = readPiece(reg, file, p) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return slices.Concat(read1...), nil
}

// errNotPlain is a piece the plain reader does not read: the whole file is
// then read again, by the library if need be.
var errNotPlain = errors.New("not in the plain shape")

// readPiece decodes and checks a piece of the file by the plain reader
// alone: a piece is not the file, so the library's lines would be wrong.
func readPiece(reg *demo.Registry, file string, p piece) (scenarios []*demo.Scenario, err error) {
	defer recovered(file, &scenarios, &err)
	var doc document
	if !plainyaml.DecodePiece(p.data, p.first, &doc) {
		return nil, errNotPlain
	}
	return build(reg, file, &doc)
}

// read decodes and checks the scenarios of data, without the catalog's
// check across scenarios (that no two share an id).
func read(reg *demo.Registry, file string, data []byte) (scenarios []*demo.Scenario, err error) {
	defer recovered(file, &scenarios, &err)
	doc, err := decode(file, data)
	if err != nil {
		return nil, err
	}
	return build(reg, file, doc)
}

// recovered turns a panic into an error: a YAML library can panic on some
// malformed input, and a bad file must still be an error that names the
// file, never a crash.
func recovered(file string, scenarios *[]*demo.Scenario, err *error) {
	if p := recover(); p != nil {
		*scenarios, *err = nil, &LoadError{File: file, Msg: fmt.Sprintf("the YAML could not be read (%v)", p)}
	}
}

// build converts and checks the scenarios of a decoded file.
func build(reg *demo.Registry, file string, doc *document) ([]*demo.Scenario, error) {
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
	return scenarios, nil
}

// decode reads the file's shape, by the plain reader's fast path when it
// can (internal/plainyaml), else by the library, which says what is wrong.
func decode(file string, data []byte) (*document, error) {
	var doc document
	if err := plainyaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlError(file, err)
	}
	return &doc, nil
}

// lineError is a mistake found while decoding, with the line it is on.
type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string { return e.msg }

// yamlLine is how yaml.v3 places a mistake in its messages; it has no typed
// position, so the line is read back from the text, here and only here.
var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// unknownField is yaml.v3's message for a key the file's shape lacks.
var unknownField = regexp.MustCompile(`^field (\S+) not found in type \S+$`)

// yamlError turns the YAML library's error into a LoadError with the line:
// our own *lineError, the first of a *yaml.TypeError's mistakes, or a syntax
// error.
func yamlError(file string, err error) error {
	var le *lineError
	if errors.As(err, &le) {
		return &LoadError{File: file, Line: le.line, Msg: le.msg}
	}
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	line := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	if m := unknownField.FindStringSubmatch(msg); m != nil {
		msg = fmt.Sprintf("unknown key %q", m[1])
	}
	return &LoadError{File: file, Line: line, Msg: msg}
}
