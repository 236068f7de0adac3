package web

import (
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/internal/respond"
)

// The guide's two pages: the decision tree (is a distributed lock needed,
// and which one) and the chapter's closing quiz. Their words are data in
// guide.yaml, read and checked once at start-up; the handlers only pick the
// language and fill in the page.

func (s *Server) guideTree(c echo.Context) error {
	if c.QueryParams().Has(views.WalkParam) {
		return s.guideWalk(c, c.QueryParam(views.WalkParam))
	}
	return s.showGuide(c, views.GuideTreeURL, "guide.tree.title", views.GuideTreePage)
}

// guideWalk is the decision tree at one point, reached by the answers on the
// way down from its root. A point the tree lacks is a 404 whose way on is
// the whole tree.
func (s *Server) guideWalk(c echo.Context, id string) error {
	lang, err := readLang(c, func(lang string) string { return views.GuideWalkURL(lang, id) })
	if err != nil {
		return err
	}
	path, ok := views.TreePath(s.guide.Tree, id)
	if !ok {
		return &problem{status: http.StatusNotFound, key: "err.tree.node", args: []any{id}, cont: views.GuideTreeURL(lang)}
	}
	page := s.guidePage(lang, "guide.tree.title", func(lang string) string { return views.GuideWalkURL(lang, id) })
	page.Walk = path
	return respond.Render(c, http.StatusOK, views.GuideWalkPage(page))
}

func (s *Server) guideQuiz(c echo.Context) error {
	return s.showGuide(c, views.GuideQuizURL, "guide.quiz.title", views.GuideQuizPage)
}

// showGuide renders a guide page in the language the request asks for. A bad
// lang gets the usual 400 page, whose way on is this page in the browser's
// language.
func (s *Server) showGuide(c echo.Context, at func(lang string) string, title string, page func(views.Guide) templ.Component) error {
	lang, err := readLang(c, at)
	if err != nil {
		return err
	}
	return respond.Render(c, http.StatusOK, page(s.guidePage(lang, title, at)))
}

// guidePage is the view model of a guide page in lang, at(lang) its address.
func (s *Server) guidePage(lang, title string, at func(lang string) string) views.Guide {
	return views.Guide{
		Page: views.Page{
			Lang:      lang,
			Title:     views.T(lang, title) + " · " + views.T(lang, "site"),
			Assets:    s.assetURLs(),
			Canonical: at(lang),
			Origin:    s.cfg.PublicURL,
			OtherLang: at(views.OtherLang(lang)),
			Home:      views.HomeURL(lang),
			Index:     views.IndexURL(lang),
			Chrome:    true,
		},
		Text:    s.guide,
		Catalog: s.catalog,
	}
}
