package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/internal/respond"
)

// home is the front page: the first scenario's first frame.
func (s *Server) home(c echo.Context) error {
	sc := s.catalog.Scenarios[0]
	lang, err := readLang(c, views.HomeURL)
	if err != nil {
		return err
	}
	return s.showFrame(c, views.Place{Place: demo.Place{Sc: sc, On: sc.Default, Step: 1}, Lang: lang}, "", "")
}

// index lists every scenario with what it teaches and how it ends.
func (s *Server) index(c echo.Context) error {
	lang, err := readLang(c, views.HomeURL)
	if err != nil {
		return err
	}
	groups, err := s.groups()
	if err != nil {
		return err
	}
	return respond.Render(c, http.StatusOK, views.IndexPage(views.Index{
		Page: views.Page{
			Lang:      lang,
			Title:     views.T(lang, "scenarios") + " · " + views.T(lang, "site"),
			Assets:    s.assetURLs(),
			Canonical: views.IndexURL(lang),
			Origin:    s.cfg.PublicURL,
			OtherLang: views.IndexURL(views.OtherLang(lang)),
			Home:      views.HomeURL(lang),
			Chrome:    true,
		},
		Groups: groups,
	}))
}
