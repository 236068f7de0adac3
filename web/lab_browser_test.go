package web

// The labs in a real Chromium: each lab opened, a wrong try and the
// reference solution built with JavaScript (the Parsons editor's buttons)
// and without (the form's textareas and selects), the wrong try judged
// broken and played as frames, the right one proven for every history
// within the bounds; the build kept through Back, a reload and a share
// link opened on another replica; saved; a lecture that plays a build
// followed by the room; and the lab page looked at on a laptop, a
// projector, a phone and in an iframe, in both languages.
//
//	go test -run BrowserLabs -v ./web             # needs Chromium
//	LAB_SHOTS=/tmp/shots go test -run BrowserLabs ./web   # keeps the screenshots

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

func TestBrowserLabs(t *testing.T) {
	s, other := judgeServer(t), judgeServer(t)
	srv, srv2 := httptest.NewServer(s), httptest.NewServer(other)
	t.Cleanup(srv.Close)
	t.Cleanup(srv2.Close)
	t.Cleanup(s.follow.Close) // first: a follower's stream would keep srv.Close waiting
	env := &browserEnv{browser: testkit.Chromium(t, 15*time.Minute), base: srv.URL, posts: &postLog{}}
	for i, sc := range labsOf(t, s) {
		lang := []string{"en", "ja"}[i%2]
		wrong, right := wrongTry(t, sc), rightTry(t, sc)
		t.Run(sc.ID+"/javascript", func(t *testing.T) {
			b := env.newTabFor(t, true, 2*time.Minute)
			b.do(chromedp.Navigate(srv.URL + views.LabURL(sc.ID, "", lang, false)))
			b.waitJS("the Parsons editor", `!!window.htmx && document.querySelectorAll('.program-lines').length === `+strconv.Itoa(len(sc.Lab.Clients)))
			b.buildWithButtons(sc, wrong.Build)
			b.judge(wrong.Expect)
			b.playBroken(sc, wrong)
			b.back() // history.back(): the lab may come back from the page cache, with no load event to wait for
			b.waitEditorShows(sc, wrong.Build)
			b.do(chromedp.Reload()) // the lab as its address names it, as a learner who comes back to it later
			b.waitJS("the Parsons editor again", `!!window.htmx && document.querySelectorAll('.program-lines').length === `+strconv.Itoa(len(sc.Lab.Clients)))
			b.waitEditorShows(sc, wrong.Build)
			b.buildWithButtons(sc, right.Build)
			b.judge(right.Expect)
			b.do(chromedp.Reload())
			b.waitEditorShows(sc, right.Build)
			link := b.value("lab-link")
			if !strings.HasPrefix(link, srv.URL+"/scenarios/"+sc.ID+"/lab?") {
				t.Fatalf("the share link %q is not this lab's absolute address", link)
			}
			// The link, opened by someone else on another replica.
			o := env.newTabFor(t, true, 3*time.Minute)
			o.do(chromedp.Navigate(srv2.URL + strings.TrimPrefix(link, srv.URL)))
			o.waitJS("the editor on another replica", `!!window.htmx && !!document.querySelector('.program-lines')`)
			o.waitEditorShows(sc, right.Build)
			o.judge(right.Expect)
			// Saved as a scenario.
			b.click("lab-save")
			b.waitJS("the saved build", `(document.querySelector('[data-testid="save-text"]') || {value: ''}).value.includes('id: `+sc.ID+`-build')`)
		})
		t.Run(sc.ID+"/no-javascript", func(t *testing.T) {
			b := env.newTabFor(t, false, 2*time.Minute)
			if _, err := chromedp.Call(b.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
				t.Fatal(err)
			}
			b.do(chromedp.Navigate(srv.URL + views.LabURL(sc.ID, "", lang, false)))
			b.waitJS("the lab's form", `!!document.getElementById('lab-form')`)
			b.fillForm(sc, wrong.Build)
			b.submit("judge")
			b.waitVerdict(wrong.Expect)
			b.playBroken(sc, wrong)
			b.back() // history.back(): the lab may come back from the page cache, with no load event to wait for
			b.waitJS("the judge's page again", `!!document.querySelector('[data-testid="judge-back"]')`)
			b.jsClick("judge-back") // a page from the page cache is new to chromedp's DOM: click it as the page does
			b.waitEditorShows(sc, wrong.Build)
			b.fillForm(sc, right.Build)
			b.submit("judge")
			b.waitVerdict(right.Expect)
		})
	}
	t.Run("follow-along", func(t *testing.T) { labFollowAlong(t, env, s) })
	t.Run("screens", func(t *testing.T) { labScreens(t, env) })
}

