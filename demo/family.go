package demo

import (
	"slices"
	"strings"
)

// StoreKind names what lends the lock in a scenario, as scenarios.yaml's
// "store:" writes it: "lockservice", "redis", "etcd", "database" and so on.
// Each kind belongs to one Family.
type StoreKind string

// Store is what lends the lock in one run: a family's model of a real
// system. The Run plays what every client does alike (writes to the
// resource, pauses, crashes) and hands the store the rest: the commands its
// clients send and what its nodes do. A store reaches the run only through
// the Run's exported methods: the clock, the clients and their beliefs, the
// resource, and Log for the typed events it emits.
type Store interface {
	// Do plays a client's command or a node's action (a verb of the
	// family's table), logging what happened on r.
	Do(r *Run, a Action) error
	// Elapse records what ran out while r's clock moved from since to now.
	Elapse(r *Run, since int)
	// Forever returns a dead client that holds a lock that never expires,
	// or "" when there is none.
	Forever(r *Run) string
	// State is the store as a frame shows it: a copy, safe to keep after
	// the run moves on. The family's panel and transcript read it.
	State(r *Run) any
}

// Family is one self-contained kind of store: its kinds, its verbs, how to
// make a store for a scenario, the lanes it draws and the lines it adds to a
// transcript. A family lives in a package of its own under demo/ and is
// listed once, in package families.
type Family struct {
	Name  string      // the family's name, such as "redis": the key of its panel
	Kinds []StoreKind // the "store:" values it plays
	Unit  string      // the unit of its clock: "tick" or "ms"
	Verbs []VerbSpec  // the verbs its clients and nodes take, beside the engine's own
	New   func(sc *Scenario) Store
	// Nodes names the store's nodes, in order (actions name them); nil for
	// a store that is one service.
	Nodes func(sc *Scenario) []string
	// Lanes are the diagram's store lanes, below the clients' and above the
	// resource's, in order.
	Lanes func(sc *Scenario) []Lane
	// Check fills in the family's defaults for sc and says what is wrong with
	// its family-specific fields; nil when it has none.
	Check func(sc *Scenario) error
	// Transcript writes the store's part of a frame's state block, before
	// the resource and the clients; whole when it wrote the rest too (a
	// database tells its verdict its own way). Nil for a store with no
	// state of its own to tell.
	Transcript func(b *strings.Builder, f *Frame) (whole bool)

	// Offers are the family's actions that make sense in r now, for free
	// play and the finder (see ScriptOffers); the engine adds its own
	// (pause, resume, crash, write, time). Nil for a family with no free
	// play: its scenarios play as scripts only.
	Offers func(r *Run) []Offer
	// Configure sets the store's configuration name to value in sc, for a
	// lab setting that is neither the switch nor a value its lines name
	// (Redis's appendfsync); false when the family has no such setting.
	// Nil: none.
	Configure func(sc *Scenario, name, value string) bool
	// Duty reports whether a client's call a, which the script plays in
	// position on, is made by the client's background thread rather than
	// its program: a renewal that runs while the client holds the lock
	// and runs, and that a pause stops. The finder plays a duty before
	// time passes, as often as the script's rhythm says, rather than
	// choosing when (a verb the store plays even while paused, VerbSpec's
	// Paused, is a duty too). Nil: only those.
	Duty func(sc *Scenario, on bool, a Action) bool
	// Narrate words a free-play action of the family's in both languages;
	// false leaves it to the engine's plain wording. Nil: the engine's.
	Narrate func(sc *Scenario, a Action) (Narration, bool)
	// Short: free play writes the family's client actions as the steps of
	// each client's program, "WHO step K" (ProgramStep), as a database's
	// statements are too long for an address, and the switch changes them.
	Short bool
	// OwnsResource: the store keeps the data the lock is for itself (a
	// database's tables, a modelled account or partition), and its clients
	// change it with the store's own verbs. The engine's resource stands
	// for nothing there, so the engine's write is neither offered nor
	// played.
	OwnsResource bool

	// Failures are the kinds of violation the family's stores find beyond
	// the engine's, registered in its package (NewKind), in the order a
	// legend lists them.
	Failures []ViolationKind
	// Properties are the promises its scenarios may name beyond the
	// engine's (EngineProperties).
	Properties []Property
	// Words tell kinds the family's way, where the engine's words would not
	// be true of its stores: a database that took no lock says "no
	// anomaly" where a lock would say that mutual exclusion held.
	Words map[ViolationKind]Words
}

// Lane is one store lane of the diagram: Key is what spans and marks name
// (a node, or "" for a service with no nodes); Label is its name on
// screen, or Word a message key of the views' table when the name is
// translated.
type Lane struct {
	Key   string
	Label string
	Word  string
}

// Verb returns the family's spec of v for kind k. It reads the specs in
// place rather than copy each one: a run asks for every action it plays,
// and the finder plays one for every step it tries.
func (fam *Family) Verb(k StoreKind, v Verb) (VerbSpec, bool) {
	if s := fam.spec(k, v); s != &noSpec {
		return *s, true
	}
	return VerbSpec{}, false
}

// noSpec is the spec of a verb the family does not take.
var noSpec VerbSpec

// spec is Verb's spec in place, or &noSpec: the engine reads it for every
// action it plays, and a copy of a spec is some hundred bytes.
func (fam *Family) spec(k StoreKind, v Verb) *VerbSpec {
	for i := range fam.Verbs {
		if s := &fam.Verbs[i]; s.Verb == v && (s.Kinds == nil || slices.Contains(s.Kinds, k)) {
			return s
		}
	}
	return &noSpec
}

// Registry is the list of families the engine can play, looked up by kind.
type Registry struct {
	families []*Family
	byKind   map[StoreKind]*Family
}

// NewRegistry lists fams; a kind named twice is a programming error.
func NewRegistry(fams ...*Family) *Registry {
	g := &Registry{families: fams, byKind: map[StoreKind]*Family{}}
	for _, f := range fams {
		for _, k := range f.Kinds {
			if _, dup := g.byKind[k]; dup {
				panic("demo: store kind " + string(k) + " is in two families")
			}
			g.byKind[k] = f
		}
	}
	return g
}

// Family returns the family that plays kind k.
func (g *Registry) Family(k StoreKind) (*Family, bool) {
	f, ok := g.byKind[k]
	return f, ok
}

// Kinds lists every kind, family by family, for messages that name them.
func (g *Registry) Kinds() []StoreKind {
	var ks []StoreKind
	for _, f := range g.families {
		ks = append(ks, f.Kinds...)
	}
	return ks
}

// Families lists the families in order.
func (g *Registry) Families() []*Family { return g.families }
