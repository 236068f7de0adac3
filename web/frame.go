package web

import (
	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/internal/respond"
)

// frame answers GET /scenarios/<id>/frame?<a frame's query> (and under
// /embed/) with the fragment a click that leads to that frame gets, from the
// same cache (writeFrame), so static/prefetch.js can fetch the frames one
// click away before the click. It moves no run and needs no run key: with
// ids=1 the answer carries the cache's marks where a visitor's run key and
// follow id go, and names them in its Frame-Marks header, so the page fills
// them with its own without knowing them beforehand; without, it is the
// answer of a visitor who has no run yet. Either way it is the same for
// everyone, so a browser and any cache between may keep it. A frame is a
// pure function of its place for as long as the server runs; a server
// started with an edited scenario file may draw it otherwise, which the
// click's own answer corrects.
func (s *Server) frame(c echo.Context) error {
	sc, err := s.scenario(c)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	here, err := views.ReadPlace(sc, q, views.InURL, viewOf(c), c.Request().Header.Get("Accept-Language"))
	if err != nil {
		return badAddress(err, here.URL())
	}
	ids, h := respond.IDs{}, c.Response().Header()
	if q.Get(marksParam) == "1" {
		ids = respond.Marks
		h.Set(marksHeader, "run="+ids.Run+" follow="+ids.Follow)
	}
	h.Set(echo.HeaderCacheControl, "public, max-age=600")
	h.Add(echo.HeaderVary, "Accept-Language") // only an address without lang= reads it
	return s.writeFrame(c, answerKey{here: here}, ids)
}

// marksParam asks frame for the answer with marks for the visitor's ids,
// and marksHeader names them: "run=<mark> follow=<mark>".
const (
	marksParam  = "ids"
	marksHeader = "Frame-Marks"
)
