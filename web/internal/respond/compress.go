package respond

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// Compress gzips an answer for a client that accepts it, once the handler has
// finished with it. Every handler here builds its whole answer before writing
// it (render, Blob), so waiting costs nothing, and it saves much under load:
// a gzip compressor carries about 800 KB of state, and Echo's Gzip middleware
// holds one for the whole of each request, so 500 students clicking at once
// needed 500 of them, made afresh after each garbage collection (which
// empties a sync.Pool). Here a compressor is busy only while it compresses,
// a handful serve any number of requests, and they wait in a small free list
// that the collector leaves alone. No more than two per CPU exist at once:
// compressing is pure CPU work, so a request that finds them all busy waits
// its turn (microseconds) rather than costing another 800 KB.
//
// An answer already encoded (the static files, compressed once at start-up)
// passes as it is, and so does one that flushes (a stream), from its first
// flush on. skip leaves a route out altogether.
func Compress(skip middleware.Skipper) echo.MiddlewareFunc {
	n := 2 * runtime.GOMAXPROCS(0)
	pool := &gzipPool{free: make(chan *gzip.Writer, n), slots: make(chan struct{}, n)}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if skip != nil && skip(c) {
				return next(c)
			}
			res := c.Response()
			res.Header().Add(echo.HeaderVary, echo.HeaderAcceptEncoding)
			if !AcceptsGzip(c.Request()) {
				return next(c)
			}
			w := &gzipAnswer{ResponseWriter: res.Writer, buf: getBuffer()}
			res.Writer = w
			err := next(c)
			res.Writer = w.ResponseWriter
			if werr := w.finish(pool); err == nil {
				err = werr
			}
			putBuffer(w.buf)
			return err
		}
	}
}

// The level: gzip's fastest is about 3.5 times faster than its default on a
// step's answer, for about a tenth more bytes (3.5 KB instead of 3.2 KB).
const (
	compressLevel = gzip.BestSpeed
	MinCompress   = 512 // below this gzip's header and the CPU cost more than they save
)

// AcceptsGzip reports whether the request's Accept-Encoding takes gzip.
func AcceptsGzip(r *http.Request) bool {
	gz, any := -1.0, -1.0
	for _, enc := range strings.Split(r.Header.Get(echo.HeaderAcceptEncoding), ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(enc), ";")
		switch name = strings.TrimSpace(name); {
		case strings.EqualFold(name, "gzip"):
			gz = qValue(params)
		case name == "*":
			any = qValue(params)
		}
	}
	if gz >= 0 {
		return gz > 0 // gzip;q=0, q=0.0, q=0.000: "not gzip"
	}
	return any > 0
}

// qValue is the weight in an Accept-Encoding entry's parameters: 1 when none
// is given, 0 when it does not parse.
func qValue(params string) float64 {
	for p := range strings.SplitSeq(params, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		if strings.EqualFold(strings.TrimSpace(k), "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || q < 0 {
				return 0
			}
			return q
		}
	}
	return 1
}

// gzipAnswer collects an answer until the handler is done.
type gzipAnswer struct {
	http.ResponseWriter
	buf       *bytes.Buffer
	code      int
	streaming bool // flushed: everything goes straight through
}

func (w *gzipAnswer) WriteHeader(code int) {
	if w.streaming {
		w.ResponseWriter.WriteHeader(code)
		return
	}
	if w.code == 0 {
		w.code = code
	}
}

func (w *gzipAnswer) Write(b []byte) (int, error) {
	if w.streaming {
		return w.ResponseWriter.Write(b)
	}
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.buf.Write(b)
}

// Flush sends what was written so far, uncompressed, and everything after it
// as it comes: a stream must not wait in a buffer.
func (w *gzipAnswer) Flush() {
	if !w.streaming {
		w.streaming = true
		if w.code != 0 {
			w.ResponseWriter.WriteHeader(w.code)
		}
		_, _ = w.ResponseWriter.Write(w.buf.Bytes())
		w.buf.Reset()
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *gzipAnswer) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *gzipAnswer) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.streaming = true
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// finish sends the answer, compressed when that is worth it.
func (w *gzipAnswer) finish(pool *gzipPool) error {
	if w.streaming || w.code == 0 {
		return nil // streamed, or nothing written: the error handler answers
	}
	h := w.ResponseWriter.Header()
	body := w.buf.Bytes()
	if len(body) >= MinCompress && h.Get(echo.HeaderContentEncoding) == "" && bodyAllowed(w.code) {
		if h.Get(echo.HeaderContentType) == "" {
			h.Set(echo.HeaderContentType, http.DetectContentType(body))
		}
		out := getBuffer()
		defer putBuffer(out)
		gz := pool.get(out)
		_, err := gz.Write(body)
		if err == nil {
			err = gz.Close()
		}
		pool.put(gz)
		if err != nil {
			return err
		}
		h.Set(echo.HeaderContentEncoding, "gzip")
		body = out.Bytes()
	}
	h.Set(echo.HeaderContentLength, strconv.Itoa(len(body)))
	w.ResponseWriter.WriteHeader(w.code)
	_, err := w.ResponseWriter.Write(body)
	return err
}

func bodyAllowed(code int) bool {
	return code >= 200 && code != http.StatusNoContent && code != http.StatusNotModified
}

// gzipPool lends out at most cap(slots) compressors at a time and keeps them
// between requests; unlike a sync.Pool it survives garbage collections.
type gzipPool struct {
	slots chan struct{}     // one per compressor lent out
	free  chan *gzip.Writer // compressors made and not lent out
}

func (p *gzipPool) get(dst *bytes.Buffer) *gzip.Writer {
	p.slots <- struct{}{}
	select {
	case gz := <-p.free:
		gz.Reset(dst)
		return gz
	default:
		gz, _ := gzip.NewWriterLevel(dst, compressLevel) // fails only for a bad level
		return gz
	}
}

func (p *gzipPool) put(gz *gzip.Writer) {
	gz.Reset(nil) // let go of the answer
	select {
	case p.free <- gz:
	default: // cannot happen: no more are lent than the list holds
	}
	<-p.slots
}
