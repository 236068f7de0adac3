package script

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// checkError is a mistake in one scenario, with its line when it has one.
type checkError struct {
	line int
	msg  string
}

func (e *checkError) Error() string { return e.msg }

// in is the mistake as a LoadError of scenario id in file.
func (e *checkError) in(file, id string) *LoadError {
	return &LoadError{File: file, Line: e.line, ID: id, Msg: fmt.Sprintf("scenario %q: %s", id, e.msg)}
}

func fail(line int, format string, args ...any) *checkError {
	return &checkError{line: line, msg: fmt.Sprintf(format, args...)}
}

var (
	purposes   = []string{"efficiency", "correctness"}
	topologies = []string{"single", "replicated", "quorum", "consensus", "database", "nolock"}
)

// check fills in defaults and finds what is wrong with sc, one concern at a
// time: its names, its store, its grouping, its cast, its prose, its
// actions, whether it plays, and last whether its narration is true in
// both positions. What the model shows against what the scenario states it
// shows (its expect:) is not a mistake in the file's shape: those are
// returned apart, all of them, as differs.
func check(reg *demo.Registry, s *scenario, sc *demo.Scenario) (differs []*checkError, err *checkError) {
	if err := checkNames(sc); err != nil {
		return nil, err
	}
	if err := checkStore(reg, sc); err != nil {
		return nil, err
	}
	if err := s.actions(reg, sc); err != nil {
		return nil, err
	}
	if err := checkProperty(sc); err != nil {
		return nil, err
	}
	for _, c := range []func(*demo.Scenario) *checkError{
		checkGrouping, checkCast, checkTexts, checkSources, checkMoves, checkPredictions, checkExpect,
	} {
		if err := c(sc); err != nil {
			return nil, err
		}
	}
	differs, err = checkPlays(sc)
	if err != nil {
		return nil, err
	}
	if err := checkLab(sc, s.labLine()); err != nil {
		return nil, err
	}
	if err := checkChallenges(sc); err != nil {
		return nil, err
	}
	return differs, nil
}

// labLine is the line of the scenario's lab, for its mistakes.
func (s *scenario) labLine() int {
	if s.Lab == nil {
		return 0
	}
	return s.Lab.line
}

// checkNames: the id and the switch name travel in URLs.
func checkNames(sc *demo.Scenario) *checkError {
	if !validID(sc.ID) {
		return fail(0, "the id must be lower-case letters, digits and dashes")
	}
	if sc.Seed != "" && !validID(sc.Seed) {
		return fail(0, "seed %q: the id of the scenario whose draws it repeats, of lower-case letters, digits and dashes", sc.Seed)
	}
	if sc.Switch == "" || !validID(sc.Switch) {
		return fail(0, "the switch needs a name of lower-case letters, digits and dashes")
	}
	for _, old := range sc.SwitchAliases {
		if !validID(old) || old == sc.Switch {
			return fail(0, "switch-aliases: %q must be a former name of lower-case letters, digits and dashes, not the switch's own", old)
		}
	}
	return nil
}

// checkStore: the store kind and its family, which fills in its defaults
// (Redlock's five nodes, say) and checks its own fields.
func checkStore(reg *demo.Registry, sc *demo.Scenario) *checkError {
	if sc.Store == "" {
		sc.Store = "lockservice"
	}
	fam, ok := reg.Family(sc.Store)
	if !ok {
		kinds := make([]string, 0, len(reg.Kinds()))
		for _, k := range reg.Kinds() {
			kinds = append(kinds, string(k))
		}
		return fail(0, "store %q: want one of %s", sc.Store, strings.Join(kinds, ", "))
	}
	sc.Family = fam
	if err := checkScripts(sc); err != nil {
		return err
	}
	if fam.Check == nil {
		if sc.Pool != 0 || sc.MaxConns != 0 {
			return fail(0, "pool and max-connections are for the database store only")
		}
		if sc.Nodes != 0 || sc.Latency != 0 || sc.Timeout != 0 {
			return fail(0, "nodes, latency and timeout are for the redlock store only")
		}
		return nil
	}
	if err := fam.Check(sc); err != nil {
		return scriptFail(sc, err)
	}
	return nil
}

