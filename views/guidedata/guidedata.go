// Package guidedata reads the guide's words from guide.yaml: the decision
// tree (is a distributed lock needed, and which one), Kleppmann's conclusion
// and the chapter's closing quiz, in both languages. The pages in views only
// lay these out. The file is built into the server and read and checked at
// start: a mistake stops the server with the file and the place, never a page.
package guidedata

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/script"
)

// Guide is the whole of guide.yaml.
type Guide struct {
	Tree             Node
	Conclusion       demo.Text // Kleppmann's conclusion (10.2), in our words
	ConclusionSource demo.Text // where it comes from
	Quiz             []Question
}

// Node is one point of the decision tree. A branch asks Question and its
// Children are the answers; a leaf says what to use (Advice), why, what to get
// right, and which scenarios show it. A leaf with no scenario says so in NoDemo.
type Node struct {
	ID       string    // the anchor "tree-<ID>" on the page; the quiz links to it
	Answer   demo.Text // the answer to the parent's question that leads here; empty at the root
	Question demo.Text // a branch: what to ask next
	Children []Node

	Advice demo.Text   // a leaf: what to use
	Why    demo.Text   // a leaf: why, in a sentence or two
	Points []demo.Text // a leaf: what to get right, one line each
	Demos  []DemoLink  // a leaf: the scenarios that show it
	NoDemo demo.Text   // a leaf with no scenario: why there is none
}

// DemoLink points from the guide at one frame of a scenario that shows what
// the guide says there.
type DemoLink struct {
	ID   string    // the scenario, by its id in scenarios.yaml
	On   bool      // the switch position to open it in
	Step int       // the frame to open; LastStep for the scenario's last
	Note demo.Text // what to look for there, in a few words
}

// LastStep in a DemoLink opens the scenario's last frame, where its verdict
// is. In guide.yaml it is a link without a step.
const LastStep = 0

// Question is one of the chapter's closing questions with its answer:
// paragraphs, an optional list, the scenarios that show it, and the part of
// the decision tree to read next. One with no scenario says so in NoDemo.
type Question struct {
	Ask    demo.Text
	Answer []demo.Text // paragraphs
	Points []demo.Text // a list after the paragraphs
	Demos  []DemoLink
	Tree   string    // the ID of a decision tree node to read next; "" for none
	NoDemo demo.Text // when no scenario shows it: said plainly
}

// Leaf reports whether n ends a branch.
func (n Node) Leaf() bool { return len(n.Children) == 0 }

// Leaves returns the tree's leaves, in the page's order.
func (n Node) Leaves() []Node {
	if n.Leaf() {
		return []Node{n}
	}
	var leaves []Node
	for _, c := range n.Children {
		leaves = append(leaves, c.Leaves()...)
	}
	return leaves
}

// Find returns the node with the given ID.
func (n Node) Find(id string) (Node, bool) {
	if n.ID == id {
		return n, true
	}
	for _, c := range n.Children {
		if found, ok := c.Find(id); ok {
			return found, true
		}
	}
	return Node{}, false
}

// Links is every DemoLink of the tree and the quiz.
func (g *Guide) Links() []DemoLink {
	var ls []DemoLink
	for _, n := range g.Tree.Leaves() {
		ls = append(ls, n.Demos...)
	}
	for _, q := range g.Quiz {
		ls = append(ls, q.Demos...)
	}
	return ls
}

// LinksTo names the places of the guide that link to scenario id: the
// leaves of the tree by their ID and the quiz's questions by their number,
// from 1, as a scenario's expect: guide names them.
func (g *Guide) LinksTo(id string) demo.GuideLinks {
	var to demo.GuideLinks
	links := func(ls []DemoLink) bool {
		return slices.ContainsFunc(ls, func(l DemoLink) bool { return l.ID == id })
	}
	for _, n := range g.Tree.Leaves() {
		if links(n.Demos) {
			to.Tree = append(to.Tree, n.ID)
		}
	}
	for i, q := range g.Quiz {
		if links(q.Demos) {
			to.Quiz = append(to.Quiz, i+1)
		}
	}
	return to
}

// Missing lists the scenario ids the guide links to that c lacks: only a
// -scenarios file of one's own can lack them, and the pages then leave
// those links out.
func (g *Guide) Missing(c *demo.Catalog) []string {
	var missing []string
	for _, l := range g.Links() {
		if _, ok := c.Get(l.ID); !ok {
			missing = append(missing, l.ID)
		}
	}
	return missing
}

// The file's grammar. Kept apart from the types above so that the pages
// never see YAML, and a misspelt key is an error rather than a silent gap.
type (
	fileText struct {
		JA string `yaml:"ja"`
		EN string `yaml:"en"`
	}
	fileLink struct {
		Scenario string   `yaml:"scenario"`
		Switch   string   `yaml:"switch"` // on or off
		Step     int      `yaml:"step"`   // left out: the last frame
		Note     fileText `yaml:"note"`
	}
	fileNode struct {
		ID       string     `yaml:"id"`
		Answer   *fileText  `yaml:"answer"`
		Question *fileText  `yaml:"question"`
		Children []fileNode `yaml:"children"`
		Advice   *fileText  `yaml:"advice"`
		Why      *fileText  `yaml:"why"`
		Points   []fileText `yaml:"points"`
		Demos    []fileLink `yaml:"demos"`
		NoDemo   *fileText  `yaml:"no-demo"`
	}
	fileQuestion struct {
		Ask    fileText   `yaml:"ask"`
		Answer []fileText `yaml:"answer"`
		Points []fileText `yaml:"points"`
		Demos  []fileLink `yaml:"demos"`
		Tree   string     `yaml:"tree"`
		NoDemo *fileText  `yaml:"no-demo"`
	}
	file struct {
		Tree       fileNode `yaml:"tree"`
		Conclusion struct {
			Text   fileText `yaml:"text"`
			Source fileText `yaml:"source"`
		} `yaml:"conclusion"`
		Quiz []fileQuestion `yaml:"quiz"`
	}
)