// wrongTry is a lab's classic wrong try other than its starter, or the
// starter; rightTry its first reference solution.
func wrongTry(t *testing.T, sc *demo.Scenario) demo.Try {
	t.Helper()
	i := slices.IndexFunc(sc.Lab.Tries, func(try demo.Try) bool { return try.Name != "starter" && strings.HasPrefix(try.Expect, "broken") })
	if i < 0 {
		return tryOf(t, sc, "starter")
	}
	return sc.Lab.Tries[i]
}

func rightTry(t *testing.T, sc *demo.Scenario) demo.Try {
	t.Helper()
	i := slices.IndexFunc(sc.Lab.Tries, func(try demo.Try) bool { return try.Expect == "holds" })
	if i < 0 {
		t.Fatalf("lab %s has no reference solution", sc.ID)
	}
	return sc.Lab.Tries[i]
}

// buildWithButtons builds b as a learner does with the Parsons editor:
// every line of each program removed with its button, then each of b's
// lines added with its client's button in the palette; the settings
// chosen; then waits until the build is checked and in the address.
func (b *tab) buildWithButtons(sc *demo.Scenario, build demo.Build) {
	b.t.Helper()
	for _, c := range sc.Lab.Clients {
		list := `[data-testid="lines-` + c + `"]`
		for {
			n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll('`+list+` li[data-line]').length`))
			if err != nil {
				b.t.Fatal(err)
			}
			if n == 0 {
				break
			}
			b.do(chromedp.Click(chromedp.CSS(list + ` li[data-line] .remove`)))
		}
		for _, line := range build.Programs[c] {
			b.do(chromedp.Click(chromedp.CSS(`[data-testid="add-` + c + `"][data-line="` + line + `"]`)))
		}
	}
	b.setSettings(sc, build)
	b.waitBuildInAddress(sc, build)
}

// fillForm types b into the form as a learner without JavaScript does.
func (b *tab) fillForm(sc *demo.Scenario, build demo.Build) {
	b.t.Helper()
	for _, c := range sc.Lab.Clients {
		b.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('textarea[name="program-` + c + `"]').value = ` + strconv.Quote(strings.Join(build.Programs[c], "\n"))))
	}
	b.setSettings(sc, build)
}

func (b *tab) setSettings(sc *demo.Scenario, build demo.Build) {
	b.t.Helper()
	for _, name := range sc.Lab.Scripts {
		text, ok := build.Scripts[name]
		if !ok {
			continue
		}
		b.do(chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector('textarea[name="script-` + name + `"]');
			s.value = ` + strconv.Quote(text) + `; s.dispatchEvent(new Event('input', {bubbles: true})); s.dispatchEvent(new Event('change', {bubbles: true})); })()`))
	}
	for _, set := range sc.Lab.Settings {
		v, ok := build.Settings[set.Name]
		if !ok {
			continue
		}
		b.do(chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector('select[name="set-` + set.Name + `"]');
			s.value = ` + strconv.Quote(v) + `; s.dispatchEvent(new Event('change', {bubbles: true})); })()`))
	}
}

// waitBuildInAddress waits until htmx has checked the build and the
// address names it: b's programs and settings, read back from the address.
func (b *tab) waitBuildInAddress(sc *demo.Scenario, build demo.Build) {
	b.t.Helper()
	deadline := time.Now().Add(waitBudget)
	for {
		code, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`!document.querySelector('.htmx-request') && document.querySelector('[data-testid="lab-status"]').dataset.ok === 'true' ?
			new URLSearchParams(location.search).get('build') || '' : ''`))
		if err == nil && code != "" && sameBuild(sc, code, build) {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("the address never named the build %q (last: %q, %v)", build.String(), code, err)
		}
		b.do(chromedp.Sleep(20 * time.Millisecond))
	}
}

// sameBuild says whether the build an address's code names has b's
// programs and settings.
func sameBuild(sc *demo.Scenario, code string, b demo.Build) bool {
	text, err := views.DecodeBuild(code)
	if err != nil {
		return false
	}
	got, err := demo.ParseBuild(text)
	if err != nil {
		return false
	}
	for _, c := range sc.Lab.Clients {
		if !slices.Equal(got.Programs[c], b.Programs[c]) {
			return false
		}
	}
	for name, v := range b.Settings {
		if got.Settings[name] != v {
			return false
		}
	}
	return true
}