// checkGrouping: the purpose and topology that place it on the index.
func checkGrouping(sc *demo.Scenario) *checkError {
	if !slices.Contains(purposes, sc.Purpose) {
		return fail(0, "purpose %q: want one of %s", sc.Purpose, strings.Join(purposes, ", "))
	}
	if !slices.Contains(topologies, sc.Topology) {
		return fail(0, "topology %q: want one of %s", sc.Topology, strings.Join(topologies, ", "))
	}
	return nil
}

// checkCast: the fencing, the resource and the clients, whose names must
// not be confused with a node's or with the words "tick" and "all".
func checkCast(sc *demo.Scenario) *checkError {
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
		if c == string(demo.Tick) || c == "all" || strings.ContainsAny(c, " \t#") ||
			slices.Contains(sc.Clients[:i], c) || slices.Contains(nodes, c) {
			return fail(0, "client %q: names must be unique, one word without #, not a node's name, and not \"tick\" or \"all\"", c)
		}
	}
	return nil
}

// checkTexts: every piece of prose of the scenario in both languages.
func checkTexts(sc *demo.Scenario) *checkError {
	for _, t := range []struct {
		what string
		text demo.Text
	}{
		{"title", sc.Title}, {"summary", sc.Summary}, {"lesson", sc.Lesson}, {"switch-label", sc.SwitchLabel},
		{"initial title", sc.Initial.Title}, {"initial text", sc.Initial.Text},
	} {
		if err := complete(t.what, t.text); err != "" {
			return fail(0, "%s", err)
		}
	}
	return nil
}

// checkSources: a lesson names the primary texts it rests on, each with a
// title in both languages and an address on the web a reader can follow.
func checkSources(sc *demo.Scenario) *checkError {
	if len(sc.Sources) == 0 {
		return fail(0, "no sources: a lesson lists the primary texts it rests on, under \"sources:\"")
	}
	for i, s := range sc.Sources {
		if err := complete(fmt.Sprintf("source %d title", i+1), s.Title); err != "" {
			return fail(0, "%s", err)
		}
		u, err := url.Parse(s.URL)
		if err != nil || u.Scheme != "https" || u.Host == "" || strings.ContainsAny(s.URL, " \"'<>") {
			return fail(0, "source %d: %q is not an https:// address", i+1, s.URL)
		}
	}
	return nil
}

// checkMoves: the setup's actions, then each move's prose and actions.
func checkMoves(sc *demo.Scenario) *checkError {
	if len(sc.Moves) == 0 {
		return fail(0, "no moves")
	}
	if err := checkActions(sc, sc.Setup); err != nil {
		return err
	}
	for i, m := range sc.Moves {
		line := 0
		if len(m.Do) > 0 {
			line = m.Do[0].Line
		}
		texts := []struct {
			what string
			text *demo.Text
		}{{"title", &m.Title}, {"text", &m.Text}, {"title-on", m.TitleOn}, {"title-off", m.TitleOff},
			{"text-on", m.TextOn}, {"text-off", m.TextOff}}
		for _, t := range texts {
			// A title or text that each position replaces is not needed.
			if t.text == nil || t.text == &m.Title && m.TitleOn != nil && m.TitleOff != nil && *t.text == (demo.Text{}) ||
				t.text == &m.Text && m.TextOn != nil && m.TextOff != nil && *t.text == (demo.Text{}) {
				continue
			}
			if err := complete(fmt.Sprintf("move %d %s", i+1, t.what), *t.text); err != "" {
				return fail(line, "%s", err)
			}
		}
		if len(m.Do) == 0 {
			return fail(0, "move %d does nothing: it needs a \"do:\" list", i+1)
		}
		if err := checkActions(sc, m.Do); err != nil {
			return err
		}
	}
	return nil
}

