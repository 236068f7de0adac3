package main

import (
	"bytes"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
)

// render writes a component with status. It renders into a buffer first, so a
// component that fails sends nothing rather than half a page.
func render(c echo.Context, status int, comp templ.Component) error {
	var buf bytes.Buffer
	if err := comp.Render(c.Request().Context(), &buf); err != nil {
		return err
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// isHTMX reports whether htmx sent the request, so a fragment will do.
func isHTMX(c echo.Context) bool {
	return c.Request().Header.Get("HX-Request") == "true" &&
		c.Request().Header.Get("HX-History-Restore-Request") != "true"
}
