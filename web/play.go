package web

import (
	"net/http"
	"strings"

	"github.com/distlock/fencing-demo/views"
)

// Free play's clicks, posted like the script's (act.go) to
// /scenarios/<id>/<action>:
//
//	takeover  leave the script at this frame and act yourself
//	do        play the action the form's act names, one of those offered now
//	back      undo the last action (in free play)
//	switch    the same history in the other position, as far as it plays there
//	script    back to the script's frame where free play began
//
// The history rides in the form (views.Place.Hidden), so, like a step, a
// click's answer depends on the request alone.

// playMove is where one of free play's clicks leads from here (act.go's
// move says which are): act is the offered action a do names.
func playMove(here views.Place, action, act string) (views.Place, error) {
	if (action == "takeover" || action == "do") && here.Sc.Family.Offers == nil {
		return here, bad("err.play.none", here.URL(), here.Sc.ID)
	}
	switch action {
	case "takeover":
		return here.TakeOver(), nil
	case "script":
		return here.Scripted(), nil
	case "do":
		if !here.FreePlay {
			here = here.TakeOver() // a form of an older page: free play begins here
		}
		return playAction(here, act)
	case "back":
		there := here
		there.Place = here.Place.Back()
		return there, nil
	}
	return keepPlayable(here.Switched()), nil // switch
}

// playAction plays the offered action whose script line is line.
func playAction(here views.Place, line string) (views.Place, error) {
	line = strings.Join(strings.Fields(line), " ")
	if len(views.PlayLines(here.Play)) >= views.MaxPlayActions {
		return here, bad("err.play.long", here.URL(), views.MaxPlayActions, views.MaxPlayActions+1)
	}
	offers, err := here.Place.Offers()
	if err != nil {
		return here, err
	}
	for _, o := range offers {
		if o.Action.Source == line && o.Enabled() {
			there := here
			there.Place = here.Place.Then(o.Action)
			// The frame must play before the run moves there: an offer the
			// model got wrong is the visitor's 400, never a 500.
			if _, err := there.Place.Run(); err != nil {
				return here, &problem{status: http.StatusBadRequest, key: "err.play.act", args: []any{line}, cont: here.URL()}
			}
			return there, nil
		}
	}
	return here, &problem{status: http.StatusBadRequest, key: "err.play.act", args: []any{line}, cont: here.URL()}
}

// keepPlayable cuts p's history to what plays at p: the switch's other
// position may refuse an action the first one took (a write by a client
// that no longer believes it holds the lock is still a write, but a lock
// held in one position may be free in the other).
func keepPlayable(p views.Place) views.Place {
	p.Play = views.PlayablePrefix(p.Place)
	return p
}
