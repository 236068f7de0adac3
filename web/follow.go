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
// their own run. Nothing a follower is shown carries the run id.

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
	qrcode "github.com/skip2/go-qrcode"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/follow"
)

// followPage shows the lecturer's current frame, read-only, in the visitor's
// language. Without JavaScript it is a snapshot with a reload link; with it,
// follow.js keeps it live from the stream.
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
	s.runs.openSession(fid) // runs.go: the first follower makes the session
	at, version, ok := s.follow.Current(fid)
	if !ok {
		return followGone(lang)
	}
	v, err := s.followView(fid, at, version, lang)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return render(c, http.StatusOK, views.FollowPage(v))
}

// followGone is the answer for a follow id this server does not know: the
// lecturer's run ended or was evicted, or the server restarted. The way on
// is the scenario list.
func followGone(lang string) *problem {
	return &problem{status: http.StatusNotFound, key: "err.follow.gone", cont: views.IndexURL(lang), known: true}
}

// followView is a follower's view of frame at. The page loads follow.js and
// the stylesheet only: there is nothing to click but links, so no htmx.
func (s *Server) followView(fid string, at follow.At, version uint64, lang string) (views.Follow, error) {
	r, err := demo.Replay(at.Sc, at.On, at.Step)
	if err != nil {
		return views.Follow{}, err
	}
	d := s.demoView(r.Frame(), views.Place{Sc: at.Sc, On: at.On, Step: at.Step, Lang: lang}, "", "")
	d.Title = views.T(lang, "follow.live") + " · " + d.Title
	d.Canonical = "" // a lecture is not a page of the site: the frame's own address is the try link
	d.OtherLang = views.FollowLangURL(fid, views.OtherLang(lang))
	d.Assets = views.Assets{CSS: s.assets.URL("app.css"), Icon: s.assets.URL("icon.svg"), Follow: s.assets.URL("follow.js")}
	return views.Follow{
		Demo:    d,
		Version: version,
		Events:  views.FollowEventsURL(fid, lang),
		Reload:  views.FollowLangURL(fid, lang),
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

// followEvents streams a session's moves (follow.Broker.Stream). ReadTimeout
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
	s.runs.openSession(fid)
	f, err := s.follow.Subscribe(fid)
	switch {
	case errors.Is(err, follow.ErrGone):
		return followGone(lang)
	case errors.Is(err, follow.ErrFull):
		c.Response().Header().Set("Retry-After", "60")
		return &problem{status: http.StatusServiceUnavailable, key: "err.follow.full", cont: views.FollowLangURL(fid, lang)}
	case err != nil:
		return err
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

// followQR draws a QR code of the follower's page, for the share box: the
// lecturer shows it and the room scans it. Like /qr.svg it encodes only an
// address of this site, and only for a session that exists.
func (s *Server) followQR(c echo.Context) error {
	fid := c.Param("fid")
	lang := views.AcceptLang(c.Request().Header.Get("Accept-Language"))
	if !follow.ValidID(fid) {
		return followGone(lang)
	}
	s.runs.openSession(fid)
	if _, _, ok := s.follow.Current(fid); !ok {
		return followGone(lang)
	}
	code, err := qrcode.New(origin(c)+views.FollowURL(fid), qrcode.Medium)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "private, max-age=3600")
	return c.Blob(http.StatusOK, "image/svg+xml", qrSVG(code.Bitmap()))
}
