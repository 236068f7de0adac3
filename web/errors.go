package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/internal/respond"
)

// problem is bad input, told to the visitor in their language: the status,
// a message key of the one table with its details, and where to carry on.
type problem struct {
	status int
	key    string
	args   []any
	cont   string // a URL that keeps the visitor's place; "" for the start
	known  bool   // list the scenarios (for an unknown one)
	title  string // a message key for the heading, when the status's own will not do
}

func (p *problem) Error() string { return fmt.Sprintf("%d %s %v", p.status, p.key, p.args) }

func bad(key string, cont string, args ...any) *problem {
	return &problem{status: http.StatusBadRequest, key: key, args: args, cont: cont}
}

// badAddress turns what views says is wrong with an address into a 400 whose
// way back is cont, or the way back views names (a build that does not
// apply: its lab, with the learner's text). Any other error passes through
// as it is.
func badAddress(err error, cont string) error {
	var bp *views.BadPlace
	if errors.As(err, &bp) {
		if bp.Cont != "" {
			cont = bp.Cont
		}
		return bad(bp.Key, cont, bp.Args...)
	}
	return err
}

// readLang is the request's language: its lang parameter, else the browser's.
// A bad lang is a 400 whose way back is cont(lang), in the browser's
// language.
func readLang(c echo.Context, cont func(lang string) string) (string, error) {
	lang, err := views.ReadLang(c.QueryParam(views.LangParam), c.Request().Header.Get("Accept-Language"))
	if err != nil {
		return lang, badAddress(err, cont(lang))
	}
	return lang, nil
}

// handleError turns any error into a page that says what went wrong and how
// to carry on. Bad input is explained; anything unexpected is logged in full
// and shown only as "internal error".
//
// It answers once per request: the request logger hands it the error first
// (to log the status it chose), and Echo then offers the same error again.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed || c.Get(errorAnswered) != nil {
		return
	}
	c.Set(errorAnswered, true)
	explicit := c.QueryParam(views.LangParam)
	if form := c.Request().Form; explicit == "" && form != nil {
		explicit = form.Get(views.LangParam) // a click's language travels in its form
	}
	lang, _ := views.ReadLang(explicit, c.Request().Header.Get("Accept-Language"))
	p := s.problemOf(err, c)
	page := s.errorPage(c, p, lang)
	h := c.Response().Header()
	h.Set(echo.HeaderCacheControl, "no-store")
	h.Add(echo.HeaderVary, "HX-Request")
	comp := views.ErrorView(page)
	if isHTMX(c) {
		comp = views.ErrorFragment(page)
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(p.status)
		return
	}
	// Not the request's context: the error may be that it was cancelled (a
	// body cut off at the read timeout, a client that half-closed), and the
	// answer must still carry its status and its page.
	werr := respond.RenderIn(context.WithoutCancel(c.Request().Context()), c, p.status, comp)
	var drawErr *respond.DrawError
	switch {
	case errors.As(werr, &drawErr):
		s.log.Error("drawing the error page", "err", werr)
		_ = c.String(p.status, page.Heading+"\n")
	case werr != nil:
		s.log.Debug("writing the error page", "err", werr) // the client has gone
	}
}

// problemOf is what went wrong, for the visitor: a problem a handler named,
// a body too large, an HTTP error of Echo's, or else an internal error,
// logged in full here and shown only as "internal error".
func (s *Server) problemOf(err error, c echo.Context) *problem {
	var p *problem
	var he *echo.HTTPError
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &p):
		return p
	case errors.As(err, &tooBig):
		return &problem{status: http.StatusRequestEntityTooLarge, key: "err.body"}
	case errors.As(err, &he):
		return httpProblem(he, c)
	}
	s.log.Error("internal error", "method", c.Request().Method, "uri", c.Request().RequestURI, "err", err)
	return &problem{status: http.StatusInternalServerError, key: "err.internal.msg"}
}