// decode reads the file's shape with the YAML library, whose messages say
// on which line a mistake is; a key the shape lacks is one.
func decode(name string, data []byte) (*file, error) {
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return nil, script.YAMLError(name, data, err)
	}
	return &f, nil
}

// Load reads and checks guide.yaml; name is the file's name for errors.
func Load(name string, data []byte) (*Guide, error) {
	f, err := decode(name, data)
	if err != nil {
		return nil, err
	}
	c := &checker{ids: map[string]bool{}}
	g := &Guide{
		Tree:             c.node(f.Tree, "tree", true),
		Conclusion:       c.text(&f.Conclusion.Text, "conclusion.text"),
		ConclusionSource: c.text(&f.Conclusion.Source, "conclusion.source"),
	}
	if len(f.Quiz) == 0 {
		c.fail("quiz: no questions")
	}
	for i, q := range f.Quiz {
		at := fmt.Sprintf("quiz[%d]", i)
		gq := Question{Ask: c.text(&q.Ask, at+".ask"), Tree: q.Tree}
		for j := range q.Answer {
			gq.Answer = append(gq.Answer, c.text(&q.Answer[j], fmt.Sprintf("%s.answer[%d]", at, j)))
		}
		for j := range q.Points {
			gq.Points = append(gq.Points, c.text(&q.Points[j], fmt.Sprintf("%s.points[%d]", at, j)))
		}
		if len(gq.Answer) == 0 {
			c.fail(at + ": no answer")
		}
		gq.Demos = c.links(q.Demos, at)
		if q.NoDemo != nil {
			gq.NoDemo = c.text(q.NoDemo, at+".no-demo")
		}
		if len(gq.Demos) == 0 && q.NoDemo == nil {
			c.fail(at + ": neither demos nor no-demo")
		}
		if q.Tree != "" && !c.ids[q.Tree] {
			c.fail(fmt.Sprintf("%s.tree: no node %q in the tree", at, q.Tree))
		}
		g.Quiz = append(g.Quiz, gq)
	}
	if err := errors.Join(c.errs...); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return g, nil
}

type checker struct {
	ids  map[string]bool
	errs []error
}

func (c *checker) fail(msg string) { c.errs = append(c.errs, errors.New(msg)) }

// text insists on both languages: a page must never show a blank.
func (c *checker) text(t *fileText, at string) demo.Text {
	if t == nil || t.JA == "" || t.EN == "" {
		c.fail(at + ": want both ja and en")
		return demo.Text{}
	}
	return demo.Text{JA: t.JA, EN: t.EN}
}

func (c *checker) node(n fileNode, at string, root bool) Node {
	if n.ID == "" {
		c.fail(at + ": no id")
	} else if c.ids[n.ID] {
		c.fail(fmt.Sprintf("%s: id %q used twice", at, n.ID))
	}
	c.ids[n.ID] = true
	at += "(" + n.ID + ")"
	g := Node{ID: n.ID}
	if !root {
		g.Answer = c.text(n.Answer, at+".answer")
	}
	if len(n.Children) > 0 {
		g.Question = c.text(n.Question, at+".question")
		for i, child := range n.Children {
			g.Children = append(g.Children, c.node(child, fmt.Sprintf("%s.children[%d]", at, i), false))
		}
		if n.Advice != nil || n.Why != nil || len(n.Points) > 0 || len(n.Demos) > 0 || n.NoDemo != nil {
			c.fail(at + ": a branch has children, so no advice, why, points, demos or no-demo")
		}
		return g
	}
	g.Advice = c.text(n.Advice, at+".advice")
	g.Why = c.text(n.Why, at+".why")
	for i := range n.Points {
		g.Points = append(g.Points, c.text(&n.Points[i], fmt.Sprintf("%s.points[%d]", at, i)))
	}
	g.Demos = c.links(n.Demos, at)
	if n.NoDemo != nil {
		g.NoDemo = c.text(n.NoDemo, at+".no-demo")
	}
	if len(g.Demos) == 0 && n.NoDemo == nil {
		c.fail(at + ": a leaf needs demos or no-demo")
	}
	return g
}

func (c *checker) links(ls []fileLink, at string) []DemoLink {
	var out []DemoLink
	for i, l := range ls {
		where := fmt.Sprintf("%s.demos[%d]", at, i)
		if l.Scenario == "" {
			c.fail(where + ": no scenario")
		}
		if l.Switch != "on" && l.Switch != "off" {
			c.fail(fmt.Sprintf("%s: switch %q, want on or off", where, l.Switch))
		}
		if l.Step < 0 {
			c.fail(fmt.Sprintf("%s: step %d, want 1 or more (or none for the last)", where, l.Step))
		}
		out = append(out, DemoLink{ID: l.Scenario, On: l.Switch == "on", Step: l.Step, Note: c.text(&l.Note, where+".note")})
	}
	return out
}
