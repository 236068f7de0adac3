package respond

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
)

// Answers keeps a frame's page and a click's fragment drawn and compressed.
// Everything on them is a pure function of the place (the scenario, the
// switch, the step, the language, the view), which the caller's key K
// names, apart from the visitor's run id and follow id. So each answer is
// drawn once per key with a mark where each id goes, and compressed once,
// with each id left out as a gap of stored bytes: a visitor's answer is the
// cached pieces with their own ids written into the gaps, byte for byte what
// drawing it afresh would give, without rendering or compressing anything.
//
// The gaps: the gzip stream is a run of deflate pieces, one per stretch of
// the page between ids, each ended with a sync flush so that it ends on a
// byte; between two pieces goes a stored block that holds an id as it is.
// Each piece is compressed with everything before it as its dictionary, so
// the answer is nearly as small as one compressed whole; the ids' places in
// that dictionary are blanked with zero bytes, which the page never holds,
// so no piece ever refers back into an id, which differs between visitors.
type Answers[K comparable] struct {
	cache *lru.Cache[answerKey[K], *answer]
}

// NewAnswers keeps at most size answers, the least recently used going
// first. A step's fragment is about 15 KB with its compressed copy, a page
// about 20 KB, and a lecture of one scenario needs a few dozen.
func NewAnswers[K comparable](size int) *Answers[K] {
	c, err := lru.New[answerKey[K], *answer](size)
	if err != nil {
		panic(err) // a size below 1: a mistake in the program
	}
	return &Answers[K]{cache: c}
}

// IDLen is the length of every id an answer carries: the run ids and follow
// ids this server makes.
const IDLen = 32

// IDs are what is the visitor's own on an answer: their run id and their
// lecture's follow id, "" for none.
type IDs struct{ Run, Follow string }

// Draw draws the answer for ids.
type Draw func(ids IDs) (templ.Component, error)

// answerKey names one cached answer: the caller's key, and which ids it
// carries.
type answerKey[K comparable] struct {
	key         K
	run, follow bool
}

// The marks drawn where the ids go: as long as an id, and unlike anything
// else on a page.
var (
	runMark    = strings.Repeat("RUNX", IDLen/4)
	followMark = strings.Repeat("FIDX", IDLen/4)
)

// Marks are the marks as ids: an answer written with them is the answer as
// kept, which a page's script fills with its own ids (a prefetched frame,
// web/frame.go), so one public copy serves every visitor.
var Marks = IDs{Run: runMark, Follow: followMark}

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
var storedHeader = []byte{0, IDLen, 0, ^byte(IDLen), 0xff}

// Write sends the answer at key with the visitor's ids, drawn by draw the
// first time it is asked for.
func (as *Answers[K]) Write(c echo.Context, key K, ids IDs, draw Draw) error {
	if ids.Run != "" && len(ids.Run) != IDLen || ids.Follow != "" && len(ids.Follow) != IDLen {
		// Not an id the gaps fit (cannot happen for an id the server made):
		// draw it as it is.
		comp, err := draw(ids)
		if err != nil {
			return err
		}
		return Render(c, http.StatusOK, comp)
	}
	k := answerKey[K]{key: key, run: ids.Run != "", follow: ids.Follow != ""}
	a, ok := as.cache.Get(k)
	if !ok {
		var marks IDs
		if k.run {
			marks.Run = runMark
		}
		if k.follow {
			marks.Follow = followMark
		}
		comp, err := draw(marks)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		if err := comp.Render(context.Background(), &buf); err != nil {
			return err
		}
		if a, err = newAnswer(buf.Bytes()); err != nil {
			return err
		}
		as.cache.Add(k, a)
	}
	return a.write(c, ids)
}

// Kept is every answer kept, as drawn and as compressed: for a test that
// makes sure no visitor's id is ever among them.
func (as *Answers[K]) Kept() [][]byte {
	var kept [][]byte
	for _, k := range as.cache.Keys() {
		if a, ok := as.cache.Peek(k); ok {
			kept = append(kept, a.plain, bytes.Join(a.gz, nil))
		}
	}
	return kept
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
			i += r + IDLen
		default:
			a.gaps = append(a.gaps, gap{at: i + f, follow: true})
			i += f + IDLen
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
			dict = append(dict, make([]byte, IDLen)...)
			start = end + IDLen
		}
	}
	return a, nil
}

// write sends the answer with the visitor's ids in its gaps, compressed when
// the client accepts gzip.
func (a *answer) write(c echo.Context, ids IDs) error {
	buf := getBuffer()
	defer putBuffer(buf)
	id := func(g gap) string {
		if g.follow {
			return ids.Follow
		}
		return ids.Run
	}
	if a.gz == nil || !AcceptsGzip(c.Request()) {
		last := 0
		for _, g := range a.gaps {
			buf.Write(a.plain[last:g.at])
			buf.WriteString(id(g))
			last = g.at + IDLen
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
		last = g.at + IDLen
	}
	buf.Write(a.gz[len(a.gaps)])
	crc = crc32.Update(crc, crc32.IEEETable, a.plain[last:])
	b := binary.LittleEndian.AppendUint32(buf.AvailableBuffer(), crc)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(a.plain)))
	buf.Write(b)
	c.Response().Header().Set(echo.HeaderContentEncoding, "gzip")
	return c.Blob(http.StatusOK, echo.MIMETextHTMLCharsetUTF8, buf.Bytes())
}
