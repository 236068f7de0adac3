package main

import (
	"errors"
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/views"
)

// The guide's two pages: the decision tree (is a distributed lock needed,
// and which one) and the chapter's closing quiz. Their words are data in
// views/guide.go; the handlers only pick the language and fill in the page.

func (s *server) guideTree(c echo.Context) error {
	return s.showGuide(c, views.GuideTreeURL, "guide.tree.title", views.GuideTreePage)
}

func (s *server) guideQuiz(c echo.Context) error {
	return s.showGuide(c, views.GuideQuizURL, "guide.quiz.title", views.GuideQuizPage)
}

// showGuide renders a guide page in the language the request asks for. A bad
// lang gets the usual 400 page, whose way on is this page in the browser's
// language.
func (s *server) showGuide(c echo.Context, at func(lang string) string, title string, page func(views.Guide) templ.Component) error {
	lang, err := s.lang(c, c.QueryParam("lang"))
	if err != nil {
		var p *problem
		if errors.As(err, &p) {
			p.cont = at(lang)
		}
		return err
	}
	if missing := views.MissingDemos(s.catalog); len(missing) > 0 {
		// Only a -scenarios file without these can get here; the page leaves
		// the links out rather than fail.
		s.log.Warn("the guide links to scenarios the catalog lacks", "ids", missing)
	}
	return render(c, http.StatusOK, page(views.Guide{
		Page: views.Page{
			Lang:      lang,
			Title:     views.T(lang, title) + " · " + views.T(lang, "site"),
			Assets:    s.assetURLs(),
			Canonical: at(lang),
			OtherLang: at(otherLang(lang)),
			Home:      "/?lang=" + lang,
			Index:     "/scenarios?lang=" + lang,
			Chrome:    true,
		},
		Catalog: s.catalog,
	}))
}
