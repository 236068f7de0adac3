package export

// Tests of the static export (export.go): every file is there, every frame
// shows what the model computes, every link leads to a file of the export,
// and a real Chromium steps through the files from disk.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/lockservice"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/demo/sql"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/internal/testkit/screen"
	"github.com/distlock/fencing-demo/views"
)

// The built-in scenarios exported once per test binary, for the tests that
// only read the site: see exportSite.
var (
	siteOnce         sync.Once
	siteDir, siteLog string
	siteErr          error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if siteDir != "" {
		_ = os.RemoveAll(siteDir)
	}
	os.Exit(code)
}

// exportSite exports the built-in scenarios into a fresh directory and
// returns it with what the command reported. The export is made once and
// shared: the tests that call this read its files and never change them.
func exportSite(tb testing.TB) (dir, report string) {
	tb.Helper()
	siteOnce.Do(func() {
		if siteDir, siteErr = os.MkdirTemp("", "fencing-export-"); siteErr != nil {
			return
		}
		var stdout, stderr bytes.Buffer
		if err := exportCommand(tb, context.Background(), []string{siteDir}, noEnv, &stdout, &stderr); err != nil {
			siteErr = fmt.Errorf("export %s: %w\n%s", siteDir, err, stderr.String())
		}
		siteLog = stdout.String()
	})
	if siteErr != nil {
		tb.Fatal(siteErr)
	}
	return siteDir, siteLog
}

func noEnv(string) string { return "" }

func testCatalog(tb testing.TB) *demo.Catalog { return testkit.Catalog(tb) }

// exportCommand is "fencing-demo export" as main starts it, with the
// repository's scenarios (or the file a -scenarios flag or SCENARIOS names)
// and static files.
func exportCommand(tb testing.TB, ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	load := func(path string) (*demo.Catalog, error) {
		if path == "" {
			return testkit.Catalog(tb), nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		return script.Load(path, b)
	}
	return Command(ctx, args, getenv, load, testkit.Static(tb), stdout, stderr)
}

// readPage parses one exported HTML file, named from the top of the export.
func readPage(tb testing.TB, dir, name string) *goquery.Document {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		tb.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(b))
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	return doc
}

