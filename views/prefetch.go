package views

import (
	"github.com/a-h/templ"

	"github.com/distlock/fencing-demo/demo"
)

// A control names the frame its click leads to (data-to, that frame's
// address), so static/prefetch.js can fetch the frame before the click and
// paint it the moment the click comes; the click still posts, and the
// server's answer has the last word. A control whose click the server may
// still turn away, or whose frame depends on more than the form (a guess),
// names none and goes to the server as it always did.

// leadsTo is the data-to of a control's form; "" for none.
func leadsTo(u string) templ.Attributes {
	if u == "" {
		return templ.Attributes{}
	}
	return templ.Attributes{"data-to": u}
}

// controlTo is where the control action leads from d's frame (to is the
// script's frame it leads to); "" in the static export, where a control is
// a link, and for a disabled one.
func controlTo(d Demo, action string, to Place, disabled bool) string {
	if disabled || d.Here.View == StaticView {
		return ""
	}
	if !d.Here.FreePlay {
		return to.URL()
	}
	switch action {
	case "back": // free play's undo
		there := d.Here
		there.Place = d.Here.Place.Back()
		return there.URL()
	case "script":
		return d.Here.Scripted().URL()
	}
	return ""
}

// switchTo is where the switch leads: the other position, and in free play
// as much of the history as plays there (as web's keepPlayable cuts it).
func switchTo(d Demo) string {
	there := d.Here.Switched()
	if d.Here.FreePlay {
		there.Play = PlayablePrefix(there.Place)
	}
	return there.URL()
}

// offerTo is where an enabled offer leads in free play; "" once the history
// is as long as the server takes, which then says why.
func offerTo(d Demo, a demo.Action) string {
	if len(PlayLines(d.Here.Play)) >= MaxPlayActions {
		return ""
	}
	there := d.Here
	if !there.FreePlay {
		there = there.TakeOver()
	}
	there.Place = there.Place.Then(a)
	return there.URL()
}
