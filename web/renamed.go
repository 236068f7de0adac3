package web

import (
	"maps"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/demo"
)

// renamed answers an address that names a switch by a former name (the
// scenario's switch-aliases in scenarios.yaml) with a permanent redirect to
// the same frame under the name it has now, so that a link printed in a
// handout or a textbook before the rename still opens the same frame; it
// reports whether it did.
func renamed(c echo.Context, sc *demo.Scenario, q url.Values) (bool, error) {
	for _, old := range sc.SwitchAliases {
		if !q.Has(old) {
			continue
		}
		q = maps.Clone(q) // the request's own values stay as they came
		if !q.Has(sc.Switch) {
			q.Set(sc.Switch, q.Get(old))
		}
		q.Del(old)
		return true, c.Redirect(http.StatusMovedPermanently, c.Request().URL.Path+"?"+q.Encode())
	}
	return false, nil
}
