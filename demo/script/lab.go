package script

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/distlock/fencing-demo/demo"
)

// A scenario's lab as the file writes it (demo.Lab): what the learner
// builds, the blocks and settings they build it from, the broken starter,
// and the reference solutions and wrong tries with the judge's answers.
type lab struct {
	Goal      text      `yaml:"goal"`
	Clients   words     `yaml:"clients"`
	Palette   []block   `yaml:"palette,omitempty"`
	Settings  []setting `yaml:"settings,omitempty"`
	Scripts   words     `yaml:"scripts,omitempty"`
	Property  string    `yaml:"property,omitempty"`
	Sometimes string    `yaml:"sometimes,omitempty"`
	Time      int       `yaml:"time,omitempty"`
	Steps     []int     `yaml:"steps,omitempty,flow"`
	Starter   labBuild  `yaml:"starter"`
	Tries     []try     `yaml:"tries,omitempty"`
	line      int
}

// UnmarshalYAML reads a lab and keeps its line.
func (l *lab) UnmarshalYAML(node *yaml.Node) error {
	type plain lab
	if err := node.Decode((*plain)(l)); err != nil {
		return err
	}
	l.line = node.Line
	return nil
}

type block struct {
	Line   string `yaml:"line"`
	Client string `yaml:"client,omitempty"`
	Label  text   `yaml:"label"`
}

type setting struct {
	Name   string `yaml:"name"`
	Label  text   `yaml:"label"`
	Values words  `yaml:"values"`
}

type try struct {
	Name   string   `yaml:"name"`
	Label  text     `yaml:"label"`
	Build  labBuild `yaml:"build"`
	Expect string   `yaml:"expect"`
	line   int
}

// UnmarshalYAML reads a try and keeps its line.
func (t *try) UnmarshalYAML(node *yaml.Node) error {
	type plain try
	if err := node.Decode((*plain)(t)); err != nil {
		return err
	}
	t.line = node.Line
	return nil
}

// labBuild is a demo.Build as the file writes it: each client's program under
// its name, then set: and scripts:.
//
//	A: [acquire 10, write $me]
//	set: {fencing: "on"}
type labBuild struct{ demo.Build }

// UnmarshalYAML reads a build: a mapping of clients to their lines, with
// set: and scripts: beside them.
func (b *labBuild) UnmarshalYAML(node *yaml.Node) error {
	var m map[string]yaml.Node
	if err := node.Decode(&m); err != nil {
		return err
	}
	b.Build = demo.Build{Programs: map[string][]string{}, Settings: map[string]string{}, Scripts: map[string]string{}}
	for k, v := range m {
		var err error
		switch k {
		case "set":
			err = v.Decode(&b.Settings)
		case "scripts":
			err = v.Decode(&b.Scripts)
		default:
			var lines []string
			err = v.Decode(&lines)
			b.Programs[k] = lines
		}
		if err != nil {
			return &lineError{line: v.Line, msg: fmt.Sprintf("%s: %v", k, err)}
		}
	}
	return nil
}

// MarshalYAML writes a build as it is read.
func (b labBuild) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	add := func(k string, v any) error {
		var val yaml.Node
		if err := val.Encode(v); err != nil {
			return err
		}
		n.Content = append(n.Content, scalar(k), &val)
		return nil
	}
	for _, c := range slices.Sorted(maps.Keys(b.Programs)) {
		lines := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, l := range b.Programs[c] {
			lines.Content = append(lines.Content, scalar(l))
		}
		n.Content = append(n.Content, scalar(c), lines)
	}
	if len(b.Settings) > 0 {
		if err := add("set", b.Settings); err != nil {
			return nil, err
		}
	}
	if len(b.Scripts) > 0 {
		if err := add("scripts", b.Scripts); err != nil {
			return nil, err
		}
	}
	return n, nil
}

func (l *lab) demo() *demo.Lab {
	if l == nil {
		return nil
	}
	d := &demo.Lab{Goal: l.Goal.demo(), Clients: l.Clients, Scripts: l.Scripts, Property: l.Property, Sometimes: l.Sometimes, Time: l.Time, Steps: l.Steps, Starter: l.Starter.Build}
	for _, b := range l.Palette {
		d.Palette = append(d.Palette, demo.Block{Line: b.Line, Label: b.Label.demo(), Client: b.Client})
	}
	for _, s := range l.Settings {
		d.Settings = append(d.Settings, demo.Setting{Name: s.Name, Label: s.Label.demo(), Values: s.Values})
	}
	for _, t := range l.Tries {
		d.Tries = append(d.Tries, demo.Try{Name: t.Name, Label: t.Label.demo(), Build: t.Build.Build, Expect: t.Expect, Line: t.line})
	}
	return d
}

