package views

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/distlock/fencing-demo/demo"
)

// Assets are the fingerprinted addresses of the files under static/.
type Assets struct {
	CSS, HTMX, JS, Icon string
	Prefetch            string // prefetch.js, on a frame's page: its next frames before the click
	Follow              string // follow.js, on a follower's page only
}

// Page is what every page shares: its language, title and where it lives.
type Page struct {
	Lang      string
	Title     string
	Assets    Assets
	Canonical string // this page's address, without the run
	Origin    string // scheme://host[:port] the site is reached at; "": unknown, and no rel=canonical
	OtherLang string // the same page in the other language
	Home      string // the site's front page and its scenario list;
	Index     string // "" leaves the link out
	Chrome    bool   // the site's header; off inside an iframe
	Present   bool   // presenter mode: large type, high contrast
	// Audit: every sentence written from the model carries the facts it
	// claims (claims.go), for the test that holds them to the frame.
	Audit bool
}

// CanonicalURL is the page's absolute address, for rel=canonical: "" when
// the page has none or the server was not told where it is reached (a
// canonical address must be absolute, and a Host header is the visitor's
// word, not the site's).
func (p Page) CanonicalURL() string {
	if p.Origin == "" || p.Canonical == "" {
		return ""
	}
	return p.Origin + p.Canonical
}

// Demo is the view model of one frame of a scenario.
type Demo struct {
	Page
	Frame demo.Frame
	Here  Place
	Run   string // the visitor's run id; "" until the first click makes one
	// Follow is the address of this run's follow-along page, where others
	// watch it live; "" until the first click makes the run.
	Follow string
	// Offers are what can happen now, in free play (Here.FreePlay); none in
	// the script.
	Offers []demo.Offer
	// Guess is the reader's answer to the question that led to this frame
	// ("" for none): the frame then marks it (predict.go).
	Guess string
}

// Sc returns the scenario being shown.
func (d Demo) Sc() *demo.Scenario { return d.Frame.Scenario }

// SwitchLabel is the switch's name on screen.
func (d Demo) SwitchLabel() string { return d.Sc().SwitchLabel.In(d.Lang) }

// AboutFencing says whether the scenario is about fencing tokens, so the
// resource's token check (its state, maxToken, rejected writes) is worth
// showing; elsewhere the resource just stores what it is sent.
func AboutFencing(sc *demo.Scenario) bool { return sc.Fencing == "on" || sc.Fencing == "switch" }

// Changed says whether the frame's own move changed what (value,
// rejected), so the page can draw the eye to it.
func Changed(f demo.Frame, what string) bool {
	for _, e := range f.Latest() {
		if e, ok := e.(demo.WriteResult); ok && (e.OK && what == "value" || !e.OK && what == "rejected") {
			return true
		}
	}
	return false
}

// Describe turns an event into a sentence for the "what this move did" list
// and the event log: the engine's events here, the others by their family's
// panel (panels.go).
func Describe(lang string, f demo.Frame, e demo.Event) string {
	sc := f.Scenario
	key := "ev." + e.Kind().String()
	if d := familyPanels[sc.Family].Describe; d != nil {
		if s, ok := d(lang, f, e); ok {
			return s
		}
	}
	switch e := e.(type) {
	case demo.WriteResult:
		if !e.OK {
			return fmt.Sprintf(T(lang, key), e.Client, e.Value, e.Token, e.Token, e.Max)
		}
		if e.Token == 0 {
			key += ".notoken"
		}
		s := fmt.Sprintf(T(lang, key), e.Client, e.Value, e.Token)
		switch judged(f, e) {
		case demo.StaleWrite:
			s += " — " + fmt.Sprintf(T(lang, "ev.overwrote"), e.Before)
		case demo.LateWrite:
			s += " — " + fmt.Sprintf(T(lang, "ev.late"), e.Client)
		}
		return s
	case demo.SkippedWrite:
		return fmt.Sprintf(T(lang, key), e.Client, e.Value)
	case demo.LeaseChecked:
		switch {
		case !e.Held:
			key = "ev.checked.none"
		case e.Left < 0:
			key = "ev.checked.forever"
		}
		return fmt.Sprintf(T(lang, key), e.Client, Duration(sc, e.Left), Duration(sc, e.Margin))
	case demo.ClientChange:
		if e.What == demo.Resumed && !resumedBelieving(f, e) {
			key += ".free"
		}
	}
	return fmt.Sprintf(T(lang, key), e.Header().Client)
}

