// Package script reads the lesson's scenarios from their YAML file and checks
// them, so that package demo, which plays them, needs nothing beyond the
// standard library. Every mistake is a *LoadError that names the file and,
// where it can, the line.
package script

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/families"
)

// LoadError says where scenarios.yaml is wrong.
type LoadError struct {
	File string
	Line int    // 0 when the mistake has no one line
	ID   string // the scenario it is in; "" for the file as a whole
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
// always plays. In the same plays it holds each scenario to what its
// expect: states of its verdicts and its answers: a scenario that loads
// shows what it says it shows.
func Load(file string, data []byte) (*demo.Catalog, error) {
	return LoadWith(families.All, file, data)
}

// LoadWith is Load with the families of reg: a program with a store family
// of its own lists it there.
func LoadWith(reg *demo.Registry, file string, data []byte) (*demo.Catalog, error) {
	c, differs, err := ReadWith(reg, file, data)
	if err != nil {
		return nil, err
	}
	if len(differs) > 0 {
		return nil, differs[0]
	}
	return c, nil
}

// Read is Load for a judge of the file (the check command): a scenario whose
// verdicts or answers are not those its expect: states still loads, and
// every such difference comes back, in the file's order, each a *LoadError
// with the line of the field that states it. Any other mistake is the
// error, as Load's.
func Read(file string, data []byte) (*demo.Catalog, []*LoadError, error) {
	return ReadWith(families.All, file, data)
}

// ReadWith is Read with the families of reg.
func ReadWith(reg *demo.Registry, file string, data []byte) (*demo.Catalog, []*LoadError, error) {
	doc, err := decode(file, data)
	if err != nil {
		return nil, nil, err
	}
	scenarios, differs, err := build(reg, file, doc)
	if err != nil {
		return nil, nil, err
	}
	if err := checkChallengeIDs(file, scenarios); err != nil {
		return nil, nil, err
	}
	c, err := demo.NewCatalog(scenarios)
	if err != nil {
		return nil, nil, &LoadError{File: file, Msg: err.Error()}
	}
	return c, differs, nil
}

// decode reads the file's shape with the YAML library; a key the shape
// lacks is a mistake, not a gap.
func decode(file string, data []byte) (doc *document, err error) {
	defer func() {
		// A YAML library can panic on some malformed input, and a bad
		// file must still be an error that names the file, never a crash.
		if p := recover(); p != nil {
			doc, err = nil, &LoadError{File: file, Msg: fmt.Sprintf("the YAML could not be read (%v)", p)}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	doc = &document{}
	if err := dec.Decode(doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, YAMLError(file, data, err)
	}
	return doc, nil
}

// build converts and checks the scenarios of a decoded file, each on a
// goroutine of its own, a few at a time: checking plays every scenario in
// both positions, most of a server's start. The first mistake in the file's
// order is the one reported, whatever finished first.
func build(reg *demo.Registry, file string, doc *document) ([]*demo.Scenario, []*LoadError, error) {
	if len(doc.Scenarios) == 0 {
		return nil, nil, &LoadError{File: file, Msg: "no scenarios: the file needs a list under \"scenarios:\""}
	}
	scenarios := make([]*demo.Scenario, len(doc.Scenarios))
	differs := make([][]*LoadError, len(doc.Scenarios))
	errs := make([]error, len(doc.Scenarios))
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, s := range doc.Scenarios {
		if s == nil {
			errs[i] = &LoadError{File: file, Msg: fmt.Sprintf("scenario %d is empty", i+1)}
			continue
		}
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			scenarios[i], differs[i], errs[i] = buildOne(reg, file, s)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	return scenarios, slices.Concat(differs...), nil
}

// buildOne converts and checks one scenario; a panic in a family's code
// is the scenario's error, not the server's crash.
func buildOne(reg *demo.Registry, file string, s *scenario) (sc *demo.Scenario, differs []*LoadError, err error) {
	defer func() {
		if p := recover(); p != nil {
			sc, differs, err = nil, nil, &LoadError{File: file, ID: s.ID, Msg: fmt.Sprintf("scenario %q could not be read (%v)", s.ID, p)}
		}
	}()
	sc = s.scenario()
	ds, ce := check(reg, s, sc)
	if ce != nil {
		return nil, nil, ce.in(file, sc.ID)
	}
	for _, d := range ds {
		differs = append(differs, d.in(file, sc.ID))
	}
	return sc, differs, nil
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

// parserProblems are the messages of yaml.v3's parser, as against its
// scanner: the parser gives the line of the construct it was reading (a
// list opened with "[", say) counted from 0, so one is added.
var parserProblems = regexp.MustCompile(`^did not find expected (<document start>|key|node content|'-' indicator|',' or '\]'|',' or '\}')$`)

// YAMLError turns the YAML library's error in reading file, whose bytes
// are data, into a LoadError with the line: our own *lineError, the first
// of a *yaml.TypeError's mistakes, or a syntax error. views/guidedata reads
// guide.yaml's with it too.
func YAMLError(file string, data []byte, err error) *LoadError {
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
		if parserProblems.MatchString(msg) {
			// At the end of the file the construct is the last line,
			// lines ending as YAML ends them: \n, \r\n or a lone \r.
			last := bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte("\r")) - bytes.Count(data, []byte("\r\n")) + 1
			line = min(line+1, last)
		}
	}
	if m := unknownField.FindStringSubmatch(msg); m != nil {
		msg = fmt.Sprintf("unknown key %q", m[1])
	}
	return &LoadError{File: file, Line: line, Msg: msg}
}
