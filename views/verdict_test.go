package views

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"
	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/sql"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// render renders c and parses it.
func render(t *testing.T, c templ.Component) *goquery.Document {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// frameDoc renders the page of a real scenario's frame in lang.
func frameDoc(t *testing.T, id string, on bool, step int, lang string) (*goquery.Document, demo.Frame) {
	t.Helper()
	sc := testkit.Scenario(t, id)
	r, err := demo.Replay(sc, on, step)
	if err != nil {
		t.Fatal(err)
	}
	f := r.Frame()
	here := Place{Place: demo.Place{Sc: sc, On: on, Step: step}, Lang: lang}
	d := Demo{Page: Page{Lang: lang, Title: sc.Title.In(lang), Chrome: true}, Frame: f, Here: here}
	return render(t, DemoPage(d)), f
}

// The wire's replies that are not protocol, a refused connection and a
// timeout, are words, and a Japanese page says them in Japanese.
func TestWireRepliesInTheirLanguage(t *testing.T) {
	for _, tt := range []struct {
		id         string
		on         bool
		step       int
		lang, want string
		notWant    string
	}{
		{"redlock-quorum", false, 4, "ja", "接続拒否 (ECONNREFUSED)", "connection refused"},
		{"redlock-quorum", false, 4, "en", "connection refused", "接続拒否"},
		{"redlock-clock-jump", true, 2, "ja", "50 ms 応答なし (タイムアウト)", "no answer in"},
		{"redlock-clock-jump", true, 2, "en", "no answer in 50 ms", "応答なし"},
	} {
		doc, _ := frameDoc(t, tt.id, tt.on, tt.step, tt.lang)
		replies := doc.Find(".happened .wire .reply").Text()
		if !strings.Contains(replies, tt.want) || strings.Contains(replies, tt.notWant) {
			t.Errorf("%s %s frame %d (%s): replies %q, want %q and not %q", tt.id, demo.OnOff(tt.on), tt.step, tt.lang, replies, tt.want, tt.notWant)
		}
	}
}

// The frame's verdict is the model's headline, marked by its class; every
// finding is listed when there is more than one; and the diagram marks each
// one where it happened.
func TestVerdictOnTheFrame(t *testing.T) {
	for _, tt := range []struct {
		id       string
		on       bool
		step     int
		verdict  string
		class    string
		findings []string
	}{
		{"gc-pause", true, 5, "overlap-no-write", "warning", nil},
		{"gc-pause", true, 7, "contained", "contained", nil},
		{"gc-pause", false, 7, "stale-write", "broken", nil}, // the stale write tells the overlap
		{"release-other", true, 7, "overlap-no-write", "warning", nil},
		{"release-other", false, 7, "two-holders", "broken", []string{"overlap-no-write", "two-holders"}},
		{"watchdog", true, 8, "mutual-exclusion-held", "held", nil},
		{"fencing-sql", true, 7, "contained", "contained", nil},
		{"fencing-sql", false, 7, "stale-write", "broken", nil},
		{"reentrant", false, 3, "waits-on-itself", "broken", nil},
		{"reentrant", true, 7, "mutual-exclusion-held", "held", nil},
	} {
		for _, lang := range []string{"ja", "en"} {
			doc, f := frameDoc(t, tt.id, tt.on, tt.step, lang)
			v := doc.Find(`[data-testid="verdict"]`)
			if got := v.AttrOr("data-verdict", ""); got != tt.verdict {
				t.Errorf("%s %s frame %d: data-verdict=%q, want %q", tt.id, demo.OnOff(tt.on), tt.step, got, tt.verdict)
			}
			if !v.HasClass(tt.class) {
				t.Errorf("%s %s frame %d: verdict class %q, want %q", tt.id, demo.OnOff(tt.on), tt.step, v.AttrOr("class", ""), tt.class)
			}
			if want := Verdict(lang, f); !strings.Contains(v.Text(), want) {
				t.Errorf("%s frame %d (%s): verdict %q does not say %q", tt.id, tt.step, lang, v.Text(), want)
			}
			var listed []string
			v.Find(`[data-testid="violations"] li`).Each(func(_ int, li *goquery.Selection) {
				listed = append(listed, li.AttrOr("data-verdict", ""))
			})
			if strings.Join(listed, " ") != strings.Join(tt.findings, " ") {
				t.Errorf("%s %s frame %d: findings listed %q, want %q", tt.id, demo.OnOff(tt.on), tt.step, listed, tt.findings)
			}
			if got, want := doc.Find("svg text.alert-label").Length(), len(f.Violations); got != want {
				t.Errorf("%s %s frame %d: %d alerts on the diagram, want %d", tt.id, demo.OnOff(tt.on), tt.step, got, want)
			}
		}
	}
}

// The index shows each switch position's outcome in the model's terms and
// explains every kind in its legend.
func TestIndexOutcomesAndLegend(t *testing.T) {
	c := testkit.Catalog(t)
	var entries []Entry
	for _, sc := range c.Scenarios {
		off, on := testkit.LastFrame(t, sc.ID, false), testkit.LastFrame(t, sc.ID, true)
		entries = append(entries, Entry{Sc: sc, Off: off, On: on})
	}
	for _, lang := range []string{"ja", "en"} {
		doc := render(t, IndexPage(Index{Page: Page{Lang: lang, Chrome: true}, Groups: []Group{{Purpose: "efficiency", Topology: "single", Entries: entries}}}))
		for _, e := range entries {
			for _, f := range []demo.Frame{e.Off, e.On} {
				o := doc.Find(`[data-testid="scenario-` + e.Sc.ID + `"] [data-testid="outcome-` + demo.OnOff(f.On) + `"]`)
				k := f.Verdict().Kind
				if got := o.AttrOr("data-verdict", ""); got != k.String() {
					t.Errorf("%s %s: outcome %q, want %q", e.Sc.ID, demo.OnOff(f.On), got, k)
				}
				if !strings.Contains(o.Text(), OutcomeShort(lang, f)) || !o.HasClass(k.Class().String()) {
					t.Errorf("%s %s (%s): outcome %q (class %q) does not show %q", e.Sc.ID, demo.OnOff(f.On), lang, o.Text(), o.AttrOr("class", ""), OutcomeShort(lang, f))
				}
				// One vocabulary: the page's verdict opens with the index's name for it.
				if v := Verdict(lang, f); !strings.HasPrefix(strings.ToLower(v), strings.ToLower(OutcomeShort(lang, f))+":") {
					t.Errorf("%s %s (%s): the index says %q, the page's verdict %q", e.Sc.ID, demo.OnOff(f.On), lang, OutcomeShort(lang, f), v)
				}
			}
		}
		// Every verdict a page shows, in the words its page uses, is in
		// the legend: each finding by its kind, and each last frame's
		// headline by the name the index gives it.
		legendHas := func(sc *demo.Scenario, k demo.ViolationKind) bool {
			return doc.Find(`[data-testid="legend-`+k.String()+`"], [data-testid="legend-`+sc.Family.Name+`-`+k.String()+`"]`).
				FilterFunction(func(_ int, s *goquery.Selection) bool {
					return strings.Contains(s.Find("dt").Text(), VerdictShort(lang, sc, k))
				}).Length() == 1
		}
		for _, e := range entries {
			for _, f := range []demo.Frame{e.Off, e.On} {
				for _, v := range append(f.Violations, f.Verdict()) {
					if !legendHas(e.Sc, v.Kind) {
						t.Errorf("%s: %s finds %s, and the legend lacks %q", lang, e.Sc.ID, v.Kind, VerdictShort(lang, e.Sc, v.Kind))
					}
				}
			}
		}
		for _, k := range demo.Kinds() {
			if doc.Find(`[data-testid="legend-`+k.String()+`"]`).Length() != 1 {
				t.Errorf("%s: the legend lacks %s", lang, k)
			}
		}
	}
}

// A finding is worded from the frame it is shown in, never from the frame
// where it was found: in every scenario, position and frame, the page never
// says that no write from a client reached the resource beside that
// client's stale write, an overlap says "stopped" exactly while its holder
// is paused, and a cycle in the wait-for graph is a deadlock at once.
func TestFindingsFromTheFrame(t *testing.T) {
	for _, sc := range testkit.Catalog(t).Scenarios {
		for _, on := range []bool{false, true} {
			r := demo.NewRun(sc, on)
			for more := true; more; more = r.Step() {
				f := r.Frame()
				here := Place{Place: demo.Place{Sc: sc, On: on, Step: f.Index}, Lang: "en"}
				doc := render(t, verdict(Demo{Page: Page{Lang: "en"}, Frame: f, Here: here}))
				text := doc.Find(`[data-testid="verdict"]`).Text()
				where := fmt.Sprintf("%s %s frame %d", sc.ID, demo.OnOff(on), f.Index)
				for _, v := range f.Violations {
					if v.Kind == demo.StaleWrite && strings.Contains(text, "No write from "+v.Client) {
						t.Errorf("%s: %q lands a stale write, and the verdict still says %q", where, v.Client, text)
					}
				}
				for _, v := range Findings(f) {
					if v.Kind != demo.Overlap {
						continue
					}
					said := Finding("en", f, v)
					for _, c := range f.Clients {
						if c.Name == v.Client && c.Holds && c.Paused != strings.Contains(said, "stopped") {
							t.Errorf("%s: %s paused=%v, and its overlap says %q", where, c.Name, c.Paused, said)
						}
					}
				}
				if db, ok := sql.Of(f); ok && cycle(db.Edges) && f.Verdict().Kind != sql.Deadlock {
					t.Errorf("%s: the wait-for graph has a cycle and the verdict is %s: %q", where, f.Verdict().Kind, text)
				}
			}
		}
	}
}

// cycle reports whether the wait-for graph's arrows come back on themselves.
func cycle(edges []sql.WaitEdge) bool {
	next := map[string]string{}
	for _, e := range edges {
		next[e.From] = e.To
	}
	for from := range next {
		seen := map[string]bool{}
		for at := from; next[at] != "" && !seen[at]; at = next[at] {
			seen[at] = true
			if next[at] == from {
				return true
			}
		}
	}
	return false
}

// The index and the verdict line say what is true of each scenario (issue 18,
// points 10, 12 and 16): a lock-free database scenario is no "exclusion
// held"; ZooKeeper's recipe is no lock for efficiency, its heading claims no
// fencing it does not show, and its verdict carries the herd's cost, which
// the switch changes; WAIT's answer reads as Japanese.
func TestIndexAndVerdictWords(t *testing.T) {
	if got := OutcomeShort("en", testkit.LastFrame(t, "optimistic-version", true)); got != "no anomaly" {
		t.Errorf("optimistic-version on, on the index: %q, want no anomaly", got)
	}
	sc := testkit.Scenario(t, "zookeeper-recipe")
	if sc.Purpose != "correctness" || strings.Contains(T("en", "topology."+sc.Topology), "fencing") {
		t.Errorf("zookeeper-recipe sits under %q · %q", T("en", "purpose."+sc.Purpose), T("en", "topology."+sc.Topology))
	}
	off, on := Verdict("en", testkit.LastFrame(t, sc.ID, false)), Verdict("en", testkit.LastFrame(t, sc.ID, true))
	if off == on || !strings.Contains(off, "watch notifications") {
		t.Errorf("zookeeper-recipe's verdict does not carry the herd's cost: off %q, on %q", off, on)
	}
	for _, n := range []int{15, 18} {
		if !strings.Contains(off, strconv.Itoa(n)) {
			t.Errorf("zookeeper-recipe off: %q lacks %d", off, n)
		}
	}
	if s := T("ja", "ev.wait"); strings.Contains(s, "台まで待った") {
		t.Errorf("ev.wait ja: %q", s)
	}
}

// After a failover the promoted replica is the primary: the move says B
// asks the primary, not "B → replica" as if it wrote to a replica
// (redis-failover, frame 6, after frame 5's promotion).
func TestPromotedReplicaIsNamedTheNewPrimary(t *testing.T) {
	for lang, want := range map[string]string{
		"en": "B → replica (promoted: the primary): set lock:row-42 (lock taken)",
		"ja": "B → replica (昇格してプライマリ): lock:row-42 を設定 (ロック取得)",
	} {
		doc, _ := frameDoc(t, "redis-failover", false, 6, lang)
		if got := doc.Find(".happened").Text(); !strings.Contains(got, want) {
			t.Errorf("%s: the move says %q, want %q", lang, got, want)
		}
	}
	// Before the promotion, the replica is a replica.
	doc, _ := frameDoc(t, "redis-failover", false, 5, "en")
	if got := doc.Find(".happened").Text(); strings.Contains(got, "(promoted") {
		t.Errorf("before the promotion the move says %q", got)
	}
}

// A node's details list each key on a line of its own, its TTL beside it:
// incr-token's primary keeps a counter with no TTL and a lock of 9 s, two
// TTLs, never one cell reading "no TTL (never expires)9s".
func TestNodeDetailsOneLineAKey(t *testing.T) {
	doc, f := frameDoc(t, "incr-token", false, 2, "en")
	row := doc.Find(`[data-testid="node-primary"]`)
	var ttls []string
	row.Find("td.ttls .ttl").Each(func(_ int, s *goquery.Selection) { ttls = append(ttls, s.Text()) })
	if got, want := strings.Join(ttls, " | "), "no TTL (never expires) | 9s"; got != want {
		t.Errorf("the TTLs are %q, want %q (%d keys)", got, want, len(redisNodes(f)[0].Keys))
	}
	if n := row.Find("td.keys .keyline").Length(); n != 2 {
		t.Errorf("%d key lines, want the counter's and the lock's", n)
	}
	// The strip's chip keeps the counter's value and the lock's owner apart.
	if chip := strings.Join(strings.Fields(doc.Find(".chips li").First().Text()), " "); !strings.Contains(chip, "= 1 A") {
		t.Errorf("the primary's chip reads %q, want the counter's 1 apart from the owner A", chip)
	}
}

// placeDoc renders the page of place p, scripted or free play, in lang.
func placeDoc(t *testing.T, p demo.Place, lang string) *goquery.Document {
	t.Helper()
	f, err := p.Frame()
	if err != nil {
		t.Fatal(err)
	}
	here := Place{Place: p, Lang: lang, FreePlay: p.Free()}
	return render(t, DemoPage(Demo{Page: Page{Lang: lang, Title: p.Sc.Title.In(lang), Chrome: true}, Frame: f, Here: here}))
}

// The crowd's words count right and write a time one way: never "1
// clients" or "1 retries", and every moment as the verdict writes it
// (t=3.7s, not t=3700ms beside it), on every frame of backoff-jitter in
// both positions, and where a student's two calls leave one retry.
func TestBackoffWordsCountAndTellTime(t *testing.T) {
	sc := testkit.Scenario(t, "backoff-jitter")
	places := []demo.Place{{Sc: sc, On: false, Step: 1, Play: "C1 call\nC2 call\ntick 100"}}
	for _, on := range []bool{false, true} {
		for step := 1; step <= sc.Frames(); step++ {
			places = append(places, demo.Place{Sc: sc, On: on, Step: step})
		}
	}
	singular := regexp.MustCompile(`\b1 (clients|calls|retries|have)\b`)
	msTime := regexp.MustCompile(`t=\d{4,}ms|slot at \d+ ms`)
	for _, p := range places {
		for _, lang := range []string{"en", "ja"} {
			text := placeDoc(t, p, lang).Find("main").Text()
			if m := singular.FindString(text); m != "" {
				t.Errorf("%s frame %d %s (%q): says %q", sc.ID, p.Step, lang, p.Play, m)
			}
			if m := msTime.FindString(text); m != "" {
				t.Errorf("%s frame %d %s (%q): writes a time %q, beside the verdict's t=…s", sc.ID, p.Step, lang, p.Play, m)
			}
		}
	}
}
