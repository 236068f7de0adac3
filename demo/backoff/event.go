package backoff

import (
	"fmt"
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// CallsKind is the kind of a slot's calls.
const CallsKind demo.Kind = "backoff-calls"

// Burst is the calls of one slot that one move played: how many, how many
// were retries, who got the lock and how many were still waiting after.
type Burst struct {
	demo.Head
	Slot    int // the slot's start, in ms
	Calls   int
	Retries int
	Won     []string
	Waiting int
	Key     string // the lock's key
	Hold    int    // PX: how long a winner holds it
}

func (Burst) Kind() demo.Kind { return CallsKind }

// Wire is the slot's calls as Redis would see them: SET NX with a short
// PX, each answered OK or nil.
func (e Burst) Wire() (string, string) {
	call := fmt.Sprintf("SET %s <client> NX PX %d ×%d", e.Key, e.Hold, e.Calls)
	var reply []string
	if n := len(e.Won); n > 0 {
		reply = append(reply, fmt.Sprintf("OK ×%d", n))
	}
	if n := e.Calls - len(e.Won); n > 0 {
		reply = append(reply, fmt.Sprintf("(nil) ×%d", n))
	}
	return call, strings.Join(reply, ", ")
}

// Deeds: every call asks for the lock; a refused one waits.
func (Burst) Deeds() demo.Deed { return demo.Asked | demo.Waited }

// Note says who got the lock and how many still wait.
func (e Burst) Note(*demo.Scenario) string {
	won := "nobody got it"
	if len(e.Won) > 0 {
		won = strings.Join(e.Won, ", ") + " got it"
	}
	retries := "retries"
	if e.Retries == 1 {
		retries = "retry"
	}
	return fmt.Sprintf(" (%d %s; %s; %d waiting)", e.Retries, retries, won, e.Waiting)
}
