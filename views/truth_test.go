package views_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/html"

	"github.com/a-h/templ"
	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/demo/truth"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// Every sentence the page writes from the model is true in every frame a
// learner can reach, not only in the scripts. For every scenario in both
// positions, the test walks the finder's own search from the first frame
// and from the frame before the script's crucial move (to walkDepth steps),
// and takes every frame of the script; it renders each frame in both
// languages with each sentence's claims (views/claims.go) and holds them to
// the frame with package truth's own reading of the model. It also reads
// the words themselves: a sentence that says data was destroyed, that a
// value was overwritten, that no write reached the resource or that a
// client holds the lock must claim that fact, and a scenario counted in
// ticks shows no seconds.
func TestEverySentenceTrue(t *testing.T) {
	depth, states := 5, 20_000
	if testing.Short() {
		depth, states = 1, 100
	}
	var (
		mu       sync.Mutex
		total    audit
		byFamily = map[string]*audit{}
	)
	t.Cleanup(func() {
		for _, name := range slices.Sorted(maps.Keys(byFamily)) {
			f := byFamily[name]
			t.Logf("%s: %d frames, %d sentences, %d claims", name, f.frames, f.sentences, f.claims)
		}
		t.Logf("checked %d frames, %d sentences and %d claims, in both languages (depth %d)", total.frames, total.sentences, total.claims, depth)
	})
	for _, sc := range testkit.Catalog(t).Scenarios {
		for _, on := range []bool{false, true} {
			t.Run(testkit.Name(sc, on), func(t *testing.T) {
				t.Parallel()
				var a audit
				a.script(t, sc, on)
				if sc.Family.Offers != nil {
					for _, step := range starts(sc) {
						a.walk(t, demo.Place{Sc: sc, On: on, Step: step}, find.Options{Depth: depth, MaxStates: states})
					}
				}
				mu.Lock()
				total.add(a)
				if byFamily[sc.Family.Name] == nil {
					byFamily[sc.Family.Name] = &audit{}
				}
				byFamily[sc.Family.Name].add(a)
				mu.Unlock()
			})
		}
	}
}

