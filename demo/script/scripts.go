package script

import (
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/distlock/fencing-demo/demo"
)

// scripts are a scenario's named scripts, written as a mapping from each
// name to its role and its Lua, in the order the file gives them:
//
//	scripts:
//	  release-checked:
//	    role: release
//	    lua: |
//	      if redis.call('get', KEYS[1]) == ARGV[1] then ...
type scripts []scriptEntry

type scriptEntry struct {
	name, role, lua string
	line            int // the line of the Lua's first line
}

// scriptBody is one script's fields as the file writes them.
type scriptBody struct {
	Role string `yaml:"role"`
	Lua  string `yaml:"lua"`
}

// UnmarshalYAML reads the mapping in its order, keeping where each
// script's Lua begins so that a mistake in it names the file's line.
func (ss *scripts) UnmarshalYAML(node *yaml.Node) error {
	if node.Kind != yaml.MappingNode {
		return &lineError{line: node.Line, msg: "scripts: a mapping from each script's name to its role and lua"}
	}
	for i := 0; i+1 < len(node.Content); i += 2 {
		key, val := node.Content[i], node.Content[i+1]
		var body scriptBody
		if err := decodeKnown(val, &body); err != nil {
			return err
		}
		e := scriptEntry{name: key.Value, role: body.Role, lua: body.Lua, line: key.Line}
		if l := luaNode(val); l != nil {
			e.line = l.Line
			if l.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
				e.line++ // a block's text begins on the line after its "|"
			}
		}
		*ss = append(*ss, e)
	}
	return nil
}

// decodeKnown decodes n into v, refusing a key v lacks, as the file's
// decoder does.
func decodeKnown(n *yaml.Node, v any) error {
	if n.Kind != yaml.MappingNode {
		return &lineError{line: n.Line, msg: "a script is a mapping with role: and lua:"}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; k != "role" && k != "lua" {
			return &lineError{line: n.Content[i].Line, msg: fmt.Sprintf("unknown key %q in a script (want role and lua)", k)}
		}
	}
	return n.Decode(v)
}

// luaNode is the value of a script's lua: key.
func luaNode(n *yaml.Node) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "lua" {
			return n.Content[i+1]
		}
	}
	return nil
}

// MarshalYAML writes the mapping in order, each script's Lua as a block.
func (ss scripts) MarshalYAML() (any, error) {
	m := &yaml.Node{Kind: yaml.MappingNode}
	for _, e := range ss {
		lua := scalar(e.lua)
		lua.Style = yaml.LiteralStyle
		body := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
			scalar("role"), scalar(e.role), scalar("lua"), lua,
		}}
		m.Content = append(m.Content, scalar(e.name), body)
	}
	return m, nil
}

func (ss scripts) demo() []demo.Script {
	var out []demo.Script
	for _, e := range ss {
		out = append(out, demo.Script{Name: e.name, Role: e.role, Lua: e.lua, Line: e.line})
	}
	return out
}

func scriptsOf(ss []demo.Script) scripts {
	var out scripts
	for _, s := range ss {
		out = append(out, scriptEntry{name: s.Name, role: s.Role, lua: s.Lua, line: s.Line})
	}
	return out
}

// checkScripts: each script's name, which an action names it by, and a
// family that runs scripts; its role and its Lua are the family's to
// check (Family.Check), as they are its to run.
func checkScripts(sc *demo.Scenario) *checkError {
	if len(sc.Scripts) == 0 {
		return nil
	}
	if _, ok := sc.Family.Verb(sc.Store, evalVerb); !ok {
		return fail(sc.Scripts[0].Line, "scripts: the %s store runs no scripts (a Redis store's eval does)", sc.Store)
	}
	for i, s := range sc.Scripts {
		if !validID(s.Name) {
			return fail(s.Line, "script %q: a name of lower-case letters, digits and dashes", s.Name)
		}
		for _, t := range sc.Scripts[:i] {
			if t.Name == s.Name {
				return fail(s.Line, "script %q is named twice", s.Name)
			}
		}
	}
	return nil
}

// evalVerb is the verb by which a family's client runs a script: the
// families that take it are those whose scenarios may have scripts.
const evalVerb demo.Verb = "eval"

// scriptFail is the family's check's mistake, on the file's line of the
// script line it names when it names one (a script that does not compile),
// or of the script's first line (line 0: a script's role, say).
func scriptFail(sc *demo.Scenario, err error) *checkError {
	var at interface{ ScriptLine() (string, int) }
	if errors.As(err, &at) {
		name, line := at.ScriptLine()
		if s, ok := sc.ScriptNamed(name); ok {
			return fail(s.Line+max(line, 1)-1, "%s", err)
		}
	}
	return fail(0, "%s", err)
}
