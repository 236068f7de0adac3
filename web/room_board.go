package web

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/follow"
	"github.com/distlock/fencing-demo/web/internal/respond"
	"github.com/distlock/fencing-demo/web/room"
)

// The lecturer's board and what only the lecturer may do:
//
//	GET  /rooms/:rid/lead/:secret          the board, for the projector
//	GET  /rooms/:rid/lead/:secret/events   the board's stream: one event a change
//	POST /rooms/:rid/lead/:secret/show     put a submission on the room's projector
//	POST /rooms/:rid/lead/:secret/project  open the room's projector (to ask the room)
//	POST /rooms/:rid/lead/:secret/close    close the room, forgetting it
//	GET  /rooms/:rid/qr.svg                the learners' link as a QR code
//
// The room's projector is a lecture like any other (follow-along): its run
// key is the room's, given to the lecturer's browser as its run cookie, so
// Step, Back and Ask the room move and ask it, and the learners follow it
// at the room's follow link.

// leadRoom is the room :rid names if :secret is its lecturer's.
func (s *Server) leadRoom(c echo.Context, lang string) (room.Room, error) {
	rm, err := s.openRoom(c, lang)
	if err != nil {
		return rm, err
	}
	if !rm.Lead(c.Param("secret")) {
		return rm, &problem{status: http.StatusForbidden, key: "room.err.lead", cont: roomsURL(lang)}
	}
	return rm, nil
}

// leadPage reads a lecturer's page's request: the room, if the secret is
// its, and the language.
func (s *Server) leadPage(c echo.Context) (room.Room, string, error) {
	lang, err := readLang(c, func(string) string { return "" })
	if err != nil {
		return room.Room{}, lang, err
	}
	rm, err := s.leadRoom(c, lang)
	return rm, lang, err
}

// roomBoard is the lecturer's board.
func (s *Server) roomBoard(c echo.Context) error {
	rm, lang, err := s.leadPage(c)
	if err != nil {
		return err
	}
	b, err := s.boardView(c.Request().Context(), rm, lang)
	if err != nil {
		return roomStoreDown(c, leadURL(rm))
	}
	origin, err := s.origin(c)
	if err != nil {
		return err
	}
	b.Page = s.labPageOf(lang, views.T(lang, "room.board.title"), leadURL(rm)+"?"+views.LangParam+"="+views.OtherLang(lang), true)
	b.Page.Assets.JS = s.assets.URL("room.js")
	b.Learn = origin + roomURL(rm.ID)
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	c.Response().Header().Set("Referrer-Policy", "no-referrer") // the secret stays in this address bar
	return respond.Render(c, http.StatusOK, views.RoomBoardPage(b))
}

// boardView is room rm's board as the lecturer sees it, in lang.
func (s *Server) boardView(ctx context.Context, rm room.Room, lang string) (views.RoomBoard, error) {
	b := views.RoomBoard{Page: views.Page{Lang: lang}, CSS: s.assets.URL("room.css"), Lead: leadURL(rm),
		QR: roomURL(rm.ID) + "/qr.svg", Follow: views.FollowLangURL(follow.LectureID(rm.Run), lang)}
	b.Events = b.Lead + "/events?" + views.LangParam + "=" + lang
	board, err := s.rooms.Board(ctx, rm)
	if err != nil {
		return b, err
	}
	b.Joined, b.Submissions = board.Joined, board.Submissions
	for i, t := range board.Challenges {
		task, ok := s.task(rm, i)
		if !ok {
			continue
		}
		row := views.RoomRow{RoomTask: task, Tried: t.Tried, Solved: t.Broke + t.Fixed, AtPar: t.AtPar, Submissions: t.Submissions}
		row.Bars = bars(t.Moves, task.Par, task.Moves)
		b.Rows = append(b.Rows, row)
	}
	for _, sub := range board.Shown[:min(len(board.Shown), boardShown)] {
		task, ok := s.task(rm, sub.Challenge)
		if !ok {
			continue
		}
		b.Shown = append(b.Shown, views.RoomShow{ID: sub.ID, Who: sub.Nick, Task: task.Title(lang), Moves: sub.Moves, Kind: sub.Kind, Solved: sub.Solved})
	}
	return b, nil
}

// boardShown is how many of the latest submissions the board
// offers for the projector: one row or two on a projector.
const boardShown = 6

// bars is a histogram of moves from par to the budget, every count shown
// (an empty bin too, so the axis stays still as the room fills).
func bars(h map[int]int, par, budget int) []views.RoomBar {
	top := 1
	for _, n := range h {
		top = max(top, n)
	}
	var bs []views.RoomBar
	for m := max(par, 1); m <= budget; m++ {
		bs = append(bs, views.RoomBar{Moves: m, N: h[m], Pct: 100 * h[m] / top, Par: m == par})
	}
	return bs
}

// boardRefresh is how often a board's stream reads the board when no
// change was heard: a change missed while Redis was away shows within it.
const boardRefresh = 5 * time.Second

// boardWriteWait bounds one write of the board's stream: a lecturer's
// browser that stops reading lets its stream go.
const boardWriteWait = 10 * time.Second

