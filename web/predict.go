package web

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/follow"
	"github.com/distlock/fencing-demo/web/internal/respond"
)

// A lecture's question (follow.Polls keeps it):
//
//	POST /scenarios/:id/ask      the lecturer asks the room the frame's question
//	GET  /scenarios/:id/poll     the lecturer's page reads the room's answers
//	POST /follow/:fid/answer     a follower answers, once, changeably until the reveal
//
// The lecturer's next Step from the question's frame reveals the answer
// (revealOnStep), on the frame the move leads to, everywhere at once.

// ask opens the question of the frame the click was made on, for the
// lecture of the click's run key, and draws every follower's frame again
// with it. Only a run key's holder asks: the lecture is the key's.
func (s *Server) ask(c echo.Context) error {
	c.Response().Header().Add(echo.HeaderVary, "HX-Request")
	k, err := s.readClick(c)
	if err != nil {
		return err
	}
	here, run := k.here, k.run
	if run == "" {
		return &problem{status: http.StatusForbidden, key: "err.ask.run", cont: here.URL()}
	}
	q := here.Sc.Asked(here.Step)
	if q == nil {
		return &problem{status: http.StatusBadRequest, key: "err.ask.none", cont: here.URL(), title: "err.badrequest"}
	}
	m := s.runs.goTo(run, here, "ask", s.now()) // the lecture stands on the question's frame
	fid := follow.LectureID(run)
	if again := c.Request().Form.Get(views.AgainParam); again != "" {
		return s.askAgain(c, here, again, m) // pollround.go: the second vote
	}
	if _, err := s.polls.Ask(c.Request().Context(), fid, here.Place, len(q.Options)); err != nil {
		s.log.Warn("asking the room", "err", err)
		return pollStoreDown(c, here.URL())
	}
	s.follow.Touch(fid, here.Place)
	return s.answerClick(c, here, "", m)
}

// pollWait is as long as drawing a follower's frame waits for its
// lecture's question.
const pollWait = 500 * time.Millisecond

// pollStoreDown is the answer when the answers cannot be counted (Redis is
// away): a 503 that keeps the visitor's place.
func pollStoreDown(c echo.Context, cont string) error {
	refuse503(c)
	c.Response().Header().Set("Retry-After", "2")
	return &problem{status: http.StatusServiceUnavailable, key: "err.poll.store", cont: cont}
}

// revealOnStep closes the lecture's open question when the lecturer steps on
// from its frame, so the next frame shows the answer: before the move is
// published, so every follower's next frame is drawn with it.
func (s *Server) revealOnStep(c echo.Context, run string, here views.Place, action string) {
	if run == "" || action != "step" || here.Sc.Asked(here.Step) == nil {
		return
	}
	fid := follow.LectureID(run)
	p, ok, err := s.polls.Get(c.Request().Context(), fid)
	if err != nil || !ok || !p.Open || p.At != here.Place {
		return
	}
	if _, err := s.polls.Reveal(c.Request().Context(), fid, p.ID); err != nil {
		s.log.Warn("revealing the answer", "err", err)
	}
}

// roomPoll is lecture fid's question as frame at shows it: open on the
// question's frame, revealed on the frame it led to; nil for none.
func (s *Server) roomPoll(ctx context.Context, fid string, at follow.At) (*views.RoomPoll, error) {
	p, ok, err := s.polls.Get(ctx, fid)
	if err != nil || !ok {
		return nil, err
	}
	rp := &views.RoomPoll{ID: p.ID, Open: p.Open, Counts: p.Counts, Total: p.Total(), Action: views.FollowAnswerURL(fid), First: p.First()}
	switch {
	case p.Open && p.At == at:
		rp.Q = at.Sc.Asked(at.Step).Posed(at.On)
	case !p.Open && p.At == at.At(at.Step-1) && at.Step > 1:
		rp.Q = p.At.Sc.Asked(p.At.Step).Posed(p.At.On)
		f, err := at.Frame()
		if err != nil {
			return nil, err
		}
		res, ok := demo.MarkGuess(&f, "")
		if !ok {
			return nil, nil
		}
		rp.Result = &res
	}
	if rp.Q == nil || len(rp.Counts) != len(rp.Q.Options) {
		return nil, nil
	}
	return rp, nil
}

