package demo

import "strconv"

// Text is one piece of prose in both of the demo's languages.
type Text struct {
	JA string
	EN string
}

// Join is t followed by u, in each language.
func (t Text) Join(u Text) Text { return Text{JA: t.JA + u.JA, EN: t.EN + u.EN} }

// In returns the text in lang ("ja" or "en"); anything else gets English.
func (t Text) In(lang string) string {
	if lang == "ja" {
		return t.JA
	}
	return t.EN
}

// Scenario is one script of the lesson. It names its cast and lists the
// moves; it never states an outcome, because the outcome is whatever the
// model computes when the moves are played. Package script reads scenarios
// from scenarios.yaml; the engine only plays them.
type Scenario struct {
	ID string
	// Seed is what the scenario's "random" draws are made from (a Redis
	// lock's value, a retry's delay, a session's id), so that they are
	// the same in every run; "" for its ID (RandomSeed). A scenario saved
	// from another keeps the other's, and so plays the same.
	Seed    string
	Title   Text
	Summary Text // one line of what it teaches
	Lesson  Text // shown at the last frame
	// Sources are the primary texts the lesson rests on, listed with it,
	// so a reader can check the lesson against them.
	Sources []Source

	// Purpose and Topology group the scenarios as the texts do: a lock for
	// efficiency or for correctness; one node, a replicated pair, a quorum
	// of independent nodes, or a consensus-backed lock service.
	Purpose  string
	Topology string

	Switch        string   // the one switch the scenario flips: its name in the URL
	SwitchAliases []string // its former names, which older links still use
	SwitchLabel   Text     // its name on screen
	Default       bool     // its position when the URL does not say

	Store   StoreKind // what lends the lock
	Family  *Family   // the family that plays Store, set by the loader
	Nodes   int       // redlock: how many nodes
	Latency int       // redlock: ms a reachable node takes to answer
	Timeout int       // redlock: ms the client waits for a node before giving up
	Pool    int       // database: server connections behind a transaction-mode pooler; 0 for none
	// Appendfsync is Redis's: "always" when every node writes each write to
	// its append-only file and fsyncs it before it answers, so that a node
	// that dies and starts again comes back with its keys; "" (or "no")
	// for the demo's nodes, which persist nothing.
	Appendfsync string
	// MaxConns is the database's max_connections: a client connects at its
	// first statement and is refused once that many are open; 0 for no limit.
	MaxConns int

	Resource string // the protected resource's name
	Fencing  string // "on", "off", or "switch": the switch decides
	Clients  []string

	// Scripts are the scenario's named scripts, which its actions run by
	// name (a Redis client's EVAL); nil for none.
	Scripts []Script

	Setup   []Action  // actions played before frame 1, unseen
	Initial Narration // narration of frame 1, before any move
	Moves   []Move

	// Property is the promise the switch is about, which the finder looks
	// for a way to break (Promise); "" for none. Expect is what the
	// scenario says it shows with the switch off ([0]) and on ([1]): its
	// verdict, its answers, what the finder finds (expect.go). Guide names
	// the places of the guide that link to it.
	Property string
	Expect   [2]Expected
	Guide    GuideLinks

	// Sometimes names a sometimes property (the work gets done) the judge
	// holds a fix to beside Property, so that a fix that stops everyone is
	// told from a fix; "" for none. TimeBound bounds how far the judge
	// lets time move; 0 for no bound but the depth. TimeSteps, when set,
	// are the only amounts the judge lets time move by at a time (a lab's
	// lease), so that a search with a lease of 10 s does not also try
	// every way of making it up of the script's half seconds.
	Sometimes string
	TimeBound int
	TimeSteps []int
	// Lab is what a learner may build in the scenario; nil for none. Built
	// is the build a scenario was made from by Apply (Build.String), ""
	// for a scenario as its file writes it.
	Lab   *Lab
	Built string
	// Challenges are the tasks set in the scenario (challenge.go): break
	// its property from a frame, or fix its lab.
	Challenges []Challenge

	// Horizon is the latest time any frame shows in either switch position,
	// worked out by Rehearse, so a drawing can keep one scale for every frame.
	Horizon int
}

// Source is one primary text: its title in both languages and its address.
type Source struct {
	Title Text
	URL   string
}