// roomBoardEvents streams the board: an event with the board's live part
// at each change, from any replica, and at least every boardRefresh when
// it differs from the last sent.
func (s *Server) roomBoardEvents(c echo.Context) error {
	rm, lang, err := s.leadPage(c)
	if err != nil {
		return err
	}
	w := c.Response()
	w.Header().Set(echo.HeaderContentType, "text/event-stream")
	w.Header().Set(echo.HeaderCacheControl, "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	ctx := c.Request().Context()
	rc := http.NewResponseController(w)
	var last []byte
	tick := time.NewTicker(boardRefresh)
	defer tick.Stop()
	for {
		changed := s.rooms.Changed(rm.ID)
		// The server's write timeout is a request's; a stream lives on.
		_ = rc.SetWriteDeadline(time.Now().Add(boardWriteWait))
		b, err := s.boardView(ctx, rm, lang)
		msg := ": the board is as it was\n\n" // a comment: keeps the balancer's connection alive
		if err == nil {
			var buf bytes.Buffer
			if err := views.RoomBoardLive(b).Render(ctx, &buf); err != nil {
				return nil
			}
			if !bytes.Equal(buf.Bytes(), last) {
				last = buf.Bytes()
				msg = "event: board\ndata: " + strings.ReplaceAll(buf.String(), "\n", "\ndata: ") + "\n\n"
			}
		}
		if _, err := fmt.Fprint(w, msg); err != nil {
			return nil
		}
		w.Flush()
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
		case <-tick.C:
			if _, err := s.rooms.Get(ctx, rm.ID); err == room.ErrGone {
				fmt.Fprint(w, "event: closed\ndata: \n\n")
				w.Flush()
				return nil
			}
		}
		if s.draining.Load() {
			return nil
		}
	}
}

// roomShow puts submission sub (a learner's break or fix) on the room's
// projector: the room's lecture moves to its frames, and the lecturer's
// browser to them, with the room's run key.
func (s *Server) roomShow(c echo.Context) error {
	form, rm, lang, err := s.leadForm(c)
	if err != nil {
		return err
	}
	sub, err := s.rooms.Submission(c.Request().Context(), rm.ID, form.Get("sub"))
	if err != nil {
		return &problem{status: http.StatusNotFound, key: "room.err.sub", cont: leadURL(rm)}
	}
	u, err := url.Parse(sub.Place)
	if err != nil {
		return &problem{status: http.StatusNotFound, key: "room.err.sub", cont: leadURL(rm)}
	}
	sc, ok := s.catalog.Get(rm.Challenges[sub.Challenge].Scenario)
	if !ok {
		return &problem{status: http.StatusNotFound, key: "room.err.sub", cont: leadURL(rm)}
	}
	here, err := views.ReadPlace(sc, u.Query(), views.InURL, views.PageView, "")
	if err != nil {
		return badAddress(err, leadURL(rm))
	}
	here.Lang, here.Present = lang, true
	return s.project(c, rm, here)
}

// roomProject opens the room's projector at its first challenge's frame:
// where the lecturer steps and asks the room.
func (s *Server) roomProject(c echo.Context) error {
	_, rm, lang, err := s.leadForm(c)
	if err != nil {
		return err
	}
	sc, ok := s.catalog.Get(rm.Challenges[0].Scenario)
	if !ok {
		return &problem{status: http.StatusNotFound, key: "room.err.task", cont: leadURL(rm)}
	}
	here := views.Place{Lang: lang, Present: true}
	here.Place.Sc, here.Place.On, here.Place.Step = sc, rm.Challenges[0].On, 1
	return s.project(c, rm, here)
}

// project moves the room's lecture to here and the lecturer's browser
// with it, the room's run key in its cookie.
func (s *Server) project(c echo.Context, rm room.Room, here views.Place) error {
	m := s.runs.goTo(rm.Run, here, "room", s.now())
	c.SetCookie(&http.Cookie{
		Name: runCookieName, Value: m.run, Path: "/", MaxAge: runCookieAge,
		HttpOnly: true, Secure: c.Scheme() == "https", SameSite: http.SameSiteLaxMode,
	})
	return c.Redirect(http.StatusSeeOther, here.URL())
}

// roomClose closes the room: its learners and submissions are forgotten.
func (s *Server) roomClose(c echo.Context) error {
	_, rm, lang, err := s.leadForm(c)
	if err != nil {
		return err
	}
	if err := s.rooms.Close(c.Request().Context(), rm.ID); err != nil {
		return roomStoreDown(c, leadURL(rm))
	}
	return c.Redirect(http.StatusSeeOther, roomsURL(lang))
}

// leadForm reads a lecturer's form: the room, if the secret is its, and
// the language.
func (s *Server) leadForm(c echo.Context) (url.Values, room.Room, string, error) {
	form, err := readForm(c)
	if err != nil {
		return nil, room.Room{}, "", err
	}
	lang, err := views.ReadLang(form.Get(views.LangParam), c.Request().Header.Get("Accept-Language"))
	if err != nil {
		return nil, room.Room{}, "", badAddress(err, roomsURL(lang))
	}
	rm, err := s.leadRoom(c, lang)
	return form, rm, lang, err
}

// roomQR is the learners' link as a QR code, for the board.
func (s *Server) roomQR(c echo.Context) error {
	rid := c.Param("rid")
	if !room.ValidID(rid) {
		return &problem{status: http.StatusNotFound, key: "room.err.gone"}
	}
	return s.qrOf(c, roomURL(rid))
}
