package script

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/distlock/fencing-demo/demo"
)

// expect is a scenario's expect: what it shows in each switch position, and
// the places of the guide that link to it (docs/scenarios.md):
//
//	expect:
//	  off:
//	    verdict: stale-write
//	    findings:
//	      - {kind: overlap, at: 11, client: A, other: B}
//	      - {kind: stale-write, at: 16, client: A, other: B}
//	    answer: accepted
//	    finder: violation in 5
//	  on: ...
//	  guide: {tree: [consensus], quiz: [2]}
//
// A position written as one line ("off: violation in 5") states the
// finder's answer alone: the short form.
type expect struct {
	pos   [2]demo.Expected // off, on
	guide demo.GuideLinks
}

// IsZero tells the encoder to leave out an expect that states nothing.
func (x expect) IsZero() bool {
	return !x.pos[0].Stated() && !x.pos[1].Stated() && len(x.guide.Tree) == 0 && len(x.guide.Quiz) == 0
}

// UnmarshalYAML reads expect: by hand, so that each field keeps its line
// and a misspelt key is refused, as the library does for the others.
func (x *expect) UnmarshalYAML(node *yaml.Node) error {
	return eachKey(node, "expect", func(key, value *yaml.Node) error {
		switch key.Value {
		case "off", "on":
			return readPosition(&x.pos[boolIndex(key.Value == "on")], key.Value, value)
		case "guide":
			return readGuide(&x.guide, key, value)
		}
		return &lineError{line: key.Line, msg: fmt.Sprintf("expect: %q: want off, on or guide", key.Value)}
	})
}

func readPosition(e *demo.Expected, pos string, node *yaml.Node) error {
	if node.Kind == yaml.ScalarNode {
		return readFinder(e, pos, node, node)
	}
	return eachKey(node, "expect "+pos, func(key, value *yaml.Node) error {
		where := "expect " + pos + " " + key.Value
		switch key.Value {
		case "verdict":
			e.VerdictLine = key.Line
			return readName(&e.Verdict, where, value)
		case "findings":
			e.FindingsLine = key.Line
			return eachItem(value, where, func(item *yaml.Node) error {
				f, err := readFinding(where, item)
				e.Findings = append(e.Findings, f)
				return err
			})
		case "answer":
			e.AnswersLine = key.Line
			var err error
			e.Answers, err = readNames(value, where)
			return err
		case "finder":
			return readFinder(e, pos, key, value)
		}
		return &lineError{line: key.Line, msg: fmt.Sprintf("%q: want verdict, findings, answer or finder", where)}
	})
}

func readFinder(e *demo.Expected, pos string, key, value *yaml.Node) error {
	x, err := demo.ParseExpectation(value.Value)
	if value.Kind != yaml.ScalarNode || err != nil {
		return &lineError{line: key.Line, msg: fmt.Sprintf("expect %s finder: want \"violation in N\" or \"none within D\", N and D from 0 to 20", pos)}
	}
	e.Finder, e.FinderLine = &x, key.Line
	return nil
}

// readFinding reads {kind: overlap, at: 11, client: A, other: B}.
func readFinding(where string, node *yaml.Node) (demo.Finding, error) {
	var f demo.Finding
	seen := false
	err := eachKey(node, where, func(key, value *yaml.Node) error {
		switch key.Value {
		case "kind":
			return readName(&f.Kind, where+" kind", value)
		case "at":
			at, err := strconv.Atoi(value.Value)
			if value.Kind != yaml.ScalarNode || err != nil || at < 0 {
				return &lineError{line: value.Line, msg: fmt.Sprintf("%s at: %q is not a time", where, value.Value)}
			}
			f.At, seen = at, true
			return nil
		case "client":
			return readName(&f.Client, where+" client", value)
		case "other":
			return readName(&f.Other, where+" other", value)
		}
		return &lineError{line: key.Line, msg: fmt.Sprintf("%s: %q: want kind, at, client and other", where, key.Value)}
	})
	if err == nil && (f.Kind == "" || !seen) {
		err = &lineError{line: node.Line, msg: where + ": a finding names its kind and when it happened (at)"}
	}
	return f, err
}

