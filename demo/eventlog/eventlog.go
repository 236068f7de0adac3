// Package eventlog is a modelled account kept in one of two ways: as a
// balance that request handlers read and write back, or as an append-only
// log of events that one consumer applies in order, which is event sourcing
// (seed 000, 9.4) and an actor's mailbox (9.5) alike. No real server stands
// behind it: the page says so.
package eventlog

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// Store is the store: value of a scenario played on the modelled log.
const Store demo.StoreKind = "eventlog"

// The family's verbs.
const (
	Read   demo.Verb = "read"   // a handler reads the balance
	Put    demo.Verb = "put"    // a handler writes back what it read, changed
	Append demo.Verb = "append" // a handler appends an event to the log
	Apply  demo.Verb = "apply"  // the consumer applies the next event
)

// Consumer is the one node: the single consumer of the log, or the actor.
const Consumer = "consumer"

// Args is a change to the account: "deposit 50" or "withdraw 30".
type Args struct {
	Op     string
	Amount int64
}

// Delta is the change to the balance.
func (a Args) Delta() int64 {
	if a.Op == "withdraw" {
		return -a.Amount
	}
	return a.Amount
}

// Name is the event's name, as an event log writes it: Withdrawn(30).
func (a Args) Name() string {
	if a.Op == "withdraw" {
		return "Withdrawn(" + strconv.FormatInt(a.Amount, 10) + ")"
	}
	return "Deposited(" + strconv.FormatInt(a.Amount, 10) + ")"
}

func parseChange(w []string) (any, error) {
	if len(w) != 2 || w[0] != "deposit" && w[0] != "withdraw" {
		return nil, errors.New(`want "deposit N" or "withdraw N"`)
	}
	n, err := demo.Number(w[1], "amount")
	if err != nil {
		return nil, err
	}
	return Args{Op: w[0], Amount: int64(n)}, nil
}

// Family is the log's entry in the registry.
var Family = &demo.Family{
	Name:  "eventlog",
	Kinds: []demo.StoreKind{Store},
	Unit:  "ms",
	Verbs: []demo.VerbSpec{
		{Verb: Read, Help: "the handler reads the account's balance"},
		{Verb: Put, Form: "deposit N | withdraw N", Help: "the handler writes back the balance it read, changed by N", Parse: parseChange},
		{Verb: Append, Form: "deposit N | withdraw N", Help: "the handler appends the change to the account's log", Parse: parseChange},
		{Verb: Apply, Node: true, Help: "the consumer applies the next event of the log to the balance"},
	},
	New:        func(*demo.Scenario) demo.Store { return &account{reads: map[string]int{}} },
	Nodes:      func(*demo.Scenario) []string { return []string{Consumer} },
	Lanes:      func(*demo.Scenario) []demo.Lane { return []demo.Lane{{Key: Consumer, Label: Consumer}} },
	Transcript: transcript,
	Words: map[demo.ViolationKind]demo.Words{
		demo.MutualExclusionHeld: {
			Short:  demo.Text{JA: "異常なし", EN: "no anomaly"},
			Legend: demo.Text{JA: "古い読み取りをもとに残高を書き戻した要求は無く、失われた変更も無い。", EN: "No handler wrote back a balance computed from a stale read: no change was lost."},
			Say: demo.Plain("異常なし: 古い読み取りをもとに残高を書き戻した要求は無く、どの変更も失われていない。",
				"No anomaly: no handler wrote back a balance computed from a stale read, and no change is lost."),
		},
		demo.LostUpdate: {
			Short:  demo.Text{JA: "失われた更新", EN: "lost update"},
			Legend: demo.Text{JA: "要求が古い残高から計算した値を書き戻し、その間にほかの要求が書いた変更が消えた。", EN: "A handler wrote back a balance computed from an old read, and the change another handler wrote in between is gone."},
			Say: func(f *demo.Frame, v demo.Violation) demo.Text {
				return demo.Says("失われた更新: %[1]s が %[3]s に %[2]s を書き戻した。その元になった読み取りは %[4]s の書き込み (%[5]s) より前のもので、%[4]s の変更は消えた。",
					"Lost update: %[1]s wrote back %[2]s at %[3]s, computed from a read taken before %[4]s's write (%[5]s). %[4]s's change is lost.",
					v.Client, v.Value, demo.ShowTime(f.Scenario, v.At), v.Other, v.Before)
			},
		},
	},
	Offers:       offers,
	OwnsResource: true, // the account its handler writes
}

