// Package export is the static export: every frame of every scenario as a
// plain HTML file, for a textbook hosted on a static site. The files are rendered by the same view
// components as the live page, in views.StaticView, where each control is a
// link to the file of the frame it leads to. Nothing needs a server or
// JavaScript, and every link is relative, so the directory can be copied
// anywhere and opened from disk.
//
//	go run . export site         # then open site/index.html
//	go run . export -force site  # write over an earlier export
//
// The layout, from the top of the export:
//
//	index.html                        the choice of language
//	<lang>/index.html                 the scenario index
//	<lang>/<scenario>/<on|off>/<k>.html  frame k (see views.StaticPath)
//	<lang>/<scenario>/<on|off>/<k>-<answer>.html  frame k with a reader's answer to its question marked
//	static/<name>.<hash>.<ext>        the style sheet and the icon
package export

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/a-h/templ"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web"
)

// langs are the languages the export is written in, one directory each.
var langs = []string{"en", "ja"}

// assetNames are the files under static/ that the exported pages use. The
// export needs no JavaScript, so htmx and app.js are left out.
var assetNames = []string{"app.css", "icon.svg"}

// Command is "fencing-demo export [-force] [-scenarios file] <dir>". It reads
// the scenarios with load (the built-in ones for "") and the site's files
// from static, the same as the server does.
func Command(ctx context.Context, args []string, getenv func(string) string, load func(path string) (*demo.Catalog, error), static fs.FS, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("fencing-demo export", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: fencing-demo export [-force] [-scenarios file] <dir>")
		fmt.Fprintln(stderr, "Writes every scenario, switch position and step as static HTML files into dir.")
		fl.PrintDefaults()
	}
	force := fl.Bool("force", false, "write into dir even when it is not empty: files of the same name are replaced, nothing is deleted")
	scenarios := fl.String("scenarios", getenv("SCENARIOS"), "read the scenarios from this file instead of the built-in scenarios.yaml (env SCENARIOS)")
	// Flags may come before or after the directory.
	if err := fl.Parse(args); err != nil {
		return err
	}
	dir, rest := "", fl.Args()
	if len(rest) > 0 {
		dir = rest[0]
		if err := fl.Parse(rest[1:]); err != nil {
			return err
		}
		rest = fl.Args()
	}
	if dir == "" || len(rest) > 0 {
		fl.Usage()
		return errors.New("export: name one directory to write the site into")
	}

	catalog, err := load(*scenarios)
	if err != nil {
		return err
	}
	a, err := web.LoadAssets(static)
	if err != nil {
		return fmt.Errorf("static files: %w", err)
	}
	files, err := renderSite(ctx, catalog, a)
	if err != nil {
		return err
	}
	n, size, err := writeSite(dir, files, *force)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d files, %d bytes (%.1f MB), to %s; open %s\n",
		n, size, float64(size)/1e6, dir, filepath.Join(dir, "index.html"))
	return nil
}

// siteFile is one file of the export.
type siteFile struct {
	path string // slash-separated, from the top of the export
	body []byte
}

