package demo

import (
	"fmt"
	"strconv"
	"strings"
)

// Event is one thing that happened, as the model computed it. Every event has
// the same header; what it carries beyond that depends on its type, and each
// field of a type means one thing. The engine's events (a write, a client
// pausing) are here; each family defines its own in its package. The page
// draws the space-time diagram from events and the transcripts list them.
type Event interface {
	Header() Head
	Kind() Kind
	// Wire is the call or command a client sent, as the real system spells
	// it for the screen, and the answer it got; "" for what no client sent.
	Wire() (call, reply string)
}

// Head is what every event has: when, in which frame, who acted and which
// node answered or changed.
type Head struct {
	Frame  int    // the frame the move that caused it leads to
	At     int    // true time
	Client string // who acted, or whose lock it was; "" for a node on its own
	Node   string // the node that answered or changed; "" for a service with no nodes
}

// Header returns the header; every event type embeds Head and so has it.
func (h Head) Header() Head { return h }

// Kind names what an event records: the class a page gives it and the key of
// its sentence ("ev." + kind). One event type may record more than one kind
// (a SET that was refused, one that was not). Each family names its own
// kinds; two families never share a name.
type Kind string

func (k Kind) String() string { return string(k) }

// Pick returns yes when ok, else no: the two kinds of one event type.
func Pick(ok bool, yes, no Kind) Kind {
	if ok {
		return yes
	}
	return no
}

// The engine's kinds.
const (
	Accepted     Kind = "accepted"      // WriteResult, taken
	Rejected     Kind = "rejected"      // WriteResult, fenced off
	WriteSkipped Kind = "write-skipped" // SkippedWrite
	Paused       Kind = "paused"        // ClientChange
	Resumed      Kind = "resumed"       // ClientChange
	Crashed      Kind = "crashed"       // ClientChange
	CarriedOn    Kind = "carried-on"    // LeaseChecked, enough left
	GaveUp       Kind = "gave-up"       // LeaseChecked, too little left
)

// WriteResult is a write that reached the resource, with the token the writer
// believed current: taken (OK) or fenced off.
type WriteResult struct {
	Head
	Token  int64  // 0 for a Redis lock, whose random value orders nothing
	Value  string // what it wrote
	Before string // the value it replaced, or would have
	Max    int64  // the resource's maxToken before the write
	OK     bool
}

func (e WriteResult) Kind() Kind { return Pick(e.OK, Accepted, Rejected) }

func (e WriteResult) Deeds() Deed {
	d := Wrote
	if e.Token > 0 {
		d |= SentToken
	}
	if e.OK {
		d |= Recorded
	}
	return d
}

func (e WriteResult) Wire() (string, string) {
	return fmt.Sprintf("Write(%d, %q)", e.Token, e.Value), strconv.FormatBool(e.OK)
}

// Note adds to the transcript's line what the resource had.
func (e WriteResult) Note(*Scenario) string {
	if e.OK {
		return fmt.Sprintf(", replacing %q (maxToken was %d)", e.Before, e.Max)
	}
	return fmt.Sprintf(" (maxToken %d)", e.Max)
}

// SkippedWrite is a client that does not believe it holds the lock leaving
// the resource alone.
type SkippedWrite struct {
	Head
	Value string
}

func (SkippedWrite) Kind() Kind             { return WriteSkipped }
func (SkippedWrite) Deeds() Deed            { return Wrote }
func (SkippedWrite) Wire() (string, string) { return "", "" }

// Story is the transcript's line for the skipped write.
func (e SkippedWrite) Story(*Scenario) string {
	return fmt.Sprintf("does not hold the lock, does not write %q", e.Value)
}

// ClientChange is a client pausing, resuming or crashing, or what a family
// adds (a Redlock client cut off from nodes).
type ClientChange struct {
	Head
	What Kind // Paused, Resumed, Crashed, or a family's
}

func (e ClientChange) Kind() Kind           { return e.What }
func (ClientChange) Wire() (string, string) { return "", "" }

// Deed is what an event shows a client doing, in the words a narration may
// use of it: the loader holds each move's narration, and each question's
// premise, against its events' deeds, so that no sentence names a write, a
// token, an unlock, a wait, a request for the lock, a lock taken, a renewal
// or a row recorded that its frame does not contain.
type Deed uint8

// The deeds.
const (
	Wrote     Deed = 1 << iota // it wrote (or meant to write) the resource
	SentToken                  // its write carried a fencing token
	Unlocked                   // it gave up, or lost, the lock
	Waited                     // it waited: for a lock, a watch, a replica, a retry
	Asked                      // it asked for the lock
	Got                        // it got the lock it asked for
	Renewed                    // it renewed its lease or TTL, and the renewal took
	Recorded                   // its write changed the data: taken, a row inserted or updated
)

// Doer is an event that shows a client doing something a narration may name.
type Doer interface{ Deeds() Deed }

// Noted is an event that adds a few words to its transcript line after the
// wire (the lease a call ended with, the czxid a create left).
type Noted interface{ Note(sc *Scenario) string }

// Told is an event that no client sent and that tells its own transcript
// line.
type Told interface{ Story(sc *Scenario) string }

// Short cuts a lock's random value to something a person can compare at a
// glance on screen. A Redisson field keeps its thread id: "3f2a91c0…:1".
func Short(value string) string {
	if len(value) <= 8 {
		return value
	}
	if i := strings.LastIndexByte(value, ':'); i > 8 {
		return value[:8] + "…" + value[i:]
	}
	return value[:8] + "…"
}

// LeaseChecked is a program's guard (C check N): the client read the lease
// it had left by its own reckoning, and with Margin or less left gave the
// lock up. Left is -1 for a lock that never runs out.
type LeaseChecked struct {
	Head
	Margin int
	Left   int
	Held   bool // it believed it held the lock when it looked
	GaveUp bool
}

func (e LeaseChecked) Kind() Kind           { return Pick(e.GaveUp, GaveUp, CarriedOn) }
func (LeaseChecked) Wire() (string, string) { return "", "" }

// Story is the transcript's line for the check.
func (e LeaseChecked) Story(sc *Scenario) string {
	switch {
	case !e.Held:
		return "checks its lease: it holds no lock"
	case e.GaveUp:
		return fmt.Sprintf("checks its lease: %s left, not more than %s: gives the lock up", ShowDuration(sc, e.Left), ShowDuration(sc, e.Margin))
	case e.Left < 0:
		return "checks its lease: it never runs out: carries on"
	}
	return fmt.Sprintf("checks its lease: %s left, more than %s: carries on", ShowDuration(sc, e.Left), ShowDuration(sc, e.Margin))
}

// Claims: what the client read, and that it believed (or no longer
// believed) it held the lock once it had read it.
func (e LeaseChecked) Claims() []Claim {
	if e.Held && !e.GaveUp {
		return []Claim{{Fact: Believes, Client: e.Client, At: e.At}}
	}
	return nil
}
