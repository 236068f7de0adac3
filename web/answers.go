package web

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"hash/crc32"
	"net/http"
	"strings"

	"github.com/a-h/templ"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
)

// answers keeps a frame's page and a click's fragment drawn and compressed.
// Everything on them is a pure function of the place (the scenario, the
// switch, the step, the language, the view) apart from the visitor's run id
// and follow id. So each answer is drawn once per place with a mark where
// each id goes, and compressed once, with each id left out as a gap of
// stored bytes: a visitor's answer is the cached pieces with their own ids
// written into the gaps, byte for byte what drawing it afresh would give,
// without rendering or compressing anything.
//
// The gaps: the gzip stream is a run of deflate pieces, one per stretch of
// the page between ids, each ended with a sync flush so that it ends on a
// byte; between two pieces goes a stored block that holds an id as it is.
// Each piece is compressed with everything before it as its dictionary, so
// the answer is nearly as small as one compressed whole; the ids' places in
// that dictionary are blanked with zero bytes, which the page never holds,
// so no piece ever refers back into an id, which differs between visitors.
type answers struct {
	cache *lru.Cache[answerKey, *answer]
}

// maxAnswers bounds the answers kept: a step's fragment is about 15 KB with
// its compressed copy, a page about 20 KB, so at most about 20 MB, and a
// lecture of one scenario needs a few dozen.
const maxAnswers = 1024

func newAnswers() *answers {
	c, _ := lru.New[answerKey, *answer](maxAnswers) // fails only for a size below 1
	return &answers{cache: c}
}

// answerKey names one answer: the place, whole page or a click's fragment,
// and whether it carries a run id and a follow link.
type answerKey struct {
	here   views.Place
	page   bool
	run    bool
	follow bool
}

// The marks drawn where the ids go: as long as an id (32 characters), and
// unlike anything else on a page.
var (
	runMark    = strings.Repeat("RUNX", views.RunIDLen/4)
	followMark = strings.Repeat("FIDX", views.RunIDLen/4)
)

// answer is one cached answer.
type answer struct {
	plain []byte   // the HTML with marks
	gaps  []gap    // where the ids go, in order
	gz    [][]byte // the deflate pieces around the gaps, len(gaps)+1; nil: compress as usual
}

type gap struct {
	at     int  // offset in plain
	follow bool // the follow id; else the run id
}

// gzipHeader is a gzip member's header: deflate, no name, no time.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}

// storedHeader opens a stored (uncompressed) deflate block of one id: not
// the last block, then its length and the length's complement.
var storedHeader = []byte{0, views.RunIDLen, 0, ^byte(views.RunIDLen), 0xff}

// serve answers with the frame at key's place for run and follow link, drawn
// by draw (which is handed the frame) the first time.
func (as *answers) serve(c echo.Context, key answerKey, run, followLink string, draw func(views.Demo) templ.Component, view func(f demo.Frame, run, follow string) views.Demo) error {
	fid := strings.TrimPrefix(followLink, "/follow/")
	if key.run && len(run) != views.RunIDLen || key.follow && (len(fid) != views.RunIDLen || len(followLink) != len("/follow/")+views.RunIDLen) {
		// Not an id the gaps fit (cannot happen for an id we accept): draw it.
		f, err := frameAt(key.here)
		if err != nil {
			return err
		}
		return render(c, http.StatusOK, draw(view(f, run, followLink)))
	}
	a, ok := as.cache.Get(key)
	if !ok {
		f, err := frameAt(key.here)
		if err != nil {
			return err
		}
		rm, fm := "", ""
		if key.run {
			rm = runMark
		}
		if key.follow {
			fm = "/follow/" + followMark
		}
		var buf bytes.Buffer
		if err := draw(view(f, rm, fm)).Render(context.Background(), &buf); err != nil {
			return err
		}
		if a, err = newAnswer(buf.Bytes()); err != nil {
			return err
		}
		as.cache.Add(key, a)
	}
	return a.write(c, run, fid)
}

// frameAt plays the frame at a place.
func frameAt(p views.Place) (demo.Frame, error) {
	r, err := demo.Replay(p.Sc, p.On, p.Step)
	if err != nil {
		return demo.Frame{}, err
	}
	return r.Frame(), nil
}

// newAnswer finds the marks in plain and compresses the stretches between.
func newAnswer(plain []byte) (*answer, error) {
	a := &answer{plain: plain}
	for i := 0; i < len(plain); {
		r := bytes.Index(plain[i:], []byte(runMark))
		f := bytes.Index(plain[i:], []byte(followMark))
		switch {
		case r < 0 && f < 0:
			i = len(plain)
			continue
		case f < 0 || r >= 0 && r < f:
			a.gaps = append(a.gaps, gap{at: i + r})
			i += r + views.RunIDLen
		default:
			a.gaps = append(a.gaps, gap{at: i + f, follow: true})
			i += f + views.RunIDLen
		}
	}
	if bytes.IndexByte(plain, 0) >= 0 {
		return a, nil // a zero byte would break the blanks: compress each answer as usual
	}
	dict := make([]byte, 0, len(plain))
	var out bytes.Buffer
	start := 0
	for i := 0; i <= len(a.gaps); i++ {
		end := len(plain)
		if i < len(a.gaps) {
			end = a.gaps[i].at
		}
		out.Reset()
		zw, err := flate.NewWriterDict(&out, flate.BestCompression, dict)
		if err != nil {
			return nil, err
		}
		if _, err := zw.Write(plain[start:end]); err != nil {
			return nil, err
		}
		if i < len(a.gaps) {
			err = zw.Flush()
		} else {
			err = zw.Close()
		}
		if err != nil {
			return nil, err
		}
		a.gz = append(a.gz, bytes.Clone(out.Bytes()))
		dict = append(dict, plain[start:end]...)
		if i < len(a.gaps) {
			dict = append(dict, make([]byte, views.RunIDLen)...)
			start = end + views.RunIDLen
		}
	}
	return a, nil
}

// write sends the answer with the visitor's ids in its gaps, compressed when
// the client accepts gzip.
func (a *answer) write(c echo.Context, run, fid string) error {
	buf := getBuffer()
	defer putBuffer(buf)
	id := func(g gap) string {
		if g.follow {
			return fid
		}
		return run
	}
	if a.gz == nil || !acceptsGzip(c.Request()) {
		last := 0
		for _, g := range a.gaps {
			buf.Write(a.plain[last:g.at])
			buf.WriteString(id(g))
			last = g.at + views.RunIDLen
		}
		buf.Write(a.plain[last:])
		return c.HTMLBlob(http.StatusOK, buf.Bytes())
	}
	buf.Write(gzipHeader)
	crc, last := uint32(0), 0
	for i, g := range a.gaps {
		buf.Write(a.gz[i])
		buf.Write(storedHeader)
		buf.WriteString(id(g))
		crc = crc32.Update(crc, crc32.IEEETable, a.plain[last:g.at])
		crc = crc32.Update(crc, crc32.IEEETable, []byte(id(g)))
		last = g.at + views.RunIDLen
	}
	buf.Write(a.gz[len(a.gaps)])
	crc = crc32.Update(crc, crc32.IEEETable, a.plain[last:])
	b := binary.LittleEndian.AppendUint32(buf.AvailableBuffer(), crc)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(a.plain)))
	buf.Write(b)
	c.Response().Header().Set(echo.HeaderContentEncoding, "gzip")
	return c.Blob(http.StatusOK, echo.MIMETextHTMLCharsetUTF8, buf.Bytes())
}
