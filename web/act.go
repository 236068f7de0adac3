package web

import (
	"errors"
	"mime"
	"net"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/internal/respond"
)

// act handles a click on a control: POST /scenarios/<id>/<action>. The form
// says which frame the click was made on, so the answer depends on the
// request alone and never on what the server happens to remember. In four
// steps: read the click, work out where it leads, move the run there (runs.go,
// which also tells the run's followers), and answer.
func (s *Server) act(c echo.Context) error {
	c.Response().Header().Add(echo.HeaderVary, "HX-Request")
	k, err := s.readClick(c)
	if err != nil {
		return err
	}
	if k.action == "traverse" {
		return s.traverse(c, k)
	}
	there, err := k.move()
	if err != nil {
		return err
	}
	guess, err := k.answer(there)
	if err != nil {
		return err
	}
	if err := s.admitRun(c, k.run, k.here.URL()); err != nil { // ratelimit.go
		return err
	}
	// Without JavaScript the second press of a double click may land on the
	// page the first one loaded, and name that page's frame: it is the
	// first press's echo, and leaves the run where the first one took it.
	now := s.now()
	if !isHTMX(c) && (s.runs.echoes(k.run, k.here, k.action, now) || s.runs.echoesElsewhere(c.Request().Context(), k.run, k.here, k.action, now)) {
		there, guess = k.here, "" // the answer went with the first press
	}
	if there != k.here {
		s.revealOnStep(c, k.run, k.here, k.action) // predict.go: the next Step reveals a question asked here
	}
	m := s.runs.goTo(k.run, there, k.action, now)
	if conn, ok := c.Request().Context().Value(connKey{}).(net.Conn); ok {
		s.conns.keep(conn, m.run) // limit.go: the lecturer's connection stays while the bound is hit
	}
	return s.answerClick(c, there, guess, m)
}

// traverse handles the lecturer's browser Back or Forward (prefetch.js): the
// page put back on screen posts its own frame, as a click names the frame
// it was made on, and the run moves there, telling its followers as a click
// does. A visitor with no run has no room to move, and nothing is made.
func (s *Server) traverse(c echo.Context, k clickForm) error {
	if k.run == "" {
		return c.NoContent(http.StatusNoContent)
	}
	if err := s.admitRun(c, k.run, k.here.URL()); err != nil { // a key this server forgot counts as a new run
		return err
	}
	s.runs.goTo(k.run, k.here, k.action, s.now())
	return c.NoContent(http.StatusNoContent)
}

// clickForm is what a click's form says: the frame it was made on, the
// visitor's run, and what its control adds (free play's offered action, a
// question's answer). readClick is the one place that reads it.
type clickForm struct {
	here   views.Place
	action string // the control: step, back, reset, last, switch, free play's (play.go), or traverse
	run    string // the visitor's run key; "" before their first click
	act    string // free play's do: the offered action, as its script line
	guess  string // the reader's answer to the frame's question, unchecked (answer)
}

// readClick reads a click: the scenario, the form (a form only, parsed once,
// within the body's limit), and from it the place, the run (else the
// cookie's) and what the control adds.
func (s *Server) readClick(c echo.Context) (clickForm, error) {
	sc, err := s.scenario(c)
	if err != nil {
		return clickForm{}, err
	}
	form, err := readForm(c)
	if err != nil {
		return clickForm{}, err
	}
	k := clickForm{action: c.Param("action"), run: form.Get(views.RunParam), act: form.Get(views.ActParam), guess: form.Get(views.GuessParam)}
	k.here, err = views.ReadPlace(sc, form, views.InForm, viewOf(c), c.Request().Header.Get("Accept-Language"))
	if err != nil {
		return k, badAddress(err, k.here.URL())
	}
	if k.run != "" && !views.ValidRunID(k.run) {
		return k, bad("err.run", k.here.URL(), k.run)
	}
	if k.run == "" {
		k.run = runCookie(c) // a page opened by a link, or a browser without JavaScript
	}
	return k, nil
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

// move is where the click leads: one of free play's (play.go), or the
// script's step, back, reset, last or switch, which leave free play.
func (k clickForm) move() (views.Place, error) {
	here := k.here
	if k.action == "switch" && here.Sc.Built != "" {
		return here, bad("err.build.switch.fixed", here.URL(), here.Sc.SwitchLabel) // the build set it
	}
	switch k.action {
	case "takeover", "do", "script":
		return playMove(here, k.action, k.act)
	case "back", "switch":
		if here.FreePlay {
			return playMove(here, k.action, k.act)
		}
	}
	there, frames := here.Scripted(), here.Sc.Frames()
	switch k.action {
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
		return here, &problem{status: http.StatusNotFound, key: "err.action", args: []any{k.action}, cont: here.URL()}
	}
	return there, nil
}

// answer is the click's answer to the question its frame asks, checked: only
// a Step one frame on takes one, and only one of the question's options. The
// answer rides to the next frame's address (views.GuessURL), where the move
// plays with it marked.
func (k clickForm) answer(there views.Place) (string, error) {
	if k.guess == "" {
		return "", nil
	}
	if k.action != "step" || there.Step != k.here.Step+1 {
		return "", &problem{status: http.StatusBadRequest, key: "err.guess.none", args: []any{there.Step}, cont: k.here.URL(), title: "err.badrequest"}
	}
	guess, err := views.ReadGuess(url.Values{views.GuessParam: {k.guess}}, k.here.Sc, there.Step)
	if err != nil {
		return "", badAddress(err, k.here.URL())
	}
	return guess, nil
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
	return s.writeFrame(c, answerKey{here: there, guess: guess}, respond.IDs{Run: m.run, Follow: m.follow})
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
