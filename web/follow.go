package web

// The follow-along pages (the broker and its stream are package follow):
//
//	GET /follow/:fid            the follower's page (works without JavaScript)
//	GET /follow/:fid/events     the stream: text/event-stream, one event a move
//	GET /follow/:fid/qr.svg     a QR code of the follower's page, for the room
//
// A follower's page shows the lecturer's current frame, read-only, in the
// follower's own language. From any frame a student can "try it myself from
// here": a link to that frame's own address, where their first click starts
// their own run. Nothing a follower is shown carries the run key.
//
// A follow id is valid for as long as the lecturer keeps their run key
// (follow.LectureID): a link to a lecture with no move on this server yet
// (it restarted, or the lecture moved long ago) waits for the lecturer's
// next click rather than answer 404.

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/follow"
	"github.com/distlock/fencing-demo/web/internal/respond"
)

// followPage shows the lecturer's current frame, read-only, in the visitor's
// language. Without JavaScript it is a snapshot with a reload link; with it,
// follow.js keeps it live from the stream. Before the lecture's first move
// here it is a page that says so and reloads itself.
func (s *Server) followPage(c echo.Context) error {
	fid := c.Param("fid")
	lang, err := readLang(c, func(lang string) string {
		if follow.ValidID(fid) {
			return views.FollowURL(fid)
		}
		return ""
	})
	if err != nil {
		return err
	}
	if !follow.ValidID(fid) {
		return followGone(lang)
	}
	s.runs.openSession(c.Request().Context(), fid) // runs.go: the first follower makes the session
	at, version, ok := s.follow.Current(c.Request().Context(), fid)
	if !ok {
		return followWaiting(c, fid, lang)
	}
	v, err := s.followView(fid, at, version, lang)
	if err != nil {
		return err
	}
	ticket := s.handTicket(c, fid)
	if v.Poll != nil && v.Poll.Open && ticket != "" { // predict.go: the follower's own answer, on their own page
		if o, err := s.polls.Mine(c.Request().Context(), fid, v.Poll.ID, ticket); err == nil && o >= 0 {
			v.Poll.Mine = v.Poll.Q.Options[o].Value
		}
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return respond.Render(c, http.StatusOK, views.FollowPage(v))
}

// The cookie that carries a follower's ticket (follow.Tickets): made by
// the follow page, for that lecture's pages only (its stream and its
// answers), saying nothing about who holds it.
const (
	ticketCookie    = "ticket"
	ticketCookieAge = 12 * 60 * 60
	// ticketRefill is how long an address takes to be handed as many
	// tickets again as it may hold follow places (-follow-per-addr).
	ticketRefill = 10 * time.Minute
)

// ticketOf is the id of the ticket the request shows for lecture fid, ""
// for none.
func (s *Server) ticketOf(c echo.Context, fid string) string {
	ck, err := c.Cookie(ticketCookie)
	if err != nil {
		return ""
	}
	id, _ := s.tickets.Check(fid, ck.Value)
	return id
}

// handTicket is the ticket of a visitor of lecture fid's page: the one it
// shows, or a new one from its address's allowance (-follow-per-addr at
// once, as many again over ticketRefill), set in its cookie; "" when the
// allowance is spent (the page is shown all the same, and its answers are
// refused, saying so).
func (s *Server) handTicket(c echo.Context, fid string) string {
	if id := s.ticketOf(c, fid); id != "" {
		return id
	}
	if ok, _ := s.ticketLimit.allow(c.Request().Context(), addrKey(c.RealIP())); !ok {
		return ""
	}
	ticket := s.tickets.Issue(fid)
	c.SetCookie(&http.Cookie{
		Name: ticketCookie, Value: ticket, Path: views.FollowURL(fid), MaxAge: ticketCookieAge,
		HttpOnly: true, Secure: c.Scheme() == "https", SameSite: http.SameSiteLaxMode,
	})
	id, _ := s.tickets.Check(fid, ticket)
	return id
}

// followGone is the answer for something that cannot be a follow id.
func followGone(lang string) *problem {
	return &problem{status: http.StatusNotFound, key: "err.follow.gone", cont: views.IndexURL(lang), known: true}
}

// followWaitSecs is how often a follower's page waiting for the lecture's
// first move reloads itself.
const followWaitSecs = 5

// followWaiting answers a follow link whose lecture has no move here yet: a
// 503 that says the lecture goes on at the lecturer's next click and reloads
// itself (Refresh works without JavaScript) until then.
func followWaiting(c echo.Context, fid, lang string) error {
	refuse503(c)
	h := c.Response().Header()
	h.Set("Retry-After", strconv.Itoa(followWaitSecs))
	h.Set("Refresh", strconv.Itoa(followWaitSecs))
	return &problem{status: http.StatusServiceUnavailable, key: "err.follow.wait", title: "err.follow.waiting", cont: views.FollowLangURL(fid, lang)}
}

// followView is a follower's view of frame at. The page loads follow.js and
// the stylesheet only: there is nothing to click but links, so no htmx.
func (s *Server) followView(fid string, at follow.At, version uint64, lang string) (views.Follow, error) {
	f, err := at.Frame()
	if err != nil {
		return views.Follow{}, err
	}
	d := s.demoView(f, views.Place{Place: at, Lang: lang, FreePlay: at.Play != ""}, "", "")
	d.Title = views.T(lang, "follow.live") + " · " + d.Title
	d.Canonical = "" // a lecture is not a page of the site: the frame's own address is the try link
	d.OtherLang = views.FollowLangURL(fid, views.OtherLang(lang))
	d.Assets = views.Assets{CSS: s.assets.URL("app.css"), Icon: s.assets.URL("icon.svg"), Follow: s.assets.URL("follow.js")}
	ctx, cancel := context.WithTimeout(context.Background(), pollWait)
	defer cancel()
	poll, err := s.roomPoll(ctx, fid, at) // predict.go
	if err != nil {
		s.log.Warn("reading a lecture's question", "err", err) // the frame goes out without it
	}
	return views.Follow{
		Demo:    d,
		Version: version,
		Events:  views.FollowEventsURL(fid, lang),
		Reload:  views.FollowLangURL(fid, lang),
		Poll:    poll,
	}, nil
}

// renderFollowEvent draws one move for the stream: the follower's #demo, which
// follow.js swaps in whole. Sending the HTML rather than a small JSON that
// each follower would then fetch means one event a move and no burst of
// hundreds of requests after every click; the broker draws it once per
// language and shares it with every follower.
func (s *Server) renderFollowEvent(fid string, at follow.At, version uint64, lang string) ([]byte, error) {
	v, err := s.followView(fid, at, version, lang)
	if err != nil {
		return nil, err
	}
	var html bytes.Buffer
	if err := views.FollowFragment(v).Render(context.Background(), &html); err != nil {
		return nil, err
	}
	return html.Bytes(), nil
}

// followEvents streams a lecture's moves (follow.Broker.Stream). ReadTimeout
// needs nothing: net/http lifts the read deadline once a request without a
// body reaches its handler; the stream sets its own write deadlines.
func (s *Server) followEvents(c echo.Context) error {
	fid := c.Param("fid")
	lang, err := readLang(c, func(string) string { return "" })
	if err != nil {
		return err
	}
	if !follow.ValidID(fid) {
		return followGone(lang)
	}
	s.runs.openSession(c.Request().Context(), fid)
	ticket := s.ticketOf(c, fid)
	f, err := s.follow.Subscribe(c.Request().Context(), fid, addrKey(c.RealIP()), ticket)
	switch {
	case errors.Is(err, follow.ErrFull):
		// follow.js waits as long as Retry-After says: a moment when a
		// follower's address's places may be coming free (a replica just
		// died), longer when the room is full (on every replica), or for a
		// stream without a ticket.
		refuse503(c)
		wait := followFullWait
		if errors.Is(err, follow.ErrAddrFull) && ticket != "" {
			wait = followAddrWait
		}
		retryAfter(c, wait)
		return &problem{status: http.StatusServiceUnavailable, key: "err.follow.full", cont: views.FollowLangURL(fid, lang)}
	case err != nil:
		return err
	}
	if conn, ok := c.Request().Context().Value(connKey{}).(net.Conn); ok {
		f.Probe = follow.TuneConn(conn, s.follow.WriteWait)
	}
	w := c.Response()
	h := w.Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set(echo.HeaderCacheControl, "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx: pass each event on at once
	w.WriteHeader(http.StatusOK)
	sent, _ := strconv.ParseUint(c.Request().Header.Get("Last-Event-ID"), 10, 64)
	if err := s.follow.Stream(c.Request().Context(), w, f, lang, sent); err != nil {
		s.log.Error("drawing a move for followers", "fid", fid, "err", err)
	}
	return nil
}

// How long a follower refused a stream is asked to wait (Retry-After,
// which follow.js keeps to): one with a ticket whose address is at its
// bound, or the rest.
const (
	followAddrWait = time.Second
	followFullWait = 15 * time.Second
)

// followQR draws a QR code of the follower's page, for the share box: the
// lecturer shows it and the room scans it. Like /qr.svg it encodes only an
// address of this site, from configured or trusted values (qr.go).
func (s *Server) followQR(c echo.Context) error {
	fid := c.Param("fid")
	lang := views.AcceptLang(c.Request().Header.Get("Accept-Language"))
	if !follow.ValidID(fid) {
		return followGone(lang)
	}
	return s.qrOf(c, views.FollowURL(fid))
}
