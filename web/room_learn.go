package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/follow"
	"github.com/distlock/fencing-demo/web/internal/respond"
	"github.com/distlock/fencing-demo/web/room"
)

// A learner's pages:
//
//	GET  /rooms/:rid          join (a nickname, which may be left empty), then the challenges
//	POST /rooms/:rid/join     join: the learner's pass goes in a cookie for this room only
//	GET  /rooms/:rid/c/:n     challenge n: the learner's own run in a frame, and the submit form
//
// The pass (room.Room.Token) names a learner the room made up, not a
// person; it is good in its own room only, and the room forgets it when
// it closes.

// learnerCookie is the cookie of a learner's pass, one per room (its path).
const learnerCookie = "learner"

// learnerOf is the learner the request's pass names in rm, "" for none.
func learnerOf(c echo.Context, rm room.Room) string {
	ck, err := c.Cookie(learnerCookie)
	if err != nil {
		return ""
	}
	id, _ := rm.LearnerOf(ck.Value)
	return id
}

// roomLearn is the learners' page: the join form, or the challenges.
func (s *Server) roomLearn(c echo.Context) error {
	rm, lang, err := s.learnerPage(c)
	if err != nil {
		return err
	}
	return s.renderLearner(c, rm, lang, "")
}

func (s *Server) renderLearner(c echo.Context, rm room.Room, lang, msg string) error {
	x := views.RoomLearner{Page: s.labPageOf(lang, views.T(lang, "room.learn.title"), roomURL(rm.ID)+"?"+views.LangParam+"="+views.OtherLang(lang), false),
		CSS: s.assets.URL("room.css"), Room: roomURL(rm.ID), Follow: views.FollowLangURL(follow.LectureID(rm.Run), lang), Error: msg}
	if id := learnerOf(c, rm); id != "" {
		nick, ok, err := s.rooms.Nick(c.Request().Context(), rm.ID, id)
		if err != nil {
			return roomStoreDown(c, roomURL(rm.ID))
		}
		x.Joined, x.Nick = ok, nick
	}
	for i := range rm.Challenges {
		if t, ok := s.task(rm, i); ok {
			x.Tasks = append(x.Tasks, t)
		}
	}
	status := http.StatusOK
	if msg != "" {
		status = http.StatusBadRequest
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return respond.Render(c, status, views.RoomLearnerPage(x))
}

// roomJoin counts the learner in the room, within its limits, and gives
// them their pass; one who has a pass keeps it (a new nickname replaces
// the old).
func (s *Server) roomJoin(c echo.Context) error {
	form, rm, lang, err := s.learnerForm(c)
	if err != nil {
		return err
	}
	id := learnerOf(c, rm)
	if id == "" {
		// A new learner costs what a new run does: the same allowance per
		// address, so a script cannot fill a room in a moment.
		if ok, retry := s.limiter.allow(c.Request().Context(), addrKey(c.RealIP())); !ok {
			refuse503(c)
			return &problem{status: http.StatusTooManyRequests, key: "err.rate", args: []any{retryAfter(c, retry)}, cont: roomURL(rm.ID)}
		}
		id = room.NewID()
	}
	err = s.rooms.Join(c.Request().Context(), rm.ID, id, room.CleanNick(form.Get("nick")), addrKey(c.RealIP()))
	if p := roomProblem(err, roomURL(rm.ID)); p != nil {
		if p.status == http.StatusConflict || p.status == http.StatusTooManyRequests {
			refuse503(c)
		}
		return p
	}
	if err != nil {
		return roomStoreDown(c, roomURL(rm.ID))
	}
	c.SetCookie(&http.Cookie{
		Name: learnerCookie, Value: rm.Token(id), Path: roomURL(rm.ID), MaxAge: int(s.cfg.RoomIdle.Seconds()),
		HttpOnly: true, Secure: c.Scheme() == "https", SameSite: http.SameSiteLaxMode,
	})
	return c.Redirect(http.StatusSeeOther, roomURL(rm.ID)+"?"+views.LangParam+"="+lang)
}

// roomTry is challenge :n for a learner who joined: their run starts at
// the challenge's frame (or the lab's starter) in a frame of the page.
func (s *Server) roomTry(c echo.Context) error {
	rm, lang, err := s.learnerPage(c)
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(c.Param("n"))
	task, ok := s.task(rm, n)
	if err != nil || !ok {
		return &problem{status: http.StatusNotFound, key: "room.err.task", cont: roomURL(rm.ID)}
	}
	id := learnerOf(c, rm)
	if id == "" {
		return c.Redirect(http.StatusSeeOther, roomURL(rm.ID)+"?"+views.LangParam+"="+lang)
	}
	if _, err := s.learnerNick(c, rm, id); err != nil {
		if p := roomProblem(err, roomURL(rm.ID)); p != nil {
			return p
		}
		return roomStoreDown(c, roomURL(rm.ID))
	}
	if err := s.rooms.Try(c.Request().Context(), rm.ID, id, n); err != nil {
		return roomStoreDown(c, roomURL(rm.ID))
	}
	return s.renderTry(c, http.StatusOK, rm, task, lang, nil)
}

func (s *Server) renderTry(c echo.Context, status int, rm room.Room, task views.RoomTask, lang string, res *views.RoomResult) error {
	x := views.RoomTry{Page: s.labPageOf(lang, task.Title(lang), views.RoomTaskURL(roomURL(rm.ID), task.Index, views.OtherLang(lang)), false),
		CSS: s.assets.URL("room.css"), Room: roomURL(rm.ID), Task: task, Key: room.NewID(), Result: res}
	x.Page.Assets.JS = s.assets.URL("room.js")
	x.Page.Assets.HTMX = ""
	if task.Kind == room.Fix {
		x.Frame = views.LabURL(task.Sc.ID, "", lang, false)
	} else {
		p := views.Place{Place: demo.Place{Sc: task.Sc, On: task.On, Step: 1}, Lang: lang, View: views.EmbedView}
		x.Frame = p.URL()
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return respond.Render(c, status, views.RoomTryPage(x))
}

// learnerForm reads a learner's form: the room :rid names, and the
// language.
func (s *Server) learnerForm(c echo.Context) (url.Values, room.Room, string, error) {
	form, err := readForm(c)
	if err != nil {
		return nil, room.Room{}, "", err
	}
	lang, err := views.ReadLang(form.Get(views.LangParam), c.Request().Header.Get("Accept-Language"))
	if err != nil {
		return nil, room.Room{}, "", badAddress(err, roomURL(c.Param("rid")))
	}
	rm, err := s.openRoom(c, lang)
	return form, rm, lang, err
}

// learnerPage reads a learner's page's request: the room :rid names, and
// the language.
func (s *Server) learnerPage(c echo.Context) (room.Room, string, error) {
	lang, err := readLang(c, func(string) string { return roomURL(c.Param("rid")) })
	if err != nil {
		return room.Room{}, lang, err
	}
	rm, err := s.openRoom(c, lang)
	return rm, lang, err
}

// learnerNick is the nickname of learner, whose pass the room made. A
// learner the room's records lack (they were lost with a replica and a
// Redis restart at once) is joined again under the same pass, without the
// nickname: the pass proves they joined.
func (s *Server) learnerNick(c echo.Context, rm room.Room, learner string) (string, error) {
	ctx := c.Request().Context()
	nick, joined, err := s.rooms.Nick(ctx, rm.ID, learner)
	if err != nil || joined {
		return nick, err
	}
	return "", s.rooms.Join(ctx, rm.ID, learner, "", addrKey(c.RealIP()))
}