func labOf(d *demo.Lab) *lab {
	if d == nil {
		return nil
	}
	l := &lab{Goal: textOf(d.Goal), Clients: d.Clients, Scripts: d.Scripts, Property: d.Property, Sometimes: d.Sometimes, Time: d.Time, Steps: d.Steps, Starter: labBuild{d.Starter}}
	for _, b := range d.Palette {
		l.Palette = append(l.Palette, block{Line: b.Line, Label: textOf(b.Label), Client: b.Client})
	}
	for _, s := range d.Settings {
		l.Settings = append(l.Settings, setting{Name: s.Name, Label: textOf(s.Label), Values: s.Values})
	}
	for _, t := range d.Tries {
		l.Tries = append(l.Tries, try{Name: t.Name, Label: textOf(t.Label), Build: labBuild{t.Build}, Expect: t.Expect})
	}
	return l
}

// checkLab: a lab's clients are the scenario's, its sometimes property is
// one, its settings name the switch (on and off) or a value its lines use,
// its texts are in both languages, and its starter and every try build a
// scenario that plays (demo.Apply); each try states an answer the judge
// can give. Whether the judge gives it is the tests' and the check
// command's to hold: a search is too dear for every start.
func checkLab(sc *demo.Scenario, line int) *checkError {
	l := sc.Lab
	if l == nil {
		return nil
	}
	if msg := complete("lab goal", l.Goal); msg != "" {
		return fail(line, "%s", msg)
	}
	for _, c := range l.Clients {
		if !slices.Contains(sc.Clients, c) {
			return fail(line, "lab: client %q is not one of %s", c, strings.Join(sc.Clients, ", "))
		}
	}
	if len(l.Clients) == 0 && len(l.Scripts) == 0 && len(l.Settings) == 0 {
		return fail(line, "lab: nothing to build: name clients, scripts or settings")
	}
	if p, ok := demo.PropertyOf(sc.Family, l.Sometimes); l.Sometimes != "" && (!ok || !p.Sometimes()) {
		return fail(line, "lab: sometimes %q is not a sometimes property", l.Sometimes)
	}
	if p, ok := demo.PropertyOf(sc.Family, l.Property); l.Property != "" && (!ok || p.Sometimes()) {
		return fail(line, "lab: property %q is not an always property of the %s family", l.Property, sc.Family.Name)
	}
	if sc.Property == "" && l.Property == "" {
		return fail(line, "lab: the judge holds a fix to the lab's property or the scenario's, and neither names one")
	}
	for _, s := range l.Settings {
		if s.Name == sc.Switch && !slices.Equal(slices.Sorted(slices.Values(s.Values)), []string{"off", "on"}) {
			return fail(line, "lab setting %s is the switch: its values are off and on", s.Name)
		}
		if s.Name != sc.Switch && !namedInLines(l, s.Name) && !configures(sc, s) {
			return fail(line, "lab setting %s is not the switch, no line names $%s, and the %s family takes no such setting", s.Name, s.Name, sc.Family.Name)
		}
		if msg := complete("lab setting "+s.Name+" label", s.Label); msg != "" {
			return fail(line, "%s", msg)
		}
	}
	for _, b := range l.Palette {
		if msg := complete(fmt.Sprintf("lab block %q label", b.Line), b.Label); msg != "" {
			return fail(line, "%s", msg)
		}
	}
	if _, err := demo.Apply(sc, l.Starter); err != nil {
		return fail(line, "lab starter: %v", err)
	}
	for _, t := range l.Tries {
		if _, err := demo.Apply(sc, t.Build); err != nil {
			return fail(t.Line, "lab try %s: %v", t.Name, err)
		}
		if !validVerdict(t.Expect) {
			return fail(t.Line, `lab try %s: expect %q: want "broken in N", "holds", "holds to D", "never" or "never to D"`, t.Name, t.Expect)
		}
	}
	return nil
}

// validVerdict reports whether v is a judge's answer as find.Judgement's
// Verdict words it.
func validVerdict(v string) bool {
	f := strings.Fields(v)
	switch {
	case len(f) == 1:
		return f[0] == "holds" || f[0] == "never"
	case len(f) == 3 && (f[0] == "broken" && f[1] == "in" || (f[0] == "holds" || f[0] == "never") && f[1] == "to"):
		_, err := demo.Number(f[2], "number")
		return err == nil
	}
	return false
}

// namedInLines reports whether a line of l's palette, starter or tries
// names the setting as $name.
func namedInLines(l *demo.Lab, name string) bool {
	builds := []demo.Build{l.Starter}
	for _, t := range l.Tries {
		builds = append(builds, t.Build)
	}
	var lines []string
	for _, b := range l.Palette {
		lines = append(lines, b.Line)
	}
	for _, b := range builds {
		for _, prog := range b.Programs {
			lines = append(lines, prog...)
		}
	}
	return slices.ContainsFunc(lines, func(line string) bool { return strings.Contains(line, "$"+name) })
}

// configures reports whether sc's family takes s as its configuration,
// tried on a copy of sc with each of s's values.
func configures(sc *demo.Scenario, s demo.Setting) bool {
	if sc.Family.Configure == nil || len(s.Values) == 0 {
		return false
	}
	for _, v := range s.Values {
		c := *sc
		if !sc.Family.Configure(&c, s.Name, v) {
			return false
		}
	}
	return true
}
