package web

import (
	"net/http"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/follow"
	"github.com/distlock/fencing-demo/web/internal/respond"
)

// page shows a frame of a scenario at its address:
// /scenarios/<id>?<switch>=on&step=3&lang=en, or /embed/<id>?..., the same
// frame without the site's header, for an iframe in a textbook. Every
// handler of a scenario serves both (viewOf); an embedded frame's controls
// post to /embed/ too, so a click inside the iframe stays inside it.
func (s *Server) page(c echo.Context) error {
	sc, err := s.scenario(c)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	if done, err := renamed(c, sc, q); done { // renamed.go
		return err
	}
	here, err := views.ReadPlace(sc, q, views.InURL, viewOf(c), c.Request().Header.Get("Accept-Language"))
	if err != nil {
		return badAddress(err, here.URL())
	}
	guess, err := views.ReadGuess(q, here.Sc, here.Step) // predict.go: a built scenario asks nothing
	if err != nil {
		return badAddress(err, here.URL())
	}
	// The run key comes from the cookie only: an address that names one (an
	// old bookmark) is read as the frame it names, and the key left out.
	return s.showFrame(c, here, guess, runCookie(c))
}

// scenario is the scenario the request's :id names.
func (s *Server) scenario(c echo.Context) (*demo.Scenario, error) {
	id := c.Param("id")
	sc, ok := s.catalog.Get(id)
	if !ok {
		return nil, &problem{status: http.StatusNotFound, key: "err.scenario", args: []any{id}, known: true}
	}
	return sc, nil
}

// viewOf is how the request's frame is shown: embedded when it came through
// the embed address.
func viewOf(c echo.Context) views.View {
	if strings.HasPrefix(c.Path(), "/embed/") {
		return views.EmbedView
	}
	return views.PageView
}

// showFrame renders a whole page for a frame. A page on its own needs no
// run: the frame is played from scratch, and the first click makes the run.
func (s *Server) showFrame(c echo.Context, here views.Place, guess, run string) error {
	cc := "no-cache"
	if run != "" {
		cc = "private, no-cache" // the page's forms carry the visitor's run key: never a shared cache's
	}
	c.Response().Header().Set(echo.HeaderCacheControl, cc)
	c.Response().Header().Add(echo.HeaderVary, "Cookie")
	return s.writeFrame(c, answerKey{here: here, page: true, guess: guess}, visitorIDs(run))
}

// answerKey names a frame's answer: its place, and whole page or a click's
// fragment. The visitor's run and follow ids are not in it: the answer is
// kept with gaps for them (internal/respond).
type answerKey struct {
	here  views.Place
	page  bool
	guess string // the reader's answer to the question that led here, checked (predict.go)
}

// maxAnswers bounds the answers kept: at most about 20 MB.
const maxAnswers = 1024

// visitorIDs are the ids on a visitor's answer: their run key ("" for none)
// and its lecture's follow id.
func visitorIDs(run string) respond.IDs {
	if run == "" {
		return respond.IDs{}
	}
	return respond.IDs{Run: run, Follow: follow.LectureID(run)}
}

// writeFrame writes the answer at key for the visitor's ids.
func (s *Server) writeFrame(c echo.Context, key answerKey, ids respond.IDs) error {
	return s.answers.Write(c, key, ids, func(ids respond.IDs) (templ.Component, error) {
		f, err := key.here.Frame()
		if err != nil {
			return nil, err
		}
		link := ""
		if ids.Follow != "" {
			link = views.FollowURL(ids.Follow)
		}
		d := s.demoView(f, key.here, ids.Run, link)
		if key.here.FreePlay {
			if d.Offers, err = key.here.Offers(); err != nil {
				return nil, err
			}
		}
		d.Guess = key.guess
		if key.page {
			return views.DemoPage(d), nil
		}
		return views.DemoSwap(d), nil
	})
}

// demoView is the view model of frame f at here, for the visitor's run and
// its follow link ("" for none).
func (s *Server) demoView(f demo.Frame, here views.Place, run, followLink string) views.Demo {
	lang := here.Lang
	return views.Demo{
		Page: views.Page{
			Lang:      lang,
			Title:     views.FrameTitle(f, lang),
			Assets:    s.assetURLs(),
			Canonical: here.PageURL(),
			Origin:    s.cfg.PublicURL,
			OtherLang: here.In(views.OtherLang(lang)).URL(),
			Home:      views.HomeURL(lang),
			Index:     views.IndexURL(lang),
			Chrome:    here.View == views.PageView,
			Present:   here.Present,
		},
		Frame:  f,
		Here:   here,
		Run:    run,
		Follow: followLink,
	}
}

func (s *Server) assetURLs() views.Assets {
	return views.Assets{
		CSS:      s.assets.URL("app.css"),
		HTMX:     s.assets.URL("htmx.min.js"),
		JS:       s.assets.URL("app.js"),
		Prefetch: s.assets.URL("prefetch.js"),
		Icon:     s.assets.URL("icon.svg"),
	}
}
