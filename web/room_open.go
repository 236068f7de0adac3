package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/internal/respond"
	"github.com/distlock/fencing-demo/web/room"
)

// A workshop room (web/room keeps it):
//
//	GET  /rooms                           the form that opens one
//	POST /rooms                           open it: a 303 to the lecturer's board
//	GET  /rooms/:rid/lead/:secret         the lecturer's board (room_board.go)
//	GET  /rooms/:rid                      the learners' page: join, then the challenges (room_learn.go)
//	GET  /rooms/:rid/c/:n                 one challenge, the learner's own run in it
//	POST /rooms/:rid/submit               a submission, judged by the model (room_submit.go)
//
// The lecturer's link carries the room's secret and is shown only on the
// board; the learners' link carries the room's id alone.

// roomOffers are the challenges a room may set: a break of every scenario
// from its first frame, in each position where the finder breaks it (its
// shortest break, which the catalog holds it to, is the par), and a fix of
// every lab.
func (s *Server) roomOffers() (breaks, fixes []views.RoomOffer) {
	for _, sc := range s.catalog.Scenarios {
		for i, on := range []bool{false, true} {
			if f := sc.Expect[i].Finder; f != nil && f.Found {
				breaks = append(breaks, views.RoomOffer{Value: "break:" + sc.ID + ":" + demo.OnOff(on), Sc: sc, Kind: room.Break, On: on, Par: f.N})
			}
		}
		if sc.Lab != nil {
			fixes = append(fixes, views.RoomOffer{Value: "fix:" + sc.ID, Sc: sc, Kind: room.Fix})
		}
	}
	return breaks, fixes
}

// roomOpenPage is the form that opens a room.
func (s *Server) roomOpenPage(c echo.Context) error {
	lang, err := readLang(c, roomsURL)
	if err != nil {
		return err
	}
	return s.renderRoomOpen(c, http.StatusOK, lang, "")
}

func (s *Server) renderRoomOpen(c echo.Context, status int, lang, msg string) error {
	x := views.RoomOpen{Page: s.labPageOf(lang, views.T(lang, "room.open.title"), roomsURL(views.OtherLang(lang)), false),
		CSS: s.assets.URL("room.css"), Error: msg}
	x.Breaks, x.Fixes = s.roomOffers()
	c.Response().Header().Set(echo.HeaderCacheControl, "no-cache")
	return respond.Render(c, status, views.RoomOpenPage(x))
}

func roomsURL(lang string) string { return "/rooms?" + views.LangParam + "=" + lang }

// roomOpensPerHour is how many rooms one address may open in an hour (all
// of them at once): a department's lecturers behind one address, but not a
// script that would take every room the server keeps (-max-rooms).
const roomOpensPerHour = 10

// maxChallenges bounds one room's challenges: a workshop's afternoon.
const maxChallenges = 12

// roomOpen opens a room with the challenges chosen, each break allowed
// extra moves beyond its par, and sends the lecturer to the board.
func (s *Server) roomOpen(c echo.Context) error {
	form, err := readForm(c)
	if err != nil {
		return err
	}
	lang, err := views.ReadLang(form.Get(views.LangParam), c.Request().Header.Get("Accept-Language"))
	if err != nil {
		return badAddress(err, roomsURL(lang))
	}
	extra, err := strconv.Atoi(form.Get("extra"))
	if err != nil || extra < 0 || extra > 8 {
		extra = 2
	}
	chosen := form["c"]
	if len(chosen) == 0 || len(chosen) > maxChallenges {
		return s.renderRoomOpen(c, http.StatusBadRequest, lang, views.T(lang, "room.open.none"))
	}
	if ok, retry := s.roomOpens.allow(c.Request().Context(), addrKey(c.RealIP())); !ok {
		refuse503(c)
		return s.renderRoomOpen(c, http.StatusTooManyRequests, lang, views.Tf(lang, "room.open.rate", retryAfter(c, retry)))
	}
	breaks, fixes := s.roomOffers()
	rm := room.Room{ID: room.NewID(), Secret: room.NewID(), Run: newRunID(), Opened: s.now()}
	for _, v := range chosen {
		ch, ok := challengeOf(v, breaks, fixes, extra)
		if !ok {
			return s.renderRoomOpen(c, http.StatusBadRequest, lang, views.Tf(lang, "room.open.bad", v))
		}
		rm.Challenges = append(rm.Challenges, ch)
	}
	switch err := s.rooms.Open(c.Request().Context(), rm); {
	case errors.Is(err, room.ErrRooms):
		refuse503(c)
		c.Response().Header().Set("Retry-After", "60")
		return s.renderRoomOpen(c, http.StatusServiceUnavailable, lang, views.T(lang, "room.open.full"))
	case err != nil:
		return roomStoreDown(c, roomsURL(lang))
	}
	return c.Redirect(http.StatusSeeOther, leadURL(rm)+"?"+views.LangParam+"="+lang)
}

