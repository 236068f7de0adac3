package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/internal/respond"
	"github.com/distlock/fencing-demo/web/room"
)

// roomSubmit takes a learner's submission for one of the room's
// challenges: the address of their frames (place), the challenge (c) and
// the key their page drew for it (key). It is judged by the model
// (s.roomJudge) and counted once: the same key again is answered with the
// first answer, 409, and counted nowhere. What cannot be a submission (no
// pass for this room, a malformed key, an address that is no frame of the
// challenge, a history that breaks nothing, a build that does not read)
// is refused with what was wrong and counted nowhere either.
//
// With room.js (HX-Request), the answer is the result's box; without, the
// challenge's page with it.
func (s *Server) roomSubmit(c echo.Context) error {
	form, rm, lang, err := s.learnerForm(c)
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(form.Get("c"))
	task, ok := s.task(rm, n)
	if err != nil || !ok {
		return &problem{status: http.StatusNotFound, key: "room.err.task", cont: roomURL(rm.ID)}
	}
	refuse := func(status int, key string, args ...any) error {
		return s.roomAnswer(c, status, rm, task, lang, &views.RoomResult{Refused: views.Tf(lang, key, args...)})
	}
	learner := learnerOf(c, rm)
	if learner == "" {
		return refuse(http.StatusForbidden, "room.err.token")
	}
	key := form.Get("key")
	if !room.ValidKey(key) {
		return refuse(http.StatusBadRequest, "room.err.key")
	}
	if ok, retry := s.roomSubmits.allow(c.Request().Context(), rm.ID+"/"+learner); !ok {
		refuse503(c)
		return refuse(http.StatusTooManyRequests, "room.err.rate", retryAfter(c, retry))
	}
	nick, err := s.learnerNick(c, rm, learner)
	if p := roomProblem(err, roomURL(rm.ID)); p != nil {
		return p
	}
	if err != nil {
		return roomStoreDown(c, roomURL(rm.ID))
	}
	res, err := s.roomJudge.Submit(c.Request().Context(), rm.Challenges[n], addrKey(c.RealIP()), form.Get("place"))
	var no *room.Refusal
	var b busyError
	switch {
	case errors.As(err, &no):
		return refuse(http.StatusUnprocessableEntity, no.Key, no.Args...)
	case errors.As(err, &b):
		refuse503(c)
		return refuse(http.StatusServiceUnavailable, "room.err.busy", retryAfter(c, b.retry))
	case err != nil:
		return err
	}
	sub := room.Submission{Key: key, Learner: learner, Nick: nick, Challenge: n, Kind: res.Kind, Place: res.Place,
		Solved: res.Solved, Moves: res.Moves, AtPar: res.Solved && res.Kind == room.Break && res.Moves <= res.Par}
	got, counted, err := s.rooms.Submit(c.Request().Context(), rm.ID, sub)
	if p := roomProblem(err, roomURL(rm.ID)); p != nil {
		return p
	}
	if err != nil {
		return roomStoreDown(c, views.RoomTaskURL(roomURL(rm.ID), n, lang))
	}
	out := &views.RoomResult{Solved: got.Solved, Kind: got.Kind, Moves: got.Moves, Par: res.Par, Replay: !counted}
	status := http.StatusOK
	if !counted {
		status = http.StatusConflict
	}
	return s.roomAnswer(c, status, rm, task, lang, out)
}

// roomAnswer is the judge's answer on a submission: the result's box for
// room.js, the challenge's page without it.
func (s *Server) roomAnswer(c echo.Context, status int, rm room.Room, task views.RoomTask, lang string, res *views.RoomResult) error {
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	if isHTMX(c) {
		return respond.Render(c, status, views.RoomResultBox(lang, *res))
	}
	return s.renderTry(c, status, rm, task, lang, res)
}