// account is one account: its balance, the version of the balance (bumped
// by every write), who wrote it last, the log of its events and how far
// the consumer has applied it.
type account struct {
	balance int64
	rev     int
	writer  string
	log     []Entry
	applied int
	reads   map[string]int // the version each handler read last
	seen    map[string]int64
}

// Entry is one event of the log.
type Entry struct {
	Offset int
	Client string
	Change Args
}

func (a *account) Do(r *demo.Run, act demo.Action) error {
	switch act.Verb {
	case Read:
		a.reads[act.Who] = a.rev
		if a.seen == nil {
			a.seen = map[string]int64{}
		}
		a.seen[act.Who] = a.balance
		r.Log(ReadBalance{Head: r.Head(act.Who, ""), Balance: a.balance})
	case Put:
		rev, ok := a.reads[act.Who]
		if !ok {
			return &demo.ActionError{Action: act, Msg: "the handler has not read the balance yet"}
		}
		ch := act.Args.(Args)
		before := a.balance
		// The handler's program computes the new balance from what it
		// read, not from what is there now: the read-modify-write.
		a.balance = a.seen[act.Who] + ch.Delta()
		r.Log(PutBalance{Head: r.Head(act.Who, ""), Change: ch, Balance: a.balance})
		if rev < a.rev && a.writer != act.Who {
			r.Violate(demo.Violation{Kind: demo.LostUpdate, At: r.Now(), Client: act.Who, Other: a.writer,
				Value: "balance=" + strconv.FormatInt(a.balance, 10), Before: "balance=" + strconv.FormatInt(before, 10)})
		}
		a.rev++
		a.writer = act.Who
		a.reads[act.Who] = a.rev
		a.keep(r)
	case Append:
		e := Entry{Offset: len(a.log) + 1, Client: act.Who, Change: act.Args.(Args)}
		a.log = append(a.log, e)
		r.Log(Appended{Head: r.Head(act.Who, ""), Entry: e})
	case Apply:
		if a.applied == len(a.log) {
			return &demo.ActionError{Action: act, Msg: "the log has no event the consumer has not applied"}
		}
		e := a.log[a.applied]
		a.applied++
		// One consumer, one event at a time, in the log's order: nobody
		// else writes the balance, so no write can be based on an old read.
		a.balance += e.Change.Delta()
		a.rev++
		a.writer = Consumer
		a.keep(r)
		r.Log(AppliedEvent{Head: r.Head("", Consumer), Entry: e, Balance: a.balance})
	}
	return nil
}

func (a *account) Elapse(*demo.Run, int)    {}
func (a *account) Forever(*demo.Run) string { return "" }

func (a *account) State(*demo.Run) any {
	return State{Balance: a.balance, Rev: a.rev, Log: append([]Entry(nil), a.log...), Applied: a.applied}
}

// State is the account as a frame shows it.
type State struct {
	Balance int64
	Rev     int
	Log     []Entry
	Applied int // events of the log the consumer has applied
}

// Replay is what the balance is by the log: every event applied in order,
// from nothing; and the sum written out, "+100 -30 +50".
func (s State) Replay() (int64, string) {
	var sum int64
	var terms []string
	for _, e := range s.Log {
		sum += e.Change.Delta()
		terms = append(terms, fmt.Sprintf("%+d", e.Change.Delta()))
	}
	return sum, strings.Join(terms, " ")
}

// Of returns the account in f, if f has one.
func Of(f demo.Frame) (State, bool) {
	s, ok := f.Store.(State)
	return s, ok
}

func transcript(b *strings.Builder, f *demo.Frame) bool {
	s := f.Store.(State)
	fmt.Fprintf(b, "  account: balance=%d, version %d\n", s.Balance, s.Rev)
	for _, e := range s.Log {
		done := "not applied yet"
		if e.Offset <= s.Applied {
			done = "applied"
		}
		fmt.Fprintf(b, "  log %d: %s from %s, %s\n", e.Offset, e.Change.Name(), e.Client, done)
	}
	if len(s.Log) > 0 {
		sum, terms := s.Replay()
		fmt.Fprintf(b, "  replay of the log: %s = %d\n", terms, sum)
	}
	if len(f.Violations) == 0 {
		b.WriteString("verdict: safe\n")
	}
	for _, v := range f.Violations {
		fmt.Fprintf(b, "verdict: %s: %s wrote %s at %s, computed from a read older than %s's write, which set %s\n",
			v.Kind, v.Client, v.Value, demo.Clock(f.Scenario, v.At), v.Other, v.Before)
	}
	return true
}