// checkActions: who does each action. Whether the store takes the verb was
// read with the action; a verb of the family's table that a node performs
// is a node's.
func checkActions(sc *demo.Scenario, as []demo.Action) *checkError {
	nodes := sc.NodeNames()
	for _, a := range as {
		if a.Verb == demo.Tick {
			continue
		}
		if spec, _ := sc.Family.Verb(sc.Store, a.Verb); spec.Node {
			if a.Who != "all" && !slices.Contains(nodes, a.Who) {
				return fail(a.Line, "%q: unknown node %q (nodes: %s)", a.Source, a.Who, orNone(nodes))
			}
		} else if !slices.Contains(sc.Clients, a.Who) {
			return fail(a.Line, "%q: unknown client %q (clients: %s)", a.Source, a.Who, strings.Join(sc.Clients, ", "))
		}
		// An action that names nodes (a Redlock client's cut) names ones
		// the store has.
		if ns, ok := a.Args.(interface{ NodeList() []string }); ok {
			for _, n := range ns.NodeList() {
				if !slices.Contains(nodes, n) {
					return fail(a.Line, "%q: unknown node %q (nodes: %s)", a.Source, n, orNone(nodes))
				}
			}
		}
	}
	return nil
}

// checkPlays plays the scenario to its end in both switch positions: what
// only a replay shows, such as a paused client asked to write; and, in the
// same plays, whether each move's narration and each question's premise
// are true in both positions, and whether the answers and the verdicts are
// the ones the scenario states.
func checkPlays(sc *demo.Scenario) (differs []*checkError, _ *checkError) {
	var kinds *eventKinds // only a scenario asking about an event needs its kinds
	if asksEvent(sc) {
		kinds = &eventKinds{seen: map[demo.Kind]bool{}, read: map[*demo.Run]int{}}
	}
	differ := func(d *checkError) {
		if d != nil {
			differs = append(differs, d)
		}
	}
	asked := premises{}
	err := demo.RehearseEach(sc, func(r *demo.Run) error {
		if kinds != nil {
			kinds.add(r)
		}
		if ce := narrationOf(sc, r); ce != nil {
			return ce
		}
		if ce := asked.premiseOf(sc, r); ce != nil {
			return ce
		}
		asked.note(sc, r)
		ce, d := answerOf(sc, r)
		if ce != nil {
			return ce
		}
		differ(d)
		differ(verdictOf(sc, r))
		return nil // not a nil *checkError, which as an error is not nil
	})
	if err == nil && kinds != nil {
		return sortDiffers(differs), checkEventOutcomes(sc, kinds)
	}
	if err == nil {
		return sortDiffers(differs), nil
	}
	var ae *demo.ActionError
	if errors.As(err, &ae) {
		return nil, fail(ae.Action.Line, "%s", ae.Error())
	}
	var ce *checkError
	if errors.As(err, &ce) {
		return nil, ce
	}
	return nil, fail(0, "%s", err)
}

// sortDiffers puts the differences in the order of their lines, as a reader
// of the file meets them: the plays run the positions on first.
func sortDiffers(ds []*checkError) []*checkError {
	slices.SortStableFunc(ds, func(a, b *checkError) int { return a.line - b.line })
	return ds
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none: the lock service has no nodes"
	}
	return strings.Join(names, ", ")
}

func complete(what string, t demo.Text) string {
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

// checkProperty: the property the finder looks to break is one it knows.
func checkProperty(sc *demo.Scenario) *checkError {
	if sc.Property == "" {
		return nil
	}
	if _, ok := sc.Promise(); !ok {
		return fail(0, "property %q is not one of %s", sc.Property, strings.Join(demo.PropertyNames(sc.Family), ", "))
	}
	if p, ok := demo.PropertyOf(sc.Family, sc.Sometimes); sc.Sometimes != "" && (!ok || !p.Sometimes()) {
		return fail(0, "sometimes %q is not a sometimes property", sc.Sometimes)
	}
	return nil
}
