package views

import (
	"fmt"
	"net/url"

	"github.com/distlock/fencing-demo/demo"
)

// ActParam is the action a free-play click chooses, in its script line
// ("A acquire 10", "tick 3"): the value of the offer's button.
const ActParam = "act"

// OfferGroup is the offers of one client, or of the world ("" for Who).
type OfferGroup struct {
	Who    string
	Offers []demo.Offer
}

// Key names the group for a test: the client, or "world".
func (g OfferGroup) Key() string {
	if g.Who == "" {
		return "world"
	}
	return g.Who
}

// Legend is the group's heading in lang.
func (g OfferGroup) Legend(lang string) string {
	if g.Who == "" {
		return T(lang, "free.world")
	}
	return fmt.Sprintf(T(lang, "free.client"), g.Who)
}

// OfferGroups groups offers by who acts, in the order the model lists them,
// the world's last: the clients are the story, the world is what happens
// to them.
func OfferGroups(offers []demo.Offer) []OfferGroup {
	var gs []OfferGroup
	var world *OfferGroup
	at := map[string]int{}
	for _, o := range offers {
		if o.Who == "" {
			if world == nil {
				world = &OfferGroup{}
			}
			world.Offers = append(world.Offers, o)
			continue
		}
		i, ok := at[o.Who]
		if !ok {
			i = len(gs)
			at[o.Who] = i
			gs = append(gs, OfferGroup{Who: o.Who})
		}
		gs[i].Offers = append(gs[i].Offers, o)
	}
	if world != nil {
		gs = append(gs, *world)
	}
	return gs
}

// TakeOver returns the place as free play, with no action yet: the frame
// is the same, and the actions are offered.
func (p Place) TakeOver() Place { p.FreePlay = true; p.Play = ""; return p }

// Scripted returns the script's frame where free play began.
func (p Place) Scripted() Place { p.FreePlay = false; p.Play = ""; return p }

// SaveURL is the address of the page that gives the place's history as a
// scenario's YAML.
func (p Place) SaveURL() string {
	p.View, p.Present = PageView, false
	u, _ := url.Parse(p.URL())
	u.Path += "/yaml"
	return u.String()
}

// Save is the view model of the "save as a scenario" page.
type Save struct {
	Page
	Sc       *demo.Scenario
	YAML     string
	File     string // the download's file name
	Download string // the YAML alone, as a file
	Back     string // the free-play frame it came from
}
