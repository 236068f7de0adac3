package web

import (
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/internal/respond"
)

// The labs, where a learner builds a fix and the judge proves it or plays
// the shortest way to break it:
//
//	GET  /labs                     every lab
//	GET  /scenarios/:id/lab        a lab, with the build its address names (build=)
//	POST /scenarios/:id/lab        the lab's form: without JavaScript, a 303 to
//	                               the lab, the judge or the frames with the build
//	                               in the address; with htmx, the build's status
//	                               and the address to show (HX-Replace-Url)
//	GET  /scenarios/:id/lab/judge  the judge's answer (judge.go)
//
// The build lives in the address, so the lab's answers depend on the request
// alone: a reload, another replica and a shared link all show the same
// build. A built scenario's frames are a place like any other's
// (/scenarios/:id?build=...), read by views.ReadPlace.

// labs lists every lab.
func (s *Server) labs(c echo.Context) error {
	lang, err := readLang(c, views.LabsURL)
	if err != nil {
		return err
	}
	x := views.Labs{Page: s.labPageOf(lang, views.T(lang, "labs"), views.LabsURL(views.OtherLang(lang)), false)}
	for _, sc := range s.catalog.Scenarios {
		if sc.Lab != nil {
			x.Entries = append(x.Entries, sc)
		}
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-cache")
	return respond.Render(c, http.StatusOK, views.LabsPage(x))
}

// labPage shows lab :id with the build its address names, or the starter.
// A build that does not apply is shown all the same, with what is wrong
// beside the part it is in, and answered 400: nothing the learner wrote is
// lost.
func (s *Server) labPage(c echo.Context) error {
	sc, err := s.labScenario(c)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	lang, err := readLang(c, func(lang string) string { return views.LabURL(sc.ID, "", lang, false) })
	if err != nil {
		return err
	}
	b := sc.Lab.Starter
	if q.Has(views.BuildParam) {
		if b, err = readBuildCode(sc, q.Get(views.BuildParam), lang); err != nil {
			return err
		}
	}
	l := s.labView(sc, b, lang, q.Get(views.PresentParam) == "1")
	c.Response().Header().Set(echo.HeaderCacheControl, "no-cache")
	return respond.Render(c, labStatus(l), views.LabPage(l))
}

// labPost reads the lab's form. Without JavaScript it answers with a 303 to
// where the button pressed leads, the build in the address: the lab (to
// check it), the judge's answer, or the built scenario's frames. With htmx
// (an edit), the build's status, and the lab's address with the build for
// the address bar.
func (s *Server) labPost(c echo.Context) error {
	sc, b, lang, present, err := s.readLabForm(c)
	if err != nil {
		return err
	}
	l := s.labView(sc, b, lang, present)
	if len(l.Text) > demo.MaxBuild {
		// Too long for an address: the page itself, with the form as it
		// was sent and what is wrong.
		return respond.Render(c, http.StatusBadRequest, views.LabPage(l))
	}
	c.Response().Header().Add(echo.HeaderVary, "HX-Request")
	if isHTMX(c) {
		c.Response().Header().Set("HX-Replace-Url", l.URL())
		return respond.Render(c, labStatus(l), views.LabStatus(l))
	}
	to := l.URL()
	switch c.Request().Form.Get(views.DoField) {
	case views.DoJudge:
		to = l.JudgeURL()
	case views.DoPlay:
		if l.Built != nil {
			to = l.Here().URL()
		}
	}
	return c.Redirect(http.StatusSeeOther, to)
}

// readLabForm reads a lab's form: the lab, the build, the language and
// presenter mode.
func (s *Server) readLabForm(c echo.Context) (sc *demo.Scenario, b demo.Build, lang string, present bool, err error) {
	if sc, err = s.labScenario(c); err != nil {
		return nil, b, "", false, err
	}
	form, err := readForm(c)
	if err != nil {
		return nil, b, "", false, err
	}
	lang, err = views.ReadLang(form.Get(views.LangParam), c.Request().Header.Get("Accept-Language"))
	if err != nil {
		return nil, b, "", false, badAddress(err, views.LabURL(sc.ID, "", lang, false))
	}
	return sc, views.ReadBuildForm(form), lang, form.Get(views.PresentParam) == "1", nil
}

// labScenario is the scenario :id names, which must have a lab.
func (s *Server) labScenario(c echo.Context) (*demo.Scenario, error) {
	sc, err := s.scenario(c)
	if err != nil {
		return nil, err
	}
	if sc.Lab == nil {
		return nil, &problem{status: http.StatusNotFound, key: "err.build.nolab", args: []any{sc.ID}, cont: views.LabsURL(views.AcceptLang(c.Request().Header.Get("Accept-Language")))}
	}
	return sc, nil
}

// readBuildCode reads a build from an address's code: one that is no code
// of ours, or whose text is not a build, is a 400 whose way back is the
// lab's starter.
func readBuildCode(sc *demo.Scenario, code, lang string) (demo.Build, error) {
	text, err := views.DecodeBuild(code)
	if err != nil {
		return demo.Build{}, bad("err.build.code", views.LabURL(sc.ID, "", lang, false), demo.MaxBuild)
	}
	b, err := demo.ParseBuild(text)
	if err != nil {
		return b, bad("err.build", views.LabURL(sc.ID, "", lang, false), views.BuildWords(err))
	}
	return b, nil
}

// labView is the view model of lab sc's page with build b.
func (s *Server) labView(sc *demo.Scenario, b demo.Build, lang string, present bool) views.Lab {
	l := views.NewLab(views.Page{}, sc, b)
	title := views.T(lang, "lab.title") + " · " + sc.Title.In(lang)
	l.Page = s.labPageOf(lang, title, views.LabURL(sc.ID, l.Text, views.OtherLang(lang), present), present)
	l.Page.Assets.JS = s.assets.URL("lab.js")
	return l
}

// labPageOf is what a lab's pages share: the site's header, htmx, no
// prefetch (there is no next frame to fetch).
func (s *Server) labPageOf(lang, title, otherLang string, present bool) views.Page {
	a := s.assetURLs()
	a.JS, a.Prefetch = "", ""
	return views.Page{
		Lang:      lang,
		Title:     title + " · " + views.T(lang, "site"),
		Assets:    a,
		OtherLang: otherLang,
		Home:      views.HomeURL(lang),
		Index:     views.IndexURL(lang),
		Chrome:    true,
		Present:   present,
	}
}

// labStatus is a lab answer's status: 400 for a build that does not apply.
func labStatus(l views.Lab) int {
	if l.Built == nil {
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// lookupScenario finds a scenario by the key a lecture's move is kept
// under in the replicas' Redis (follow.Redis): its id, or, for a built
// scenario, its id, "+" and its build's text in base64url.
func (s *Server) lookupScenario(key string) (*demo.Scenario, bool) {
	id, code, built := strings.Cut(key, "+")
	sc, ok := s.catalog.Get(id)
	if !ok || !built {
		return sc, ok
	}
	text, err := base64.RawURLEncoding.DecodeString(code)
	if err != nil {
		return nil, false
	}
	b, err := views.Built(sc, string(text))
	return b, err == nil
}