// waitEditorShows waits until the lab's form holds b's programs.
func (b *tab) waitEditorShows(sc *demo.Scenario, build demo.Build) {
	b.t.Helper()
	var want []string
	for _, c := range sc.Lab.Clients {
		want = append(want, strconv.Quote(strings.Join(build.Programs[c], "\n")))
	}
	clients := `['` + strings.Join(sc.Lab.Clients, `','`) + `']`
	b.waitJS("the editor to show "+build.String(), `!!document.getElementById('lab-form') && JSON.stringify(`+clients+`.map(c =>
		document.querySelector('textarea[name="program-' + c + '"]').value.split('\n').map(l => l.trim()).filter(Boolean).join('\n'))) === JSON.stringify([`+strings.Join(want, ",")+`])`)
}

// judge presses "Judge my fix" and waits for the answer in its box.
func (b *tab) judge(expect string) {
	b.t.Helper()
	start := time.Now()
	b.click("judge")
	b.waitVerdict(expect)
	b.t.Logf("the judge answered %q on the page in %v", expect, time.Since(start).Round(time.Millisecond))
}

// waitVerdict waits for the judge's answer (in the box, or on its page)
// and holds it to expect; a proof states its bounds.
func (b *tab) waitVerdict(expect string) {
	b.t.Helper()
	b.waitJS("the judge's answer", `!!document.querySelector('[data-testid="judge-answer"]') && document.readyState === 'complete'`)
	got, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="judge-answer"]').dataset.verdict`))
	if err != nil {
		b.t.Fatal(err)
	}
	if got != expect {
		b.t.Fatalf("the judge says %q, want %q", got, expect)
	}
	if expect == "holds" {
		b.waitJS("the bounds said", `document.querySelector('[data-testid="judge-bounds"]').innerText.length > 40`)
	}
}

// playBroken follows "Play it as frames" from a broken answer to the
// built scenario's free play, whose last frame breaks the promise as the
// judge found.
func (b *tab) playBroken(sc *demo.Scenario, try demo.Try) {
	b.t.Helper()
	built, err := views.Built(sc, try.Build.String())
	if err != nil {
		b.t.Fatal(err)
	}
	j, err := find.Judge(demo.Place{Sc: built, On: built.Default, Step: 1}, find.Options{MaxStates: 100_000})
	if err != nil || !j.Always.Found {
		b.t.Fatalf("the try %s is not broken: %v", try.Name, err)
	}
	end, err := j.Always.Place().Frame()
	if err != nil {
		b.t.Fatal(err)
	}
	b.click("judge-play")
	b.waitJS("the break played as frames", fmt.Sprintf(`location.search.includes('&play=') && location.search.includes('build=') && document.readyState === 'complete' &&
		(document.querySelector('#demo [data-testid="verdict"]') || {dataset: {}}).dataset.verdict === %q &&
		document.querySelectorAll('#demo .free-history li').length === %d`, end.Verdict().Kind.String(), len(j.Always.Trace)))
}

// value reads an input's value by its data-testid.
func (b *tab) value(testid string) string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="`+testid+`"]').value`))
	if err != nil {
		b.t.Fatal(err)
	}
	return v
}

