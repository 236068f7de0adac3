package web

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// The labs' handlers: the list, each lab's page and form, a built
// scenario's frames, and what a bad build gets. The judge's are in
// judge_test.go.

// labsOf are the catalog's scenarios with a lab.
func labsOf(t *testing.T, s *Server) []*demo.Scenario {
	t.Helper()
	var out []*demo.Scenario
	for _, sc := range s.Catalog().Scenarios {
		if sc.Lab != nil {
			out = append(out, sc)
		}
	}
	if len(out) == 0 {
		t.Fatal("scenarios.yaml has no lab")
	}
	return out
}

// tryOf is lab sc's try by name.
func tryOf(t *testing.T, sc *demo.Scenario, name string) demo.Try {
	t.Helper()
	for _, try := range sc.Lab.Tries {
		if try.Name == name {
			return try
		}
	}
	t.Fatalf("lab %s has no try %s", sc.ID, name)
	return demo.Try{}
}

// labForm is the lab's form as a browser without JavaScript sends it with
// build b: a textarea per client, a select per setting, a textarea per
// script.
func labForm(b demo.Build, lang string) url.Values {
	f := url.Values{views.LangParam: {lang}}
	for c, lines := range b.Programs {
		f.Set(views.ProgramField+c, strings.Join(lines, "\r\n"))
	}
	for name, v := range b.Settings {
		f.Set(views.SettingField+name, v)
	}
	for name, text := range b.Scripts {
		f.Set(views.ScriptField+name, text)
	}
	return f
}

// The list of labs names every lab and leads to it, and the scenario index
// and each lab scenario's page lead to the labs.
func TestLabsListed(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	for _, lang := range []string{"en", "ja"} {
		w := testkit.Get(t, s, views.LabsURL(lang))
		testkit.MustStatus(t, w, http.StatusOK)
		doc := testkit.Parse(t, w.Body.Bytes())
		for _, sc := range labsOf(t, s) {
			li := doc.Find(`[data-testid="lab-` + sc.ID + `"]`)
			if li.Find(`a[href="`+views.LabURL(sc.ID, "", lang, false)+`"]`).Length() == 0 || !strings.Contains(li.Text(), sc.Lab.Goal.In(lang)) {
				t.Errorf("%s: the list of labs does not show lab %s's goal with its link", lang, sc.ID)
			}
		}
		index := testkit.Parse(t, testkit.Get(t, s, views.IndexURL(lang)).Body.Bytes())
		if got := testkit.Attr(t, index, "labs-link", "href"); got != views.LabsURL(lang) {
			t.Errorf("%s: the index links to the labs at %q", lang, got)
		}
	}
	for _, sc := range labsOf(t, s) {
		doc := testkit.Parse(t, testkit.Get(t, s, views.ScenarioURL(sc.ID, "en")).Body.Bytes())
		if got, want := testkit.Attr(t, doc, "lab-link", "href"), views.LabURL(sc.ID, "", "en", false); got != want {
			t.Errorf("%s's page links to its lab at %q, want %q", sc.ID, got, want)
		}
	}
	doc := testkit.Parse(t, testkit.Get(t, s, views.ScenarioURL("redis-failover", "en")).Body.Bytes())
	if n := doc.Find(`[data-testid="lab-link"]`).Length(); n != 0 {
		t.Errorf("a scenario with no lab links to %d labs", n)
	}
}

