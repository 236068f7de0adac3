// Package backoff is a modelled crowd of clients retrying one contended
// lock with capped exponential backoff (seed 000, 8.3). Every client that
// is refused waits min(cap, base*2^attempt) before it calls again; with
// jitter on it waits a random time in [0, that), "full jitter" as Marc
// Brooker's 2015 AWS Architecture Blog post names it, or, where the policy
// adds a spread ("plus SPREAD"), that wait and a random time in [0,
// SPREAD) on top: the seed's own loop, 2**attempt*0.1 + uniform(0, 0.5)
// seconds. The randomness comes from a PCG seeded by the scenario, so every
// frame is the same every time it is played. No real server stands behind
// it: the page says so.
package backoff

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// Store is the store: value of a scenario played on the modelled crowd.
const Store demo.StoreKind = "backoff"

// The family's verbs.
const (
	Policy demo.Verb = "policy" // the lock's node sets the retry policy (setup)
	Call   demo.Verb = "call"   // a client starts its acquire-with-retry loop now
	Wake   demo.Verb = "wake"   // the cron wakes every client at once: each calls now
)

// Lock is the lock's node: one key, SET NX with a short PX, as the seed's
// acquire_lock is. Cron is what wakes the clients together.
const (
	Lock = "lock"
	Cron = "cron"
)

// policyArgs are the retry policy: base and cap of the wait, how long a
// winner holds the lock, the seed of the jitter, and Plus, the spread of an
// additive jitter (0 for full jitter).
type policyArgs struct {
	Base, Cap, Hold int
	Seed            uint64
	Plus            int
}

type callArgs struct{}

type wakeArgs struct{}

// Family is the crowd's entry in the registry. In free play a student
// starts a client's loop by hand and moves the clock; the retries are the
// clients' own timers, which are the lesson.
var Family = &demo.Family{
	Name:  "backoff",
	Kinds: []demo.StoreKind{Store},
	Unit:  "ms",
	Verbs: []demo.VerbSpec{
		{Verb: Policy, Form: "BASE CAP HOLD SEED [plus SPREAD]", Node: true, Help: "retries wait min(CAP, BASE*2^attempt) ms (jitter: a random time below it, or with plus SPREAD that wait and a random time below SPREAD on top); a winner holds the lock HOLD ms; SEED seeds the jitter", Parse: parsePolicy},
		{Verb: Wake, Node: true, Help: "every client not calling yet calls SET NX now, in the scenario's order, and retries with backoff", Parse: func(w []string) (any, error) {
			if len(w) != 0 {
				return nil, errors.New("takes no words")
			}
			return wakeArgs{}, nil
		}},
		{Verb: Call, Help: "the client calls SET NX now, and retries with backoff until it gets the lock", Parse: func(w []string) (any, error) {
			if len(w) != 0 {
				return nil, errors.New("takes no words")
			}
			return callArgs{}, nil
		}},
	},
	New:          func(*demo.Scenario) demo.Store { return &crowd{finish: -1} },
	Nodes:        func(*demo.Scenario) []string { return []string{Lock, Cron} },
	Lanes:        func(*demo.Scenario) []demo.Lane { return []demo.Lane{{Key: Lock, Label: Lock}} },
	Transcript:   transcript,
	Failures:     []demo.ViolationKind{Spread, ThunderingHerd},
	Offers:       offers,
	OwnsResource: true, // the lock its clients retry; they write nothing
	Narrate:      narrate,
}

func parsePolicy(w []string) (any, error) {
	if len(w) != 4 && (len(w) != 6 || w[4] != "plus") {
		return nil, errors.New("want BASE CAP HOLD SEED, or BASE CAP HOLD SEED plus SPREAD")
	}
	var p policyArgs
	if len(w) == 6 {
		n, err := demo.Number(w[5], "a time in ms")
		if err != nil || n <= 0 {
			return nil, errors.New("SPREAD is a positive time in ms")
		}
		p.Plus = n
	}
	for i, f := range []*int{&p.Base, &p.Cap, &p.Hold} {
		n, err := demo.Number(w[i], "a time in ms")
		if err != nil || n <= 0 {
			return nil, errors.New("BASE, CAP and HOLD are positive times in ms")
		}
		*f = n
	}
	seed, err := strconv.ParseUint(w[3], 16, 64)
	if err != nil {
		return nil, errors.New("SEED is a hexadecimal number")
	}
	p.Seed = seed
	return p, nil
}

// caller is one client's acquire-with-retry loop: when it calls next, how
// many times it was refused, and when it got the lock.
type caller struct {
	calling bool
	next    int
	refused int
	got     int // -1 until it has the lock
}

// crowd is the lock and the clients calling it. The lock is free from
// freeAt on: a winner holds it hold ms for its work and then deletes it.
type crowd struct {
	policy  policyArgs
	jitter  bool // the switch: each wait drawn at random below its bound
	rng     rand.PCG
	callers []caller
	freeAt  int
	calls   int
	slots   []Slot // calls per slot of hold ms, from t=0
	finish  int    // when the last client got the lock; -1 until then
}

