// Package partition is a modelled partitioned log with one owner per
// partition (seed 000, 9.1): a coordinator assigns the partition whose
// events update row-42 to one worker at a time, and the new owner starts
// its producer with the partition's transactional.id, which bumps the
// producer epoch; the worker writes row-42 with its producer's epoch. The
// store may turn away a write whose epoch is older than the newest it has
// seen: Kafka's producer epoch (KIP-98, KIP-588), the fencing token under
// another name. No real broker stands behind it: the page says so.
package partition

import (
	"errors"
	"fmt"
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// Store is the store: value of a scenario played on the modelled partition.
const Store demo.StoreKind = "partition"

// The family's verbs.
const (
	Assign  demo.Verb = "assign"  // the coordinator gives the partition to a worker
	Produce demo.Verb = "produce" // a worker writes row-42 with its epoch
)

// Coordinator is the node that assigns partitions (Kafka's group
// coordinator); the model lets it stand for the transaction coordinator
// too, which bumps the new owner's producer epoch in the same move.
const Coordinator = "coordinator"

type assignArgs struct{ Worker string }
type produceArgs struct{ Value string }

// Family is the partition's entry in the registry.
var Family = &demo.Family{
	Name:  "partition",
	Kinds: []demo.StoreKind{Store},
	Unit:  "ms",
	Verbs: []demo.VerbSpec{
		{Verb: Assign, Form: "WORKER", Node: true, Help: "a rebalance gives the partition to WORKER, whose producer takes the next producer epoch", Parse: func(w []string) (any, error) {
			if len(w) != 1 {
				return nil, errors.New("want WORKER")
			}
			return assignArgs{w[0]}, nil
		}},
		{Verb: Produce, Form: "VALUE", Help: "the worker writes VALUE to row-42 with its producer's epoch", Parse: func(w []string) (any, error) {
			if len(w) != 1 {
				return nil, errors.New("want VALUE")
			}
			return produceArgs{w[0]}, nil
		}},
	},
	New:        func(*demo.Scenario) demo.Store { return &partition{epochs: map[string]int64{}} },
	Nodes:      func(*demo.Scenario) []string { return []string{Coordinator} },
	Lanes:      func(*demo.Scenario) []demo.Lane { return []demo.Lane{{Key: Coordinator, Label: Coordinator}} },
	Transcript: transcript,
	Failures:   []demo.ViolationKind{EpochFenced, StaleOwner},
	Properties: properties,
	Words: map[demo.ViolationKind]demo.Words{demo.MutualExclusionHeld: {
		Short:  demo.Text{JA: "異常なし", EN: "no anomaly"},
		Legend: demo.Text{JA: "担当が移った後の古い持ち主の書き込みは、一つも通っていない。", EN: "No write from an owner whose partition had moved has landed."},
		Say: demo.Plain("異常なし: 担当が移った後で、古い持ち主の書き込みが通ったことはない。",
			"No anomaly: no write from a former owner of the partition has landed."),
	}},
	Offers:       offers,
	OwnsResource: true, // row-42, written with an epoch
}

// partition is the one partition: its owner and epoch as the coordinator
// knows them, the epoch each worker was given, and row-42 with the newest
// epoch the store has seen.
type partition struct {
	owner    string
	epoch    int64
	epochs   map[string]int64
	value    string
	writer   string
	maxEpoch int64
}

func (p *partition) Do(r *demo.Run, a demo.Action) error {
	switch args := a.Args.(type) {
	case assignArgs:
		if r.Client(args.Worker) == nil {
			return &demo.ActionError{Action: a, Msg: fmt.Sprintf("%q is not one of the scenario's clients", args.Worker)}
		}
		p.epoch++
		p.owner = args.Worker
		// Only the new owner hears of it now; a paused old owner learns
		// nothing until it next talks to the coordinator. The store learns
		// the new epoch at once, as a broker does when the new owner
		// initialises its producer: the old epoch is fenced from here on,
		// before the new owner has written anything.
		p.epochs[args.Worker] = p.epoch
		p.maxEpoch = max(p.maxEpoch, p.epoch)
		r.Log(Assigned{Head: r.Head("", Coordinator), Worker: args.Worker, Epoch: p.epoch})
	case produceArgs:
		epoch, ok := p.epochs[a.Who]
		if !ok {
			return &demo.ActionError{Action: a, Msg: "the worker was never given the partition"}
		}
		e := Produced{Head: r.Head(a.Who, ""), Value: args.Value, Epoch: epoch, Max: p.maxEpoch, Before: p.value}
		// With the epoch fence on, the store keeps the newest epoch that
		// wrote and turns an older one away, as a broker does a producer
		// whose epoch was bumped.
		e.OK = !r.On() || epoch >= p.maxEpoch
		if e.OK {
			p.value, p.maxEpoch = args.Value, max(p.maxEpoch, epoch)
			// row-42 is the scenario's resource: its value is the one
			// every store's page shows as the resource's.
			r.Resource().Write(0, args.Value)
		}
		r.Log(e)
		p.judge(r, a.Who, e)
		if e.OK {
			p.writer = a.Who
		}
	}
	return nil
}

// judge looks at a write from a worker that no longer owns the partition:
// landed, it overwrote the owner's data; turned away, the epoch contained it.
func (p *partition) judge(r *demo.Run, worker string, e Produced) {
	if worker == p.owner {
		return
	}
	v := demo.Violation{Kind: StaleOwner, At: e.At, Client: worker, Other: p.owner, Value: e.Value, Before: e.Before, Token: e.Epoch, Max: p.epoch}
	if !e.OK {
		v.Kind = EpochFenced
	}
	r.Violate(v)
}

func (p *partition) Elapse(*demo.Run, int)    {}
func (p *partition) Forever(*demo.Run) string { return "" }

func (p *partition) State(r *demo.Run) any {
	s := State{Owner: p.owner, Epoch: p.epoch, Value: p.value, MaxEpoch: p.maxEpoch, Fenced: r.On()}
	for _, c := range r.Scenario().Clients {
		if e, ok := p.epochs[c]; ok {
			s.Workers = append(s.Workers, Worker{Name: c, Epoch: e, Owner: c == p.owner})
		}
	}
	return s
}

// State is the partition as a frame shows it.
type State struct {
	Owner    string
	Epoch    int64
	Workers  []Worker
	Value    string
	MaxEpoch int64 // the newest epoch the store has seen, from an assignment or a write
	Fenced   bool  // the store checks epochs
}

// Worker is one worker and the epoch it was given last.
type Worker struct {
	Name  string
	Epoch int64
	Owner bool // the coordinator's owner now
}

// Of returns the partition in f, if f has one.
func Of(f demo.Frame) (State, bool) {
	s, ok := f.Store.(State)
	return s, ok
}

func transcript(b *strings.Builder, f *demo.Frame) bool {
	s := f.Store.(State)
	fmt.Fprintf(b, "  partition: owner %s, epoch %d\n", s.Owner, s.Epoch)
	for _, w := range s.Workers {
		fmt.Fprintf(b, "  %s: given epoch %d\n", w.Name, w.Epoch)
	}
	check := "epochs not checked"
	if s.Fenced {
		check = "epochs checked"
	}
	fmt.Fprintf(b, "  row-42: %q, newest epoch seen %d (%s)\n", s.Value, s.MaxEpoch, check)
	if len(f.Violations) == 0 {
		b.WriteString("verdict: safe\n")
	}
	for _, v := range f.Violations {
		did := "wrote"
		if v.Kind == EpochFenced {
			did = "was turned away writing"
		}
		fmt.Fprintf(b, "verdict: %s: %s %s %q with epoch %d at %s, while %s owned the partition at epoch %d\n",
			v.Kind, v.Client, did, v.Value, v.Token, demo.Clock(f.Scenario, v.At), v.Other, v.Max)
	}
	return true
}