// A lecturer plays a build (the lost update, as the starter writes it):
// the room following the lecture sees the built scenario's frames, and
// follows each step.
func labFollowAlong(t *testing.T, env *browserEnv, s *Server) {
	sc := testkit.Scenario(t, "lost-update")
	built, err := views.Built(sc, sc.Lab.Starter.String())
	if err != nil {
		t.Fatal(err)
	}
	lect := env.newTab(t, true)
	lect.do(chromedp.Navigate(env.base + views.FrameURL(built, built.Default, 1, "en")))
	lect.waitJS("the build's first frame", `!!window.htmx && !!document.querySelector('[data-testid="lab-bar"]')`)
	index := func(k int) string { return fmt.Sprintf("%d / %d", k, built.Frames()) }
	lect.click("step")
	lect.waitJS("the build's second frame", `document.querySelector('[data-testid="step-index"]').innerText.trim() === `+strconv.Quote(index(2)))
	lect.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=share]').open = true`))
	// A prefetched frame is painted at once; the server's answer, which
	// brings the lecture's follow link, comes after it.
	lect.waitJS("the follow link", `!!document.querySelector('[data-testid="follow-link"]')`)
	link, err := chromedp.Run(lect.ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="follow-link"]').getAttribute('href')`))
	if err != nil || link == "" {
		t.Fatalf("the lecturer's share box has no follow link: %v", err)
	}
	room := env.newTab(t, true)
	room.do(chromedp.Navigate(env.base + link + "?lang=ja"))
	room.waitJS("the follower at the build's second frame", `document.querySelector('[data-testid="step-index"]').innerText.trim() === `+strconv.Quote(index(2)))
	lect.click("step")
	room.waitJS("the follower at the build's third frame", `document.querySelector('[data-testid="step-index"]').innerText.trim() === `+strconv.Quote(index(3)))
	f := testkit.Frame(t, built, built.Default, 3)
	room.waitJS("the build's narration", `document.querySelector('[data-testid="narration"]').innerText.includes(`+strconv.Quote(f.Title.JA)+`)`)
	if got, err := chromedp.Run(room.ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="try"]').getAttribute('href')`)); err != nil || !strings.Contains(got, "build="+views.EncodeBuild(built.Built)) {
		t.Errorf("the follower's try link %q leaves the build behind (%v)", got, err)
	}
}

// The lab page at a laptop's, a projector's (presenter mode), a phone's
// and an iframe's size, in both languages, with the judge's answer shown:
// nothing wider than the screen, the buttons to build and to judge in
// reach, and no fault axe finds. With LAB_SHOTS set, the screenshots are
// kept there to be looked at.
func labScreens(t *testing.T, env *browserEnv) {
	axeJS, err := os.ReadFile("testdata/axe/axe.min.js")
	if err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("LAB_SHOTS")
	sc := testkit.Scenario(t, "gc-pause")
	try := tryOf(t, sc, "check-then-write")
	for _, lang := range []string{"en", "ja"} {
		for _, size := range []struct {
			name    string
			w, h    int64
			mobile  bool
			present bool
		}{
			{"1280x720", 1280, 720, false, false},
			{"1920x1080-present", 1920, 1080, false, true},
			{"360-phone", 360, 740, true, false},
			{"1000-iframe", 1000, 760, false, false},
		} {
			b := env.newTab(t, true)
			if size.mobile {
				b.do(chromedp.EmulateViewport(size.w, size.h, chromedp.EmulateMobile))
			} else {
				b.do(chromedp.EmulateViewport(size.w, size.h))
			}
			b.do(chromedp.Navigate(env.base + views.LabURL(sc.ID, try.Build.String(), lang, size.present)))
			b.waitJS("the editor", `!!window.htmx && !!document.querySelector('.program-lines')`)
			b.judge(try.Expect)
			where := lang + " " + size.name
			over, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth - window.innerWidth`))
			if err != nil || over > 0 {
				t.Errorf("%s: the page is %d px wider than the screen (%v)", where, over, err)
			}
			// Judge my fix is in reach without scrolling on every screen
			// but the phone's, which scrolls to it.
			if !size.mobile {
				bottom, _ := chromedp.Run(b.ctx, chromedp.Evaluate[float64](`document.querySelector('[data-testid="judge"]').getBoundingClientRect().bottom + window.scrollY`))
				if bottom > float64(size.h) {
					t.Errorf("%s: Judge my fix ends %.0f px down, below the first screen of %d", where, bottom, size.h)
				}
			}
			if size.name == "1280x720" {
				b.checkAxe(axeJS, where)
			}
			if dir != "" {
				if err := os.WriteFile(filepath.Join(dir, "lab-"+lang+"-"+size.name+".png"), b.fullScreenshot(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// back goes back in the tab's history as the browser's Back button does,
// without waiting for a load event: a page restored from the
// back/forward cache fires none, so the caller waits for what it expects
// to see.
func (b *tab) back() {
	b.t.Helper()
	testkit.Leave(b.t, b.ctx, `history.back()`)
}

// jsClick clicks the control with the testid from the page's own side:
// after a page comes back from the back/forward cache, chromedp's copy of
// the DOM still holds the page it left, and a click by node waits for ever.
func (b *tab) jsClick(testid string) {
	b.t.Helper()
	testkit.Leave(b.t, b.ctx, `document.querySelector('[data-testid="`+testid+`"]').click()`)
}
