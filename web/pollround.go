package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/follow"
)

// askAgain is peer instruction's second vote: the lecturer, having shown
// the room's answers and let it discuss, asks question id again on the
// same frame (POST /scenarios/:id/ask with again=<id>). Every follower
// votes once more; both rounds' bars show side by side, on the
// lecturer's screen now and everywhere at the reveal.
func (s *Server) askAgain(c echo.Context, here views.Place, id string, m moved) error {
	p, ok, err := s.polls.Get(c.Request().Context(), m.follow)
	if err != nil {
		s.log.Warn("asking the room again", "err", err)
		return pollStoreDown(c, here.URL())
	}
	if !ok || p.ID != id || p.At != here.Place {
		return &problem{status: http.StatusConflict, key: "err.answer.closed", cont: here.URL()}
	}
	switch _, err := s.polls.Again(c.Request().Context(), m.follow, id); {
	case errors.Is(err, follow.ErrClosed):
		return &problem{status: http.StatusConflict, key: "err.answer.closed", cont: here.URL()}
	case err != nil:
		s.log.Warn("asking the room again", "err", err)
		return pollStoreDown(c, here.URL())
	}
	s.follow.Touch(m.follow, here.Place)
	return s.answerClick(c, here, "", m)
}
