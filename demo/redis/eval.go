package redis

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/redis/lua"
)

// EvalCmd is the kind of an EvalCommand.
const EvalCmd demo.Kind = "eval"

// EvalCommand is a client's EVAL of one of the scenario's scripts, word
// for word EVAL <script> 1 KEY ARGV..., run on the node against the
// model's keys. Changes are what it did to them, and Outcome what the
// client made of the Reply, as the script's Role says.
type EvalCommand struct {
	demo.Head
	Script, Role string
	Text         string // the Lua, as sent
	Key          string
	Argv         []string
	Value        string // the client's lock value ($value), shortened on screen
	// LeaseArg is the index in Argv of the TTL the client asks for, in
	// ms (a renew or acquire script's); -1 for none.
	LeaseArg int
	Answer   lua.Reply // the script's reply
	Changes  []Change
	Outcome  Outcome
	Until    int // Renewed, Acquired: the end of the lease the client now counts on; -1 never
}

// Outcome is what a client made of its script's answer.
type Outcome uint8

// The outcomes, by role.
const (
	NoOutcome   Outcome = iota
	Released            // release: it let go of the lock
	Renewed             // renew, answered 1: it counts on its lease until Until
	Lost                // renew, answered otherwise: it learned it lost the lock
	NotHeld             // renew: it held no lock to renew
	Acquired            // acquire, answered OK: it holds the lock until Until
	NotAcquired         // acquire, answered otherwise
	GotToken            // token, answered a number: its fencing token now
	NoToken             // token, answered otherwise: it keeps the token it had
)

// Change is what a script did to one key: Before as it was (Existed) and
// After as it is (Exists).
type Change struct {
	Key             string
	Before, After   KeyState
	Existed, Exists bool
}

func (EvalCommand) Kind() demo.Kind { return EvalCmd }

// Args is the command as a client sends it, the script whole.
func (e EvalCommand) Args() []string {
	return append([]string{"EVAL", e.Text, "1", e.Key}, e.Argv...)
}

func (e EvalCommand) Reply() string { return e.Answer.String() }

// Wire is EVAL "<script>" 1 KEY ARGV on one line, the value shortened, an
// empty word as "" (a client that drew no value sends one).
func (e EvalCommand) Wire() (string, string) {
	words := []string{"EVAL", strconv.Quote(strings.Join(strings.Fields(e.Text), " ")), "1", e.Key}
	for _, a := range e.Argv {
		switch {
		case a == "":
			a = `""`
		case a == e.Value:
			a = demo.Short(a)
		}
		words = append(words, a)
	}
	return strings.Join(words, " "), e.Answer.String()
}

// Deeds: a release lets go, a renewal that failed learns it lost the
// lock, an acquisition asks for it.
func (e EvalCommand) Deeds() demo.Deed {
	switch e.Outcome {
	case Released, Lost:
		return demo.Unlocked
	case Acquired, NotAcquired:
		return demo.Asked
	}
	return 0
}

// Claims: what the event's sentence says the client believes after it.
func (e EvalCommand) Claims() []demo.Claim {
	switch e.Outcome {
	case Released, Lost:
		return []demo.Claim{{Fact: demo.BelievesNot, Client: e.Client, At: e.At}}
	case Renewed, Acquired:
		return []demo.Claim{{Fact: demo.Believes, Client: e.Client, At: e.At}}
	}
	return nil
}

// Draw: a lock key the script deleted ends its span on the node's lane;
// one it set starts its new holder's.
func (e EvalCommand) Draw(d *demo.Drawing) {
	for _, c := range e.Changes {
		if c.Before.Counter || c.After.Counter || c.Existed && c.Exists && c.Before.Value == c.After.Value {
			continue
		}
		if c.Existed {
			d.Stop(e.Node, "", e.At)
		}
		if c.Exists && c.After.Owner != "" {
			until := -1
			if c.After.TTL >= 0 {
				until = e.At + c.After.TTL
			}
			d.Start(e.Node, c.After.Owner, e.At, 0, until)
		}
	}
}

// Note tells, in a transcript, what the script did to the keys and what
// the client made of it.
func (e EvalCommand) Note(sc *demo.Scenario) string {
	var parts []string
	for _, c := range e.Changes {
		parts = append(parts, c.story())
	}
	if len(parts) == 0 && e.Answer.Kind != lua.Error {
		parts = append(parts, "changed no key")
	}
	if o := e.outcome(sc); o != "" {
		parts = append(parts, o)
	}
	return ": " + e.Script + ": " + strings.Join(parts, "; ")
}

func (c Change) story() string {
	whose := func(k KeyState) string {
		switch {
		case k.Counter:
			return "the counter"
		case k.Owner != "":
			return k.Owner + "'s lock"
		}
		return "a value of nobody's"
	}
	ttl := func(k KeyState) string {
		if k.TTL < 0 {
			return "no TTL"
		}
		return fmt.Sprintf("TTL %dms", k.TTL)
	}
	switch {
	case !c.Exists:
		return fmt.Sprintf("deleted %s (%s)", c.Key, whose(c.Before))
	case !c.Existed:
		return fmt.Sprintf("set %s (%s, %s)", c.Key, whose(c.After), ttl(c.After))
	case c.Before.Value != c.After.Value || c.Before.Count != c.After.Count:
		return fmt.Sprintf("set %s (%s, %s)", c.Key, whose(c.After), ttl(c.After))
	}
	return fmt.Sprintf("%s's TTL set to %dms (%s)", c.Key, c.After.TTL, whose(c.After))
}

func (e EvalCommand) outcome(sc *demo.Scenario) string {
	switch e.Outcome {
	case Released:
		return e.Client + " lets go of the lock"
	case Renewed:
		return e.Client + " counts on its lease until " + demo.Clock(sc, e.Until)
	case Lost:
		return e.Client + " learns it lost the lock"
	case Acquired:
		if e.Until < 0 {
			return e.Client + " holds the lock for ever"
		}
		return e.Client + " holds the lock until " + demo.Clock(sc, e.Until)
	case NotAcquired:
		return e.Client + " did not get the lock"
	case GotToken:
		return fmt.Sprintf("%s's token is %d", e.Client, e.Answer.Int)
	case NoToken:
		return e.Client + " got no token"
	}
	return ""
}