func (c *crowd) Do(r *demo.Run, a demo.Action) error {
	switch args := a.Args.(type) {
	case policyArgs:
		c.policy, c.jitter = args, r.On()
		// The stream is the scenario's seed; the second word only tells
		// this model's stream apart from any other seeded the same.
		c.rng = *rand.NewPCG(args.Seed, 0xb0ff)
	case callArgs:
		if c.policy.Hold == 0 {
			return &demo.ActionError{Action: a, Msg: "the scenario's setup sets no policy (lock policy BASE CAP HOLD SEED)"}
		}
		c.ensure(r)
		i := clientIndex(r, a.Who)
		if c.callers[i].calling || c.callers[i].got >= 0 {
			return &demo.ActionError{Action: a, Msg: a.Who + " is already calling or has had the lock"}
		}
		c.callers[i] = caller{calling: true, next: r.Now(), got: -1}
		c.play(r, r.Now())
	case wakeArgs:
		if c.idle(len(r.Scenario().Clients)) == 0 {
			return &demo.ActionError{Action: a, Msg: "every client is retrying or has had the lock already"}
		}
		if c.policy.Hold == 0 {
			return &demo.ActionError{Action: a, Msg: "the scenario's setup sets no policy (lock policy BASE CAP HOLD SEED)"}
		}
		// One action, so that the calls of the same moment are one slot's
		// event, as they are one slot's bar.
		c.ensure(r)
		for i, k := range c.callers {
			if !k.calling && k.got < 0 {
				c.callers[i] = caller{calling: true, next: r.Now(), got: -1}
			}
		}
		c.play(r, r.Now())
	}
	return nil
}

// ensure gives each of the scenario's clients its loop, not yet calling.
func (c *crowd) ensure(r *demo.Run) {
	if c.callers != nil {
		return
	}
	c.callers = make([]caller, len(r.Scenario().Clients))
	for i := range c.callers {
		c.callers[i].got = -1
	}
}

func clientIndex(r *demo.Run, name string) int {
	for i, n := range r.Scenario().Clients {
		if n == name {
			return i
		}
	}
	return -1
}

// Elapse plays every call due while the clock moved, in time order.
func (c *crowd) Elapse(r *demo.Run, _ int) { c.play(r, r.Now()) }

func (c *crowd) Forever(*demo.Run) string { return "" }

// State is the crowd as a frame shows it.
type State struct {
	Base, Cap, Hold int
	Seed            uint64
	Jitter          bool
	Plus            int // the spread of an additive jitter; 0 for full jitter
	Clients         int
	Done            int // clients that have had the lock
	Waiting         int // clients still calling
	Calls           int
	Finish          int    // when the last client got the lock; -1 until then
	Slots           []Slot // every slot up to the last call, from t=0
	Busiest         Slot   // the slot with the most retries
}

func (c *crowd) State(r *demo.Run) any {
	return State{
		Base: c.policy.Base, Cap: c.policy.Cap, Hold: c.policy.Hold, Seed: c.policy.Seed, Jitter: c.jitter, Plus: c.policy.Plus,
		Clients: len(r.Scenario().Clients), Done: c.done(), Waiting: c.waiting(), Calls: c.calls,
		Finish: c.finish, Slots: slices.Clone(c.slots), Busiest: c.busiest(),
	}
}

// Of returns the crowd in f, if f has one.
func Of(f demo.Frame) (State, bool) {
	s, ok := f.Store.(State)
	return s, ok
}

// Refused is how many calls were turned away.
func (s State) Refused() int { return s.Calls - s.Done }

func transcript(b *strings.Builder, f *demo.Frame) bool {
	s := f.Store.(State)
	wait := "exactly min(cap, base*2^attempt)"
	switch {
	case s.Jitter && s.Plus > 0:
		wait = fmt.Sprintf("min(cap, base*2^attempt) + random in [0, %dms)", s.Plus)
	case s.Jitter:
		wait = "random in [0, min(cap, base*2^attempt))"
	}
	fmt.Fprintf(b, "  policy: base %dms, cap %dms, hold %dms, wait %s, seed %x\n", s.Base, s.Cap, s.Hold, wait, s.Seed)
	fmt.Fprintf(b, "  calls: %d (%d refused); %d of %d clients have had the lock, %d waiting\n", s.Calls, s.Refused(), s.Done, s.Clients, s.Waiting)
	if s.Finish >= 0 {
		fmt.Fprintf(b, "  finished: the last client got the lock at %s\n", demo.Clock(f.Scenario, s.Finish))
	}
	var bars []string
	for _, sl := range s.Slots {
		if sl.Calls > 0 {
			bars = append(bars, fmt.Sprintf("%d:%d", sl.At, sl.Calls))
		}
	}
	if len(bars) > 0 {
		fmt.Fprintf(b, "  calls per slot (ms:calls): %s\n", strings.Join(bars, " "))
	}
	top := f.Verdict()
	fmt.Fprintf(b, "verdict: %s (%s)\n", top.Kind, top.Kind.Class())
	for _, v := range f.Violations {
		fmt.Fprintf(b, "  %s: busiest slot %s: %d retries; %d calls so far; %s of %d clients have had the lock",
			v.Kind, demo.Clock(f.Scenario, v.At), v.Token, v.Max, v.Value, s.Clients)
		if v.Before != "" {
			fmt.Fprintf(b, ", the last at t=%sms", v.Before)
		}
		b.WriteString("\n")
	}
	return true
}
