// Package respond writes the server's answers, and is where their speed is
// kept apart from the handlers: a frame's answer drawn and compressed once
// per place and sent with the visitor's ids spliced in (Answers), the gzip
// middleware with its bounded pool of compressors (Compress), and the pooled
// buffers every answer is drawn into (Render). A handler says what to send;
// how it is made fast is here, and views know nothing of it.
package respond

import (
	"bytes"
	"context"
	"sync"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
)

// Render writes a component with status. It draws into a buffer first, so a
// component that fails sends nothing rather than half a page. It draws with
// the request's values but never its cancellation: a client that
// half-closed or left is not an error of the page's (writing it then fails
// quietly). The buffer is reused by later requests: a page would otherwise
// grow a new one from nothing, copying itself half a dozen times on the way.
func Render(c echo.Context, status int, comp templ.Component) error {
	return RenderIn(context.WithoutCancel(c.Request().Context()), c, status, comp)
}

// RenderIn is Render with the context the component is drawn in; it sends
// nothing when drawing fails, so the caller can still answer otherwise.
func RenderIn(ctx context.Context, c echo.Context, status int, comp templ.Component) error {
	buf := getBuffer()
	defer putBuffer(buf)
	if err := comp.Render(ctx, buf); err != nil {
		return &DrawError{Err: err}
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// DrawError is a component that failed to draw: nothing was sent.
type DrawError struct{ Err error }

func (e *DrawError) Error() string { return "drawing the answer: " + e.Err.Error() }
func (e *DrawError) Unwrap() error { return e.Err }

// Buffers for answers. One larger than maxPooled (a rare, very large page) is
// left to the collector rather than kept.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooled = 256 << 10

func getBuffer() *bytes.Buffer {
	b := buffers.Get().(*bytes.Buffer)
	b.Reset()
	return b
}

func putBuffer(b *bytes.Buffer) {
	if b.Cap() <= maxPooled {
		buffers.Put(b)
	}
}