func readGuide(g *demo.GuideLinks, key, node *yaml.Node) error {
	g.Line = key.Line
	return eachKey(node, "expect guide", func(key, value *yaml.Node) error {
		where := "expect guide " + key.Value
		switch key.Value {
		case "tree":
			var err error
			g.Tree, err = readNames(value, where)
			return err
		case "quiz":
			return eachOne(value, where, func(item *yaml.Node) error {
				n, err := strconv.Atoi(item.Value)
				if item.Kind != yaml.ScalarNode || err != nil || n < 1 {
					return &lineError{line: item.Line, msg: fmt.Sprintf("%s: %q: a question's number, from 1", where, item.Value)}
				}
				g.Quiz = append(g.Quiz, n)
				return nil
			})
		}
		return &lineError{line: key.Line, msg: fmt.Sprintf("expect guide: %q: want tree or quiz", key.Value)}
	})
}

// eachKey calls f with each key of a mapping and its value.
func eachKey(node *yaml.Node, where string, f func(key, value *yaml.Node) error) error {
	if node.Kind != yaml.MappingNode {
		return &lineError{line: node.Line, msg: where + ": want a mapping of keys"}
	}
	for i := 0; i+1 < len(node.Content); i += 2 {
		if err := f(node.Content[i], node.Content[i+1]); err != nil {
			return err
		}
	}
	return nil
}

// eachItem calls f with each item of a list.
func eachItem(node *yaml.Node, where string, f func(item *yaml.Node) error) error {
	if node.Kind != yaml.SequenceNode {
		return &lineError{line: node.Line, msg: where + ": want a list"}
	}
	for _, item := range node.Content {
		if err := f(item); err != nil {
			return err
		}
	}
	return nil
}

// eachOne is eachItem that also takes one item written alone.
func eachOne(node *yaml.Node, where string, f func(item *yaml.Node) error) error {
	if node.Kind == yaml.ScalarNode {
		return f(node)
	}
	return eachItem(node, where, f)
}

// readNames reads one name, or a list of them.
func readNames(node *yaml.Node, where string) ([]string, error) {
	var names []string
	err := eachOne(node, where, func(item *yaml.Node) error {
		var s string
		err := readName(&s, where, item)
		names = append(names, s)
		return err
	})
	return names, err
}

func readName(s *string, where string, node *yaml.Node) error {
	if node.Kind != yaml.ScalarNode || node.Value == "" {
		return &lineError{line: node.Line, msg: where + ": want a name"}
	}
	*s = node.Value
	return nil
}

// MarshalYAML writes expect: as UnmarshalYAML reads it, each finding on a
// line of its own, and a position that states only the finder's answer in
// the short form.
func (x expect) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for i, pos := range []string{"off", "on"} {
		if e := x.pos[i]; e.Stated() {
			n.Content = append(n.Content, scalar(pos), positionNode(e))
		}
	}
	if len(x.guide.Tree) > 0 || len(x.guide.Quiz) > 0 {
		g := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		if len(x.guide.Tree) > 0 {
			g.Content = append(g.Content, scalar("tree"), flow(x.guide.Tree...))
		}
		if len(x.guide.Quiz) > 0 {
			list := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
			for _, k := range x.guide.Quiz {
				list.Content = append(list.Content, plain(strconv.Itoa(k)))
			}
			g.Content = append(g.Content, scalar("quiz"), list)
		}
		n.Content = append(n.Content, scalar("guide"), g)
	}
	return n, nil
}