// renderSite renders every file of the export into memory, so that a page
// that fails to render stops the export before anything is written.
func renderSite(ctx context.Context, catalog *demo.Catalog, a *web.Assets) ([]siteFile, error) {
	if len(catalog.Scenarios) == 0 {
		return nil, errors.New("export: there are no scenarios")
	}
	groups, err := views.IndexGroups(catalog)
	if err != nil {
		return nil, err
	}
	var files []siteFile
	add := func(path string, c templ.Component) error {
		var buf bytes.Buffer
		if err := c.Render(ctx, &buf); err != nil {
			return fmt.Errorf("export: rendering %s: %w", path, err)
		}
		files = append(files, siteFile{path: path, body: buf.Bytes()})
		return nil
	}

	// The style sheet and the icon, at their fingerprinted names.
	for _, name := range assetNames {
		u := a.URL(name)
		if u == "" {
			return nil, fmt.Errorf("export: static/%s is missing", name)
		}
		files = append(files, siteFile{path: strings.TrimPrefix(u, "/"), body: a.Body(u)})
	}

	if err := add("index.html", views.ExportRoot(staticAssets(a, ""))); err != nil {
		return nil, err
	}

	for _, lang := range langs {
		// Home is what "/" shows on the server: the first scenario's first frame.
		first := catalog.Scenarios[0]
		home := views.Place{Place: demo.Place{Sc: first, On: first.Default, Step: 1}, Lang: lang, View: views.StaticView}
		err := add(lang+"/index.html", views.IndexPage(views.Index{
			Page: views.Page{
				Lang:      lang,
				Title:     views.T(lang, "scenarios") + " · " + views.T(lang, "site"),
				Assets:    staticAssets(a, "../"),
				OtherLang: "../" + views.OtherLang(lang) + "/index.html",
				Home:      "../" + views.StaticPath(home),
				Chrome:    true,
			},
			Groups: groups,
			Static: true,
		}))
		if err != nil {
			return nil, err
		}
		frameAssets := staticAssets(a, views.StaticRoot)
		for _, sc := range catalog.Scenarios {
			for _, on := range []bool{true, false} {
				for k := 1; k <= sc.Frames(); k++ {
					here := views.Place{Place: demo.Place{Sc: sc, On: on, Step: k}, Lang: lang, View: views.StaticView}
					f, err := here.Frame()
					if err != nil {
						return nil, fmt.Errorf("export: playing %s: %w", views.StaticPath(here), err)
					}
					d := staticDemo(f, here, home, frameAssets)
					if err := add(views.StaticPath(here), views.DemoPage(d)); err != nil {
						return nil, err
					}
					if err := addGuesses(add, d); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	return files, nil
}

// addGuesses adds, for a frame a question led to, a file per answer with
// that answer marked: the question's options link there.
func addGuesses(add func(string, templ.Component) error, d views.Demo) error {
	q := d.Sc().Predicted(d.Frame.Index)
	if q == nil {
		return nil
	}
	for _, o := range q.Options {
		d.Guess = o.Value
		if err := add(views.StaticGuessPath(d.Here, o.Value), views.DemoPage(d)); err != nil {
			return err
		}
	}
	return nil
}

// staticDemo is the view model of a frame's file: what the server's demoView
// makes, with links to files instead of addresses on a server, and no run.
func staticDemo(f demo.Frame, here, home views.Place, assets views.Assets) views.Demo {
	lang := here.Lang
	return views.Demo{
		Page: views.Page{
			Lang:      lang,
			Title:     views.FrameTitle(f, lang),
			Assets:    assets,
			OtherLang: here.In(views.OtherLang(lang)).URL(),
			Home:      home.URL(),
			Index:     views.StaticRoot + lang + "/index.html",
			Chrome:    true,
		},
		Frame: f,
		Here:  here,
	}
}

// staticAssets are the addresses of the style sheet and the icon from a page
// that climbs root ("", "../" or views.StaticRoot) to the top of the export.
// HTMX and JS stay empty, so the layout leaves the scripts out.
func staticAssets(a *web.Assets, root string) views.Assets {
	rel := func(name string) string { return root + strings.TrimPrefix(a.URL(name), "/") }
	return views.Assets{CSS: rel("app.css"), Icon: rel("icon.svg")}
}

// writeSite writes the files under dir, which must be new or empty unless
// force is set. It reports how many files and bytes it wrote.
func writeSite(dir string, files []siteFile, force bool) (n int, size int64, err error) {
	switch st, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return 0, 0, err
	case !st.IsDir():
		return 0, 0, fmt.Errorf("export: %s exists and is not a directory", dir)
	default:
		entries, err := os.ReadDir(dir)
		if err != nil {
			return 0, 0, err
		}
		if len(entries) > 0 && !force {
			return 0, 0, fmt.Errorf("export: %s is not empty; choose a new or empty directory, or give -force to write over it (files of the same name are replaced, nothing is deleted)", dir)
		}
	}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return n, size, err
		}
		if err := os.WriteFile(p, f.body, 0o644); err != nil {
			return n, size, err
		}
		n++
		size += int64(len(f.body))
	}
	return n, size, nil
}
