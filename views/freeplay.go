package views

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// ActParam is the action a free-play click chooses, in its script line
// ("A acquire 10", "tick 3"): the value of the offer's button.
const ActParam = "act"

// OfferGroup is the offers of one client, of the nodes (Redis nodes, a
// database: whatever acts and is not in the cast), or of the world.
type OfferGroup struct {
	Who    string // the client; "" for the world, nodesGroup for the nodes
	Offers []demo.Offer
}

// nodesGroup is the Who of the nodes' group, and verbGroup starts the Who
// of an action's group: not names a client can have.
const (
	nodesGroup = "#nodes"
	verbGroup  = "#verb:"
)

// castInRow is the largest cast whose clients each get a group of their
// own. A larger one (backoff-jitter's twenty) is grouped by action, each
// group a button per client, so that the row keeps to one line and the
// stage to the first screen.
const castInRow = 6

// Key names the group for a test: the client, "nodes" or "world".
func (g OfferGroup) Key() string {
	switch g.Who {
	case "":
		return "world"
	case nodesGroup:
		return "nodes"
	}
	if v, ok := strings.CutPrefix(g.Who, verbGroup); ok {
		return "verb-" + v
	}
	return g.Who
}

// Legend is the group's heading in lang.
func (g OfferGroup) Legend(lang string) string {
	switch g.Who {
	case "":
		return T(lang, "free.world")
	case nodesGroup:
		return T(lang, "free.nodes")
	}
	if v, ok := strings.CutPrefix(g.Who, verbGroup); ok {
		if key := "free.verb." + v; T(lang, key) != key {
			return T(lang, key)
		}
		return g.Offers[0].Label.In(lang)
	}
	return fmt.Sprintf(T(lang, "free.client"), g.Who)
}

// Short is the group's name in its folded row, which must stay one line
// for five clients: a client by its name alone (the open group's legend
// says "Client A"), the world without its parenthesis.
func (g OfferGroup) Short(lang string) string {
	switch g.Who {
	case "":
		return T(lang, "free.world.short")
	case nodesGroup:
		return g.Legend(lang)
	}
	if strings.HasPrefix(g.Who, verbGroup) {
		return g.Legend(lang)
	}
	return g.Who
}

// Enabled counts the group's actions that can happen now.
func (g OfferGroup) Enabled() int {
	n := 0
	for _, o := range g.Offers {
		if o.Why == (demo.Text{}) {
			n++
		}
	}
	return n
}

// Label is an offer's face in its group: a node's action names the node,
// as the nodes share one group.
func (g OfferGroup) Label(o demo.Offer, lang string) string {
	if g.Who == nodesGroup {
		return o.Who + " " + o.Label.In(lang)
	}
	if strings.HasPrefix(g.Who, verbGroup) {
		return o.Who // the group's legend says what it does
	}
	return o.Label.In(lang)
}

// OfferGroups groups offers by who acts, in the order the model lists them:
// each client of the cast, then the nodes, then the world. The clients are
// the story, the nodes and the world are what happens to them.
func OfferGroups(sc *demo.Scenario, offers []demo.Offer) []OfferGroup {
	var gs []OfferGroup
	nodes, world := OfferGroup{Who: nodesGroup}, OfferGroup{}
	at := map[string]int{}
	for _, o := range offers {
		switch {
		case o.Who == "":
			world.Offers = append(world.Offers, o)
		case !slices.Contains(sc.Clients, o.Who):
			nodes.Offers = append(nodes.Offers, o)
		default:
			who := o.Who
			if len(sc.Clients) > castInRow {
				who = verbGroup + string(o.Action.Verb)
			}
			i, ok := at[who]
			if !ok {
				i = len(gs)
				at[who] = i
				gs = append(gs, OfferGroup{Who: who})
			}
			gs[i].Offers = append(gs[i].Offers, o)
		}
	}
	for _, g := range []OfferGroup{nodes, world} {
		if len(g.Offers) > 0 {
			gs = append(gs, g)
		}
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
	Built    bool // a learner's build, saved whole for the check command
	YAML     string
	File     string // the download's file name
	Download string // the YAML alone, as a file
	Back     string // the free-play frame it came from
}