// walk reads every frame the finder's own search reaches from start,
// within opt, and stops at the first frame that fails.
func (a *audit) walk(t *testing.T, start demo.Place, opt find.Options) {
	t.Helper()
	_, err := find.Walk(start, opt, func(trace []demo.Action) bool {
		p := start
		for _, act := range trace {
			p = p.Then(act)
		}
		a.place(t, p)
		return !t.Failed()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// starts are where the walk begins: the first frame, and the frame before
// the crucial move (the one a question is asked before, else the last).
func starts(sc *demo.Scenario) []int {
	crucial := sc.Frames() - 1
	for k := 1; k < sc.Frames(); k++ {
		if sc.Asked(k) != nil {
			crucial = k
		}
	}
	if crucial <= 1 {
		return []int{1}
	}
	return []int{1, crucial}
}

// audit counts what was checked.
type audit struct{ frames, sentences, claims int }

func (a *audit) add(b audit) {
	a.frames += b.frames
	a.sentences += b.sentences
	a.claims += b.claims
}

// script audits every frame of the script in position on, each page whole.
func (a *audit) script(t *testing.T, sc *demo.Scenario, on bool) {
	for k := 1; k <= sc.Frames(); k++ {
		a.render(t, demo.Place{Sc: sc, On: on, Step: k}, views.DemoFragment)
	}
}

// place audits the frame at p as it tells the model in words (views.Told):
// the walk meets hundreds of thousands of frames, whose drawings and
// controls say nothing the test holds.
func (a *audit) place(t *testing.T, p demo.Place) {
	t.Helper()
	a.render(t, p, views.Told)
}

// render renders the frame at p in both languages with component and holds
// each sentence to it.
func (a *audit) render(t *testing.T, p demo.Place, component func(views.Demo) templ.Component) {
	t.Helper()
	f, err := p.Frame()
	if err != nil {
		t.Fatalf("%s: %v", where(p), err)
	}
	a.frames++
	for _, lang := range []string{"ja", "en"} {
		here := views.Place{Place: p, Lang: lang, FreePlay: p.Free()}
		d := views.Demo{Page: views.Page{Lang: lang, Audit: true}, Frame: f, Here: here}
		var buf bytes.Buffer
		if err := component(d).Render(context.Background(), &buf); err != nil {
			t.Fatal(err)
		}
		a.sentencesOf(t, p, &f, lang, buf.Bytes())
	}
}

// sentence is an element that claims facts, with its text.
type sentence struct {
	claims string
	text   strings.Builder
}

// sentencesOf holds every sentence of the page that claims facts to f, and
// reads the words of the frame's text. It reads the page as tokens: a tree
// for every frame walked would cost more than the frame.
func (a *audit) sentencesOf(t *testing.T, p demo.Place, f *demo.Frame, lang string, page []byte) {
	t.Helper()
	var open []*sentence // the sentences being read, innermost last
	var depth []int      // each one's nesting of elements left to close
	var all strings.Builder
	skip := 0 // > 0 inside the lesson's sources, which are titles, not the model's words
	z := html.NewTokenizer(bytes.NewReader(page))
	for {
		switch z.Next() {
		case html.ErrorToken:
			if len(open) > 0 {
				t.Fatalf("%s (%s): a sentence is never closed", where(p), lang)
			}
			if f.Scenario.Unit() == "tick" {
				if m := seconds.FindString(all.String()); m != "" {
					t.Errorf("%s (%s): %q on a clock of ticks: %q", where(p), lang, m, squash(all.String()))
				}
			}
			return
		case html.TextToken:
			txt := string(z.Text())
			if skip == 0 {
				all.WriteString(txt)
			}
			for _, s := range open {
				s.text.WriteString(txt)
			}
		case html.StartTagToken:
			name, more := z.TagName()
			if void[string(name)] {
				continue // an element with no end tag opens nothing
			}
			for i := range depth {
				depth[i]++
			}
			if skip > 0 {
				skip++
			}
			for more {
				var key, val []byte
				key, val, more = z.TagAttr()
				switch {
				case string(key) == "data-claims":
					open, depth = append(open, &sentence{claims: string(val)}), append(depth, 1)
				case string(key) == "class" && skip == 0 && slices.Contains(strings.Fields(string(val)), "sources"):
					skip = 1
				}
			}
		case html.EndTagToken:
			if skip > 0 {
				skip--
			}
			for i := range depth {
				depth[i]--
			}
			for len(depth) > 0 && depth[len(depth)-1] == 0 {
				a.hold(t, p, f, lang, open[len(open)-1])
				open, depth = open[:len(open)-1], depth[:len(depth)-1]
			}
		}
	}
}

// void are the elements HTML writes without an end tag.
var void = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true}

// hold checks one sentence's claims against the frame, and its words
// against its claims.
func (a *audit) hold(t *testing.T, p demo.Place, f *demo.Frame, lang string, s *sentence) {
	t.Helper()
	a.sentences++
	var cs []demo.Claim
	if err := json.Unmarshal([]byte(s.claims), &cs); err != nil {
		t.Fatalf("%s (%s): data-claims %q: %v", where(p), lang, s.claims, err)
	}
	text := squash(s.text.String())
	for _, c := range cs {
		a.claims++
		if err := truth.Check(f, c); err != nil {
			t.Errorf("%s (%s): %q claims what is false: %v", where(p), lang, text, err)
		}
	}
	for _, w := range wordsNeedClaims(f.Scenario, lang, text) {
		if !slices.ContainsFunc(cs, w.ok) {
			t.Errorf("%s (%s): %q says %s, and claims no such fact (claims %+v)", where(p), lang, text, w.what, cs)
		}
	}
}

// seconds is a time written in seconds or milliseconds.
var seconds = regexp.MustCompile(`\b\d+(\.\d+)?\s?(ms|s|seconds?)\b|\d+\s?秒`)

// need is a fact a sentence's words say, which its claims must include.
type need struct {
	what string
	ok   func(demo.Claim) bool
}

var (
	destroyedWords = map[string]*regexp.Regexp{"en": regexp.MustCompile(`destroyed`), "ja": regexp.MustCompile(`破壊`)}
	overwroteWords = map[string]*regexp.Regexp{"en": regexp.MustCompile(`overwr(?:ote|iting) (?:the newer value )?("[^"]*")`), "ja": regexp.MustCompile(`("[^"]*") を上書き`)}
	noneWords      = map[string]*regexp.Regexp{"en": regexp.MustCompile(`No (?:late )?write from (\w+) (?:has )?reached`), "ja": regexp.MustCompile(`(\w+) の書き込みは(?:まだ)?資源に届いていない`)}
	holdsWords     = map[string]*regexp.Regexp{"en": regexp.MustCompile(`(?:^|[^g] )(\w+) (?:holds|has held) the lock`), "ja": regexp.MustCompile(`(\w+) がロックを持っている(?:[^つ]|$)`)}
)

// wordsNeedClaims reads text for the facts the classes of mistake
// are about, and returns each with the test its claims must pass.
func wordsNeedClaims(sc *demo.Scenario, lang, text string) []need {
	var out []need
	if destroyedWords[lang].MatchString(text) {
		out = append(out, need{"that data was destroyed", func(c demo.Claim) bool { return c.Fact == demo.Destroyed }})
	}
	for _, m := range overwroteWords[lang].FindAllStringSubmatch(text, -1) {
		v := strings.Trim(m[1], `"`)
		out = append(out, need{"that " + m[1] + " was overwritten", func(c demo.Claim) bool {
			return (c.Fact == demo.Overwrote || c.Fact == demo.Destroyed) && c.Value == v
		}})
	}
	for _, m := range noneWords[lang].FindAllStringSubmatch(text, -1) {
		who := m[1]
		out = append(out, need{"that no write from " + who + " reached the resource", func(c demo.Claim) bool {
			return c.Fact == demo.NoneLanded && c.Client == who
		}})
	}
	for _, m := range holdsWords[lang].FindAllStringSubmatch(text, -1) {
		who := m[1]
		if !slices.Contains(sc.Clients, who) {
			continue
		}
		out = append(out, need{who + " holds the lock", func(c demo.Claim) bool { return c.Fact == demo.HoldsValid && c.Client == who }})
	}
	return out
}

func where(p demo.Place) string {
	s := fmt.Sprintf("%s %s step %d", p.Sc.ID, demo.OnOff(p.On), p.Step)
	if p.Play != "" {
		s += " then " + strings.ReplaceAll(p.Play, "\n", "; ")
	}
	return s
}

func squash(s string) string { return strings.Join(strings.Fields(s), " ") }
