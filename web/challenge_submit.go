package web

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/internal/respond"
)

// A submission to a challenge: POST /challenges/:cid/submit with free
// play's place (its own form's fields), a lab's form, or the address of
// either pasted on the challenge's page, answered with a 303 to GET
// /challenges/:cid/submit with the submission in the address, which judges
// it. The model judges a break (demo.Challenge.Break: any violation of the
// property wins, and the moves are counted), and the judge a fix, through
// the gate of expensive answers (judge.go); the par comes from the finder
// (find.go), cached and gated as its page's answer. Bad input is a 400 that
// says what is wrong and keeps the learner's place.

// challengeSubmit reads a submission: a POST is checked and sent on to its
// address; a GET is judged.
func (s *Server) challengeSubmit(c echo.Context) error {
	ch, err := s.challenge(c)
	if err != nil {
		return err
	}
	v, src, err := readSubmission(c, ch)
	if err != nil {
		return err
	}
	accept := c.Request().Header.Get("Accept-Language")
	lang, err := views.ReadLang(v.Get(views.LangParam), accept)
	if err != nil {
		return badAddress(err, views.ChallengeURL(ch.ID, lang))
	}
	if ch.Kind == demo.FixIt {
		return s.submitFix(c, ch, v, src, lang)
	}
	return s.submitBreak(c, ch, v, src, lang)
}

// readSubmission is what was submitted, and where it is read from: the
// address's query (a GET, or a pasted address), or the form of free play
// or the lab.
func readSubmission(c echo.Context, ch *demo.Challenge) (url.Values, views.Source, error) {
	if c.Request().Method != http.MethodPost {
		return c.QueryParams(), views.InURL, nil
	}
	form, err := readForm(c)
	if err != nil {
		return nil, 0, err
	}
	if !form.Has(views.AddressField) {
		return form, views.InForm, nil
	}
	lang, _ := views.ReadLang(form.Get(views.LangParam), c.Request().Header.Get("Accept-Language"))
	u, err := url.Parse(strings.TrimSpace(form.Get(views.AddressField)))
	pages := []string{"/scenarios/" + ch.Sc.ID, "/embed/" + ch.Sc.ID} // free play, on the site or embedded
	if ch.Kind == demo.FixIt {
		pages = []string{"/scenarios/" + ch.Sc.ID + "/lab", "/scenarios/" + ch.Sc.ID + "/lab/judge"}
	}
	if err != nil || !slices.Contains(pages, u.Path) {
		return nil, 0, bad("err.challenge.address", views.ChallengeURL(ch.ID, lang))
	}
	q := u.Query()
	if !q.Has(views.LangParam) {
		q.Set(views.LangParam, lang)
	}
	return q, views.InURL, nil
}

// submitBreak judges a free-play history from the challenge's start.
func (s *Server) submitBreak(c echo.Context, ch *demo.Challenge, v url.Values, src views.Source, lang string) error {
	accept := c.Request().Header.Get("Accept-Language")
	here, err := views.ReadPlace(ch.Sc, v, src, views.PageView, accept)
	if err != nil {
		return badAddress(err, here.URL())
	}
	here.Lang, here.FreePlay, here.Present = lang, true, false
	if here.Sc != ch.Sc {
		return bad("err.challenge.kind", views.ChallengeURL(ch.ID, lang), ch.ID, views.T(lang, "err.challenge.where.break"))
	}
	if here.On != ch.On || here.Step != ch.From {
		return bad("err.challenge.start", views.WorkURL(ch, lang), here.Step, ch.Sc.SwitchLabel.In(lang),
			views.T(lang, demo.OnOff(here.On)), ch.From, views.T(lang, demo.OnOff(ch.On)))
	}
	if c.Request().Method == http.MethodPost {
		return c.Redirect(http.StatusSeeOther, submittedURL(ch, here.PageURL()))
	}
	at, err := ch.Break(here.Play)
	var he *demo.HistoryError
	if errors.As(err, &he) {
		return bad("err.play.action", here.URL(), he.Index, he.Line, he.Err.Error(), he.Index-1)
	}
	if err != nil {
		return err
	}
	r := views.ChallengeResult{Ch: ch, Attempt: at, Mine: here}
	if r.End, err = at.Place.Frame(); err != nil {
		return err
	}
	if at.InTime(ch) {
		s.par(c, &r, lang)
	}
	return s.renderResult(c, r, lang, submittedURL(ch, here.In(views.OtherLang(lang)).PageURL()))
}

// par adds the finder's shortest break from the challenge's start to a
// break that is done; a finder too busy to answer now leaves it out, and
// the page says so.
func (s *Server) par(c echo.Context, r *views.ChallengeResult, lang string) {
	prop, _ := r.Ch.Sc.Promise()
	res, err := s.finder.search(c.Request().Context(), addrKey(c.RealIP()), r.Ch.Start(), prop)
	if err != nil || !res.Found {
		return
	}
	r.Par = len(res.Trace)
	r.Shortest, r.Lines = views.ShortestTrace(r.Ch, res, lang)
}

// submitFix judges a lab's build.
func (s *Server) submitFix(c echo.Context, ch *demo.Challenge, v url.Values, src views.Source, lang string) error {
	sc := ch.Sc
	b := sc.Lab.Starter
	var err error
	switch {
	case src == views.InForm:
		b = views.ReadBuildForm(v)
	case v.Has(views.BuildParam):
		if b, err = readBuildCode(sc, v.Get(views.BuildParam), lang); err != nil {
			return err
		}
	}
	text := b.String()
	built, err := views.Built(sc, text)
	if err != nil {
		return bad("err.build", views.LabURL(sc.ID, text, lang, false), views.BuildWords(err))
	}
	if c.Request().Method == http.MethodPost {
		return c.Redirect(http.StatusSeeOther, submittedURL(ch, "?"+views.BuildParam+"="+views.EncodeBuild(text)+"&"+views.LangParam+"="+lang))
	}
	here := views.Place{Place: demo.Place{Sc: built, On: built.Default, Step: 1}, Lang: lang}
	j, cut, err := s.judge(c.Request().Context(), addrKey(c.RealIP()), sc, built)
	var busyErr busyError
	if errors.As(err, &busyErr) {
		return busy(c, busyErr.retry, "err.find.busy.wait", views.LabURL(sc.ID, text, lang, false))
	}
	if err != nil {
		return err
	}
	jv, err := views.NewJudge(here, j, cut)
	if err != nil {
		return err
	}
	other := views.OtherLang(lang)
	return s.renderResult(c, views.ChallengeResult{Ch: ch, Judge: &jv}, lang,
		submittedURL(ch, "?"+views.BuildParam+"="+views.EncodeBuild(text)+"&"+views.LangParam+"="+other))
}

// submittedURL is the answer's address: the submission's query (after
// the ? of addr) on the challenge's submit path.
func submittedURL(ch *demo.Challenge, addr string) string {
	_, q, _ := strings.Cut(addr, "?")
	return views.ChallengeSubmitURL(ch.ID) + "?" + q
}

// renderResult shows the answer, in lang; otherLang is the same answer in
// the other language.
func (s *Server) renderResult(c echo.Context, r views.ChallengeResult, lang, otherLang string) error {
	r.Page = s.challengePageOf(lang, r.Ch.Title.In(lang), otherLang)
	if r.Judge != nil {
		r.Judge.Page = r.Page
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-cache")
	return respond.Render(c, http.StatusOK, views.ChallengeResultPage(r))
}