// challengeOf is the challenge form value v names among the offers.
func challengeOf(v string, breaks, fixes []views.RoomOffer, extra int) (room.Challenge, bool) {
	offers := fixes
	if strings.HasPrefix(v, "break:") {
		offers = breaks
	}
	for _, o := range offers {
		if o.Value == v {
			ch := room.Challenge{Kind: o.Kind, Scenario: o.Sc.ID, On: o.On, Step: 1}
			if o.Kind == room.Break {
				ch.Par, ch.Moves = o.Par, o.Par+extra
			}
			return ch, true
		}
	}
	return room.Challenge{}, false
}

// leadURL is the lecturer's board: the room's secret is in it.
func leadURL(rm room.Room) string { return "/rooms/" + rm.ID + "/lead/" + rm.Secret }

// roomURL is the learners' page of room id.
func roomURL(id string) string { return "/rooms/" + id }

// roomStoreDown is the answer when the rooms' records cannot be reached:
// a 503 that keeps the visitor's place.
func roomStoreDown(c echo.Context, cont string) error {
	refuse503(c)
	c.Response().Header().Set("Retry-After", "2")
	return &problem{status: http.StatusServiceUnavailable, key: "room.err.store", cont: cont}
}

// roomProblem is a room's refusal as an error page.
func roomProblem(err error, cont string) *problem {
	switch {
	case errors.Is(err, room.ErrGone):
		return &problem{status: http.StatusNotFound, key: "room.err.gone", cont: cont}
	case errors.Is(err, room.ErrFull):
		return &problem{status: http.StatusConflict, key: "room.err.full", cont: cont}
	case errors.Is(err, room.ErrAddr):
		return &problem{status: http.StatusTooManyRequests, key: "room.err.addr", cont: cont}
	}
	return nil
}

// openRoom is the room :rid names, or the page that says it is gone.
func (s *Server) openRoom(c echo.Context, lang string) (room.Room, error) {
	rid := c.Param("rid")
	if !room.ValidID(rid) {
		return room.Room{}, roomProblem(room.ErrGone, roomsURL(lang))
	}
	rm, err := s.rooms.Get(c.Request().Context(), rid)
	if p := roomProblem(err, roomsURL(lang)); p != nil {
		return rm, p
	}
	if err != nil {
		return rm, roomStoreDown(c, roomURL(rid))
	}
	return rm, nil
}

// task is challenge n of rm as the pages show it.
func (s *Server) task(rm room.Room, n int) (views.RoomTask, bool) {
	if n < 0 || n >= len(rm.Challenges) {
		return views.RoomTask{}, false
	}
	ch := rm.Challenges[n]
	sc, ok := s.catalog.Get(ch.Scenario)
	if !ok || ch.Kind == room.Fix && sc.Lab == nil {
		return views.RoomTask{}, false
	}
	return views.RoomTask{Index: n, Sc: sc, Kind: ch.Kind, On: ch.On, Moves: ch.Moves, Par: ch.Par}, true
}

// roomEventsPath is the board's stream's route; compression skips it.
const roomEventsPath = "/rooms/:rid/lead/:secret/events"

// openRooms makes the rooms' store (in the replicas' Redis with
// -follow-redis, else in memory), their judge and the learners' allowance
// of submissions.
func (s *Server) openRooms() error {
	cfg := s.cfg
	limits := room.Limits{Rooms: cfg.MaxRooms, Learners: cfg.RoomLearners, PerAddr: cfg.RoomPerAddr, Idle: cfg.RoomIdle}
	s.roomJudge = modelJudge{s}
	s.roomSubmits = newAllowance("room-submits", float64(cfg.RoomSubmits)/60, cfg.RoomSubmits)
	s.roomOpens = newAllowance("room-opens", roomOpensPerHour/3600.0, roomOpensPerHour)
	if cfg.FollowRedis == "" {
		s.rooms = room.NewMem(limits)
		return nil
	}
	s.roomSubmits.share(s.finder.shared, s.log) // the relay's Redis: a learner's allowance is one across replicas
	s.roomOpens.share(s.finder.shared, s.log)
	r, err := room.NewRedis(cfg.FollowRedis, limits, s.log)
	if err != nil {
		return err
	}
	s.rooms = r
	stop := s.stopRelay
	s.stopRelay = func() { stop(); _ = r.Stop() }
	return nil
}
