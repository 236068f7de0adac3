package demo

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
)

// Text is one piece of prose in both of the demo's languages.
type Text struct {
	JA string `yaml:"ja"`
	EN string `yaml:"en"`
}

// In returns the text in lang ("ja" or "en"); anything else gets English.
func (t Text) In(lang string) string {
	if lang == "ja" {
		return t.JA
	}
	return t.EN
}

// Scenario is one script of the lesson, read from scenarios.yaml. It names its
// cast and lists the moves; it never states an outcome, because the outcome is
// whatever the model computes when the moves are played.
type Scenario struct {
	ID      string `yaml:"id"`
	Title   Text   `yaml:"title"`
	Summary Text   `yaml:"summary"` // one line of what it teaches
	Lesson  Text   `yaml:"lesson"`  // shown at the last frame

	// Purpose and Topology group the scenarios as the texts do: a lock for
	// efficiency or for correctness; one node, a replicated pair, a quorum
	// of independent nodes, or a consensus-backed lock service.
	Purpose  string `yaml:"purpose"`
	Topology string `yaml:"topology"`

	Switch      string `yaml:"switch"`       // the one switch the scenario flips: its name in the URL
	SwitchLabel Text   `yaml:"switch-label"` // its name on screen
	Default     bool   `yaml:"default"`      // its position when the URL does not say

	// Store is what lends the lock: "lockservice" (the chapter's LockService,
	// time in ticks), "redis" (one node), "replicated" (a primary and an
	// asynchronous replica) or "redlock" (Nodes independent nodes). Redis
	// stores count time in milliseconds.
	Store   string `yaml:"store"`
	Nodes   int    `yaml:"nodes"`   // redlock: how many nodes (5 unless said)
	Latency int    `yaml:"latency"` // redlock: ms a reachable node takes to answer
	Timeout int    `yaml:"timeout"` // redlock: ms the client waits for a node before giving up

	Resource string   `yaml:"resource"` // the protected resource's name
	Fencing  string   `yaml:"fencing"`  // "on", "off", or "switch": the switch decides
	Clients  []string `yaml:"clients"`

	Setup   []Action  `yaml:"setup"`   // actions played before frame 1, unseen
	Initial Narration `yaml:"initial"` // narration of frame 1, before any move
	Moves   []Move    `yaml:"moves"`

	// Horizon is the latest time any frame shows in either switch position,
	// worked out by Load, so a drawing can keep one scale for every frame.
	Horizon int `yaml:"-"`

	logs [2]story // the events of each switch position, recorded by Load for runs to share
}

// Narration is the title and text shown with a frame.
type Narration struct {
	Title Text `yaml:"title"`
	Text  Text `yaml:"text"`
}

// Move is one click of the Step button: narration plus the actions it plays.
// Where the switch changes what a client does, TextOn or TextOff replaces
// the text for that position; it still says what is done, never the outcome.
type Move struct {
	Narration `yaml:",inline"`
	TextOn    *Text    `yaml:"text-on"`
	TextOff   *Text    `yaml:"text-off"`
	Do        []Action `yaml:"do"`
}

// narration returns the move's narration for the switch position on.
func (m Move) narration(on bool) Narration {
	n := m.Narration
	if on && m.TextOn != nil {
		n.Text = *m.TextOn
	}
	if !on && m.TextOff != nil {
		n.Text = *m.TextOff
	}
	return n
}

// Frames is the number of frames: the initial one plus one per move.
func (sc *Scenario) Frames() int { return len(sc.Moves) + 1 }

// Unit is the scenario's unit of time: "tick" for the lock service, "ms"
// for the Redis family, whose TTLs the real commands give in milliseconds.
func (sc *Scenario) Unit() string {
	if sc.Store == "lockservice" {
		return "tick"
	}
	return "ms"
}

