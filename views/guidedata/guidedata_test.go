package guidedata_test

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views/guidedata"
)

// Every string of guide.yaml is there in both languages: a Text is
// either wholly absent (an optional part) or has both its ja and en. And the
// parts each kind of node needs are present.
func TestGuideContentBilingual(t *testing.T) {
	g := testkit.Guide(t)
	textType := reflect.TypeOf(demo.Text{})
	var walk func(path string, v reflect.Value)
	walk = func(path string, v reflect.Value) {
		switch {
		case v.Type() == textType:
			ja, en := v.Interface().(demo.Text).JA, v.Interface().(demo.Text).EN
			if (strings.TrimSpace(ja) == "") != (strings.TrimSpace(en) == "") {
				t.Errorf("%s: ja=%q en=%q, want both or neither", path, ja, en)
			}
			if ja != "" && ja == en {
				t.Errorf("%s: the same text in both languages: %q", path, ja)
			}
		case v.Kind() == reflect.Struct:
			for i := range v.NumField() {
				walk(path+"."+v.Type().Field(i).Name, v.Field(i))
			}
		case v.Kind() == reflect.Slice:
			for i := range v.Len() {
				walk(path+"["+strconv.Itoa(i)+"]", v.Index(i))
			}
		}
	}
	walk("GuideTree", reflect.ValueOf(g.Tree))
	walk("GuideQuiz", reflect.ValueOf(g.Quiz))
	walk("GuideConclusion", reflect.ValueOf(g.Conclusion))
	walk("GuideConclusionSource", reflect.ValueOf(g.ConclusionSource))

	both := func(path string, x demo.Text) {
		t.Helper()
		if x.JA == "" || x.EN == "" {
			t.Errorf("%s: missing (ja=%q en=%q)", path, x.JA, x.EN)
		}
	}
	both("GuideConclusion", g.Conclusion)
	both("GuideConclusionSource", g.ConclusionSource)
	ids := map[string]bool{}
	var node func(path string, n guidedata.Node, root bool)
	node = func(path string, n guidedata.Node, root bool) {
		if n.ID == "" || ids[n.ID] {
			t.Errorf("%s: id %q is empty or used twice", path, n.ID)
		}
		ids[n.ID] = true
		if !root {
			both(path+".Answer", n.Answer)
		}
		if n.Leaf() {
			both(path+".Advice", n.Advice)
			both(path+".Why", n.Why)
			if len(n.Demos) == 0 {
				both(path+".NoDemo", n.NoDemo)
			}
			for i, l := range n.Demos {
				both(path+".Demos["+strconv.Itoa(i)+"].Note", l.Note)
			}
			return
		}
		both(path+".Question", n.Question)
		if len(n.Children) < 2 {
			t.Errorf("%s: a question with %d answers", path, len(n.Children))
		}
		for i, c := range n.Children {
			node(path+".Children["+strconv.Itoa(i)+"]", c, false)
		}
	}
	node("GuideTree", g.Tree, true)
	if got, want := len(g.Quiz), 5; got != want {
		t.Fatalf("%d quiz questions, want the chapter's %d", got, want)
	}
	for i, q := range g.Quiz {
		path := "GuideQuiz[" + strconv.Itoa(i) + "]"
		both(path+".Ask", q.Ask)
		if len(q.Answer) == 0 {
			t.Errorf("%s: no answer", path)
		}
		if len(q.Demos) == 0 {
			both(path+".NoDemo", q.NoDemo)
		}
		for k, l := range q.Demos {
			both(path+".Demos["+strconv.Itoa(k)+"].Note", l.Note)
		}
		if _, ok := g.Tree.Find(q.Tree); q.Tree != "" && !ok {
			t.Errorf("%s: links the tree's node %q, which is not there", path, q.Tree)
		}
	}
}

// Every scenario the guide links to is in scenarios.yaml, at a frame it has.
func TestGuideLinksKnownScenarios(t *testing.T) {
	g, c := testkit.Guide(t), testkit.Catalog(t)
	if missing := g.Missing(c); len(missing) > 0 {
		t.Fatalf("the guide links to scenarios not in scenarios.yaml: %v", missing)
	}
	for _, l := range g.Links() {
		sc, _ := c.Get(l.ID)
		if l.Step != guidedata.LastStep && l.Step > sc.Frames() {
			t.Errorf("link to %s: step %d, but it has %d frames", l.ID, l.Step, sc.Frames())
		}
	}
}

