package web

import (
	"errors"
	"mime"
	"net"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/views"
)

// act handles a click on a control: POST /scenarios/<id>/<action>. The form
// says which frame the click was made on, so the answer depends on the
// request alone and never on what the server happens to remember. In four
// steps: read the click, work out where it leads, move the run there (runs.go,
// which also tells the run's followers), and answer.
func (s *Server) act(c echo.Context) error {
	c.Response().Header().Add(echo.HeaderVary, "HX-Request")
	here, run, err := s.readClick(c)
	if err != nil {
		return err
	}
	action := c.Param("action")
	there, err := move(here, action, c.Request().Form)
	if err != nil {
		return err
	}
	guess, err := readGuess(c, here, there, action) // predict.go
	if err != nil {
		return err
	}
	if err := s.admitRun(c, run, here.URL()); err != nil { // ratelimit.go
		return err
	}
	// Without JavaScript the second press of a double click may land on the
	// page the first one loaded, and name that page's frame: it is the
	// first press's echo, and leaves the run where the first one took it.
	now := s.now()
	if !isHTMX(c) && s.runs.echoes(run, here, action, now) {
		there, guess = here, "" // the answer went with the first press
	}
	if there != here {
		s.revealOnStep(c, run, here, action) // predict.go: the next Step reveals a question asked here
	}
	m := s.runs.goTo(run, there, action, now)
	if conn, ok := c.Request().Context().Value(connKey{}).(net.Conn); ok {
		s.conns.keep(conn, m.run) // limit.go: the lecturer's connection stays while the bound is hit
	}
	return s.answerClick(c, there, guess, m)
}

// readClick reads the scenario, the place the click was made on and the run
// from a click's request.
func (s *Server) readClick(c echo.Context) (here views.Place, run string, err error) {
	sc, err := s.scenario(c)
	if err != nil {
		return views.Place{}, "", err
	}
	form, err := readForm(c)
	if err != nil {
		return views.Place{}, "", err
	}
	here, err = views.ReadPlace(sc, form, views.InForm, viewOf(c), c.Request().Header.Get("Accept-Language"))
	if err != nil {
		return here, "", badAddress(err, here.URL())
	}
	run = form.Get(views.RunParam)
	if run != "" && !views.ValidRunID(run) {
		return here, "", bad("err.run", here.URL(), run)
	}
	if run == "" {
		run = runCookie(c) // a page opened by a link, or a browser without JavaScript
	}
	return here, run, nil
}

// readForm reads a request's form: a click's, or a lab's build.
func readForm(c echo.Context) (url.Values, error) {
	// A click is a form. A body of any other kind (multipart, JSON) would
	// parse as no form at all and be read as a click on frame 1.
	if r := c.Request(); r.ContentLength != 0 {
		if mt, _, _ := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType)); mt != echo.MIMEApplicationForm {
			return nil, &problem{status: http.StatusUnsupportedMediaType, key: "err.form.type", args: []any{mt}, title: "err.badrequest"}
		}
	}
	// Parse the form here rather than through FormValue, which would swallow
	// a body that broke the size limit and carry on with an empty form.
	if err := c.Request().ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, &problem{status: http.StatusRequestEntityTooLarge, key: "err.body"}
		}
		return nil, &problem{status: http.StatusBadRequest, key: "err.form"}
	}
	return c.Request().Form, nil
}

// move is where action leads from here: step, back, reset, last or switch,
// or one of free play's (play.go), which form may say more about.
func move(here views.Place, action string, form url.Values) (views.Place, error) {
	if action == "switch" && here.Sc.Built != "" {
		return here, bad("err.build.switch.fixed", here.URL(), here.Sc.SwitchLabel) // the build set it
	}
	if there, ok, err := playMove(here, action, form); ok {
		return there, err
	}
	// The script's own moves leave free play.
	there, frames := here.Scripted(), here.Sc.Frames()
	switch action {
	case "step":
		there.Step = min(here.Step+1, frames)
	case "back":
		there.Step = max(here.Step-1, 1)
	case "reset":
		there.Step = 1
	case "last":
		there.Step = frames
	case "switch":
		there.On = !here.On
	default:
		return here, &problem{status: http.StatusNotFound, key: "err.action", args: []any{action}, cont: here.URL()}
	}
	return there, nil
}

// answerClick answers a click that moved the run to there. With htmx, the
// new frame as a fragment, and its address for the address bar. Without
// JavaScript: post, then redirect to the frame's address. Either way the run
// key goes back in an HttpOnly cookie, never in the address: whoever reads
// the projector's address bar learns nothing that drives the run, and the
// next scenario the lecturer opens keeps the same lecture and follow link.
func (s *Server) answerClick(c echo.Context, there views.Place, guess string, m moved) error {
	c.SetCookie(&http.Cookie{
		Name: runCookieName, Value: m.run, Path: "/", MaxAge: runCookieAge,
		HttpOnly: true, Secure: c.Scheme() == "https", SameSite: http.SameSiteLaxMode,
	})
	to := there.URL()
	if guess != "" {
		to = views.GuessURL(there, guess)
	}
	if !isHTMX(c) {
		return c.Redirect(http.StatusSeeOther, to)
	}
	c.Response().Header().Set("HX-Push-Url", to)
	return s.writeFrame(c, answerKey{here: there, guess: guess}, visitorIDs(m.run))
}

// The cookie that keeps a visitor's run key between pages: a lecture's length
// and more, so a lecture with long pauses keeps its follow link.
const (
	runCookieName = "run"
	runCookieAge  = 24 * 60 * 60
)

// runCookie is the run key the visitor's cookie holds, or "".
func runCookie(c echo.Context) string {
	ck, err := c.Cookie(runCookieName)
	if err != nil || !views.ValidRunID(ck.Value) {
		return ""
	}
	return ck.Value
}