// NodeNames returns the names of the store's nodes, in order; none for the
// lock service.
func (sc *Scenario) NodeNames() []string {
	switch sc.Store {
	case "redis":
		return []string{"redis"}
	case "replicated":
		return []string{"primary", "replica"}
	case "redlock":
		names := make([]string, sc.Nodes)
		for i := range names {
			names[i] = "redis" + strconv.Itoa(i+1)
		}
		return names
	}
	return nil
}

// Verb is what an action does.
type Verb string

// The actions. Each names who does it first: a client, a node, or nobody
// (tick). The comments give the form written in scenarios.yaml.
const (
	Tick Verb = "tick" // tick N: the clock moves N forward

	// Any client.
	Write  Verb = "write"  // C write VALUE: with the token (or value) C believes it holds
	Pause  Verb = "pause"  // C pause: a stop-the-world GC, say; C does nothing until resume
	Resume Verb = "resume" // C resume: C carries on, believing what it believed before
	Crash  Verb = "crash"  // C crash: C dies and never comes back
	Cut    Verb = "cut"    // C cut NODE...: the network drops C's packets to those nodes
	Heal   Verb = "heal"   // C heal: C reaches every node again

	// A client of the lock service.
	Acquire Verb = "acquire" // C acquire LEASE
	Renew   Verb = "renew"   // C renew LEASE
	Release Verb = "release" // C release

	// A client of one Redis node or a replicated pair (the primary answers).
	Set    Verb = "set"    // C set KEY nx [px MS]: SET KEY <random value> NX [PX MS]
	SetNX  Verb = "setnx"  // C setnx KEY: SETNX KEY <random value>
	Expire Verb = "expire" // C expire KEY SECONDS
	Del    Verb = "del"    // C del KEY: a plain DEL, whoever's lock it is
	Unlock Verb = "unlock" // C unlock KEY: the compare-and-delete script
	Extend Verb = "extend" // C extend KEY MS: renew the TTL if the lock is still C's (Redisson's watchdog)
	Wait   Verb = "wait"   // C wait NUMREPLICAS TIMEOUT

	// A client of Redlock.
	Redlock       Verb = "redlock"        // C redlock KEY px MS: the whole Redlock acquisition
	RedlockUnlock Verb = "redlock-unlock" // C redlock-unlock KEY: the script on every node

	// A node ("all" for every node).
	Down      Verb = "down"      // NODE down: it stops answering and loses what it had not persisted
	Up        Verb = "up"        // NODE up
	Jump      Verb = "jump"      // NODE jump MS: its wall clock jumps forward
	Promote   Verb = "promote"   // NODE promote: the replica becomes the primary
	Replicate Verb = "replicate" // NODE replicate: the primary ships what the replica lacks
	Monotonic Verb = "monotonic" // NODE monotonic: TTLs count elapsed time, not the wall clock
)

// verbs says, for each verb, who performs it and with which store.
var verbs = map[Verb]struct {
	node   bool     // performed by a node, not a client
	stores []string // the stores it works with; nil for any
}{
	Write: {}, Pause: {}, Resume: {}, Crash: {},
	Cut:     {stores: []string{"redlock"}},
	Heal:    {stores: []string{"redlock"}},
	Acquire: {stores: []string{"lockservice"}},
	Renew:   {stores: []string{"lockservice"}},
	Release: {stores: []string{"lockservice"}},
	Set:     {stores: []string{"redis", "replicated"}},
	SetNX:   {stores: []string{"redis", "replicated"}},
	Expire:  {stores: []string{"redis", "replicated"}},
	Del:     {stores: []string{"redis", "replicated"}},
	Unlock:  {stores: []string{"redis", "replicated"}},
	Extend:  {stores: []string{"redis", "replicated"}},
	Wait:    {stores: []string{"replicated"}},
	Redlock: {stores: []string{"redlock"}}, RedlockUnlock: {stores: []string{"redlock"}},
	Down:      {node: true, stores: []string{"redis", "replicated", "redlock"}},
	Up:        {node: true, stores: []string{"redis", "replicated", "redlock"}},
	Jump:      {node: true, stores: []string{"redis", "replicated", "redlock"}},
	Monotonic: {node: true, stores: []string{"redis", "replicated", "redlock"}},
	Promote:   {node: true, stores: []string{"replicated"}},
	Replicate: {node: true, stores: []string{"replicated"}},
}