// Each lab's page, with no build in its address, is the starter: a
// textarea per client holding its program, the palette's blocks each with
// what it does and whose program may use it, a select per setting at its
// value, and the form that posts them.
func TestLabPageStarter(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	for _, sc := range labsOf(t, s) {
		for _, lang := range []string{"en", "ja"} {
			w := testkit.Get(t, s, views.LabURL(sc.ID, "", lang, false))
			testkit.MustStatus(t, w, http.StatusOK)
			doc := testkit.Parse(t, w.Body.Bytes())
			if got := testkit.TestID(t, doc, "lab-goal"); !strings.Contains(got, sc.Lab.Goal.In(lang)) {
				t.Errorf("%s (%s): the goal reads %q", sc.ID, lang, got)
			}
			starter := sc.Lab.Starter
			for _, c := range sc.Lab.Clients {
				if got, want := doc.Find(`textarea[name="program-`+c+`"]`).Text(), strings.Join(starter.Programs[c], "\n"); got != want {
					t.Errorf("%s (%s): %s's program reads %q, want the starter's %q", sc.ID, lang, c, got, want)
				}
			}
			rows := doc.Find(`[data-testid="palette"] tbody tr`)
			if got, want := rows.Length(), len(sc.Lab.Palette); got != want {
				t.Errorf("%s (%s): the palette lists %d blocks, want %d", sc.ID, lang, got, want)
			}
			rows.Each(func(i int, tr *goquery.Selection) {
				b := sc.Lab.Palette[i]
				if tr.Find("code").Text() != b.Line || tr.Find(".block-label").Text() != b.Label.In(lang) {
					t.Errorf("%s (%s): block %d reads %q, want %q and its label", sc.ID, lang, i, tr.Text(), b.Line)
				}
				if b.Client != "" && tr.Find(".for-client").Text() != b.Client {
					t.Errorf("%s: block %q is %s's alone, and the palette says it is for %q", sc.ID, b.Line, b.Client, tr.Find(".block-for").Text())
				}
			})
			for _, set := range sc.Lab.Settings {
				want := starter.Settings[set.Name]
				if want == "" {
					want = set.Values[0]
				}
				if got := doc.Find(`select[name="set-`+set.Name+`"] option[selected]`).AttrOr("value", ""); got != want {
					t.Errorf("%s: setting %s selects %q, want %q", sc.ID, set.Name, got, want)
				}
			}
			if got := doc.Find(`form#lab-form`).AttrOr("action", ""); got != views.LabAction(sc.ID) {
				t.Errorf("%s: the form posts to %q", sc.ID, got)
			}
			if got := testkit.Attr(t, doc, "lab-status", "data-ok"); got != "true" {
				t.Errorf("%s: the starter does not play (data-ok=%s)", sc.ID, got)
			}
		}
	}
}

// Without JavaScript the form posts the build, and the answer is a 303 to
// where the button leads, with the build in the address: the lab itself
// (which shows the build as it was written), the judge's answer, or the
// built scenario's frames. With htmx (an edit), the build's status and the
// lab's address to show.
func TestLabForm(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	sc := testkit.Scenario(t, "gc-pause")
	try := tryOf(t, sc, "check-then-write")
	text := try.Build.String()
	form := labForm(try.Build, "ja")
	for do, want := range map[string]string{
		"":              views.LabURL(sc.ID, text, "ja", false),
		views.DoJudge:   views.JudgeURL(sc.ID, text, "ja"),
		views.DoPlay:    "/scenarios/gc-pause?fencing=off&step=1&lang=ja&build=" + views.EncodeBuild(text),
		"something-new": views.LabURL(sc.ID, text, "ja", false),
	} {
		f := url.Values{}
		for k, v := range form {
			f[k] = v
		}
		f.Set(views.DoField, do)
		w := testkit.Post(t, s, views.LabAction(sc.ID), f, false)
		testkit.MustStatus(t, w, http.StatusSeeOther)
		if got := w.Header().Get("Location"); got != want {
			t.Errorf("do=%q: 303 to %q, want %q", do, got, want)
		}
	}
	doc := testkit.Parse(t, testkit.Get(t, s, views.LabURL(sc.ID, text, "ja", false)).Body.Bytes())
	if got, want := doc.Find(`textarea[name="program-B"]`).Text(), strings.Join(try.Build.Programs["B"], "\n"); got != want {
		t.Errorf("the lab with the build shows B's program as %q, want %q", got, want)
	}

	w := testkit.Post(t, s, views.LabAction(sc.ID), form, true)
	testkit.MustStatus(t, w, http.StatusOK)
	mustFragment(t, w.Body.Bytes())
	if got, want := w.Header().Get("HX-Replace-Url"), views.LabURL(sc.ID, text, "ja", false); got != want {
		t.Errorf("an edit's answer names the address %q, want %q", got, want)
	}
	frag := testkit.Parse(t, w.Body.Bytes())
	if got := testkit.Attr(t, frag, "lab-link", "value"); got != views.LabURL(sc.ID, text, "ja", false) {
		t.Errorf("the status's share link is %q", got)
	}
	if got, want := testkit.Attr(t, frag, "lab-save", "href"), "/scenarios/gc-pause/yaml?fencing=off&step=1&lang=ja&build="+views.EncodeBuild(text); got != want {
		t.Errorf("the status's save link is %q, want %q", got, want)
	}
}