// siteFiles lists every file of the export, slash-separated from the top.
func siteFiles(tb testing.TB, dir string) []string {
	tb.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		names = append(names, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return names
}

func TestExportWritesEveryFrame(t *testing.T) {
	dir, report := exportSite(t)
	catalog := testCatalog(t)

	want := map[string]bool{"index.html": true}
	for _, lang := range langs {
		want[lang+"/index.html"] = true
		for _, sc := range catalog.Scenarios {
			for _, on := range []bool{true, false} {
				for k := 1; k <= sc.Frames(); k++ {
					here := views.Place{Place: demo.Place{Sc: sc, On: on, Step: k}, Lang: lang}
					want[views.StaticPath(here)] = true
					if q := sc.Predicted(k); q != nil {
						for _, o := range q.Options {
							want[views.StaticGuessPath(here, o.Value)] = true
						}
					}
				}
			}
		}
	}
	names := siteFiles(t, dir)
	var size int64
	got := map[string]bool{}
	for _, name := range names {
		got[name] = true
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		size += st.Size()
	}
	for name := range want {
		if !got[name] {
			t.Errorf("%s is missing from the export", name)
		}
	}
	// Besides the pages: the style sheet and the icon, and no script.
	var css, icon int
	for _, name := range names {
		switch {
		case want[name]:
		case regexp.MustCompile(`^static/app\.[0-9a-f]{8}\.css$`).MatchString(name):
			css++
		case regexp.MustCompile(`^static/icon\.[0-9a-f]{8}\.svg$`).MatchString(name):
			icon++
		default:
			t.Errorf("unexpected file %s in the export", name)
		}
	}
	if css != 1 || icon != 1 {
		t.Errorf("static/ holds %d style sheets and %d icons, want one of each", css, icon)
	}
	if got, want := report, "wrote "+strconv.Itoa(len(names))+" files, "+strconv.FormatInt(size, 10)+" bytes"; !strings.HasPrefix(got, want) {
		t.Errorf("report=%q, want it to start %q", got, want)
	}
}

// TestExportFramesShowTheModel reads every frame's file and checks what it
// shows against demo.Replay, as TestBrowser checks the live page.
func TestExportFramesShowTheModel(t *testing.T) {
	dir, _ := exportSite(t)
	catalog := testCatalog(t)
	text := func(doc *goquery.Document, testid string) (string, bool) {
		s := doc.Find(`[data-testid="` + testid + `"]`)
		return strings.Join(strings.Fields(s.Text()), " "), s.Length() > 0
	}
	frames := 0
	for _, lang := range langs {
		for _, sc := range catalog.Scenarios {
			for _, on := range []bool{true, false} {
				for k := 1; k <= sc.Frames(); k++ {
					name := views.StaticPath(views.Place{Place: demo.Place{Sc: sc, On: on, Step: k}, Lang: lang})
					doc := readPage(t, dir, name)
					want := screen.Want(t, sc, on, k, lang)
					checks := [][2]string{{"step-index", want.Index}}
					// A database shows its rows in place of the chapter's
					// resource, unless the scenario fences through the lock
					// service; the token check is shown where the scenario is
					// about fencing, and only there.
					if !views.OwnsResource(sc) {
						checks = append(checks, [2]string{"resource-value", want.Value})
					}
					if !views.OwnsResource(sc) && (sc.Fencing == "on" || sc.Fencing == "switch") {
						checks = append(checks, [2]string{"max-token", want.MaxToken}, [2]string{"rejected", want.Rejected})
					} else if _, ok := text(doc, "max-token"); ok && !views.OwnsResource(sc) {
						t.Errorf("%s: maxToken is shown in a scenario not about fencing", name)
					}
					// Only the chapter's lock service has one holder and token;
					// the Redis family shows a table of nodes, a consensus service its sessions and znodes or keys.
					// A database whose table checks the lock service's tokens shows both.
					hasHolder := sc.Store == lockservice.Kind || sql.UsesLockService(sc)
					if hasHolder {
						checks = append(checks, [2]string{"holder", want.Holder}, [2]string{"token", want.Token})
					} else if _, ok := text(doc, "holder"); ok {
						t.Errorf("%s: a holder is shown for a %s store", name, sc.Store)
					}
					for _, c := range checks {
						got, ok := text(doc, c[0])
						if !ok {
							t.Errorf("%s: no %s", name, c[0])
						} else if got != c[1] {
							t.Errorf("%s: %s=%q, want %q", name, c[0], got, c[1])
						}
					}
					if got, ok := doc.Find(`[data-testid="verdict"]`).Attr("data-verdict"); !ok || got != want.Verdict {
						t.Errorf("%s: data-verdict=%q, want %q", name, got, want.Verdict)
					}
					if got, _ := doc.Find(`[data-testid="` + sc.Switch + `"]`).Attr("aria-pressed"); got != strconv.FormatBool(on) {
						t.Errorf("%s: switch aria-pressed=%q, want %v", name, got, on)
					}
					if got, want := doc.Find("html").AttrOr("lang", ""), lang; got != want {
						t.Errorf("%s: <html lang=%q>, want %q", name, got, want)
					}
					// Plain links and no script: nothing here can post or run.
					if n := doc.Find("script, form, input, button").Length(); n > 0 {
						t.Errorf("%s: %d script or form elements, want none", name, n)
					}
					frames++
				}
			}
		}
	}
	if frames == 0 {
		t.Fatal("no frames checked")
	}
	// The chapter's numbers, written out, as a page that agrees with a
	// broken model would otherwise pass.
	sc, _ := catalog.Get("gc-pause")
	for _, cp := range screen.Checkpoints {
		doc := readPage(t, dir, views.StaticPath(views.Place{Place: demo.Place{Sc: sc, On: cp.On, Step: cp.Frame}, Lang: "en"}))
		got, _ := text(doc, cp.Field)
		if cp.Field == "verdict" {
			got = doc.Find(`[data-testid="verdict"]`).AttrOr("data-verdict", "")
		}
		if got != cp.Want {
			t.Errorf("gc-pause %s frame %d: %s=%q, want the chapter's %q", demo.OnOff(cp.On), cp.Frame, cp.Field, got, cp.Want)
		}
	}
}

// linkAttrs are the attributes that point at another file.
var linkAttrs = []string{"href", "src", "action", "srcset", "poster", "data"}

// TestExportLinks walks every file of the export: each link is relative,
// names no other host, and leads to a file of the export; each control leads
// to the frame it says; and every page can be reached from index.html.
func TestExportLinks(t *testing.T) {
	dir, _ := exportSite(t)
	exists := map[string]bool{}
	names := siteFiles(t, dir)
	for _, name := range names {
		exists[name] = true
	}
	links := map[string][]string{} // page -> the files it links to
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(name, ".html") {
			// An SVG names its namespace with a URL; that is not a reference.
			if s := strings.ReplaceAll(string(b), `xmlns="http://www.w3.org/2000/svg"`, ""); strings.Contains(s, "http://") || strings.Contains(s, "https://") {
				t.Errorf("%s mentions http:// or https://", name)
			}
			continue
		}
		doc := readPage(t, dir, name)
		// The lesson's sources are the one way off the site: plain links to
		// the primary texts, which a reader may follow and nothing loads.
		sources := doc.Find(`[data-testid="sources"]`)
		sources.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
			if !strings.HasPrefix(a.AttrOr("href", ""), "https://") {
				t.Errorf("%s: source link %q is not https", name, a.AttrOr("href", ""))
			}
		})
		sources.Remove()
		html, err := doc.Html()
		if err != nil {
			t.Fatal(err)
		}
		// An SVG names its namespace with a URL; that is not a reference.
		if s := strings.ReplaceAll(html, `xmlns="http://www.w3.org/2000/svg"`, ""); strings.Contains(s, "http://") || strings.Contains(s, "https://") {
			t.Errorf("%s mentions http:// or https://", name)
		}
		if n := doc.Find("script").Length(); n > 0 {
			t.Errorf("%s: %d scripts, want none", name, n)
		}
		for _, attr := range linkAttrs {
			doc.Find("[" + attr + "]").Each(func(_ int, s *goquery.Selection) {
				ref := s.AttrOr(attr, "")
				target, err := resolve(name, ref)
				if err != nil {
					t.Errorf("%s: %s=%q: %v", name, attr, ref, err)
					return
				}
				if !exists[target] {
					t.Errorf("%s: %s=%q leads to %s, which is not in the export", name, attr, ref, target)
				}
				links[name] = append(links[name], target)
			})
		}
	}

	// Every page is a click or a few away from the top.
	seen := map[string]bool{"index.html": true}
	queue := []string{"index.html"}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, q := range links[p] {
			if !seen[q] {
				seen[q] = true
				queue = append(queue, q)
			}
		}
	}
	for _, name := range names {
		if !seen[name] {
			t.Errorf("%s cannot be reached from index.html", name)
		}
	}

	// Each control leads where it says.
	catalog := testCatalog(t)
	href := func(doc *goquery.Document, page, sel string) string {
		t.Helper()
		s := doc.Find(sel)
		if s.Length() != 1 {
			t.Errorf("%s: %d elements match %s, want 1", page, s.Length(), sel)
			return ""
		}
		ref, ok := s.Attr("href")
		if !ok {
			return ""
		}
		target, err := resolve(page, ref)
		if err != nil {
			t.Errorf("%s: %s href=%q: %v", page, sel, ref, err)
		}
		return target
	}
	for _, lang := range langs {
		index := lang + "/index.html"
		doc := readPage(t, dir, index)
		for _, sc := range catalog.Scenarios {
			at := func(on bool, k int) string {
				return views.StaticPath(views.Place{Place: demo.Place{Sc: sc, On: on, Step: k}, Lang: lang})
			}
			li := `[data-testid="scenario-` + sc.ID + `"] `
			for sel, want := range map[string]string{
				li + "> a":                         at(sc.Default, 1),
				li + `[data-testid="outcome-on"]`:  at(true, sc.Frames()),
				li + `[data-testid="outcome-off"]`: at(false, sc.Frames()),
			} {
				if got := href(doc, index, sel); got != want {
					t.Errorf("%s: %s leads to %q, want %q", index, sel, got, want)
				}
			}
			for _, on := range []bool{true, false} {
				for k := 1; k <= sc.Frames(); k++ {
					page := at(on, k)
					doc := readPage(t, dir, page)
					other := views.StaticPath(views.Place{Place: demo.Place{Sc: sc, On: on, Step: k}, Lang: views.OtherLang(lang)})
					want := map[string]string{
						`[data-testid="step"]`:                 at(on, min(k+1, sc.Frames())),
						`[data-testid="back"]`:                 at(on, max(k-1, 1)),
						`[data-testid="reset"]`:                at(on, 1),
						`[data-testid="` + sc.Switch + `"]`:    at(!on, k),
						`[data-testid="lang"]`:                 other,
						`header.site nav a:not([data-testid])`: index,
					}
					// A control that would lead nowhere is shown disabled, with no link.
					if k == sc.Frames() {
						want[`[data-testid="step"]`] = ""
					}
					if k == 1 {
						want[`[data-testid="back"]`], want[`[data-testid="reset"]`] = "", ""
					}
					for sel, w := range want {
						if got := href(doc, page, sel); got != w {
							t.Errorf("%s: %s leads to %q, want %q", page, sel, got, w)
						}
						if w == "" && doc.Find(sel).AttrOr("aria-disabled", "") != "true" {
							t.Errorf("%s: %s has no link and is not aria-disabled", page, sel)
						}
					}
				}
			}
		}
	}
	if root := readPage(t, dir, "index.html"); href(root, "index.html", `[data-testid="lang-en"]`) != "en/index.html" ||
		href(root, "index.html", `[data-testid="lang-ja"]`) != "ja/index.html" {
		t.Error("index.html does not link to en/index.html and ja/index.html")
	}
}