// Action is one line of a move, such as "A acquire 10" or "tick 3". When
// is "on" or "off" for an action played in one switch position only. Line
// is its line in scenarios.yaml, so that a mistake can be reported where it is.
type Action struct {
	Who    string // a client or a node; "" for tick
	Verb   Verb
	N      int      // the lease, TTL, tick, jump or replica count
	M      int      // a second number: WAIT's timeout
	NX     bool     // set: only if the key does not exist
	Key    string   // the Redis key
	Value  string   // what a write writes
	Nodes  []string // cut: the nodes cut off
	When   string   // "", "on" or "off"
	Line   int
	Source string // the line as written
}

func (a Action) String() string { return a.Source }

// UnmarshalYAML reads an action from its one-line form, or from a one-entry
// map {if-on: ACTION} or {if-off: ACTION}, and keeps the line number.
func (a *Action) UnmarshalYAML(node ast.Node) error {
	line := node.GetToken().Position.Line
	var s, when string
	if err := yaml.NodeToValue(node, &s); err != nil {
		var m map[string]string
		if err := yaml.NodeToValue(node, &m); err != nil || len(m) != 1 {
			return &lineError{line: line, msg: "an action is one line of text, or {if-on: ACTION} or {if-off: ACTION}"}
		}
		for k, v := range m {
			switch k {
			case "if-on":
				when = "on"
			case "if-off":
				when = "off"
			default:
				return &lineError{line: line, msg: fmt.Sprintf("%q: a conditional action is if-on or if-off", k)}
			}
			s = v
		}
	}
	parsed, err := parseAction(s)
	if err != nil {
		// The YAML library does not know the line of an error we return, so the
		// error carries it.
		return &lineError{line: line, msg: err.Error()}
	}
	parsed.Line, parsed.When = line, when
	*a = parsed
	return nil
}

// maxNumber bounds every number in a script: a billion milliseconds is
// eleven days, far more than any lock needs, and far from overflowing.
const maxNumber = 1_000_000_000

func number(s, what string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > maxNumber {
		return 0, fmt.Errorf("the %s %q is not a whole number from 0 to %d", what, s, maxNumber)
	}
	return n, nil
}

