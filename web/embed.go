package web

import (
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/views"
)

// The embed address: /embed/<id> shows the same frame as /scenarios/<id>,
// through the same handlers (scenario.go, act.go), but without the site's
// header, for an iframe in a textbook. Its controls post to /embed/ too, so
// a click inside the iframe stays inside it.

// viewOf is how the request's frame is shown: embedded when it came through
// the embed address.
func viewOf(c echo.Context) views.View {
	if strings.HasPrefix(c.Path(), "/embed/") {
		return views.EmbedView
	}
	return views.PageView
}
