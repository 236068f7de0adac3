package views

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/a-h/templ"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views/guidedata"
)

// The guide: two pages that sit next to the demo. The decision tree asks
// whether a distributed lock is needed at all and which one fits; the quiz
// asks the chapter's five closing questions. The words are data, in
// guide.yaml beside scenarios.yaml (read by guidedata); the pages
// (guide.templ) only lay them out, and each leaf and answer points at the
// scenarios that show what it says.

// GuideTreeURL is the decision tree's address in lang.
func GuideTreeURL(lang string) string { return "/guide/decision-tree?" + LangParam + "=" + lang }

// WalkParam names the point of the decision tree a walk has reached.
const WalkParam = "at"

// GuideWalkURL is the decision tree's point id on a page of its own: one
// question with its answers as links, or the advice a branch ends in.
func GuideWalkURL(lang, id string) string {
	return GuideTreeURL(lang) + "&" + WalkParam + "=" + url.QueryEscape(id)
}

// TreePath is the way from n down to the point id: n first, that point
// last. ok is false when the tree has no such point.
func TreePath(n guidedata.Node, id string) (path []guidedata.Node, ok bool) {
	if n.ID == id {
		return []guidedata.Node{n}, true
	}
	for _, c := range n.Children {
		if rest, ok := TreePath(c, id); ok {
			return append([]guidedata.Node{n}, rest...), true
		}
	}
	return nil, false
}

// GuideQuizURL is the quiz's address in lang.
func GuideQuizURL(lang string) string { return "/guide/quiz?" + LangParam + "=" + lang }

// GuideLinked reports whether the site's header should link to the guide. The
// guide lives only on the server: the static export (web/export) links its
// pages to each other by relative paths and has no guide to link to, so a page
// whose Home is not an address on the server gets no guide links.
func GuideLinked(p Page) bool { return strings.HasPrefix(p.Home, "/") }

// navCurrent marks the header's link to the page being shown.
func navCurrent(p Page, url string) templ.Attributes {
	if p.Canonical == url {
		return templ.Attributes{"aria-current": "page"}
	}
	return templ.Attributes{}
}

// treeLabel names a node of the decision tree in a link to it: what its
// leaf advises, or for a branch the answer that leads there.
func treeLabel(g Guide, id string) string {
	n, ok := g.Text.Tree.Find(id)
	if !ok {
		return ""
	}
	if n.Leaf() {
		return n.Advice.In(g.Lang)
	}
	return n.Answer.In(g.Lang)
}

// Guide is the view model of both guide pages. The words are guide.yaml's,
// read once at start-up (guidedata); the catalog turns a DemoLink into a
// scenario's title and a frame's address.
type Guide struct {
	Page
	Text    *guidedata.Guide
	Catalog *demo.Catalog
	Walk    []guidedata.Node // a walk through the tree: the root down to where it has reached
}

// GuideDemo is a DemoLink made ready for the page.
type GuideDemo struct {
	URL   string // the frame's address
	Title string // the scenario's title
	Where string // the switch and the step, in words
	Note  string // what to look for
}

// Demo resolves l in the guide's language. ok is false when the catalog has
// no such scenario (a -scenarios file without it): the page leaves it out.
func (g Guide) Demo(l guidedata.DemoLink) (d GuideDemo, ok bool) {
	sc, ok := g.Catalog.Get(l.ID)
	if !ok {
		return GuideDemo{}, false
	}
	step := l.Step
	if step == guidedata.LastStep || step > sc.Frames() {
		step = sc.Frames()
	}
	return GuideDemo{
		URL:   Place{Place: demo.Place{Sc: sc, On: l.On, Step: step}, Lang: g.Lang}.URL(),
		Title: sc.Title.In(g.Lang),
		Where: fmt.Sprintf(T(g.Lang, "guide.where"), sc.SwitchLabel.In(g.Lang), T(g.Lang, demo.OnOff(l.On)), step, sc.Frames()),
		Note:  l.Note.In(g.Lang),
	}, true
}

// Demos resolves ls, leaving out those the catalog lacks.
func (g Guide) Demos(ls []guidedata.DemoLink) []GuideDemo {
	var ds []GuideDemo
	for _, l := range ls {
		if d, ok := g.Demo(l); ok {
			ds = append(ds, d)
		}
	}
	return ds
}
