package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/web/internal/respond"
)

// Assets serves the files under static/ at names that carry a hash of their
// content, so a browser may cache them for a year: a changed file gets a new
// name. The page asks Assets for the current name of each file; the static
// export writes the same files at the same names.
type Assets struct {
	byName map[string]string // "app.css" -> "/static/app.3f2a9c1b.css"
	files  map[string]*asset // "app.3f2a9c1b.css" -> content
}

type asset struct {
	body  []byte
	ctype string
	// gz is body gzipped once, by the first request that asks for gzip
	// rather than at start-up, where it was the largest cost of a cold
	// start; nil when that saves nothing.
	gzOnce sync.Once
	gz     []byte
}

// gzipped is the file compressed, or nil when that saves nothing.
func (f *asset) gzipped() []byte {
	f.gzOnce.Do(func() { f.gz = gzipOnce(f.body) })
	return f.gz
}

// assetType is the type of a file static/ holds, as package mime names it.
// The first call into package mime reads the system's table
// (/etc/mime.types), 1-2 ms of a cold start (issue 14), so it is asked only
// about a file of another kind.
func assetType(ext string) string {
	switch ext {
	case ".css":
		return "text/css; charset=utf-8"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	}
	return mime.TypeByExtension(ext)
}

// LoadAssets reads every file of fsys (static/).
func LoadAssets(fsys fs.FS) (*Assets, error) {
	a := &Assets{byName: map[string]string{}, files: map[string]*asset{}}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		ext := path.Ext(p)
		body = assetBody(p, body)
		sum := sha256.Sum256(body)
		hashed := strings.TrimSuffix(p, ext) + "." + hex.EncodeToString(sum[:4]) + ext
		a.byName[p] = "/static/" + hashed
		ctype := assetType(ext)
		if ctype == "" {
			ctype = http.DetectContentType(body)
		}
		a.files[hashed] = &asset{body: body, ctype: ctype}
		return nil
	})
	return a, err
}

// URL returns the fingerprinted address of a file under static/.
func (a *Assets) URL(name string) string { return a.byName[name] }

// Body is the content of the file at url (as URL returns it), or nil.
func (a *Assets) Body(url string) []byte {
	if f := a.files[strings.TrimPrefix(url, "/static/")]; f != nil {
		return f.body
	}
	return nil
}

func (a *Assets) serve(c echo.Context) error {
	f, ok := a.files[c.Param("name")]
	if !ok {
		return echo.NewHTTPError(http.StatusNotFound, "no such file")
	}
	h := c.Response().Header()
	h.Set(echo.HeaderCacheControl, "public, max-age=31536000, immutable")
	if respond.AcceptsGzip(c.Request()) {
		if gz := f.gzipped(); gz != nil {
			// Compressed once; the compress middleware passes an encoded
			// answer through as it is.
			h.Set(echo.HeaderContentEncoding, "gzip")
			return c.Blob(http.StatusOK, f.ctype, gz)
		}
	}
	return c.Blob(http.StatusOK, f.ctype, f.body)
}

// gzipOnce compresses a static file, or returns nil when the file is too
// small to gain. gzip's default level: its best saves 15 bytes of htmx's
// 17 KB and costs start-up twice the time.
func gzipOnce(body []byte) []byte {
	if len(body) < respond.MinCompress {
		return nil
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(body); err != nil || zw.Close() != nil || buf.Len() >= len(body)*9/10 {
		return nil
	}
	return buf.Bytes()
}

// assetBody is a file of static/ as the browser gets it: our own stylesheet
// and scripts without their comments (a vendored, minified file as it is).
func assetBody(name string, body []byte) []byte {
	switch {
	case strings.HasSuffix(name, ".min.js"):
		return body
	case strings.HasSuffix(name, ".css"):
		return stripCSSComments(body)
	case strings.HasSuffix(name, ".js"):
		return stripJSLineComments(body)
	}
	return body
}

// stripJSLineComments drops the lines of a script that are only a comment.
// A line that starts with // outside a template literal is always a comment
// (our scripts have no template literals); the why it gives is for the reader of
// static/, a third of a script's bytes; a comment after code stays.
func stripJSLineComments(js []byte) []byte {
	out := make([]byte, 0, len(js))
	for line := range bytes.Lines(js) {
		if !bytes.HasPrefix(bytes.TrimLeft(line, " \t"), []byte("//")) {
			out = append(out, line...)
		}
	}
	return out
}

// stripCSSComments drops the stylesheet's comments, which say why a rule is
// there for the reader of static/ and are a quarter of the first load's
// stylesheet once gzipped. A comment's opener inside a quoted string is text
// and stays.
func stripCSSComments(css []byte) []byte {
	out := make([]byte, 0, len(css))
	for i := 0; i < len(css); i++ {
		switch c := css[i]; {
		case c == '"' || c == '\'':
			end := i + 1
			for end < len(css) && css[end] != c && css[end] != '\n' {
				if css[end] == '\\' {
					end++
				}
				end++
			}
			end = min(end+1, len(css))
			out = append(out, css[i:end]...)
			i = end - 1
		case c == '/' && i+1 < len(css) && css[i+1] == '*':
			end := bytes.Index(css[i+2:], []byte("*/"))
			if end < 0 {
				return append(out, css[i:]...) // unclosed: leave it to the browser
			}
			i += 2 + end + 1
		default:
			out = append(out, c)
		}
	}
	return out
}
