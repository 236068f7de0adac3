package views

import (
	"fmt"
	"net/url"
	"strconv"

	"github.com/distlock/fencing-demo/demo"
)

// Assets are the fingerprinted addresses of the files under static/.
type Assets struct {
	CSS, HTMX, JS, Icon string
}

// Page is what every page shares: its language, title and where it lives.
type Page struct {
	Lang      string
	Title     string
	Assets    Assets
	Canonical string // this page's address, without the run
	OtherLang string // the same page in the other language
}

// Demo is the view model of one frame of a scenario.
type Demo struct {
	Page
	Frame demo.Frame
	Run   string // the visitor's run id; "" until the first click makes one
}

// Sc returns the scenario being shown.
func (d Demo) Sc() *demo.Scenario { return d.Frame.Scenario }

// FrameURL is the address of a frame: the scenario, the switch, the step and
// the language. It is what the address bar shows and what a copied link opens.
func FrameURL(sc *demo.Scenario, on bool, step int, lang string) string {
	return "/scenarios/" + sc.ID + "?" + url.QueryEscape(sc.Switch) + "=" + OnOff(on) +
		"&step=" + strconv.Itoa(step) + "&lang=" + url.QueryEscape(lang)
}

// OnOff is a switch position as it appears in a URL.
func OnOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// ActionURL is where the controls post: step, back, reset or switch.
func (d Demo) ActionURL(action string) string {
	return "/scenarios/" + d.Sc().ID + "/" + action
}

// SwitchLabel is the switch's name on screen.
func (d Demo) SwitchLabel() string {
	return T(d.Lang, "switch."+d.Sc().Switch)
}

// Describe turns an event into a sentence for the "what this move did" list
// and the event log.
func Describe(lang string, e demo.Event) string {
	key := "ev." + e.Kind.String()
	switch e.Kind {
	case demo.Acquired:
		return fmt.Sprintf(T(lang, key), e.Client, e.Token, e.Expiry)
	case demo.Renewed:
		return fmt.Sprintf(T(lang, key), e.Client, e.Expiry, e.Token)
	case demo.Expired:
		return fmt.Sprintf(T(lang, key), e.Client, e.At, e.Token)
	case demo.Accepted:
		s := fmt.Sprintf(T(lang, key), e.Client, e.Value, e.Token)
		if e.Token < e.Max {
			s += " — " + fmt.Sprintf(T(lang, "ev.overwrote"), e.Token, e.Before)
		}
		return s
	case demo.Rejected:
		return fmt.Sprintf(T(lang, key), e.Client, e.Value, e.Token, e.Token, e.Max)
	default:
		return fmt.Sprintf(T(lang, key), e.Client)
	}
}

// Stale reports whether a write landed with a token older than one the
// resource had already taken: the destruction the lesson is about.
func Stale(e demo.Event) bool { return e.Kind == demo.Accepted && e.Token < e.Max }

// Believes is a client's belief in words.
func Believes(lang string, c demo.Client) string {
	if !c.Holds {
		return T(lang, "nolock")
	}
	return fmt.Sprintf(T(lang, "believes"), c.Token)
}

// ErrorPage is the view model of an error: what went wrong, in words meant
// for the visitor, and where to go on from here.
type ErrorPage struct {
	Page
	Status   int
	Heading  string
	Message  string
	Continue string   // where the visitor was, or the start
	Known    []string // scenario ids, on a 404
}
