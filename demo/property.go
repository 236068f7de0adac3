package demo

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Property is a promise a scenario makes, which the finder checks, in
// Stateright's two kinds. An always property says that nothing bad
// happens: a history that breaks it is a counterexample. A sometimes
// property says that something good can happen (the work gets done, B gets
// to write): a history that reaches it is an example, and finding none
// tells a fix that merely stops everyone from a fix. The engine's are
// EngineProperties; a family lists its own (Family.Properties).
type Property struct {
	Name string
	Says Text // the promise, for a page and the check command
	// Kind is the violation that breaks an always property, narrowed by
	// Match, with every holding of the run to judge by; a nil Match: every
	// violation of Kind breaks it.
	Kind  ViolationKind
	Match func(v Violation, holdings []Holding) bool
	// Reached says whether the good thing of a sometimes property has
	// happened in r; nil for an always property. It reads only what a lean
	// run keeps (Run.Lean), as the finder asks it of every state.
	Reached func(r *Run) bool
}

// Sometimes reports whether p says that something good can happen, rather
// than that nothing bad does.
func (p Property) Sometimes() bool { return p.Reached != nil }

// Breaks reports whether v, found in a run with these holdings, breaks the
// always property p; never for a sometimes property.
func (p Property) Breaks(v Violation, holdings []Holding) bool {
	return p.Reached == nil && v.Kind == p.Kind && (p.Match == nil || p.Match(v, holdings))
}

// EngineProperties are the promises any scenario may name in its property
// field, whatever its store.
var EngineProperties = []Property{
	{Name: "no-stale-write", Kind: StaleWrite,
		Says: Text{EN: "no late write from an expired holder lands over another holder's data",
			JA: "期限切れの持ち主の出遅れた書き込みが、ほかの持ち主のデータを上書きしない"}},
	{Name: "no-two-holders", Kind: TwoHolders,
		Says: Text{EN: "two clients never hold the lock at once, each within its lease",
			JA: "二つのクライアントが同時に、それぞれ期限内でロックを持つことはない"}},
	{Name: "never-stuck", Kind: Stuck,
		Says: Text{EN: "the lock is never stuck for ever with a dead holder",
			JA: "死んだ持ち主のためにロックが永久に取れなくなることはない"}},
	{Name: "no-lost-update", Kind: LostUpdate,
		Says: Text{EN: "no committed update is lost", JA: "コミットした更新が失われない"}},
	{Name: "no-overlap", Kind: Overlap,
		Says: Text{EN: "no client still believes it holds the lock once another holds it",
			JA: "ほかのクライアントが持ったあとも、自分がロックを持っていると思い込むクライアントはいない"}},
	{Name: "no-token-reuse", Kind: TokenReused,
		Says: Text{EN: "no fencing token is handed out twice", JA: "同じフェンシングトークンが二度渡されることはない"}},
	{Name: "a-write-lands", Reached: func(r *Run) bool { return r.res.Writes() > 0 },
		Says: Text{EN: "the work gets done: some client's write reaches the resource and is taken",
			JA: "仕事が済む: どれかのクライアントの書き込みが資源に届き、受け付けられる"}},
	{Name: "every-client-writes", Reached: (*Run).EveryoneWrote,
		Says: Text{EN: "the work gets done: every client gets a write taken by the resource",
			JA: "仕事が済む: どのクライアントも、書き込みを資源に受け付けてもらえる"}},
}

// EveryoneWrote reports whether every client of r has had a write taken;
// a lean run keeps the writes the resource took, so it can tell.
func (r *Run) EveryoneWrote() bool {
	for _, c := range r.clients {
		if !slices.ContainsFunc(r.events, func(e Event) bool {
			w, ok := e.(WriteResult)
			return ok && w.OK && w.Client == c.Name
		}) {
			return false
		}
	}
	return true
}

// PropertyOf returns the property called name that a scenario of family
// fam may name: the engine's, or the family's own.
func PropertyOf(fam *Family, name string) (Property, bool) {
	for _, ps := range [][]Property{EngineProperties, fam.Properties} {
		for _, p := range ps {
			if p.Name == name {
				return p, true
			}
		}
	}
	return Property{}, false
}

// PropertyNames lists the properties a scenario of family fam may name.
func PropertyNames(fam *Family) []string {
	var names []string
	for _, ps := range [][]Property{EngineProperties, fam.Properties} {
		for _, p := range ps {
			names = append(names, p.Name)
		}
	}
	return names
}

// Promise returns the property sc's switch is about (its property field),
// false when it names none.
func (sc *Scenario) Promise() (Property, bool) {
	if sc.Property == "" {
		return Property{}, false
	}
	return PropertyOf(sc.Family, sc.Property)
}

// Expectation is what the finder must find from a scenario's first frame
// in one position, as scenarios.yaml writes it: "violation in N" (the
// shortest history breaking the property has N actions) or "none within D"
// (no history of up to D actions breaks it).
type Expectation struct {
	Found bool
	N     int // the trace's length, or the depth searched
}

func (e Expectation) String() string {
	if e.Found {
		return "violation in " + strconv.Itoa(e.N)
	}
	return "none within " + strconv.Itoa(e.N)
}

// ParseExpectation reads an expectation.
func ParseExpectation(s string) (Expectation, error) {
	f := strings.Fields(s)
	if len(f) == 3 && (f[0] == "violation" && f[1] == "in" || f[0] == "none" && f[1] == "within") {
		if n, err := strconv.Atoi(f[2]); err == nil && n >= 0 && n <= 20 {
			return Expectation{Found: f[0] == "violation", N: n}, nil
		}
	}
	return Expectation{}, fmt.Errorf(`expect %q: want "violation in N" or "none within D", N and D from 0 to 20`, s)
}
