package web

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/internal/respond"
)

// The judge of a lab's build: GET /scenarios/<id>/lab/judge?build=<code>
// (a page of its own without JavaScript, the answer's box with htmx), and
// POST of the lab's form to the same path, which htmx sends from "Judge my
// fix" with the build as it stands in the editor. find.Judge searches the
// built scenario for both of the lab's promises at once. It is the
// dearest answer the site gives, so it goes through the gate of expensive
// answers (gate.go: a core's worth at once, shared fairly between addresses) and within the finder's budget of
// states; its answers are kept by the lab and the build's text, and the
// learners of a room who judge the same build at once share one search.

// judgesKept is how many judgements are kept: one is its traces, a few
// hundred bytes.
const judgesKept = 1024

// judges keeps the judge's answers and the judgements under way.
type judges struct {
	states   int           // distinct states one judgement explores at most
	time     time.Duration // the longest one judgement runs
	answers  *answers[judgeKey, judgeAnswer]
	searches atomic.Int64 // judgements searched, not found kept or under way
}

// judgeKey names a judgement: the lab's scenario and the build's text.
type judgeKey struct {
	lab  *demo.Scenario
	text string
}

// judgeAnswer is a judgement, and whether the time ran out first (the answer
// holds only to a depth).
type judgeAnswer struct {
	j   find.Judgement
	cut bool
}

func newJudges(states int, limit time.Duration) *judges {
	return &judges{states: states, time: limit, answers: newAnswers[judgeKey, judgeAnswer](judgesKept)}
}

// judge judges built, the build text of lab scenario lab, for the visitor
// at addr: from the answers kept, from a judgement of the same build under
// way, or by one of its own through the gate. An answer the time cut short
// is not kept: another moment may get further.
func (s *Server) judge(ctx context.Context, addr string, lab, built *demo.Scenario) (find.Judgement, bool, error) {
	js := s.judges
	a, err := js.answers.get(ctx, judgeKey{lab, built.Built}, func() (judgeAnswer, bool, error) {
		leave, retry, ok := s.expensive.enter(ctx, addr) // gate.go: shared fairly with the searches and saves
		if !ok {
			return judgeAnswer{}, false, busyError{retry}
		}
		defer leave()
		js.searches.Add(1)
		var (
			a   judgeAnswer
			err error
		)
		spent, waited := searchClock(), wallClock()
		lowPriority(func() {
			a.j, err = find.Judge(demo.Place{Sc: built, On: built.Default, Step: 1}, find.Options{MaxStates: js.states, Stop: func() bool {
				a.cut = a.cut || ctx.Err() != nil || spent() > js.time || waited() > findStretch*js.time
				return a.cut
			}})
		})
		return a, !a.cut, err
	})
	return a.j, a.cut, err
}

// judgePage answers the judge: GET with the build in the address, or POST
// of the lab's form (htmx's "Judge my fix"; without JavaScript, a 303 to
// the GET). A build that does not apply is a 400 that says what is wrong
// and where, never a 500; one the gate turns away, a 503 with Retry-After.
func (s *Server) judgePage(c echo.Context) error {
	sc, text, lang, err := s.readJudged(c)
	if err != nil {
		return err
	}
	c.Response().Header().Add(echo.HeaderVary, "HX-Request")
	if c.Request().Method == http.MethodPost {
		if !isHTMX(c) {
			return c.Redirect(http.StatusSeeOther, views.JudgeURL(sc.ID, text, lang))
		}
		c.Response().Header().Set("HX-Replace-Url", views.LabURL(sc.ID, text, lang, c.Request().Form.Get(views.PresentParam) == "1"))
	}
	built, err := views.Built(sc, text)
	if err != nil {
		return s.judgeProblem(c, bad("err.build", views.LabURL(sc.ID, text, lang, false), views.BuildWords(err)), lang)
	}
	here := views.Place{Place: demo.Place{Sc: built, On: built.Default, Step: 1}, Lang: lang}
	j, cut, err := s.judge(c.Request().Context(), addrKey(c.RealIP()), sc, built)
	var b busyError
	if errors.As(err, &b) {
		return s.judgeProblem(c, busy(c, b.retry, "err.find.busy.wait", here.EditURL()).(*problem), lang)
	}
	if err != nil {
		return err
	}
	v, err := views.NewJudge(here, j, cut)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-cache")
	if isHTMX(c) {
		return respond.Render(c, http.StatusOK, views.JudgeResult(v))
	}
	v.Page = s.labPageOf(lang, views.T(lang, "judge.title")+" · "+sc.Title.In(lang), views.JudgeURL(sc.ID, text, views.OtherLang(lang)), false)
	return respond.Render(c, http.StatusOK, views.JudgePage(v))
}

// readJudged reads what the judge is asked about: the lab, the build's
// text (the form's, or the address's, or the starter's) and the language.
func (s *Server) readJudged(c echo.Context) (sc *demo.Scenario, text, lang string, err error) {
	if c.Request().Method == http.MethodPost {
		sc, b, lang, _, err := s.readLabForm(c)
		if err != nil {
			return nil, "", "", err
		}
		return sc, b.String(), lang, nil
	}
	if sc, err = s.labScenario(c); err != nil {
		return nil, "", "", err
	}
	if lang, err = readLang(c, func(lang string) string { return views.LabURL(sc.ID, "", lang, false) }); err != nil {
		return nil, "", "", err
	}
	q := c.QueryParams()
	b := sc.Lab.Starter
	if q.Has(views.BuildParam) {
		if b, err = readBuildCode(sc, q.Get(views.BuildParam), lang); err != nil {
			return nil, "", "", err
		}
	}
	return sc, b.String(), lang, nil
}

// judgeProblem answers a judge that cannot answer: with htmx, in the
// answer's box, which keeps the lab on screen; without, the error page.
func (s *Server) judgeProblem(c echo.Context, p *problem, lang string) error {
	if !isHTMX(c) {
		return p
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return respond.Render(c, p.status, views.JudgeProblem(views.T(lang, errorHeadingOf(p)), messageOf(p, lang)))
}