// A build that does not play is a 400 that says what is wrong, naming the
// part and its line in the page's language, and loses nothing: the lab's
// page shows the learner's text as they wrote it, and a built scenario's
// page leads back to that lab. A build too long, a setting or a client the
// lab does not have, and an address that is no build of ours are told
// apart.
func TestLabBadBuild(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	sc := testkit.Scenario(t, "gc-pause")
	wrong := demo.Build{Programs: map[string][]string{"A": {"acquire 10", "fly"}, "B": {"acquire 10", "write $me"}}, Settings: map[string]string{"fencing": "on"}}
	text := wrong.String()
	for _, tc := range []struct {
		lang, says string
	}{
		{"en", `program A, line 2: "A fly": unknown action "fly"`},
		{"ja", `A のプログラム の 2 行目: "A fly"`},
	} {
		// The lab's own page: the text kept, the part marked, a 400.
		w := testkit.Get(t, s, views.LabURL(sc.ID, text, tc.lang, false))
		testkit.MustStatus(t, w, http.StatusBadRequest)
		doc := testkit.Parse(t, w.Body.Bytes())
		if got := testkit.TestID(t, doc, "lab-problem"); !strings.Contains(got, tc.says) {
			t.Errorf("%s: the lab says %q, want it to say %q", tc.lang, got, tc.says)
		}
		if got := doc.Find(`textarea[name="program-A"]`).Text(); got != "acquire 10\nfly" {
			t.Errorf("%s: the learner's text is lost: %q", tc.lang, got)
		}
		if !doc.Find(`[data-testid="program-A"]`).HasClass("is-wrong") {
			t.Errorf("%s: A's program is not marked as the part that is wrong", tc.lang)
		}
		// Its frames: a 400 whose way on is that lab page.
		w = testkit.Get(t, s, "/scenarios/gc-pause?step=1&lang="+tc.lang+"&build="+views.EncodeBuild(text))
		testkit.MustStatus(t, w, http.StatusBadRequest)
		doc = testkit.Parse(t, w.Body.Bytes())
		if got := testkit.TestID(t, doc, "error-message"); !strings.Contains(got, tc.says) {
			t.Errorf("%s: the frames' 400 says %q, want it to say %q", tc.lang, got, tc.says)
		}
		if got, want := testkit.Attr(t, doc, "continue", "href"), views.LabURL(sc.ID, text, tc.lang, false); got != want {
			t.Errorf("%s: the way on is %q, want the lab with the learner's text %q", tc.lang, got, want)
		}
		// An edit with htmx: the status says so, and the address keeps it.
		w = testkit.Post(t, s, views.LabAction(sc.ID), labForm(wrong, tc.lang), true)
		testkit.MustStatus(t, w, http.StatusBadRequest)
		if got := testkit.TestID(t, testkit.Parse(t, w.Body.Bytes()), "lab-problem"); !strings.Contains(got, tc.says) {
			t.Errorf("%s: an edit's status says %q", tc.lang, got)
		}
		if got := w.Header().Get("HX-Replace-Url"); got != views.LabURL(sc.ID, text, tc.lang, false) {
			t.Errorf("%s: an edit's address is %q", tc.lang, got)
		}
	}

	for name, tc := range map[string]struct {
		build demo.Build
		says  string
	}{
		"too long": {demo.Build{Programs: map[string][]string{"A": strings.Fields(strings.Repeat("release ", demo.MaxProgram+1))}},
			"program A: 16 lines, more than the 15 a program may have"},
		"unknown setting": {demo.Build{Settings: map[string]string{"lease": "3"}}, "setting lease: this lab has no such setting"},
		"unknown client":  {demo.Build{Programs: map[string][]string{"C": {"acquire 10"}}}, "program C: this lab has no program of C to write (A, B)"},
		"unknown script":  {demo.Build{Scripts: map[string]string{"release": "return 1"}}, "script release: this lab has no such script to write"},
		"bad value":       {demo.Build{Settings: map[string]string{"fencing": "maybe"}}, `setting fencing: "maybe" is not one of off, on`},
	} {
		w := testkit.Post(t, s, views.LabAction(sc.ID), labForm(tc.build, "en"), false)
		testkit.MustStatus(t, w, http.StatusSeeOther)
		w = testkit.Get(t, s, w.Header().Get("Location"))
		testkit.MustStatus(t, w, http.StatusBadRequest)
		if got := testkit.TestID(t, testkit.Parse(t, w.Body.Bytes()), "lab-problem"); !strings.Contains(got, tc.says) {
			t.Errorf("%s: the lab says %q, want %q", name, got, tc.says)
		}
	}

	// A build longer than an address may carry: the page itself, the form
	// as it was sent.
	huge := demo.Build{Programs: map[string][]string{"A": {strings.Repeat("x", demo.MaxBuild)}}}
	r := testkit.PostRequest(views.LabAction(sc.ID), labForm(huge, "en"), false)
	w := testkit.Do(t, s, r)
	if w.Code != http.StatusBadRequest && w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("a build of %d bytes: status %d, want 400 or 413", demo.MaxBuild, w.Code)
	}

	for q, key := range map[string]string{
		"build=notours": "err.build.code",
		"build=" + views.EncodeBuild(strings.Repeat("A: release\n", demo.MaxBuild/11+1)): "err.build.code",
		"build=" + views.EncodeBuild("set fencing on\n") + "&fencing=off":                "err.build.switch",
	} {
		w := testkit.Get(t, s, "/scenarios/gc-pause?lang=en&"+q)
		testkit.MustStatus(t, w, http.StatusBadRequest)
		if got, want := testkit.TestID(t, testkit.Parse(t, w.Body.Bytes()), "error-message"), views.T("en", key); !strings.Contains(got, strings.Split(want, "%")[0]) {
			t.Errorf("%s: the 400 says %q, want %s", q, got, key)
		}
	}
	w = testkit.Get(t, s, views.LabURL(sc.ID, "", "en", false)+"&build=notours")
	testkit.MustStatus(t, w, http.StatusBadRequest)
	w = testkit.Get(t, s, "/scenarios/redis-failover/lab?lang=en")
	testkit.MustStatus(t, w, http.StatusNotFound)
	w = testkit.Get(t, s, "/scenarios/redis-failover?lang=en&build="+views.EncodeBuild("A:\n"))
	testkit.MustStatus(t, w, http.StatusBadRequest)
}

