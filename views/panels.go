package views

import (
	"github.com/a-h/templ"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/backoff"
	"github.com/distlock/fencing-demo/demo/consensus"
	"github.com/distlock/fencing-demo/demo/eventlog"
	"github.com/distlock/fencing-demo/demo/lockservice"
	"github.com/distlock/fencing-demo/demo/partition"
	"github.com/distlock/fencing-demo/demo/redis"
	"github.com/distlock/fencing-demo/demo/sql"
)

// Panel is how the page draws one store family: its panels, and the
// sentences of its events. A family's panel is one line of the registry
// below, and its component and sentences live in a file of their own
// (lockservice.templ, redis.templ, consensus.templ, database.templ).
type Panel struct {
	// Store draws the store's state. Unless Whole, the resource's and the
	// clients' panels follow it.
	Store func(d Demo) templ.Component
	// Whole: Store draws the whole row (a database's tables are the
	// resource, and its connections the clients).
	Whole bool
	// Wide: the store's panel takes the wide grid (a table of nodes).
	Wide bool
	// Describe says one of the family's events in a sentence of lang; false
	// for an event it does not know.
	Describe func(lang string, f demo.Frame, e demo.Event) (string, bool)
	// Reply says, in lang, what happened to a command that got no answer;
	// false where the wire's own reply stands. Nil for none.
	Reply func(lang string, e demo.Event) (string, bool)
	// Checked names the line that says which real server the scenario's
	// commands were checked against; nil where nothing checks them (the
	// chapter's own lock service, Consul, which Debian does not package).
	Checked func(sc *demo.Scenario) string
	// Cost says what the lock cost the store in a frame where it held (a
	// herd's watch notifications); "" or nil for nothing to say.
	Cost func(lang string, f demo.Frame) string
	// Stage draws in the diagram's place beside the narration (a chart of
	// calls per slot); nil: the space-time diagram.
	Stage func(d Demo) templ.Component
}

// familyPanels is the registry: one line per family.
var familyPanels = map[*demo.Family]Panel{
	lockservice.Family: {Store: lockPanel, Describe: describeLock},
	redis.Family:       {Store: nodesPanel, Wide: true, Describe: describeRedis, Reply: redisReply, Checked: redisChecked},
	consensus.Family:   {Store: consensusPanel, Wide: true, Describe: describeCoord, Checked: coordChecked, Cost: coordCost},
	sql.Family:         {Store: databasePanels, Whole: true, Describe: describeSQL, Checked: sqlChecked},
	eventlog.Family:    {Store: eventLogPanels, Whole: true, Describe: describeLog},
	partition.Family:   {Store: partitionPanels, Whole: true, Describe: describePartition},
	backoff.Family:     {Store: backoffPanels, Whole: true, Stage: backoffChart, Describe: describeBackoff},
}

// RegisterPanel adds the panel of a family of one's own, for a program that
// loads scenarios of that family (script.LoadWith). Call it before serving.
func RegisterPanel(fam *demo.Family, p Panel) { familyPanels[fam] = p }

// HasPanel reports whether fam has a panel: a family without one would
// show its resource and clients only, which no family of the demo's does.
func HasPanel(fam *demo.Family) bool {
	_, ok := familyPanels[fam]
	return ok
}

// OwnsResource reports whether the scenario's store draws its own resource
// (a database's tables, a modelled account or partition) in place of the
// engine's resource and clients.
func OwnsResource(sc *demo.Scenario) bool { return familyPanels[sc.Family].Whole }

// panelOf is the panel of the frame's family; a family with none shows the
// resource and the clients only.
func panelOf(d Demo) Panel { return familyPanels[d.Sc().Family] }