// A mistake in guide.yaml stops start-up with what and where, rather than
// make a page with a gap.
func TestLoadRejects(t *testing.T) {
	const leaf = `
tree:
  id: root
  question: {ja: "問", en: "Q"}
  children:
  - id: a
    answer: {ja: "答", en: "A"}
    advice: {ja: "助言", en: "Advice"}
    why: {ja: "理由", en: "Why"}
    no-demo: {ja: "無し", en: "None"}
  - id: b
    answer: {ja: "答", en: "B"}
    advice: {ja: "助言", en: "Advice"}
    why: {ja: "理由", en: "Why"}
    demos:
    - scenario: gc-pause
      switch: on
      note: {ja: "見る", en: "Look"}
conclusion:
  text: {ja: "結論", en: "Conclusion"}
  source: {ja: "出典", en: "Source"}
quiz:
- ask: {ja: "問", en: "Q"}
  answer:
  - {ja: "答", en: "A"}
  no-demo: {ja: "無し", en: "None"}
  tree: a
`
	if _, err := guidedata.Load("ok.yaml", []byte(leaf)); err != nil {
		t.Fatalf("a good file: %v", err)
	}
	for name, tc := range map[string]struct{ from, to, want string }{
		"one language only": {`why: {ja: "理由", en: "Why"}`, `why: {ja: "理由"}`, "want both ja and en"},
		"unknown key":       {`no-demo: {ja: "無し", en: "None"}`, `nodemo: {ja: "無し", en: "None"}`, "nodemo"},
		"id used twice":     {"id: b", "id: a", `id "a" used twice`},
		"bad switch":        {"switch: on", "switch: maybe", `switch "maybe"`},
		"quiz to nowhere":   {"tree: a", "tree: z", `no node "z"`},
	} {
		t.Run(name, func(t *testing.T) {
			bad := strings.Replace(leaf, tc.from, tc.to, 1)
			if bad == leaf {
				t.Fatalf("the test's %q is not in the file", tc.from)
			}
			_, err := guidedata.Load("bad.yaml", []byte(bad))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "bad.yaml") {
				t.Fatalf("err=%v, want one naming bad.yaml and %q", err, tc.want)
			}
		})
	}
}

// The guide links what it says to the frames that show it, and says nothing
// a frame contradicts (issue 18, points 7 and 11): a link opens where its
// caption's outcome is, the last frame; the Redis leaf shows the scenario
// where no number could fence; the quiz's compare-and-set links its demo;
// the check-and-set argument is given by both sides in their own words; and
// the guide says which of the two texts is right about payments.
func TestGuideSaysWhatItsFramesShow(t *testing.T) {
	g := testkit.Guide(t)
	var all []guidedata.DemoLink
	var leaf guidedata.Node
	var walk func(n guidedata.Node)
	walk = func(n guidedata.Node) {
		all = append(all, n.Demos...)
		if n.ID == "redis-for-correctness" {
			leaf = n
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(g.Tree)
	for _, q := range g.Quiz {
		all = append(all, q.Demos...)
	}
	for _, l := range all {
		if l.Step != guidedata.LastStep {
			t.Errorf("link to %s opens at step %d: %q describes the end", l.ID, l.Step, l.Note.EN)
		}
		if strings.Contains(l.Note.EN, "the lock is lost") && l.ID == "redlock-quorum" {
			t.Errorf("redlock-quorum link %q: A never gets the lock", l.Note.EN)
		}
	}
	linked := func(ls []guidedata.DemoLink, id string, on bool) bool {
		for _, l := range ls {
			if l.ID == id && l.On == on {
				return true
			}
		}
		return false
	}
	if !linked(leaf.Demos, "redlock-gc-pause", true) {
		t.Error("the Redis leaf does not link redlock-gc-pause, which shows there is no number that could fence")
	}
	var points string
	for _, p := range leaf.Points {
		points += p.EN + "\n"
	}
	if !strings.Contains(points, "payments") || !strings.Contains(points, "Kleppmann (text 000) is right") {
		t.Errorf("the Redis leaf does not settle text 003's claim about payments: %q", points)
	}
	q1, q5 := g.Quiz[0], g.Quiz[4]
	var answer string
	for _, p := range q1.Answer {
		answer += p.EN + "\n"
	}
	for _, w := range []string{"we set its state to", "does not provide the required monotonicity", "take an active role in checking tokens"} {
		if !strings.Contains(answer, w) {
			t.Errorf("quiz 1 does not quote %q: %q", w, answer)
		}
	}
	if !linked(q5.Demos, "optimistic-version", true) || q5.NoDemo.EN != "" {
		t.Errorf("quiz 5 names compare-and-set and must link optimistic-version, not say there is no scenario: %+v", q5)
	}
}

// LinksTo names the leaves and the questions that link to a scenario, as
// its expect: guide names them.
func TestLinksTo(t *testing.T) {
	g := testkit.Guide(t)
	got := g.LinksTo("gc-pause")
	if !slices.Equal(got.Tree, []string{"consensus"}) || !slices.Contains(got.Quiz, 2) {
		t.Fatalf("LinksTo(gc-pause)=%+v, want the consensus leaf and question 2 among them", got)
	}
	if got := g.LinksTo("nope"); len(got.Tree)+len(got.Quiz) != 0 {
		t.Fatalf("LinksTo(nope)=%+v, want nothing", got)
	}
}
