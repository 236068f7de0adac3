package views

// The screen's two languages: every fixed string exists in both, both take
// the same arguments, every key the code asks for exists, and no page of any
// scenario shows a message key where its text belongs (T returns the key
// itself when it is missing) or a fmt error such as %!d(MISSING).

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/script"
)

func TestMessagesInBothLanguages(t *testing.T) {
	for _, key := range sortedKeys() {
		m := messages[key]
		for i, lang := range []string{"ja", "en"} {
			if strings.TrimSpace(m[i]) == "" {
				t.Errorf("messages[%q] has no %s text", key, lang)
			}
		}
	}
}

func TestMessageVerbsAgree(t *testing.T) {
	for _, key := range sortedKeys() {
		m := messages[key]
		ja, err := fmtArgs(m[0])
		if err != nil {
			t.Errorf("messages[%q] ja %q: %v", key, m[0], err)
			continue
		}
		en, err := fmtArgs(m[1])
		if err != nil {
			t.Errorf("messages[%q] en %q: %v", key, m[1], err)
			continue
		}
		if got, want := describeArgs(ja), describeArgs(en); got != want {
			t.Errorf("messages[%q]: ja takes %s, en takes %s\n    ja: %q\n    en: %q", key, got, want, m[0], m[1])
		}
	}
}

// TestFmtArgs checks the verb parser on the forms messages use.
func TestFmtArgs(t *testing.T) {
	for _, c := range []struct {
		format string
		want   string
	}{
		{"no verbs, 100%% sure", "no arguments"},
		{"%s wrote %q with token %d", "1:s 2:q 3:d"},
		{"%[1]s が token %[3]d で %[2]q", "1:s 2:q 3:d"},
		{"%[2]s then %s", "2:s 3:s"},
		{"%-5d|%+.2f|%#x|%*d", "1:d 2:f 3:x 4:* 5:d"},
		{"%[3]*.[2]*[1]f", "1:f 2:* 3:*"},
	} {
		args, err := fmtArgs(c.format)
		if err != nil {
			t.Errorf("fmtArgs(%q): %v", c.format, err)
			continue
		}
		if got := describeArgs(args); got != c.want {
			t.Errorf("fmtArgs(%q)=%s, want %s", c.format, got, c.want)
		}
	}
	for _, bad := range []string{"%", "%[x]d", "%[0]d", "50%", "%[2]s %[2]d"} {
		if _, err := fmtArgs(bad); err == nil {
			t.Errorf("fmtArgs(%q): no error", bad)
		}
	}
}

// TestKeysInCodeExist finds every message key the code names in a string
// literal, in the views and in the handlers, and checks it is in messages:
// a key that is built at run time ("verdict."+kind) is covered by rendering
// every frame below.
func TestKeysInCodeExist(t *testing.T) {
	files, err := filepath.Glob("*.templ")
	if err != nil {
		t.Fatal(err)
	}
	for _, pattern := range []string{"*.go", "../*.go"} {
		gos, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range gos {
			if !strings.HasSuffix(f, "_test.go") && !strings.HasSuffix(f, "_templ.go") {
				files = append(files, f)
			}
		}
	}
	// T(lang, "key"), and the keys the handlers hand around as values:
	// an error's message ("err.step") and the like.
	tCall := regexp.MustCompile(`\bT\(\s*[\w.]+\s*,\s*"([^"]+)"\s*\)`)
	dotted := regexp.MustCompile(`"((?:err|ev|verdict)\.[a-z0-9][a-z0-9.-]*[a-z0-9])"`)
	found := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, re := range []*regexp.Regexp{tCall, dotted} {
			for _, m := range re.FindAllSubmatchIndex(src, -1) {
				key := string(src[m[2]:m[3]])
				found++
				if _, ok := messages[key]; !ok {
					line := bytes.Count(src[:m[0]], []byte("\n")) + 1
					t.Errorf("%s:%d: message key %q is not in messages", f, line, key)
				}
			}
		}
	}
	if found < 50 {
		t.Errorf("found only %d message keys in %d files: is the pattern still right?", found, len(files))
	}
}

// TestNoRawKeysOnScreen renders every frame of every scenario, in both
// languages and both switch positions, and reads the text a visitor sees or
// hears (text and the attributes that are read out) for message keys and
// fmt errors. The embed and static views differ from the page only around
// the frame, so they are read at the first and last frames.
func TestNoRawKeysOnScreen(t *testing.T) {
	data, err := os.ReadFile("../scenarios.yaml")
	if err != nil {
		t.Fatal(err)
	}
	catalog, err := script.Load("../scenarios.yaml", data) // checks that every text has ja and en
	if err != nil {
		t.Fatal(err)
	}
	raw := rawKeyPattern()
	var pages atomic.Int64
	t.Cleanup(func() { t.Logf("%d renderings read", pages.Load()) })
	for _, sc := range catalog.Scenarios {
		t.Run(sc.ID, func(t *testing.T) {
			t.Parallel() // every frame drawn and read: the longest test here
			checkScenarioText(t, sc, raw, &pages)
		})
	}
}