// resumedBelieving reports whether a client that resumed believed then that
// it held the lock: a client that had none wakes up believing nothing.
func resumedBelieving(f demo.Frame, e demo.ClientChange) bool {
	for _, h := range f.Holdings {
		if h.Client == e.Client && h.From <= e.At && (h.Ended < 0 || e.At < h.Ended) {
			return true
		}
	}
	return false
}

func ownerOf(lang, client string) string {
	if client == "" {
		return "—"
	}
	return client
}

// Verdict is the frame's verdict in words: the heaviest of what the model
// found, with its evidence, or that mutual exclusion held.
func Verdict(lang string, f demo.Frame) string {
	s := Finding(lang, f, f.Verdict())
	if cost := familyPanels[f.Scenario.Family].Cost; cost != nil && f.Verdict().Kind == demo.MutualExclusionHeld {
		// Where the lock held, what it cost the store may be the lesson.
		if c := cost(lang, f); c != "" {
			s += " " + c
		}
	}
	return s
}

// Findings are what the frame lists as found, in order. An overlap whose
// holder has since landed a stale write is told by that write's finding,
// which says more, so it is not listed again beside it.
func Findings(f demo.Frame) []demo.Violation {
	var out []demo.Violation
	for _, v := range f.Violations {
		if v.Kind == demo.Overlap && slices.ContainsFunc(f.Violations, func(w demo.Violation) bool {
			return (w.Kind == demo.StaleWrite || w.Kind == demo.LateWrite) && w.Client == v.Client && w.At >= v.At
		}) {
			continue
		}
		out = append(out, v)
	}
	return out
}

// Finding is one finding in words, as it stands at frame f (its kind's
// words, or its family's for it): an overlap says whether its holder is
// stopped, running or has learned it lost the lock, from the frame's own
// state, never from the frame where it was found.
func Finding(lang string, f demo.Frame, v demo.Violation) string { return demo.Say(&f, v).In(lang) }

// VerdictShort is a kind's name on sc's page, the index and the diagram.
func VerdictShort(lang string, sc *demo.Scenario, k demo.ViolationKind) string {
	return demo.WordsFor(sc, k).Short.In(lang)
}

// VerdictMark is the sign a verdict of class c carries: a tick where mutual
// exclusion held or the resource contained the overlap, a warning sign
// otherwise.
func VerdictMark(c demo.Class) string {
	if c == demo.Held || c == demo.ContainedByResource {
		return "✓"
	}
	return "⚠"
}

// OutcomeShort is the name of frame f's verdict on the index, as its page
// says it: a database that found nothing, which may hold no lock at all,
// says "no anomaly".
func OutcomeShort(lang string, f demo.Frame) string {
	return VerdictShort(lang, f.Scenario, f.Verdict().Kind)
}

// LegendEntry is one line of the index's legend: a kind of verdict, in
// the words of the family it is told by (nil: the kind's own).
type LegendEntry struct {
	ID     string // the line's test id: the kind's name, or the family's and the kind's
	Kind   demo.ViolationKind
	Family *demo.Family
}

// Words are the entry's words.
func (e LegendEntry) Words() demo.Words {
	if e.Family == nil {
		return e.Kind.Spec().Words
	}
	return e.Family.Words[e.Kind]
}

// Legend lists every verdict the scenarios' pages may show: the engine's
// kinds, then each family's own and where a family tells one of the
// engine's kinds with another name, that name; lightest first within each
// group.
func Legend(scenarios []*demo.Scenario) []LegendEntry {
	var out []LegendEntry
	var engine []demo.ViolationKind
	for _, k := range demo.Kinds() {
		if !slices.ContainsFunc(scenarios, func(sc *demo.Scenario) bool { return slices.Contains(sc.Family.Failures, k) }) {
			engine = append(engine, k)
		}
	}
	for _, k := range lightestFirst(engine) {
		out = append(out, LegendEntry{ID: k.String(), Kind: k})
	}
	var seen []*demo.Family
	for _, sc := range scenarios {
		fam := sc.Family
		if slices.Contains(seen, fam) {
			continue
		}
		seen = append(seen, fam)
		for _, k := range lightestFirst(fam.Failures) {
			out = append(out, LegendEntry{ID: k.String(), Kind: k})
		}
		for _, k := range lightestFirst(slices.Collect(maps.Keys(fam.Words))) {
			if fam.Words[k].Short != k.Spec().Short {
				out = append(out, LegendEntry{ID: fam.Name + "-" + k.String(), Kind: k, Family: fam})
			}
		}
	}
	return out
}