// pollView answers the lecturer's page's reading of the room's answers: the
// counts only, for the run key's own lecture, never cached. A reading that
// names the totals its screen shows (seen) is held until they change, so a
// change reaches the screen as it happens, with no reading every second:
// the answer then carries the next reading, which is held in turn.
func (s *Server) pollView(c echo.Context) error {
	sc, err := s.scenario(c)
	if err != nil {
		return err
	}
	here, err := views.ReadPlace(sc, c.QueryParams(), views.InURL, views.PageView, c.Request().Header.Get("Accept-Language"))
	if err != nil {
		return badAddress(err, here.URL())
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	run := runCookie(c)
	if run == "" {
		return &problem{status: http.StatusForbidden, key: "err.ask.run", cont: here.URL()}
	}
	rp, seen, err := s.heldPoll(c.Request().Context(), follow.LectureID(run), here.Place, c.QueryParam(views.SeenParam))
	if err != nil {
		return pollStoreDown(c, here.URL())
	}
	if rp == nil {
		// No question asked here: nothing to wait for. A reader alone
		// holds no connection, and the lecturer's Ask draws its page
		// again, which reads the new question at once.
		return c.NoContent(http.StatusNoContent)
	}
	next := views.PollNext{URL: views.PollSeenURL(here, seen), Later: s.draining.Load()}
	f, err := here.Frame()
	if err != nil {
		return err
	}
	d := views.Demo{Page: views.Page{Lang: here.Lang}, Frame: f, Here: here}
	return respond.Render(c, http.StatusOK, views.PollView(d, *rp, next))
}

// pollHold is how long a reading of the totals is held at most: well
// within the server's write timeout and a balancer's, and ended at once by
// a drain (then the page asks again later, perhaps of another replica).
// pollSettle lets a burst of answers land before the totals are drawn,
// so a hall answering at once costs a reading a tenth of a second, not one
// per answer.
const (
	pollHold   = 20 * time.Second
	pollSettle = 50 * time.Millisecond
)

// heldPoll reads lecture fid's poll as frame at shows it; when its stamp is
// seen, it waits for a change first, at most pollHold.
func (s *Server) heldPoll(ctx context.Context, fid string, at follow.At, seen string) (*views.RoomPoll, string, error) {
	hold := time.NewTimer(pollHold)
	defer hold.Stop()
	drain := time.NewTicker(250 * time.Millisecond)
	defer drain.Stop()
	for {
		changed := s.polls.Changed(fid) // before the read: a change during it wakes the wait
		rp, err := s.roomPoll(ctx, fid, at)
		if err != nil {
			return nil, "", err
		}
		stamp := rp.Stamp()
		if seen == "" || stamp != seen {
			return rp, stamp, nil
		}
	wait:
		for {
			select {
			case <-changed:
				break wait
			case <-hold.C:
				return rp, stamp, nil
			case <-ctx.Done():
				return nil, "", ctx.Err()
			case <-drain.C:
				if s.draining.Load() {
					return rp, stamp, nil
				}
			}
		}
		select {
		case <-time.After(pollSettle):
		case <-ctx.Done():
			return nil, "", ctx.Err()
		}
	}
}

// followAnswer counts a follower's answer to the lecture's open question:
// one per ticket (what the follow page hands its visitor: follow.go), the
// latest replacing the earlier, only while the question is open, at a rate
// per address like every new run. An answer without a ticket is refused
// (403, logged as a refusal, not an error): a script that throws its
// cookies away gets no more answers than the tickets its address was
// handed. With follow.js the answer is 204; without, back to the
// follower's page, which shows the answer given.
func (s *Server) followAnswer(c echo.Context) error {
	fid := c.Param("fid")
	if err := c.Request().ParseForm(); err != nil {
		return &problem{status: http.StatusBadRequest, key: "err.form"}
	}
	form := c.Request().Form
	lang, err := views.ReadLang(form.Get(views.LangParam), c.Request().Header.Get("Accept-Language"))
	if err != nil {
		return badAddress(err, views.IndexURL(lang))
	}
	if !follow.ValidID(fid) {
		return followGone(lang)
	}
	back := views.FollowLangURL(fid, lang)
	ticket := s.ticketOf(c, fid)
	if ticket == "" {
		refuse503(c)
		return &problem{status: http.StatusForbidden, key: "err.answer.ticket", cont: back}
	}
	addr := addrKey(c.RealIP())
	if ok, retry := s.answerLimit.allow(c.Request().Context(), addr); !ok {
		refuse503(c)
		retryAfter(c, retry)
		return &problem{status: http.StatusTooManyRequests, key: "err.rate.one", cont: back}
	}
	ctx := c.Request().Context()
	p, ok, err := s.polls.Get(ctx, fid)
	if err != nil {
		return pollStoreDown(c, back)
	}
	if !ok || !p.Open || p.ID != form.Get("q") {
		return &problem{status: http.StatusConflict, key: "err.answer.closed", cont: back}
	}
	q := p.At.Sc.Asked(p.At.Step)
	option := slices.IndexFunc(q.Options, func(o demo.Option) bool { return o.Value == form.Get("option") })
	if option < 0 {
		return &problem{status: http.StatusBadRequest, key: "err.answer", cont: back, title: "err.badrequest"}
	}
	switch err := s.polls.Answer(ctx, fid, p.ID, ticket, addr, option); {
	case errors.Is(err, follow.ErrClosed):
		return &problem{status: http.StatusConflict, key: "err.answer.closed", cont: back}
	case errors.Is(err, follow.ErrVoters): // the address holds as many answers as any other
		refuse503(c)
		return &problem{status: http.StatusTooManyRequests, key: "err.answer.full", cont: back}
	case err != nil:
		return pollStoreDown(c, back)
	}
	if isHTMX(c) {
		return c.NoContent(http.StatusNoContent)
	}
	return c.Redirect(http.StatusSeeOther, back)
}
