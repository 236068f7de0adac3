package web

import (
	"net/http"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/internal/respond"
)

// save gives a place, scripted or free play, as a scenario's YAML
// (script.SaveYAML): GET /scenarios/<id>/yaml?<the place's address>. A page
// that shows it, to copy into scenarios.yaml; with download=1, the file
// alone. Like a frame, it is a pure function of the address, and kept by
// place.
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
	out, err := s.saves.yaml(here.Place)
	if err != nil {
		return err
	}
	file := script.SavedID(sc) + ".yaml"
	if here.Sc.Built != "" {
		file = script.SavedBuildID(sc) + ".yaml"
	}
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
		Built:    here.Sc.Built != "",
		YAML:     string(out),
		File:     file,
		Download: here.SaveURL() + "&download=1",
		Back:     here.URL(),
	}
	return respond.Render(c, http.StatusOK, views.SavePage(page))
}

// savesKept is how many saved scenarios are kept: one is two plays of at
// most demo.MaxPlay actions, and at most some 200 KB of YAML.
const savesKept = 64

// saves are the answers of "Save as a scenario", kept by place: the same
// address asked again (a page and its download, a class saving the
// lecturer's frame) costs no play.
type saves struct {
	kept *lru.Cache[demo.Place, []byte]
}

func newSaves() *saves {
	c, _ := lru.New[demo.Place, []byte](savesKept) // a size above 0 never fails
	return &saves{kept: c}
}

// yaml is p saved as a scenarios file. A place of a learner's build saves
// the build whole, its programs and the world's moves, wherever in its
// frames the learner stood: what they made is the build, which the check
// command judges (script.SaveBuiltYAML).
func (s *saves) yaml(p demo.Place) ([]byte, error) {
	if p.Sc.Built != "" {
		p = demo.Place{Sc: p.Sc}
	}
	if out, ok := s.kept.Get(p); ok {
		return out, nil
	}
	save := script.SaveYAML
	if p.Sc.Built != "" {
		save = func(p demo.Place) ([]byte, error) { return script.SaveBuiltYAML(p.Sc) }
	}
	out, err := save(p)
	if err != nil {
		return nil, err
	}
	s.kept.Add(p, out)
	return out, nil
}