// lightestFirst sorts kinds by class, the lightest first, and within a
// class in the order they were registered.
func lightestFirst(ks []demo.ViolationKind) []demo.ViolationKind {
	ks = slices.Clone(ks)
	slices.SortFunc(ks, func(a, b demo.ViolationKind) int {
		if c := cmp.Compare(a.Class(), b.Class()); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return ks
}

// WireReply is the answer a command got, for the screen: the protocol's own
// reply as it stands, or, when no answer came, what happened in lang (its
// family's Reply says).
func WireReply(lang string, f demo.Frame, e demo.Event) string {
	if r := familyPanels[f.Scenario.Family].Reply; r != nil {
		if s, ok := r(lang, e); ok {
			return s
		}
	}
	_, reply := e.Wire()
	return reply
}

// Believes is a client's belief in words.
func Believes(lang string, sc *demo.Scenario, c demo.Client) string {
	switch {
	case c.Crashed:
		return T(lang, "dead")
	case !c.Holds:
		return T(lang, "nolock")
	case c.Token > 0:
		return fmt.Sprintf(T(lang, "believes"), c.Token)
	case c.Until < 0:
		return T(lang, "believes.forever")
	}
	return fmt.Sprintf(T(lang, "believes.until"), Clock(sc, c.Until))
}

// TTL is a key's time left in words.
func TTL(lang string, sc *demo.Scenario, ttl int) string {
	if ttl < 0 {
		return T(lang, "ttl.none")
	}
	return Duration(sc, ttl)
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

// Short cuts a lock's random value for the screen.
func Short(v string) string { return demo.Short(v) }

func verdictKind(d Demo) string { return d.Frame.Verdict().Kind.String() }

// Stale reports whether an accepted write is one the verdict found stale:
// it landed after the writer's lock had run out, over a newer holder's data.
func Stale(f demo.Frame, ev demo.Event) bool { return judged(f, ev) == demo.StaleWrite }

// Late reports whether an accepted write landed after the writer's lock had
// run out, over no newer holder's data: a late write, not yet a stale one.
func Late(f demo.Frame, ev demo.Event) bool { return judged(f, ev) == demo.LateWrite }

// judged is the kind the verdict gave an accepted write that landed after
// its writer's lock had run out: stale or late; MutualExclusionHeld for
// any other event.
func judged(f demo.Frame, ev demo.Event) demo.ViolationKind {
	e, ok := ev.(demo.WriteResult)
	if !ok || !e.OK {
		return demo.MutualExclusionHeld
	}
	for _, v := range f.Violations {
		if (v.Kind == demo.StaleWrite || v.Kind == demo.LateWrite) && v.Client == e.Client && v.At == e.At {
			return v.Kind
		}
	}
	return demo.MutualExclusionHeld
}

func clientIndexOf(d Demo, name string) int { return clientIndex(d.Sc(), name) }

// EmbedSnippet is the iframe a textbook pastes to embed a frame. The address
// is made absolute by app.js, which knows the host the visitor sees.
func EmbedSnippet(src, title string) string {
	return `<iframe src="` + src + `" title="` + title + `" width="100%" height="760" style="border:0" loading="lazy"></iframe>`
}

// FrameTitle is a frame's page title: the scenario, where the frame stands in
// it, and the site.
func FrameTitle(f demo.Frame, lang string) string {
	return fmt.Sprintf("%s %d/%d · %s", f.Scenario.Title.In(lang), f.Index, f.Total, T(lang, "site"))
}

// CheckedKey names the line that says which real server sc's commands and
// replies were checked against (checked.redis, checked.postgres, ...), or ""
// where nothing checks them: its family's Checked says. Each key stands for
// a conformance suite under demo/conformance that replays the scenario
// against Debian bookworm's server of that version and fails for a scenario
// of its family it does not play.
func CheckedKey(sc *demo.Scenario) string {
	if c := familyPanels[sc.Family].Checked; c != nil {
		return c(sc)
	}
	return ""
}
