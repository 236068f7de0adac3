package demo

import (
	"fmt"
	"slices"
)

// ViolationKind names what a lock, or a design that needs none, let happen:
// a stale write, two holders, a lost update, a deadlock. The engine's own
// kinds are here (the chapter's, and what any lock store may let happen);
// each family registers its own in its package with NewKind, beside the
// store that finds them, so a new kind of failure edits no file of the
// engine's. The zero kind is MutualExclusionHeld: nothing was found.
type ViolationKind uint16

// KindSpec is everything about one kind of violation: the name scenarios.yaml
// and the transcripts write, how bad it is, and its words.
type KindSpec struct {
	Name  string // lower case and dashes: "stale-write"
	Class Class
	Words
}

// Words are how a kind is told, in both languages: its name on the index
// and the diagram, a line of the legend, a finding as it stands in a frame,
// and its line in a transcript. A family may tell another's kind its own
// way (Family.Words), as a database tells a lock that held as "no anomaly".
type Words struct {
	Short  Text
	Legend Text
	// Say is a finding of this kind as it stands at frame f: what a
	// verdict shows. f is the frame the finding is shown with, which may
	// be later than the one where it was found.
	Say func(f *Frame, v Violation) Text
	// Story is the finding's line in a transcript, in English; nil for a
	// kind the verdict line alone tells.
	Story func(sc *Scenario, v Violation) string
	// Claims are the facts Say asserts of the frame (claim.go); nil for
	// words that assert none a test can hold them to.
	Claims func(f *Frame, v Violation) []Claim
}

// Class is how bad a verdict is, which decides how a page marks it. The
// classes are in order of weight: a frame's verdict leads with its worst.
type Class uint8

const (
	Held                Class = iota // mutual exclusion held
	ContainedByResource              // a double acquisition the resource contained
	Warning                          // a holder worked past its lease; nothing broke yet
	Broken                           // data destroyed, the lock granted twice, or stuck
)

var classNames = [...]string{Held: "held", ContainedByResource: "contained", Warning: "warning", Broken: "broken"}

func (c Class) String() string { return classNames[c] }

// kinds is every registered kind, by its number. Kinds are registered while
// the program starts (package variables), and only read after that.
var kinds = []KindSpec{MutualExclusionHeld: heldSpec}

// NewKind registers a kind of violation and returns it. It is meant for a
// package variable: a name given twice, or a spec without words, is a
// programming error and panics while the program starts.
func NewKind(spec KindSpec) ViolationKind {
	if !validKindName(spec.Name) {
		panic(fmt.Sprintf("demo: kind name %q is not lower case and dashes", spec.Name))
	}
	if _, dup := KindNamed(spec.Name); dup {
		panic("demo: kind " + spec.Name + " is registered twice")
	}
	if spec.Say == nil || spec.Short.EN == "" || spec.Short.JA == "" || spec.Legend.EN == "" || spec.Legend.JA == "" {
		panic("demo: kind " + spec.Name + " needs its words: Short, Legend and Say in both languages")
	}
	kinds = append(kinds, spec)
	return ViolationKind(len(kinds) - 1)
}

func validKindName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// KindNamed returns the kind called name.
func KindNamed(name string) (ViolationKind, bool) {
	i := slices.IndexFunc(kinds, func(s KindSpec) bool { return s.Name == name })
	return ViolationKind(max(i, 0)), i >= 0
}

// Kinds lists every registered kind, in the order they were registered:
// the engine's first.
func Kinds() []ViolationKind {
	out := make([]ViolationKind, len(kinds))
	for i := range kinds {
		out[i] = ViolationKind(i)
	}
	return out
}

// Spec returns the kind's spec; an unregistered number gets a spec named
// "violation(?)" with the engine's words for a violation it cannot tell.
func (k ViolationKind) Spec() KindSpec {
	if int(k) < len(kinds) {
		return kinds[k]
	}
	return KindSpec{Name: unnamedVerdict, Class: Broken, Words: unknownWords}
}

func (k ViolationKind) String() string { return k.Spec().Name }

// Class returns the kind's class.
func (k ViolationKind) Class() Class { return k.Spec().Class }

// heavier reports whether a verdict leads with k rather than l: the worse
// class, and within a class the kind registered first (the engine's before
// a family's, a family's in the order it lists them).
func (k ViolationKind) heavier(l ViolationKind) bool {
	if kc, lc := k.Class(), l.Class(); kc != lc {
		return kc > lc
	}
	return k < l
}

// Headline returns the heaviest of vs, the one a verdict leads with; the
// zero Violation, of kind MutualExclusionHeld, when vs is empty.
func Headline(vs []Violation) Violation {
	var top Violation
	for i, v := range vs {
		if i == 0 || v.Kind.heavier(top.Kind) {
			top = v
		}
	}
	return top
}

// VerdictNames lists the names of every kind, the outcomes a verdict
// question's options may name, in the order they were registered.
func VerdictNames() []string {
	names := make([]string, len(kinds))
	for i, s := range kinds {
		names[i] = s.Name
	}
	return names
}

// unnamedVerdict is what ViolationKind.String says of a number no kind has.
const unnamedVerdict = "violation(?)"

var unknownWords = Words{
	Short:  Text{EN: "violation", JA: "違反"},
	Legend: Text{EN: "A violation of a kind this program does not know.", JA: "このプログラムが知らない種類の違反。"},
	Say: func(f *Frame, v Violation) Text {
		return Text{EN: "A violation of a kind this program does not know.", JA: "このプログラムが知らない種類の違反。"}
	},
}

// Say tells v as it stands at frame f, in the words of f's family where it
// has its own (Family.Words), else the kind's.
func Say(f *Frame, v Violation) Text { return WordsFor(f.Scenario, v.Kind).Say(f, v) }

// WordsFor returns how sc's page tells kind k: its family's words for k
// where it has them, else the kind's own.
func WordsFor(sc *Scenario, k ViolationKind) Words {
	if sc != nil && sc.Family != nil {
		if w, ok := sc.Family.Words[k]; ok {
			return w
		}
	}
	return k.Spec().Words
}

// Says is fmt.Sprintf in both languages with the same arguments, for a
// kind's words: ja and en are the two formats.
func Says(ja, en string, args ...any) Text {
	return Text{JA: fmt.Sprintf(ja, args...), EN: fmt.Sprintf(en, args...)}
}

// Plain is a text that does not depend on the finding, for a kind's Say.
func Plain(ja, en string) func(*Frame, Violation) Text {
	return func(*Frame, Violation) Text { return Text{JA: ja, EN: en} }
}
