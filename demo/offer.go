package demo

import (
	"errors"
	"slices"
	"strconv"
	"strings"
)

// Offer is one action free play offers where the run stands: who does it,
// its label on a button and, when it cannot be played now, why not. A
// disabled action is offered all the same, so that a student sees what is
// not possible and for what reason.
type Offer struct {
	Action Action
	Who    string // the client or node that acts; "" for the world (time)
	Label  Text   // short, for a button
	Why    Text   // zero when it can be played; else why not
	// Beyond: outside the scenario's own world (a node restarting where the
	// script never touches a node). Free play offers it; the finder's
	// bounded search leaves it out (docs/finder.md).
	Beyond bool
}

// Enabled reports whether the offer can be played now.
func (o Offer) Enabled() bool { return o.Why == (Text{}) }

// Offers returns what can be done from the run's frame: for each client, in
// the scenario's order, the family's actions and the engine's (write, pause,
// resume, crash); then the nodes'; then time passing by the scenario's
// meaningful amounts. The list is finite and the same every time for the
// same run, as the finder needs.
func (r *Run) Offers() ([]Offer, error) {
	fam := r.sc.Family
	if fam.Offers == nil {
		return nil, &NoFreePlayError{Family: fam.Name}
	}
	famOffers := fam.Offers(r)
	var out []Offer
	for _, c := range r.clients {
		for _, o := range famOffers {
			if o.Action.Who == c.Name && o.Action.Verb != Tick {
				out = append(out, o)
			}
		}
		out = append(out, r.engineOffers(c.Name)...)
	}
	for _, o := range famOffers {
		if o.Action.Verb != Tick && r.Client(o.Action.Who) == nil {
			out = append(out, o)
		}
	}
	out = append(out, r.tickOffers(famOffers)...)
	for i := range out {
		if out[i].Why == (Text{}) {
			out[i].Why = r.Cannot(out[i].Action)
		}
	}
	return out, nil
}

// engineOffers are what any client can do alike: write the values the script
// has it write (its own name when it writes none), pause, resume and crash.
// A store that owns its resource has its clients write with its own verbs.
func (r *Run) engineOffers(c string) []Offer {
	var out []Offer
	if !r.sc.Family.OwnsResource {
		out = r.writeOffers(c)
	}
	for _, e := range []struct {
		v     Verb
		label Text
	}{
		{Pause, Text{EN: "pause", JA: "停止"}},
		{Resume, Text{EN: "resume", JA: "再開"}},
		{Crash, Text{EN: "crash", JA: "クラッシュ"}},
	} {
		out = append(out, Offer{Action: Action{Who: c, Verb: e.v, Source: c + " " + string(e.v)}, Who: c, Label: e.label})
	}
	return out
}

// writeOffers are client c's writes to the resource: the values the script
// has it write, or its own name when it writes none.
func (r *Run) writeOffers(c string) []Offer {
	var out []Offer
	var values []string
	for _, m := range r.sc.Moves {
		for _, a := range m.Do {
			if a.Verb == Write && a.Who == c && a.playsWhen(r.on) && !slices.Contains(values, a.Args.(WriteArgs).Value) {
				values = append(values, a.Args.(WriteArgs).Value)
			}
		}
	}
	if len(values) == 0 {
		values = []string{c}
	}
	for _, v := range values {
		out = append(out, Offer{
			Action: Action{Who: c, Verb: Write, Args: WriteArgs{Value: v}, Source: c + " write " + v},
			Who:    c, Label: Text{EN: "write " + strconv.Quote(v), JA: strconv.Quote(v) + " を書く"},
		})
	}
	return out
}

// tickOffers are time passing: by each amount the scenario's moves tick
// and each the family offers (a lease's length, say), smallest first.
func (r *Run) tickOffers(famOffers []Offer) []Offer {
	var ds []int
	for _, m := range r.sc.Moves {
		for _, a := range m.Do {
			if a.Verb == Tick && a.Args.(TickArgs).Forward > 0 {
				ds = append(ds, a.Args.(TickArgs).Forward)
			}
		}
	}
	for _, o := range famOffers {
		if o.Action.Verb == Tick {
			ds = append(ds, o.Action.Args.(TickArgs).Forward)
		}
	}
	slices.Sort(ds)
	var out []Offer
	for _, d := range slices.Compact(ds) {
		out = append(out, TickOffer(r.sc, d))
	}
	return out
}