func parseAction(s string) (Action, error) {
	f := strings.Fields(s)
	a := Action{Source: strings.Join(f, " ")}
	wrap := func(err error) (Action, error) { return a, fmt.Errorf("%q: %w", a.Source, err) }
	if len(f) == 0 {
		return a, errors.New("empty action")
	}
	if f[0] == string(Tick) {
		if len(f) != 2 {
			return wrap(errors.New(`want "tick N"`))
		}
		n, err := number(f[1], "tick")
		if err != nil {
			return wrap(err)
		}
		a.Verb, a.N = Tick, n
		return a, nil
	}
	if len(f) < 2 {
		return wrap(errors.New(`want "WHO VERB ..." or "tick N"`))
	}
	a.Who, a.Verb = f[0], Verb(strings.ToLower(f[1]))
	args := f[2:]
	want := func(form string) (Action, error) {
		return wrap(fmt.Errorf("want %q", a.Who+" "+string(a.Verb)+form))
	}
	var err error
	switch a.Verb {
	case Acquire, Renew:
		if len(args) != 1 {
			return want(" LEASE")
		}
		a.N, err = strconv.Atoi(args[0]) // below 1 is allowed: the lock service counts it as 1
		if err != nil || a.N > maxNumber || a.N < -maxNumber {
			return wrap(fmt.Errorf("the lease %q is not a whole number of at most %d", args[0], maxNumber))
		}
	case Jump:
		if len(args) != 1 {
			return want(" MS")
		}
		a.N, err = number(args[0], "jump")
	case Write:
		if len(args) != 1 {
			return want(" VALUE (one word)")
		}
		a.Value = args[0]
	case Release, Pause, Resume, Crash, Heal, Down, Up, Promote, Replicate, Monotonic:
		if len(args) != 0 {
			return wrap(fmt.Errorf("%s takes no arguments", a.Verb))
		}
	case Cut:
		if len(args) == 0 {
			return want(" NODE...")
		}
		a.Nodes = args
	case Set:
		// SET KEY NX [PX MS]: the options in either case, as Redis takes them.
		if len(args) < 1 {
			return want(" KEY nx [px MS]")
		}
		a.Key = args[0]
		for i := 1; i < len(args); i++ {
			switch strings.ToLower(args[i]) {
			case "nx":
				a.NX = true
			case "px":
				if i+1 >= len(args) {
					return want(" KEY nx [px MS]")
				}
				i++
				if a.N, err = number(args[i], "PX"); err == nil && a.N == 0 {
					err = errors.New("PX must be at least 1 ms")
				}
			default:
				return wrap(fmt.Errorf("unknown SET option %q (this demo knows NX and PX)", args[i]))
			}
		}
	case SetNX, Del, Unlock, RedlockUnlock:
		if len(args) != 1 {
			return want(" KEY")
		}
		a.Key = args[0]
	case Expire, Extend:
		if len(args) != 2 {
			return want(" KEY N")
		}
		a.Key = args[0]
		if a.N, err = number(args[1], "TTL"); err == nil && a.N == 0 {
			err = errors.New("the TTL must be at least 1")
		}
	case Wait:
		if len(args) != 2 {
			return want(" NUMREPLICAS TIMEOUT")
		}
		if a.N, err = number(args[0], "replica count"); err == nil {
			a.M, err = number(args[1], "timeout")
		}
	case Redlock:
		if len(args) != 3 || strings.ToLower(args[1]) != "px" {
			return want(" KEY px MS")
		}
		a.Key = args[0]
		if a.N, err = number(args[2], "PX"); err == nil && a.N == 0 {
			err = errors.New("PX must be at least 1 ms")
		}
	default:
		known := make([]string, 0, len(verbs))
		for v := range verbs {
			known = append(known, string(v))
		}
		slices.Sort(known)
		return wrap(fmt.Errorf("unknown action %q (known: tick, %s)", a.Verb, strings.Join(known, ", ")))
	}
	if err != nil {
		return wrap(err)
	}
	return a, nil
}

