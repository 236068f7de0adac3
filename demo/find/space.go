package find

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// The finder's action space, bounded as the lesson is:
//
//   - each client runs its own code: its next call is the next one its
//     script makes in this position of the switch (so a fix that is an
//     order, or a check, is kept), from the start place on;
//   - a renewal thread's call (a watchdog's, which the store plays even
//     while its client is paused; an EXPIRE that renews a lock set with
//     a TTL: Family.Duty) is the client's background duty, not its
//     program's: while the client holds the lock, it is played before time
//     passes, and time passing longer than the duty's rhythm in the script
//     (the shortest gap from the client's first call to a duty, or between
//     two) passes in steps of that rhythm, the duties played before each,
//     so that a renewal thread never stands idle while its process runs.
//     A client that takes the lock with the same call as one with a duty
//     runs the same duty;
//   - the world does what it does in either position: the script's node
//     actions (a node down, a clock jump, a failover), a pause of each
//     client at most once, its resume, a holder's crash, and time passing
//     by the amounts the family offers (the script's ticks, a lease's
//     length).
//
// docs/finder.md says what that means per family.

// maxProgram bounds a client's calls the finder follows, so that a node
// keeps every client's place in 4 bits.
const (
	maxProgram = 15
	maxClients = 16
)

type space struct {
	programs [][]demo.Action // each client's calls, by the client's index
	duties   []demo.Action   // each client's background duty; Verb "" for none
	rhythm   int             // time passes in steps of at most this while a duty runs
	world    []demo.Action   // node actions, then time passing, in order
	own      []ownActions    // each client's pause, resume and crash, by index
	groups   [][]int         // interchangeable clients, by index (symmetry.go)
}

// ownActions are what the world may do to one client, written once rather
// than for every state tried.
type ownActions struct{ pause, resume, crash demo.Action }

// newSpace reads the space from the script and the family's offers at the
// start. A family's offers depend on the scenario and the position, not on
// the state (Family.Offers), so reading them once is enough.
func newSpace(start demo.Place, root *demo.Run) (*space, error) {
	offers, err := root.Offers()
	if err != nil {
		return nil, err
	}
	sc := start.Sc
	clients := root.Clients()
	if len(clients) > maxClients {
		clients = clients[:maxClients]
	}
	sp := &space{programs: make([][]demo.Action, len(clients)), duties: make([]demo.Action, len(clients))}
	for _, c := range clients {
		sp.own = append(sp.own, ownActions{
			pause:  demo.Action{Who: c.Name, Verb: demo.Pause, Source: c.Name + " pause"},
			resume: demo.Action{Who: c.Name, Verb: demo.Resume, Source: c.Name + " resume"},
			crash:  demo.Action{Who: c.Name, Verb: demo.Crash, Source: c.Name + " crash"},
		})
	}
	sp.rhythm = math.MaxInt
	full := make([][]demo.Action, len(clients)) // each client's calls from the script's start
	for i, c := range clients {
		since, last := 0, -1 // when the client last called: its first call, or its duty
		step := 0            // the call's place in the client's program (demo.Program)
		from := min(max(start.Step, 1), sc.Frames()) - 1
		for k, m := range sc.Moves {
			for _, a := range m.Do {
				if !plays(a, start.On) {
					continue
				}
				if a.Verb == demo.Tick {
					since += a.Args.(demo.TickArgs).Forward
					continue
				}
				if a.Who != c.Name || a.Verb == demo.Pause || a.Verb == demo.Resume || a.Verb == demo.Crash {
					continue
				}
				if !a.Verb.Engine() {
					step++
				}
				if isDuty(sc, start.On, a) {
					if last >= 0 && since > last {
						sp.rhythm = min(sp.rhythm, since-last)
					}
					last = since
					sp.duties[i] = canonical(sc, a, step)
					continue
				}
				if last < 0 {
					last = since
				}
				full[i] = append(full[i], canonical(sc, a, step))
				if k >= from && len(sp.programs[i]) < maxProgram {
					sp.programs[i] = append(sp.programs[i], canonical(sc, a, step))
				}
			}
		}
	}
	sp.shareDuties(clients, full)
	sp.borrow(sc, clients, full, offers)
	for _, o := range worldOffers(sc, offers) {
		if !o.Beyond && root.Client(o.Action.Who) == nil {
			sp.world = append(sp.world, o.Action)
		}
	}
	return sp, nil
}

