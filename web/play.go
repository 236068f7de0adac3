package web

import (
	"net/http"
	"net/url"
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

// playMove is where a free-play action leads from here; ok is false for an
// action that is the script's own (step, reset, last, and back or switch
// outside free play).
func playMove(here views.Place, action string, form url.Values) (there views.Place, ok bool, err error) {
	if (action == "takeover" || action == "do") && here.Sc.Family.Offers == nil {
		return here, true, bad("err.play.none", here.URL(), here.Sc.ID)
	}
	switch {
	case action == "takeover":
		return here.TakeOver(), true, nil
	case action == "script":
		return here.Scripted(), true, nil
	case action == "do":
		if !here.FreePlay {
			here = here.TakeOver() // a form of an older page: free play begins here
		}
		there, err := playAction(here, form.Get(views.ActParam))
		return there, true, err
	case !here.FreePlay:
		return here, false, nil
	case action == "back":
		there := here
		there.Place = here.Place.Back()
		there.FreePlay = true
		return there, true, nil
	case action == "switch":
		return keepPlayable(here.Switched()), true, nil
	}
	return here, false, nil
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