// resolve finds the file a link in page leads to, both from the top of the
// export. A link must be a relative path: no scheme, no host, not from "/",
// and not climbing out of the export.
func resolve(page, ref string) (string, error) {
	if ref == "" {
		return "", errors.New("empty link")
	}
	if strings.HasPrefix(ref, "/") {
		return "", errors.New("starts with /")
	}
	u, err := url.Parse(ref)
	if err != nil {
		return "", err
	}
	if u.Scheme != "" || u.Host != "" {
		return "", errors.New("names a scheme or a host")
	}
	if u.Path == "" { // "#part" or "?query": the page itself
		return page, nil
	}
	target := path.Join(path.Dir(page), u.Path)
	if target == ".." || strings.HasPrefix(target, "../") {
		return "", errors.New("climbs out of the export")
	}
	return target, nil
}

func TestExportDirectory(t *testing.T) {
	ctx := context.Background()

	t.Run("refuses a non-empty directory", func(t *testing.T) {
		dir := t.TempDir()
		mine := filepath.Join(dir, "index.html")
		if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		err := exportCommand(t, ctx, []string{dir}, noEnv, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), "not empty") || !strings.Contains(err.Error(), "-force") {
			t.Fatalf("export into a non-empty directory: err=%v, want one that says it is not empty and names -force", err)
		}
		if b, _ := os.ReadFile(mine); string(b) != "mine" {
			t.Errorf("the refused export changed %s", mine)
		}
		if names := siteFiles(t, dir); len(names) != 1 {
			t.Errorf("the refused export wrote %v", names)
		}

		// -force writes over it, before or after the directory.
		for _, args := range [][]string{{"-force", dir}, {dir, "-force"}} {
			stdout.Reset()
			if err := exportCommand(t, ctx, args, noEnv, &stdout, &stderr); err != nil {
				t.Fatalf("export %q: %v", args, err)
			}
			if b, _ := os.ReadFile(mine); !bytes.Contains(b, []byte("en/index.html")) {
				t.Errorf("export %q left %s as it was", args, mine)
			}
			if !strings.HasPrefix(stdout.String(), "wrote ") {
				t.Errorf("export %q reported %q", args, stdout.String())
			}
		}
	})

	t.Run("makes a new directory", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "a", "site")
		var stdout, stderr bytes.Buffer
		if err := exportCommand(t, ctx, []string{dir}, noEnv, &stdout, &stderr); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, "en", "gc-pause", "on", "1.html")); err != nil {
			t.Error(err)
		}
	})

	t.Run("refuses a file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "site")
		if err := os.WriteFile(file, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		err := exportCommand(t, ctx, []string{file}, noEnv, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), "not a directory") {
			t.Errorf("export into a file: err=%v, want one that says it is not a directory", err)
		}
	})

	t.Run("needs one directory", func(t *testing.T) {
		for _, args := range [][]string{{"export"}, {"export", "a", "b"}} {
			var stdout, stderr bytes.Buffer
			err := exportCommand(t, ctx, args[1:], noEnv, &stdout, &stderr)
			if err == nil || !strings.Contains(stderr.String(), "usage: fencing-demo export") {
				t.Errorf("run %q: err=%v, stderr=%q; want an error and the usage", args, err, stderr.String())
			}
		}
	})
}

