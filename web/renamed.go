package web

import (
	"maps"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/demo"
)

// renamedSwitches maps, per scenario, a switch's old name in the address to
// its name now, so that a link printed in a handout or a textbook before the
// rename still opens the same frame. redlock-clock-jump's switch was a
// monotonic clock for Redis's TTLs, a remedy real Redis does not have; it is
// now the one an operator has: forbid clock steps and only slew.
var renamedSwitches = map[string]map[string]string{
	"redlock-clock-jump": {"monotonic-clock": "slew-only"},
}

// renamed answers an address that names a switch by its old name with a
// permanent redirect to the same frame under the new name; it reports
// whether it did.
func renamed(c echo.Context, sc *demo.Scenario, q url.Values) (bool, error) {
	for old, now := range renamedSwitches[sc.ID] {
		if !q.Has(old) {
			continue
		}
		q = maps.Clone(q) // the request's own values stay as they came
		if !q.Has(now) {
			q.Set(now, q.Get(old))
		}
		q.Del(old)
		return true, c.Redirect(http.StatusMovedPermanently, c.Request().URL.Path+"?"+q.Encode())
	}
	return false, nil
}
