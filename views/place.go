package views

import (
	"fmt"
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

// Place is a frame's address: where the frame is (demo.Place: the
// scenario, the switch and the step), the language, and how the frame is
// shown. It is the one codec of that address both ways: ReadPlace reads it
// from a page's URL or a click's form, and URL, Action and Hidden write the
// link, the form's target (also its hx-post) and the form's fields. Every
// link and form of the site goes through it, so the address bar always
// names the frame.
type Place struct {
	demo.Place
	Lang    string
	View    View
	Present bool // large type and only the essentials, for a projector
	// FreePlay is free play: the visitor took over at Step and acts
	// themselves; Play (of demo.Place) holds what they did. Without it the
	// frame is the script's.
	FreePlay bool
}

// The names an address uses. A page's URL names its frame "step"; a click's
// form names the frame the click was made on "from", since the click moves
// away from it. Both are Place.Step in Go. The switch's name is the
// scenario's own (Scenario.Switch), such as "fencing".
const (
	StepParam    = "step"
	FromField    = "from"
	LangParam    = "lang"
	PresentParam = "present"
	RunParam     = "run" // the visitor's run: not part of the address, but carried with it
)

// Source is where an address is read from.
type Source uint8

const (
	// InURL is a page's query: ?fencing=on&step=3&lang=en.
	InURL Source = iota
	// InForm is a click's form: the same, with the frame named "from".
	InForm
)

// stepName is the name the frame goes by in src.
func (src Source) stepName() string {
	if src == InForm {
		return FromField
	}
	return StepParam
}

// BadPlace says what is wrong with an address, as a message key of the one
// table and its details, for the error page.
type BadPlace struct {
	Key  string
	Args []any
	// Cont is where the visitor carries on when it is not the place's own
	// address: for a build that does not apply, its lab with the learner's
	// text. "" for the place's own.
	Cont string
	lab  *string // the text Cont's lab page shows
}

func (e *BadPlace) Error() string { return fmt.Sprintf("%s %v", e.Key, e.Args) }

// ReadPlace reads where a request says the visitor is, from a page's query or
// a click's form: a learner's build (build, which makes the place one of the
// built scenario: readBuild), the switch, the step, the free-play history
// (play, whose every action must play where it stands: readPlay), the
// language and presenter mode.
// Any may be left out: the switch then takes the scenario's default, the
// step is 1, and the language is the browser's (acceptLanguage is its
// Accept-Language header). When one is wrong, the error is a *BadPlace about
// the first wrong one, and the Place returned keeps all the others, so the
// error page's way back does not lose the visitor's place.
func ReadPlace(sc *demo.Scenario, v url.Values, src Source, view View, acceptLanguage string) (Place, error) {
	p := Place{Place: demo.Place{Sc: sc, On: sc.Default, Step: 1}, View: view, Present: v.Get(PresentParam) == "1"}
	var bad *BadPlace
	if v.Has(BuildParam) {
		bad = readBuild(&p, v.Get(BuildParam))
	}
	if b := readSwitch(&p, v.Get(sc.Switch)); bad == nil {
		bad = b
	}
	sc = p.Sc // the built scenario, whose frames are the build's
	if step := v.Get(src.stepName()); step != "" {
		n, err := strconv.Atoi(step)
		switch {
		case err != nil || n < 1:
		case n > sc.Frames():
			p.Step = sc.Frames()
		default:
			p.Step = n
		}
		if (err != nil || n < 1 || n > sc.Frames()) && bad == nil {
			bad = &BadPlace{Key: "err.step", Args: []any{src.stepName(), sc.Frames(), step}}
		}
	}
	if v.Has(PlayParam) {
		if b := readPlay(&p, v.Get(PlayParam)); bad == nil {
			bad = b
		}
	}
	var badLang *BadPlace
	if p.Lang, badLang = readLang(v.Get(LangParam), acceptLanguage); bad == nil {
		bad = badLang
	}
	if bad != nil {
		if bad.lab != nil {
			bad.Cont = LabURL(p.Sc.ID, *bad.lab, p.Lang, p.Present)
		}
		return p, bad
	}
	return p, nil
}

// At returns the same place at step k.
func (p Place) At(k int) Place { p.Place = p.Place.At(k); return p }

// Switched returns the same place with the switch flipped.
func (p Place) Switched() Place { p.Place = p.Place.Switched(); return p }

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
	u := base + p.Sc.ID + "?" + url.QueryEscape(p.Sc.Switch) + "=" + demo.OnOff(p.On) +
		"&" + StepParam + "=" + strconv.Itoa(p.Step) + "&" + LangParam + "=" + url.QueryEscape(p.Lang) + p.buildField()
	if p.FreePlay {
		u += "&" + PlayParam + "=" + EncodePlay(p.Play)
	}
	if p.Present {
		u += "&" + PresentParam + "=1"
	}
	return u
}