// checkScenarioText is TestNoRawKeysOnScreen for one scenario.
func checkScenarioText(t *testing.T, sc *demo.Scenario, raw *regexp.Regexp, pages *atomic.Int64) {
	for _, lang := range []string{"ja", "en"} {
		if sc.Title.In(lang) == "" || sc.Summary.In(lang) == "" || sc.Lesson.In(lang) == "" || sc.SwitchLabel.In(lang) == "" {
			t.Errorf("%s: title, summary, lesson or switch label missing in %s", sc.ID, lang)
		}
		for _, on := range []bool{false, true} {
			for k := 1; k <= sc.Frames(); k++ {
				r, err := demo.Replay(sc, on, k)
				if err != nil {
					t.Fatal(err)
				}
				f := r.Frame()
				if f.Title.In(lang) == "" || f.Text.In(lang) == "" {
					t.Errorf("%s frame %d: narration missing in %s", sc.ID, k, lang)
				}
				for _, view := range []View{PageView, EmbedView, StaticView} {
					if view != PageView && k != 1 && k != sc.Frames() {
						continue
					}
					here := Place{Place: demo.Place{Sc: sc, On: on, Step: k}, Lang: lang, View: view, Present: view == PageView && k == sc.Frames()}
					d := Demo{
						Page: Page{
							Lang: lang, Title: sc.Title.In(lang), Canonical: here.PageURL(),
							OtherLang: here.In(OtherLang(lang)).URL(), Home: "/?lang=" + lang, Index: "/scenarios?lang=" + lang,
							Chrome: view != EmbedView, Present: here.Present,
							Assets: Assets{CSS: "/static/app.css", HTMX: "/static/htmx.min.js", JS: "/static/app.js", Icon: "/static/icon.svg"},
						},
						Frame: f, Here: here,
					}
					if k > 1 {
						d.Run = "0123456789abcdef0123456789abcdef"
					}
					checkRendered(t, fmt.Sprintf("%s fencing %s frame %d %s view %d", sc.ID, demo.OnOff(on), k, lang, view), DemoPage(d), raw)
					pages.Add(1)
				}
			}
		}
	}
}

// TestRawKeyPattern checks the pattern on keys and on text that only looks
// a little like one.
func TestRawKeyPattern(t *testing.T) {
	raw := rawKeyPattern()
	for _, s := range []string{"ev.accepted", "Verdict: verdict.safe", "(node.up)", "err.step must be", "→ ev.set.ok"} {
		if !raw.MatchString(s) {
			t.Errorf("%q: not taken for a message key", s)
		}
	}
	for _, s := range []string{`A wrote "B" with token 1: accepted ✓`, "t=1.5s", "lock:row-42", "SET lock:row-42 a.1 NX PX 30000", "https://example.org/ev.html", "Node", "the log. Then"} {
		if m := raw.FindString(s); m != "" {
			t.Errorf("%q: %q taken for a message key", s, m)
		}
	}
}

// checkRendered renders c and fails on a raw message key or a fmt error in
// its text.
func checkRendered(t *testing.T, where string, c templ.Component, raw *regexp.Regexp) {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range visibleStrings(doc) {
		if m := raw.FindStringSubmatch(s.text); m != nil {
			t.Errorf("%s: %s shows the message key %q: %q", where, s.where, m[1], s.text)
		}
		if strings.Contains(s.text, "%!") {
			t.Errorf("%s: %s shows a fmt error: %q", where, s.where, s.text)
		}
	}
}

type shown struct{ where, text string }

// readAttrs are the attributes whose values a visitor reads or hears.
var readAttrs = []string{"alt", "title", "aria-label", "aria-description", "placeholder", "content", "data-play", "data-pause", "data-title", "label", "value"}