// TickOffer is time passing by d, for a family that offers an amount of its
// own.
func TickOffer(sc *Scenario, d int) Offer {
	t := duration(sc, d)
	return Offer{
		Action: Action{Verb: Tick, Args: TickArgs{Forward: d}, Source: "tick " + strconv.Itoa(d)},
		Label:  Text{EN: "+" + t.EN, JA: t.JA + " 進める"},
	}
}

// Refuses reports whether Cannot(a) would give a reason, without writing
// it: the finder asks it of every step it tries, before it copies a run.
func (r *Run) Refuses(a Action) bool {
	if a.Verb == Tick {
		return false
	}
	if a.Verb == ProgramStep {
		var err error
		if a, err = step(r.sc, r.on, a); err != nil {
			return true
		}
	}
	spec := r.sc.Family.spec(r.sc.Store, a.Verb)
	if spec.Node {
		return false
	}
	c := r.Client(a.Who)
	return c == nil || clientRefusal(c, &a, spec, r.sc.Family.OwnsResource) != refusedNone
}

// Cannot says why a cannot be played now, as Apply would refuse it for its
// client (crashed, paused, blocked), or returns the zero Text when the run
// would try it (the store may still refuse). The finder asks before it
// copies a run to try a.
func (r *Run) Cannot(a Action) Text {
	if a.Verb == Tick {
		return Text{}
	}
	a, err := step(r.sc, r.on, a)
	if ae := (*ActionError)(nil); errors.As(err, &ae) {
		return Text{EN: ae.Msg, JA: ae.JA}
	}
	spec, _ := r.sc.Family.Verb(r.sc.Store, a.Verb)
	if spec.Node {
		return Text{}
	}
	c := r.Client(a.Who)
	if c == nil {
		return Text{EN: "there is no client " + a.Who, JA: a.Who + " というクライアントはいない"}
	}
	return clientCannot(c, &a, &spec, r.sc.Family.OwnsResource)
}

// ScriptOffers are the family actions the scenario's own moves contain, as
// offers: each client's, played with the switch where r stands (the switch
// decides the clients' code), and each node's, from either position (the
// world may do to a node what it does in either). With everyone, every
// client is offered every client action of the script (they run the same
// code); without, each client only its own (a database client's statements
// name its values). A Short family's client is offered the steps of its own
// program ("W1 step 2", ProgramStep), each once by its words.
func ScriptOffers(r *Run, everyone bool) []Offer {
	sc := r.sc
	var out []Offer
	seen := map[string]bool{}
	add := func(a Action, label string) {
		if seen[a.Who+"\x00"+label] {
			return
		}
		seen[a.Who+"\x00"+label] = true
		out = append(out, Offer{Action: a, Who: a.Who, Label: Text{EN: label, JA: label}})
	}
	if sc.Family.Short {
		for _, c := range r.clients {
			for k, a := range Program(sc, r.on, c.Name) {
				src := c.Name + " step " + strconv.Itoa(k+1)
				add(Action{Who: c.Name, Verb: ProgramStep, Args: StepArgs{Step: k + 1}, Source: src}, statementTail(a))
			}
		}
	}
	for _, m := range sc.Moves {
		for _, a := range m.Do {
			if a.Verb == Tick || a.Verb.Engine() {
				continue
			}
			if spec, _ := sc.Family.Verb(sc.Store, a.Verb); spec.Node {
				a.When, a.Line = "", 0
				a.Source = Canonical(sc, a)
				add(a, statementTail(a))
				continue
			}
			if sc.Family.Short || !a.playsWhen(r.on) {
				continue
			}
			for _, c := range r.clients {
				if c.Name != a.Who && !everyone {
					continue
				}
				add(retarget(a, c.Name), statementTail(a))
			}
		}
	}
	return out
}

// retarget is a said by client who instead, in its canonical form.
func retarget(a Action, who string) Action {
	a.Who, a.When, a.Line = who, "", 0
	a.Source = who + " " + statementTail(a)
	return a
}

// NodeOffers are the same node action for each of the scenario's nodes (a
// node going down, coming back): what the world may do to any of them.
func NodeOffers(sc *Scenario, v Verb, args any, words string) []Offer {
	var out []Offer
	for _, n := range sc.NodeNames() {
		src := strings.TrimSpace(n + " " + string(v) + " " + words)
		out = append(out, Offer{
			Action: Action{Who: n, Verb: v, Args: args, Source: src},
			Who:    n, Label: Text{EN: strings.TrimPrefix(src, n+" "), JA: strings.TrimPrefix(src, n+" ")},
		})
	}
	return out
}