// PageURL is the place's address as a page of the site, whatever its view:
// the link to share.
func (p Place) PageURL() string { p.View, p.Present = PageView, false; return p.URL() }

// EmbedURL is the place's address inside an iframe.
func (p Place) EmbedURL() string { p.View, p.Present = EmbedView, false; return p.URL() }

// QRURL is the address of a QR code of the place's page.
func (p Place) QRURL() string { return "/qr.svg?path=" + url.QueryEscape(p.PageURL()) }

// Action is where a control posts (step, back, reset, last or switch): the
// form's action, and the same for htmx's hx-post.
func (p Place) Action(action string) string {
	if p.View == EmbedView {
		return "/embed/" + p.Sc.ID + "/" + action
	}
	return "/scenarios/" + p.Sc.ID + "/" + action
}

// Field is one hidden field of a control's form.
type Field struct{ Name, Value string }

// Hidden are the fields a control's form sends: the run, the frame shown,
// the switch, the language and presenter mode. The server needs nothing else,
// which is why a lost run or a restart costs nobody their place. ReadPlace
// with InForm reads them back.
func (p Place) Hidden(run string) []Field {
	fs := []Field{
		{RunParam, run},
		{FromField, strconv.Itoa(p.Step)},
		{p.Sc.Switch, demo.OnOff(p.On)},
		{LangParam, p.Lang},
	}
	if p.Sc.Built != "" {
		fs = append(fs, Field{BuildParam, EncodeBuild(p.Sc.Built)})
	}
	if p.FreePlay {
		fs = append(fs, Field{PlayParam, EncodePlay(p.Play)})
	}
	if p.Present {
		fs = append(fs, Field{PresentParam, "1"})
	}
	return fs
}

// Form is Hidden as form values, for a program that clicks (the load
// command, the tests) rather than a browser.
func (p Place) Form(run string) url.Values {
	v := url.Values{}
	for _, f := range p.Hidden(run) {
		v.Set(f.Name, f.Value)
	}
	return v
}

// StaticRoot climbs from a frame's file in the static export to the top.
const StaticRoot = "../../../"

// StaticPath is a frame's file in the static export, from the top.
func StaticPath(p Place) string {
	return p.Lang + "/" + p.Sc.ID + "/" + demo.OnOff(p.On) + "/" + strconv.Itoa(p.Step) + ".html"
}

// The site's other addresses, each in a language.

// HomeURL is the front page: the first scenario's first frame.
func HomeURL(lang string) string { return "/?" + LangParam + "=" + lang }

// IndexURL is the scenario index.
func IndexURL(lang string) string { return "/scenarios?" + LangParam + "=" + lang }

// ScenarioURL is a scenario's first frame, at its default switch.
func ScenarioURL(id, lang string) string { return "/scenarios/" + id + "?" + LangParam + "=" + lang }

// FollowURL is a follow-along session's page, in no language: each follower
// sees it in their own.
func FollowURL(fid string) string { return "/follow/" + fid }

// FollowLangURL is a follower's page in lang.
func FollowLangURL(fid, lang string) string { return FollowURL(fid) + "?" + LangParam + "=" + lang }

// FollowEventsURL is a follower's event stream in lang.
func FollowEventsURL(fid, lang string) string {
	return FollowURL(fid) + "/events?" + LangParam + "=" + lang
}

// FollowQRURL is the QR code of a follow link.
func FollowQRURL(link string) string { return link + "/qr.svg" }

// FrameURL is the address of a frame as a page of the site: Place.URL for
// the commonest case.
func FrameURL(sc *demo.Scenario, on bool, step int, lang string) string {
	return Place{Place: demo.Place{Sc: sc, On: on, Step: step}, Lang: lang}.URL()
}