const (
	exportBrowserBudget = 4 * time.Minute  // the whole test, browser start included
	staticWalkBudget    = 3 * time.Minute  // TestExportBrowser's walk through the files
	staticWaitBudget    = 15 * time.Second // one file to be shown after a click
)

// TestExportBrowser opens the exported files from disk in a real Chromium
// and steps through gc-pause by clicking the plain links, with JavaScript off
// as a textbook's reader may have it.
func TestExportBrowser(t *testing.T) {
	dir, _ := exportSite(t)
	catalog := testCatalog(t)
	sc, ok := catalog.Get("gc-pause")
	if !ok {
		t.Fatal("scenario gc-pause is missing from scenarios.yaml")
	}
	screen.CheckCheckpoints(t, sc)

	browserCtx := testkit.Chromium(t, exportBrowserBudget)

	// A tab of its own, with a budget for the whole walk that allows for a
	// busy machine: the files are local, so only a slow browser is slow.
	tab := testkit.NewTab(t, browserCtx, staticWalkBudget)
	do := func(actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(tab, actions...); err != nil {
			t.Fatal(err)
		}
	}
	click := func(testid string) { t.Helper(); do(chromedp.Click(chromedp.CSS(`[data-testid="` + testid + `"]`))) }
	// No JavaScript, as a textbook's reader may have it: the links are enough.
	if _, err := chromedp.Call(tab, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	const lang = "en"
	fileURL := func(on bool, k int) string {
		p := filepath.Join(dir, filepath.FromSlash(views.StaticPath(views.Place{Place: demo.Place{Sc: sc, On: on, Step: k}, Lang: lang})))
		return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
	}
	// waitFile waits for frame k's file to be shown and checks every value on
	// it against the model, as TestBrowser does on the live page.
	waitFile := func(on bool, k int) {
		t.Helper()
		href := fileURL(on, k)
		index := strconv.Itoa(k) + " / " + strconv.Itoa(sc.Frames())
		// The wait is for the file to have loaded, not only for its first
		// bytes: a half-parsed page shows the new step but not yet the rest.
		s := testkit.WaitFor(t, tab, staticWaitBudget, fmt.Sprintf("frame %q at %s", index, href), screen.ScreenJS, func(s screen.Screen) bool {
			return s.Index == index && s.Href == href
		})
		// A static control that leads nowhere is a span marked aria-disabled,
		// not a disabled button.
		s.StepDisabled, _ = chromedp.Run(tab, chromedp.Evaluate[bool](
			`document.querySelector('[data-testid="step"]').getAttribute('aria-disabled') === 'true'`))
		want := screen.Fields(screen.Want(t, sc, on, k, lang))
		for i, f := range screen.Fields(s) {
			if f[1] != want[i][1] {
				t.Errorf("fencing %s, frame %d: %s=%q, want %q", demo.OnOff(on), k, f[0], f[1], want[i][1])
			}
		}
		for _, cp := range screen.Checkpoints {
			if cp.On == on && cp.Frame == k {
				if got := screen.Field(s, cp.Field); got != cp.Want {
					t.Errorf("fencing %s, frame %d: %s=%q, want the chapter's %q", demo.OnOff(on), k, cp.Field, got, cp.Want)
				}
			}
		}
		if s.Htmx {
			t.Errorf("fencing %s, frame %d: htmx is loaded in the static export", demo.OnOff(on), k)
		}
		if t.Failed() {
			t.FailNow()
		}
	}

	do(chromedp.Navigate(fileURL(true, 1)))
	waitFile(true, 1)
	for k := 2; k <= sc.Frames(); k++ {
		click("step")
		waitFile(true, k)
	}
	click(sc.Switch)
	waitFile(false, sc.Frames())
	click("back")
	waitFile(false, sc.Frames()-1)
	// The browser's own Back returns to the file before.
	do(chromedp.NavigateBack())
	waitFile(false, sc.Frames())
}

func TestExportScenariosFlag(t *testing.T) {
	ctx := context.Background()
	var stdout, stderr bytes.Buffer
	dir := t.TempDir()
	if err := exportCommand(t, ctx, []string{"-scenarios", testkit.Path(t, "scenarios.yaml"), dir}, noEnv, &stdout, &stderr); err != nil {
		t.Fatalf("export -scenarios scenarios.yaml: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ja", "gc-pause", "off", "7.html")); err != nil {
		t.Error(err)
	}
	missing := filepath.Join(t.TempDir(), "nope.yaml")
	env := func(k string) string {
		if k == "SCENARIOS" {
			return missing
		}
		return ""
	}
	err := exportCommand(t, ctx, []string{filepath.Join(t.TempDir(), "site")}, env, &stdout, &stderr)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("export with SCENARIOS=%s: err=%v, want the file's absence", missing, err)
	}
}