// Narration is the title and text shown with a frame.
type Narration struct {
	Title Text
	Text  Text
}

// Move is one click of the Step button: narration plus the actions it plays.
// Where the switch changes what a client does, TitleOn or TitleOff replaces
// the title and TextOn or TextOff the text for that position: each still
// says what is done, never the outcome, and must be true where it is shown.
type Move struct {
	Narration
	TitleOn, TitleOff *Text
	TextOn, TextOff   *Text
	Do                []Action
	// Predict is the question asked before the move plays, or nil
	// (predict.go).
	Predict *Prediction
}

// narration returns the move's narration for the switch position on.
func (m Move) narration(on bool) Narration {
	n := m.Narration
	title, text := m.TitleOff, m.TextOff
	if on {
		title, text = m.TitleOn, m.TextOn
	}
	if title != nil {
		n.Title = *title
	}
	if text != nil {
		n.Text = *text
	}
	return n
}

// RandomSeed is what sc's "random" draws are made from: its Seed, or
// else its ID.
func (sc *Scenario) RandomSeed() string {
	if sc.Seed != "" {
		return sc.Seed
	}
	return sc.ID
}

// Frames is the number of frames: the initial one plus one per move.
func (sc *Scenario) Frames() int { return len(sc.Moves) + 1 }

// Unit is the scenario's unit of time: "tick" for the chapter's lock
// service, "ms" where the real system's commands count milliseconds.
func (sc *Scenario) Unit() string { return sc.Family.Unit }

// NodeNames returns the names of the store's nodes, in order; none for a
// store that is one service.
func (sc *Scenario) NodeNames() []string {
	if sc.Family.Nodes == nil {
		return nil
	}
	return sc.Family.Nodes(sc)
}

// Rehearse plays sc to its end in both switch positions and records its
// Horizon. A scenario that rehearses always plays; an action that cannot be
// played where it stands comes back as an *ActionError, so a loader can say
// on which line of its file the mistake is.
func Rehearse(sc *Scenario) error { return RehearseEach(sc, nil) }

// RehearseEach is Rehearse that also shows the run at each frame after the
// first, in each position, to each (a loader's check of what the frames
// say), in the same plays: the first error each returns is RehearseEach's,
// unless a play fails, which comes first.
func RehearseEach(sc *Scenario, each func(r *Run) error) error {
	horizon := 0
	var seen [2]error // each's first error with the switch off, then on
	for _, on := range []bool{true, false} {
		r := NewRun(sc, on)
		for r.Step() {
			if each != nil && seen[boolIndex(on)] == nil {
				seen[boolIndex(on)] = each(r)
			}
		}
		if err := r.Err(); err != nil {
			return err
		}
		horizon = max(horizon, r.now)
	}
	sc.Horizon = horizon
	if seen[0] != nil {
		return seen[0]
	}
	return seen[1]
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Catalog is every scenario of a script, in the script's order.
type Catalog struct {
	Scenarios []*Scenario
	byID      map[string]*Scenario
}

// NewCatalog indexes scenarios by id. It does not check them: that is the
// loader's job, before it calls Rehearse and then NewCatalog.
func NewCatalog(scenarios []*Scenario) (*Catalog, error) {
	c := &Catalog{Scenarios: scenarios, byID: make(map[string]*Scenario, len(scenarios))}
	for _, sc := range scenarios {
		if _, dup := c.byID[sc.ID]; dup {
			return nil, &DuplicateError{ID: sc.ID}
		}
		c.byID[sc.ID] = sc
	}
	return c, nil
}

// DuplicateError names the id that two scenarios share.
type DuplicateError struct{ ID string }

func (e *DuplicateError) Error() string {
	return "scenario id " + strconv.Quote(e.ID) + " appears twice"
}

// Get returns the scenario with the given id.
func (c *Catalog) Get(id string) (*Scenario, bool) {
	sc, ok := c.byID[id]
	return sc, ok
}

// IDs returns the scenario ids in the file's order.
func (c *Catalog) IDs() []string {
	ids := make([]string, len(c.Scenarios))
	for i, sc := range c.Scenarios {
		ids[i] = sc.ID
	}
	return ids
}