// visibleStrings lists the document's text nodes (outside script and style)
// and the values of readAttrs.
func visibleStrings(doc *goquery.Document) []shown {
	var out []shown
	doc.Find("*").Each(func(_ int, el *goquery.Selection) {
		name := goquery.NodeName(el)
		for _, a := range el.Get(0).Attr {
			switch {
			case !slices.Contains(readAttrs, a.Key):
			case a.Key == "content" && name == "meta" && el.AttrOr("name", "") == "htmx-config":
			case a.Key == "value" && el.AttrOr("type", "") == "hidden":
			default:
				out = append(out, shown{"<" + name + " " + a.Key + ">", a.Val})
			}
		}
		if name == "script" || name == "style" {
			return
		}
		el.Contents().Each(func(_ int, c *goquery.Selection) {
			if goquery.NodeName(c) == "#text" && strings.TrimSpace(c.Text()) != "" {
				out = append(out, shown{"<" + name + "> text", c.Text()})
			}
		})
	})
	return out
}

// rawKeyPattern matches a message key standing on its own in text: one of
// the key families (ev., err., verdict., node. and every other prefix that
// messages uses) followed by a name.
func rawKeyPattern() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[^\w.:/-])((?:` + strings.Join(keyPrefixes(), "|") + `)\.[a-z][\w.-]*)`)
}

// keyPrefixes is every family of dotted keys in messages, with the four
// the templates build keys from at run time.
func keyPrefixes() []string {
	set := map[string]bool{"ev": true, "err": true, "verdict": true, "node": true}
	for key := range messages {
		if i := strings.Index(key, "."); i > 0 {
			set[regexp.QuoteMeta(key[:i])] = true
		}
	}
	var out []string
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func sortedKeys() []string {
	keys := make([]string, 0, len(messages))
	for k := range messages {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// fmtArg is one argument a format takes: its index (from 1) and the verb
// that prints it ('*' for a width or precision).
type fmtArg struct {
	index int
	verb  rune
}

// fmtArgs lists the arguments a fmt format takes, following fmt's rules: a
// verb takes the next argument, and %[n] sets which one is next.
func fmtArgs(format string) ([]fmtArg, error) {
	var args []fmtArg
	next := 1
	rs := []rune(format)
	// index reads an optional [n] at rs[*i], moving next.
	index := func(i *int) error {
		if *i >= len(rs) || rs[*i] != '[' {
			return nil
		}
		end := slices.Index(rs[*i:], ']')
		if end < 0 {
			return fmt.Errorf("unclosed [ at %d", *i)
		}
		var n int
		if _, err := fmt.Sscanf(string(rs[*i+1:*i+end]), "%d", &n); err != nil || n < 1 || fmt.Sprint(n) != string(rs[*i+1:*i+end]) {
			return fmt.Errorf("bad argument index %q", string(rs[*i:*i+end+1]))
		}
		next = n
		*i += end + 1
		return nil
	}
	star := func(i *int) {
		if *i < len(rs) && rs[*i] == '*' {
			args = append(args, fmtArg{next, '*'})
			next++
			*i++
		}
	}
	digits := func(i *int) {
		for *i < len(rs) && rs[*i] >= '0' && rs[*i] <= '9' {
			*i++
		}
	}
	for i := 0; i < len(rs); i++ {
		if rs[i] != '%' {
			continue
		}
		i++
		if i < len(rs) && rs[i] == '%' {
			continue
		}
		for i < len(rs) && strings.ContainsRune("+-# 0", rs[i]) {
			i++
		}
		if err := index(&i); err != nil {
			return nil, err
		}
		star(&i)
		digits(&i)
		if i < len(rs) && rs[i] == '.' {
			i++
			if err := index(&i); err != nil {
				return nil, err
			}
			star(&i)
			digits(&i)
		}
		if err := index(&i); err != nil {
			return nil, err
		}
		if i >= len(rs) {
			return nil, fmt.Errorf("%% with no verb at the end")
		}
		args = append(args, fmtArg{next, rs[i]})
		next++
	}
	return args, checkArgs(args)
}

// checkArgs fails when one argument is printed with two different verbs.
func checkArgs(args []fmtArg) error {
	verbs := map[int]rune{}
	for _, a := range args {
		if v, ok := verbs[a.index]; ok && v != a.verb {
			return fmt.Errorf("argument %d is printed as both %%%c and %%%c", a.index, v, a.verb)
		}
		verbs[a.index] = a.verb
	}
	return nil
}

// describeArgs is the arguments as "1:s 2:q 3:d", by index.
func describeArgs(args []fmtArg) string {
	verbs := map[int]rune{}
	for _, a := range args {
		verbs[a.index] = a.verb
	}
	if len(verbs) == 0 {
		return "no arguments"
	}
	var idx []int
	for i := range verbs {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	var parts []string
	for _, i := range idx {
		parts = append(parts, fmt.Sprintf("%d:%c", i, verbs[i]))
	}
	return strings.Join(parts, " ")
}