func positionNode(e demo.Expected) *yaml.Node {
	if e.Verdict == "" && len(e.Answers) == 0 {
		return scalar(e.Finder.String())
	}
	n := &yaml.Node{Kind: yaml.MappingNode}
	if e.Verdict != "" {
		n.Content = append(n.Content, scalar("verdict"), scalar(e.Verdict))
	}
	if len(e.Findings) > 0 {
		list := &yaml.Node{Kind: yaml.SequenceNode}
		for _, f := range e.Findings {
			item := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle,
				Content: []*yaml.Node{scalar("kind"), scalar(f.Kind), scalar("at"), plain(strconv.Itoa(f.At))}}
			if f.Client != "" {
				item.Content = append(item.Content, scalar("client"), scalar(f.Client))
			}
			if f.Other != "" {
				item.Content = append(item.Content, scalar("other"), scalar(f.Other))
			}
			list.Content = append(list.Content, item)
		}
		n.Content = append(n.Content, scalar("findings"), list)
	}
	switch len(e.Answers) {
	case 0:
	case 1:
		n.Content = append(n.Content, scalar("answer"), plain(e.Answers[0]))
	default:
		list := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, a := range e.Answers {
			list.Content = append(list.Content, plain(a))
		}
		n.Content = append(n.Content, scalar("answer"), list)
	}
	if e.Finder != nil {
		n.Content = append(n.Content, scalar("finder"), scalar(e.Finder.String()))
	}
	return n
}

// plain is a word written without quotes where YAML allows it: an answer
// of 1 is read as the word "1", as a reader means it.
func plain(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s} }

// flow is a list written on one line.
func flow(items ...string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, s := range items {
		n.Content = append(n.Content, scalar(s))
	}
	return n
}

// checkExpect: what a scenario states it shows is written as the checks
// read it, before anything plays: verdicts and kinds by their names, the
// findings under a verdict, one answer a question, a finder's answer only
// where there is a property to look for, and the guide's places by name.
func checkExpect(sc *demo.Scenario) *checkError {
	names := demo.VerdictNames()
	questions := 0
	for _, m := range sc.Moves {
		if m.Predict != nil {
			questions++
		}
	}
	for i, e := range sc.Expect {
		pos := demo.OnOff(i == 1)
		if e.Verdict != "" && !slices.Contains(names, e.Verdict) {
			return fail(e.VerdictLine, "expect %s verdict: %q is no verdict's name; want one of %s", pos, e.Verdict, strings.Join(names, ", "))
		}
		if len(e.Findings) > 0 && e.Verdict == "" {
			return fail(e.FindingsLine, "expect %s findings: the findings go with a verdict: state it under verdict:", pos)
		}
		for _, f := range e.Findings {
			if !slices.Contains(names, f.Kind) {
				return fail(e.FindingsLine, "expect %s findings: %q is no verdict's name; want one of %s", pos, f.Kind, strings.Join(names, ", "))
			}
		}
		if len(e.Answers) > 0 && len(e.Answers) != questions {
			return fail(e.AnswersLine, "expect %s answer: %d answers for the scenario's %d questions, one a question in the order of its moves", pos, len(e.Answers), questions)
		}
		if e.Finder != nil && sc.Property == "" {
			return fail(e.FinderLine, "expect %s finder: says what the finder finds, which needs a property to look for", pos)
		}
	}
	for _, id := range sc.Guide.Tree {
		if !validID(id) {
			return fail(sc.Guide.Line, "expect guide tree: %q is not a node's id of lower-case letters, digits and dashes", id)
		}
	}
	return nil
}

// verdictOf holds the last frame of r to the verdict and the findings the
// scenario states for r's position; nil when they hold or none is stated.
func verdictOf(sc *demo.Scenario, r *demo.Run) *checkError {
	if r.Index() != sc.Frames() {
		return nil
	}
	e := sc.Expect[boolIndex(r.On())]
	msg, line := e.VerdictDiffers(r.Violations())
	if msg == "" {
		return nil
	}
	return fail(line, "expect %s: %s", demo.OnOff(r.On()), msg)
}

// answerStated holds the model's answer v to question q (from 0) to the one
// the scenario states for r's position; nil when they agree or none is
// stated.
func answerStated(sc *demo.Scenario, r *demo.Run, q int, v string) *checkError {
	e := sc.Expect[boolIndex(r.On())]
	if q >= len(e.Answers) || e.Answers[q] == v {
		return nil
	}
	return fail(e.AnswersLine, "expect %s answer: the model's answer to move %d's question is %q, not %q", demo.OnOff(r.On()), r.Index()-1, v, e.Answers[q])
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}
