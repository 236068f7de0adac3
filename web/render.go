package web

import (
	"context"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
)

// render writes a component with status. It renders into a buffer first, so a
// component that fails sends nothing rather than half a page. It draws with
// the request's values but never its cancellation: a client that half-closed
// or left is not an error of the page's (writing it then fails quietly). The buffer is
// reused by later requests (compress.go): a page would otherwise grow a new
// one from nothing, copying itself half a dozen times on the way.
func render(c echo.Context, status int, comp templ.Component) error {
	buf := getBuffer()
	defer putBuffer(buf)
	if err := comp.Render(context.WithoutCancel(c.Request().Context()), buf); err != nil {
		return err
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// isHTMX reports whether htmx sent the request, so a fragment will do.
func isHTMX(c echo.Context) bool {
	return c.Request().Header.Get("HX-Request") == "true" &&
		c.Request().Header.Get("HX-History-Restore-Request") != "true"
}