// Catalog is every scenario of scenarios.yaml, in the file's order.
type Catalog struct {
	Scenarios []*Scenario
	byID      map[string]*Scenario
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

// LoadError says where scenarios.yaml is wrong.
type LoadError struct {
	File string
	Line int // 0 when the mistake has no one line
	Msg  string
}

func (e *LoadError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Load reads and checks scenarios. file names the source in error messages.
// Besides the shape of the YAML it checks what only a replay shows (an action
// by a client that is paused at that point, say), by playing every scenario to
// its end in both switch positions: a scenario that loads always plays.
func Load(file string, data []byte) (c *Catalog, err error) {
	// The YAML library can panic on some malformed input (goccy/go-yaml
	// issue 735, fixed upstream after v1.19.2): a bad file must still be
	// an error that names the file, never a crash.
	defer func() {
		if p := recover(); p != nil {
			c, err = nil, &LoadError{File: file, Msg: fmt.Sprintf("the YAML could not be read (%v)", p)}
		}
	}()
	var doc struct {
		Scenarios []*Scenario `yaml:"scenarios"`
	}
	if err := yaml.UnmarshalWithOptions(data, &doc, yaml.Strict()); err != nil {
		return nil, yamlError(file, err)
	}
	if len(doc.Scenarios) == 0 {
		return nil, &LoadError{File: file, Msg: "no scenarios: the file needs a list under \"scenarios:\""}
	}
	c = &Catalog{Scenarios: doc.Scenarios, byID: map[string]*Scenario{}}
	for i, sc := range doc.Scenarios {
		if sc == nil {
			return nil, &LoadError{File: file, Msg: fmt.Sprintf("scenario %d is empty", i+1)}
		}
		if err := check(sc); err != nil {
			return nil, &LoadError{File: file, Line: err.line, Msg: fmt.Sprintf("scenario %q: %s", sc.ID, err.msg)}
		}
		if _, dup := c.byID[sc.ID]; dup {
			return nil, &LoadError{File: file, Msg: fmt.Sprintf("scenario id %q appears twice", sc.ID)}
		}
		c.byID[sc.ID] = sc
	}
	return c, nil
}

type checkError struct {
	line int
	msg  string
}

var (
	stores     = []string{"lockservice", "redis", "replicated", "redlock"}
	purposes   = []string{"efficiency", "correctness"}
	topologies = []string{"single", "replicated", "quorum", "consensus"}
)

// check fills in defaults and finds what is wrong with sc.
func check(sc *Scenario) *checkError {
	fail := func(line int, format string, args ...any) *checkError {
		return &checkError{line: line, msg: fmt.Sprintf(format, args...)}
	}
	if !validID(sc.ID) {
		return fail(0, "the id must be lower-case letters, digits and dashes")
	}
	if sc.Switch == "" || !validID(sc.Switch) {
		return fail(0, "the switch needs a name of lower-case letters, digits and dashes")
	}
	if sc.Store == "" {
		sc.Store = "lockservice"
	}
	if !slices.Contains(stores, sc.Store) {
		return fail(0, "store %q: want one of %s", sc.Store, strings.Join(stores, ", "))
	}
	if !slices.Contains(purposes, sc.Purpose) {
		return fail(0, "purpose %q: want one of %s", sc.Purpose, strings.Join(purposes, ", "))
	}
	if !slices.Contains(topologies, sc.Topology) {
		return fail(0, "topology %q: want one of %s", sc.Topology, strings.Join(topologies, ", "))
	}
	if sc.Store == "redlock" {
		if sc.Nodes == 0 {
			sc.Nodes = 5
		}
		if sc.Nodes < 1 || sc.Nodes > 9 {
			return fail(0, "nodes: %d; Redlock here takes 1 to 9 nodes", sc.Nodes)
		}
		if sc.Latency == 0 {
			sc.Latency = 2
		}
		if sc.Timeout == 0 {
			sc.Timeout = 50
		}
		if sc.Latency < 0 || sc.Timeout < 0 || sc.Latency > 10000 || sc.Timeout > 10000 {
			return fail(0, "latency and timeout are milliseconds from 1 to 10000")
		}
	} else if sc.Nodes != 0 || sc.Latency != 0 || sc.Timeout != 0 {
		return fail(0, "nodes, latency and timeout are for the redlock store only")
	}
	switch sc.Fencing {
	case "":
		sc.Fencing = "off"
	case "on", "off", "switch":
	default:
		return fail(0, "fencing %q: want on, off or switch", sc.Fencing)
	}
	if sc.Resource == "" {
		return fail(0, "no resource")
	}
	if len(sc.Clients) == 0 {
		return fail(0, "no clients")
	}
	nodes := sc.NodeNames()
	for i, c := range sc.Clients {
		if c == string(Tick) || c == "all" || strings.ContainsAny(c, " \t") ||
			slices.Contains(sc.Clients[:i], c) || slices.Contains(nodes, c) {
			return fail(0, "client %q: names must be unique, one word, not a node's name, and not \"tick\" or \"all\"", c)
		}
	}
	for _, t := range []struct {
		what string
		text Text
	}{
		{"title", sc.Title}, {"summary", sc.Summary}, {"lesson", sc.Lesson}, {"switch-label", sc.SwitchLabel},
		{"initial title", sc.Initial.Title}, {"initial text", sc.Initial.Text},
	} {
		if err := complete(t.what, t.text); err != "" {
			return fail(0, "%s", err)
		}
	}
	if len(sc.Moves) == 0 {
		return fail(0, "no moves")
	}
	checkActions := func(as []Action) *checkError {
		for _, a := range as {
			if a.Verb == Tick {
				continue
			}
			v := verbs[a.Verb]
			if v.node {
				if a.Who != "all" && !slices.Contains(nodes, a.Who) {
					return fail(a.Line, "%q: unknown node %q (nodes: %s)", a.Source, a.Who, orNone(nodes))
				}
			} else if !slices.Contains(sc.Clients, a.Who) {
				return fail(a.Line, "%q: unknown client %q (clients: %s)", a.Source, a.Who, strings.Join(sc.Clients, ", "))
			}
			if v.stores != nil && !slices.Contains(v.stores, sc.Store) {
				return fail(a.Line, "%q: %s does not apply to the %s store", a.Source, a.Verb, sc.Store)
			}
			for _, n := range a.Nodes {
				if !slices.Contains(nodes, n) {
					return fail(a.Line, "%q: unknown node %q (nodes: %s)", a.Source, n, orNone(nodes))
				}
			}
		}
		return nil
	}
	if err := checkActions(sc.Setup); err != nil {
		return err
	}
	for i, m := range sc.Moves {
		line := 0
		if len(m.Do) > 0 {
			line = m.Do[0].Line
		}
		texts := []struct {
			what string
			text Text
		}{{"title", m.Title}, {"text", m.Text}}
		if m.TextOn != nil {
			texts = append(texts, struct {
				what string
				text Text
			}{"text-on", *m.TextOn})
		}
		if m.TextOff != nil {
			texts = append(texts, struct {
				what string
				text Text
			}{"text-off", *m.TextOff})
		}
		for _, t := range texts {
			if err := complete(fmt.Sprintf("move %d %s", i+1, t.what), t.text); err != "" {
				return fail(line, "%s", err)
			}
		}
		if len(m.Do) == 0 {
			return fail(0, "move %d does nothing: it needs a \"do:\" list", i+1)
		}
		if err := checkActions(m.Do); err != nil {
			return err
		}
	}
	var logs [2]story
	for _, on := range []bool{true, false} {
		r := NewRun(sc, on)
		var log story
		for {
			log.ends = append(log.ends, len(r.events))
			if !r.Step() {
				break
			}
		}
		log.events = r.events
		sc.Horizon = max(sc.Horizon, r.now)
		if err := r.Err(); err != nil {
			var ae *ActionError
			if errors.As(err, &ae) {
				return fail(ae.Action.Line, "%s", ae.Error())
			}
			return fail(0, "%s", err)
		}
		logs[b2i(on)] = log
	}
	sc.logs = logs // shared only once both positions played to the end
	return nil
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none: the lock service has no nodes"
	}
	return strings.Join(names, ", ")
}

func complete(what string, t Text) string {
	switch {
	case t.JA == "" && t.EN == "":
		return what + " is missing"
	case t.JA == "":
		return what + " has no Japanese (ja)"
	case t.EN == "":
		return what + " has no English (en)"
	}
	return ""
}

func validID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// lineError is a mistake found while decoding, with the line it is on.
type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string { return e.msg }

// yamlError turns the YAML library's error into a LoadError with the line.
func yamlError(file string, err error) error {
	var le *lineError
	if errors.As(err, &le) {
		return &LoadError{File: file, Line: le.line, Msg: le.msg}
	}
	var ye yaml.Error
	if errors.As(err, &ye) {
		line := 0
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			line = tk.Position.Line
		}
		return &LoadError{File: file, Line: line, Msg: ye.GetMessage()}
	}
	return &LoadError{File: file, Msg: err.Error()}
}
