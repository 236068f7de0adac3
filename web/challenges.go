package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/internal/respond"
)

// The challenges, for a reader alone (a room uses the same ones):
//
//	GET  /challenges             every challenge
//	GET  /challenges/:cid        one: its task, the way to work on it, a form to submit
//	POST /challenges/:cid/submit a submission, judged (challenge_submit.go)
//	GET  /challenges/:cid/submit the same with the submission in the address

// challengesPage lists every challenge of the catalog.
func (s *Server) challengesPage(c echo.Context) error {
	lang, err := readLang(c, views.ChallengesURL)
	if err != nil {
		return err
	}
	x := views.Challenges{Page: s.challengePageOf(lang, views.T(lang, "ch.list"), views.ChallengesURL(views.OtherLang(lang))),
		Entries: s.catalog.Challenges()}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-cache")
	return respond.Render(c, http.StatusOK, views.ChallengesPage(x))
}

// challengePage shows challenge :cid.
func (s *Server) challengePage(c echo.Context) error {
	ch, err := s.challenge(c)
	if err != nil {
		return err
	}
	lang, err := readLang(c, func(lang string) string { return views.ChallengeURL(ch.ID, lang) })
	if err != nil {
		return err
	}
	v := views.Challenge{Page: s.challengePageOf(lang, ch.Title.In(lang), views.ChallengeURL(ch.ID, views.OtherLang(lang))), Ch: ch}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-cache")
	return respond.Render(c, http.StatusOK, views.ChallengePage(v))
}

// challenge is the challenge :cid names; an unknown one is a 404 whose way
// on is the list.
func (s *Server) challenge(c echo.Context) (*demo.Challenge, error) {
	ch, ok := s.catalog.Challenge(c.Param("cid"))
	if !ok {
		lang := views.AcceptLang(c.Request().Header.Get("Accept-Language"))
		return nil, &problem{status: http.StatusNotFound, key: "err.challenge", args: []any{c.Param("cid")}, cont: views.ChallengesURL(lang)}
	}
	return ch, nil
}

// challengePageOf is what the challenges' pages share: a lab's (the
// site's header, htmx, no prefetch), with app.js, which tells an embedding
// host what the learner did.
func (s *Server) challengePageOf(lang, title, otherLang string) views.Page {
	p := s.labPageOf(lang, title, otherLang, false)
	p.Assets.JS = s.assets.URL("app.js")
	return p
}