// A learner's Lua that does not parse is a 400 naming the script and its
// line, never a 500, in every lab that has a script to write.
func TestLabScriptError(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	tried := 0
	for _, sc := range labsOf(t, s) {
		for _, name := range sc.Lab.Scripts {
			tried++
			b := sc.Lab.Starter
			b.Scripts = map[string]string{name: "local x = \nreturn redis.call('GET', KEYS[1]"}
			w := testkit.Get(t, s, views.LabURL(sc.ID, b.String(), "en", false))
			testkit.MustStatus(t, w, http.StatusBadRequest)
			if got := testkit.TestID(t, testkit.Parse(t, w.Body.Bytes()), "lab-problem"); !strings.Contains(got, "script") {
				t.Errorf("%s: a script that does not parse: %q, want the script named", sc.ID, got)
			}
		}
	}
	if tried == 0 {
		t.Fatal("no lab of scenarios.yaml has a script to write: release-other's lab should have its release")
	}
}

// A built scenario is a place like any other: every link and form of its
// page carries the build on (Step, Back, reset, take over, share, embed,
// find, save), the switch the build set shows as set and is no button,
// and a click on the switch all the same is refused.
func TestBuiltPage(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	sc := testkit.Scenario(t, "gc-pause")
	built, err := views.Built(sc, tryOf(t, sc, "fencing").Build.String())
	if err != nil {
		t.Fatal(err)
	}
	code := views.EncodeBuild(built.Built)
	for _, u := range []string{
		"/scenarios/gc-pause?fencing=on&step=2&lang=en&build=" + code,
		"/embed/gc-pause?fencing=on&step=2&lang=en&build=" + code,
		"/scenarios/gc-pause?fencing=on&step=1&lang=en&build=" + code + "&play=",
	} {
		w := testkit.Get(t, s, u)
		testkit.MustStatus(t, w, http.StatusOK)
		doc := testkit.Parse(t, w.Body.Bytes())
		links := 0
		doc.Find(`#demo a[href], #demo [hx-post], #demo [hx-get], #demo form[action]`).Each(func(_ int, el *goquery.Selection) {
			for _, attr := range []string{"href", "hx-post", "hx-get", "action"} {
				v, ok := el.Attr(attr)
				if !ok || !strings.HasPrefix(v, "/scenarios/gc-pause") && !strings.HasPrefix(v, "/embed/gc-pause") {
					continue
				}
				links++
				if el.Is("form") || attr == "hx-post" {
					form := el.Closest("form")
					if form.Find(`input[name="build"][value="`+code+`"]`).Length() != 1 {
						t.Errorf("%s: the form posting to %s does not carry the build", u, v)
					}
				} else if !strings.Contains(v, "build="+code) {
					t.Errorf("%s: the link %s=%q leaves the build behind", u, attr, v)
				}
			}
		})
		if links < 4 {
			t.Errorf("%s: only %d links and forms checked", u, links)
		}
		if n := doc.Find(`button[data-testid="fencing"]`).Length(); n != 0 {
			t.Errorf("%s: the switch the build set is a button", u)
		}
		if got := testkit.Attr(t, doc, "fencing", "data-on"); got != "true" {
			t.Errorf("%s: the switch shows data-on=%q, want the build's true", u, got)
		}
		for _, id := range []string{"share-link", "embed-code"} {
			if v := doc.Find(`[data-testid="` + id + `"]`); v.Length() == 1 && !strings.Contains(v.AttrOr("value", v.AttrOr("data-embed", "")), "build="+code) {
				t.Errorf("%s: %s leaves the build behind", u, id)
			}
		}
	}
	w := testkit.Post(t, s, "/scenarios/gc-pause/switch", url.Values{"from": {"2"}, "fencing": {"on"}, "lang": {"en"}, "build": {code}}, true)
	testkit.MustStatus(t, w, http.StatusBadRequest)
	// A step carries the build on to the next frame's address.
	w = testkit.Post(t, s, "/scenarios/gc-pause/step", url.Values{"from": {"2"}, "fencing": {"on"}, "lang": {"en"}, "build": {code}}, false)
	testkit.MustStatus(t, w, http.StatusSeeOther)
	if got, want := w.Header().Get("Location"), "/scenarios/gc-pause?fencing=on&step=3&lang=en&build="+code; got != want {
		t.Errorf("a step leads to %q, want %q", got, want)
	}
	// Another replica (a server of its own) reads the same address as the
	// same frame.
	other := newTestServer(t, DefaultConfig())
	a := testkit.Get(t, s, "/scenarios/gc-pause?fencing=on&step=3&lang=en&build="+code)
	b := testkit.Get(t, other, "/scenarios/gc-pause?fencing=on&step=3&lang=en&build="+code)
	da, db := testkit.Parse(t, a.Body.Bytes()), testkit.Parse(t, b.Body.Bytes())
	for _, id := range []string{"step-index", "verdict", "resource-value", "narration"} {
		if testkit.TestID(t, da, id) != testkit.TestID(t, db, id) {
			t.Errorf("%s differs between two servers: %q and %q", id, testkit.TestID(t, da, id), testkit.TestID(t, db, id))
		}
	}
	if got, want := testkit.TestID(t, da, "step-index"), "3 / "+itoa(built.Frames()); got != want {
		t.Errorf("the built scenario's frame reads %q, want %q", got, want)
	}
}