// worldOffers are the offers the finder may take: the family's, with time
// moving only by the scenario's TimeSteps where it names them.
func worldOffers(sc *demo.Scenario, offers []demo.Offer) []demo.Offer {
	if len(sc.TimeSteps) == 0 {
		return offers
	}
	out := slices.DeleteFunc(slices.Clone(offers), func(o demo.Offer) bool { return o.Action.Verb == demo.Tick })
	for _, d := range sc.TimeSteps {
		out = append(out, demo.TickOffer(sc, d))
	}
	return out
}

// isDuty reports whether a is a background thread's call: one the store
// plays even while its client is paused, or one its family calls a duty.
func isDuty(sc *demo.Scenario, on bool, a demo.Action) bool {
	if spec, _ := sc.Family.Verb(sc.Store, a.Verb); spec.Paused {
		return true
	}
	return sc.Family.Duty != nil && sc.Family.Duty(sc, on, a)
}

// shareDuties gives a client with no duty of its own the duty of the first
// client that takes the lock with the same first call, said by itself: the
// same locking code comes with the same renewal thread (naive-renewal's B
// renews as A does). A client that locks another way (the watchdog's B,
// whose tryLock names its lease) has none.
func (sp *space) shareDuties(clients []demo.Client, full [][]demo.Action) {
	for i, c := range clients {
		if sp.duties[i].Verb != "" || len(full[i]) == 0 {
			continue
		}
		for j, d := range sp.duties {
			if d.Verb != "" && len(full[j]) > 0 && sameCall(full[i][0], full[j][0], false) {
				sp.duties[i] = sayBy(d, clients[j].Name, c.Name)
				break
			}
		}
	}
}

// borrow gives a client that the script never has act (redlock-quorum's
// B, there so that a student can make a second holder) the program of the
// first client that acts, said by itself, where its family lends every
// client the script's calls (free play offers them to it): the same code,
// run from its start, writing its own name where the other writes its
// own. A database's client runs only its own statements, which name its
// values.
func (sp *space) borrow(sc *demo.Scenario, clients []demo.Client, full [][]demo.Action, offers []demo.Offer) {
	offered := map[string]bool{}
	for _, o := range offers {
		offered[o.Action.Source] = true
	}
	for i, c := range clients {
		if len(full[i]) > 0 || sp.duties[i].Verb != "" || sc.Family.Short {
			continue
		}
		for j, prog := range full {
			if len(prog) == 0 || len(prog) > maxProgram {
				continue
			}
			lent := make([]demo.Action, len(prog))
			for k, a := range prog {
				lent[k] = sayBy(a, clients[j].Name, c.Name)
			}
			if slices.ContainsFunc(lent, func(a demo.Action) bool { return !a.Verb.Engine() && !offered[a.Source] }) {
				continue // not lent to c: not the same code
			}
			sp.programs[i] = lent
			if d := sp.duties[j]; d.Verb != "" {
				sp.duties[i] = sayBy(d, clients[j].Name, c.Name)
			}
			break
		}
	}
}

// sayBy is a, client from's call, made by client to instead; a write of
// from's own name writes to's.
func sayBy(a demo.Action, from, to string) demo.Action {
	a.Who = to
	if w, ok := a.Args.(demo.WriteArgs); ok && w.Value == from {
		a.Args = demo.WriteArgs{Value: to}
	}
	v := ""
	if w, ok := a.Args.(demo.WriteArgs); ok {
		v = " " + w.Value
	}
	if a.Verb == demo.Write {
		a.Source = to + " write" + v
		return a
	}
	a.Source = to + strings.TrimPrefix(a.Source, from)
	return a
}

// plays reports whether the script plays a in the position on.
func plays(a demo.Action, on bool) bool {
	return a.When == "" || a.When == "on" && on || a.When == "off" && !on
}

// canonical is a as free play writes it, so a trace plays as a history:
// for a family whose calls are a client's program steps (Short), the
// step's number, step, which the switch plays its own way. The action
// itself stays the call, so the search plays it without reading the step.
func canonical(sc *demo.Scenario, a demo.Action, step int) demo.Action {
	a.When, a.Line = "", 0
	a.Source = demo.Canonical(sc, a)
	if sc.Family.Short && !a.Verb.Engine() {
		a.Source = a.Who + " step " + strconv.Itoa(step)
	}
	return a
}

// progress is how far the clients of node n have got through their
// programs, all told.
func (sp *space) progress(n node) int {
	p := 0
	for i := range sp.programs {
		p += n.pc(i)
	}
	return p
}
