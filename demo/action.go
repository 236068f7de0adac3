package demo

import (
	"fmt"
	"strconv"
)

// Verb is what an action does.
type Verb string

// The engine's own verbs, which every store takes: time passing, and what
// any client does to the resource or to itself. Each family adds its own
// (its VerbSpec table gives each one's form).
const (
	Tick   Verb = "tick"   // tick N: the clock moves N forward
	Write  Verb = "write"  // C write VALUE: with the token (or value) C believes it holds
	Pause  Verb = "pause"  // C pause: a stop-the-world GC, say; C does nothing until resume
	Resume Verb = "resume" // C resume: C carries on, believing what it believed before
	Crash  Verb = "crash"  // C crash: C dies and never comes back
	// Check is a program's guard: C check N: C reads the lease it has left
	// by its own reckoning, and with N or less left gives the lock up
	// rather than work on. What it reads may be out of date by the time
	// it acts: a pause between the check and the write is the chapter's
	// point.
	Check Verb = "check"
)

// VerbSpec is one verb of a family's table: its form as scenarios.yaml
// writes it, who performs it, and how its words are read. The table is the
// one place a verb is described.
type VerbSpec struct {
	Verb  Verb
	Form  string      // the words after the verb, such as "KEY nx [px MS]"
	Help  string      // what it does, in a line
	Node  bool        // performed by a node ("all" for every node), not a client
	Kinds []StoreKind // the family's kinds that take it; nil for all of them
	// Paused: the store plays it even while its client is paused, and
	// says itself what a pause means (a watchdog's renewal, say).
	Paused bool
	// Parse reads the words after the verb into the action's Args; nil for
	// a verb that takes none.
	Parse func(words []string) (any, error)
}

// The engine's verbs' arguments.
type (
	// TickArgs: how far the clock moves, in the scenario's unit.
	TickArgs struct{ Forward int }
	// WriteArgs: what the client writes.
	WriteArgs struct{ Value string }
	// CheckArgs: the least lease left the client works on with.
	CheckArgs struct{ Margin int }
)

// EngineVerbs are the verbs every store takes, played by the Run itself.
var EngineVerbs = []Verb{Tick, Write, Pause, Resume, Crash, Check}

// Engine reports whether the Run plays v itself, whatever the store.
func (v Verb) Engine() bool {
	switch v {
	case Tick, Write, Pause, Resume, Crash, Check:
		return true
	}
	return false
}

// Action is one line of a move, such as "A acquire 10" or "tick 3": the
// engine's input, as a message is etcd raft's. Who and Verb say who does
// what; Args holds the verb's arguments, of the type its family's parser
// makes (TickArgs and WriteArgs for the engine's). When is "on" or "off"
// for an action played in one switch position only. Line and Source say
// where the action was written, so that a mistake can be reported where it
// is.
type Action struct {
	Who  string // a client or a node ("all" for every node); "" for tick
	Verb Verb
	Args any

	When   string // "", "on" or "off"
	Line   int
	Source string // the action as written
}

func (a Action) String() string { return a.Source }

// PlaysWhen reports whether the script plays a in the position on: a family
// reads its clients' code from it.
func (a Action) PlaysWhen(on bool) bool { return a.playsWhen(on) }

// playsWhen reports whether a is played with the switch on or off.
func (a Action) playsWhen(on bool) bool {
	return a.When == "" || a.When == "on" && on || a.When == "off" && !on
}

// MaxNumber bounds every number in a script: a billion milliseconds is
// eleven days, far more than any lock needs, and far from overflowing.
const MaxNumber = 1_000_000_000

// Number reads a whole number from 0 to MaxNumber, for a verb's parser;
// what names it in the error.
func Number(s, what string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > MaxNumber {
		return 0, fmt.Errorf("the %s %q is not a whole number from 0 to %d", what, s, MaxNumber)
	}
	return n, nil
}