// A lecture that plays a build moves the room: followers see the built
// scenario's frames, and their "try it myself" link carries the build; the
// lecture's move kept for the replicas names the build, which any replica
// reads back as the same built scenario.
func TestLabFollowAlong(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	sc := testkit.Scenario(t, "gc-pause")
	built, err := views.Built(sc, tryOf(t, sc, "starter").Build.String())
	if err != nil {
		t.Fatal(err)
	}
	code := views.EncodeBuild(built.Built)
	w := testkit.Post(t, s, "/scenarios/gc-pause/step", url.Values{"from": {"1"}, "fencing": {"off"}, "lang": {"en"}, "build": {code}}, true)
	testkit.MustStatus(t, w, http.StatusOK)
	link := followLink(t, testkit.Parse(t, w.Body.Bytes()))
	w = testkit.Get(t, s, link+"?lang=ja")
	testkit.MustStatus(t, w, http.StatusOK)
	doc := testkit.Parse(t, w.Body.Bytes())
	f := testkit.Frame(t, built, false, 2)
	if got, want := testkit.TestID(t, doc, "step-index"), "2 / "+itoa(built.Frames()); got != want {
		t.Errorf("the follower sees %q, want the built scenario's %q", got, want)
	}
	if got := testkit.TestID(t, doc, "narration"); !strings.Contains(got, f.Title.JA) || !strings.Contains(got, f.Text.JA) {
		t.Errorf("the follower's narration is %q, want the build's frame's %q and %q", got, f.Title.JA, f.Text.JA)
	}
	if got, want := testkit.Attr(t, doc, "try", "href"), "/scenarios/gc-pause?fencing=off&step=2&lang=ja&build="+code; got != want {
		t.Errorf("try it myself=%q, want %q", got, want)
	}
	// The replicas' key: the scenario's id, "+" and the build in base64url
	// (follow.Redis's move); any server reads it back as the build.
	other := newTestServer(t, DefaultConfig())
	got, ok := other.lookupScenario("gc-pause+" + b64(built.Built))
	if !ok || got.Built != built.Built || got.Frames() != built.Frames() {
		t.Errorf("another replica reads the lecture's build as %v, %v", got, ok)
	}
	if _, ok := other.lookupScenario("gc-pause+!!"); ok {
		t.Error("a key that is no build is read as one")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
