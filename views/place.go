package views

import (
	"net/url"
	"strconv"

	"github.com/distlock/fencing-demo/demo"
)

// View is how a frame is shown.
type View uint8

const (
	// PageView is the demo as a page of this site, with its header.
	PageView View = iota
	// EmbedView is the demo alone, for an iframe on another site.
	EmbedView
	// StaticView is a file of the static export: plain links, no server.
	StaticView
)

// Place is where a frame lives and how it is shown: the scenario, the switch,
// the step and the language, and the view. Every address the page links to
// is a Place, so the address bar always names the frame.
type Place struct {
	Sc      *demo.Scenario
	On      bool
	Step    int
	Lang    string
	View    View
	Present bool // large type and only the essentials, for a projector
}

// At returns the same place at step k.
func (p Place) At(k int) Place { p.Step = k; return p }

// Switched returns the same place with the switch flipped.
func (p Place) Switched() Place { p.On = !p.On; return p }

// In returns the same place in another language.
func (p Place) In(lang string) Place { p.Lang = lang; return p }

// URL is the place's address: what the address bar shows and a copied link
// opens. In the static export it is a path relative to any frame's file, as
// they all sit at the same depth: <lang>/<scenario>/<on|off>/<step>.html.
func (p Place) URL() string {
	if p.View == StaticView {
		return StaticRoot + StaticPath(p)
	}
	base := "/scenarios/"
	if p.View == EmbedView {
		base = "/embed/"
	}
	u := base + p.Sc.ID + "?" + url.QueryEscape(p.Sc.Switch) + "=" + OnOff(p.On) +
		"&step=" + strconv.Itoa(p.Step) + "&lang=" + url.QueryEscape(p.Lang)
	if p.Present {
		u += "&present=1"
	}
	return u
}

// PageURL is the place's address as a page of the site, whatever its view:
// the link to share.
func (p Place) PageURL() string { p.View, p.Present = PageView, false; return p.URL() }

// EmbedURL is the place's address inside an iframe.
func (p Place) EmbedURL() string { p.View, p.Present = EmbedView, false; return p.URL() }

// Action is where a control posts: step, back, reset or switch.
func (p Place) Action(action string) string {
	if p.View == EmbedView {
		return "/embed/" + p.Sc.ID + "/" + action
	}
	return "/scenarios/" + p.Sc.ID + "/" + action
}

// StaticRoot climbs from a frame's file in the static export to the top.
const StaticRoot = "../../../"

// StaticPath is a frame's file in the static export, from the top.
func StaticPath(p Place) string {
	return p.Lang + "/" + p.Sc.ID + "/" + OnOff(p.On) + "/" + strconv.Itoa(p.Step) + ".html"
}

// FrameURL is the address of a frame as a page of the site.
func FrameURL(sc *demo.Scenario, on bool, step int, lang string) string {
	return Place{Sc: sc, On: on, Step: step, Lang: lang}.URL()
}

// OnOff is a switch position as it appears in a URL.
func OnOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}
