package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/internal/respond"
	"github.com/distlock/fencing-demo/web/internal/saveas"
)

// save gives a free-play history as a scenario's YAML (saveas): GET
// /scenarios/<id>/yaml?<the place's address>. A page that shows it, to copy
// into scenarios.yaml; with download=1, the file alone. Like a frame, it is
// a pure function of the address.
func (s *Server) save(c echo.Context) error {
	sc, err := s.scenario(c)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	here, err := views.ReadPlace(sc, q, views.InURL, views.PageView, c.Request().Header.Get("Accept-Language"))
	if err != nil {
		return badAddress(err, here.URL())
	}
	out, err := saveas.YAML(here.Place)
	if err != nil {
		return err
	}
	file := saveas.ID(sc) + ".yaml"
	h := c.Response().Header()
	h.Set(echo.HeaderCacheControl, "no-cache")
	if q.Get("download") == "1" {
		h.Set(echo.HeaderContentDisposition, `attachment; filename="`+file+`"`)
		return c.Blob(http.StatusOK, "application/yaml; charset=utf-8", out)
	}
	lang := here.Lang
	page := views.Save{
		Page: views.Page{
			Lang:      lang,
			Title:     views.T(lang, "free.save.title") + " · " + sc.Title.In(lang) + " · " + views.T(lang, "site"),
			Assets:    s.assetURLs(),
			OtherLang: here.In(views.OtherLang(lang)).SaveURL(),
			Home:      views.HomeURL(lang),
			Index:     views.IndexURL(lang),
			Chrome:    true,
		},
		Sc:       sc,
		YAML:     string(out),
		File:     file,
		Download: here.SaveURL() + "&download=1",
		Back:     here.URL(),
	}
	return respond.Render(c, http.StatusOK, views.SavePage(page))
}