// Every scenario's last page, in both languages and positions, lists the
// primary texts its lesson rests on, each with its title and address; no
// earlier page does.
func TestExportSources(t *testing.T) {
	dir, _ := exportSite(t)
	for _, sc := range testCatalog(t).Scenarios {
		for _, lang := range []string{"ja", "en"} {
			for _, pos := range []string{"off", "on"} {
				for _, step := range []int{sc.Frames() - 1, sc.Frames()} {
					name := fmt.Sprintf("%s/%s/%s/%d.html", lang, sc.ID, pos, step)
					links := readPage(t, dir, name).Find(`[data-testid="sources"] a`)
					if step < sc.Frames() {
						if links.Length() != 0 {
							t.Errorf("%s: sources before the last frame", name)
						}
						continue
					}
					if links.Length() != len(sc.Sources) {
						t.Fatalf("%s: %d sources, want %d", name, links.Length(), len(sc.Sources))
					}
					links.Each(func(i int, a *goquery.Selection) {
						s := sc.Sources[i]
						if a.AttrOr("href", "") != s.URL || strings.TrimSpace(a.Text()) != s.Title.In(lang) {
							t.Errorf("%s: source %d is %q → %q, want %q → %q", name, i+1, a.Text(), a.AttrOr("href", ""), s.Title.In(lang), s.URL)
						}
					})
				}
			}
		}
	}
}
