package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/distlock/fencing-demo/views"
)

// readGuess reads a reader's answer from a click's form: only a step from a
// frame that asks a question takes one, and only one of its options. The
// answer rides to the next frame's address (views.GuessURL), where the move
// plays with it marked.
func readGuess(c echo.Context, here, there views.Place, action string) (string, error) {
	form := c.Request().Form
	if form.Get(views.GuessParam) == "" {
		return "", nil
	}
	if action != "step" || there.Step != here.Step+1 {
		return "", &problem{status: http.StatusBadRequest, key: "err.guess.none", args: []any{there.Step}, cont: here.URL(), title: "err.badrequest"}
	}
	guess, err := views.ReadGuess(form, here.Sc, there.Step)
	if err != nil {
		return "", badAddress(err, here.URL())
	}
	return guess, nil
}