// errorHeadings are the error pages' headings by status.
var errorHeadings = map[int]string{
	http.StatusNotFound:              "err.notfound",
	http.StatusBadRequest:            "err.badrequest",
	http.StatusMethodNotAllowed:      "err.method",
	http.StatusRequestEntityTooLarge: "err.toolarge",
	http.StatusTooManyRequests:       "err.toomany",
	http.StatusInternalServerError:   "err.internal",
}

// errorPage is the view model of p's page in lang: its heading, its message
// and the way back.
func (s *Server) errorPage(c echo.Context, p *problem, lang string) views.ErrorPage {
	heading := errorHeadingOf(p)
	cont := p.cont
	if cont == "" {
		cont = views.HomeURL(lang)
	}
	page := views.ErrorPage{
		Page: views.Page{
			Lang:      lang,
			Title:     fmt.Sprintf("%d %s · %s", p.status, views.T(lang, heading), views.T(lang, "site")),
			Assets:    s.assetURLs(),
			Home:      views.HomeURL(lang),
			Index:     views.IndexURL(lang),
			Chrome:    viewOf(c) != views.EmbedView,
			OtherLang: inOtherLang(c, cont, lang),
		},
		Status:   p.status,
		Heading:  views.T(lang, heading),
		Message:  messageOf(p, lang),
		Continue: cont,
	}
	if p.known {
		page.Known = s.catalog.IDs()
	}
	return page
}

// inOtherLang is where an error page's language link leads: the same
// address in the other language for a GET, else (a click's post) the way on
// in it; "" when neither is an address of this site.
func inOtherLang(c echo.Context, cont, lang string) string {
	u := c.Request().URL
	if c.Request().Method != http.MethodGet {
		var err error
		if u, err = url.Parse(cont); err != nil {
			return ""
		}
	}
	if !strings.HasPrefix(u.Path, "/") || u.Host != "" || u.Scheme != "" {
		return ""
	}
	q := u.Query()
	q.Set(views.LangParam, views.OtherLang(lang))
	return u.Path + "?" + q.Encode()
}

// errorHeadingOf is the message key of p's heading: its own, or its
// status's.
func errorHeadingOf(p *problem) string {
	switch {
	case p.title != "":
		return p.title
	case errorHeadings[p.status] != "":
		return errorHeadings[p.status]
	}
	return "err.generic"
}

// messageOf is p's message in lang, its details in lang too.
func messageOf(p *problem, lang string) string {
	return fmt.Sprintf(views.T(lang, p.key), inLang(p.args, lang)...)
}

// inLang puts each detail that is words in both languages (a reason the
// model gives) into lang.
func inLang(args []any, lang string) []any {
	out := make([]any, len(args))
	for i, a := range args {
		if t, ok := a.(demo.Text); ok {
			a = t.In(lang)
		}
		out[i] = a
	}
	return out
}

// errorAnswered marks a request whose error has been answered.
const errorAnswered = "web.errorAnswered"

// httpProblem explains the errors that Echo itself raises.
func httpProblem(he *echo.HTTPError, c echo.Context) *problem {
	r := c.Request()
	switch he.Code {
	case http.StatusNotFound:
		if strings.HasPrefix(r.URL.Path, "/static/") {
			return &problem{status: he.Code, key: "err.file", args: []any{r.URL.Path}}
		}
		return &problem{status: he.Code, key: "err.page", args: []any{r.URL.Path}, known: true}
	case http.StatusMethodNotAllowed:
		return &problem{status: he.Code, key: "err.methodmsg", args: []any{r.Method, r.URL.Path}}
	case http.StatusRequestEntityTooLarge:
		return &problem{status: he.Code, key: "err.body"}
	}
	if he.Code >= 500 {
		return &problem{status: http.StatusInternalServerError, key: "err.internal.msg"}
	}
	return &problem{status: he.Code, key: "err.generic"}
}
