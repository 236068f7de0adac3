// Package lockservice is the family of the chapter's own lock service: one
// LockService (package demo) lending one lock with a lease and a fencing
// token, asked with the chapter's Go API. Package sql lends it too, beside a
// database whose table checks its tokens.
package lockservice

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// Kind is the store: value of a scenario played on the lock service.
const Kind demo.StoreKind = "lockservice"

// The lock service's verbs.
const (
	Acquire demo.Verb = "acquire"
	Renew   demo.Verb = "renew"
	Release demo.Verb = "release"
)

// Verbs is the lock service's verb table.
var Verbs = []demo.VerbSpec{
	{Verb: Acquire, Form: "LEASE", Help: "Acquire(client, lease): the lock and a new token, if it is free", Parse: parseLease},
	{Verb: Renew, Form: "LEASE", Help: "Renew(client, lease): a heartbeat that extends the holder's lease", Parse: parseLease},
	{Verb: Release, Help: "Release(client): the holder gives the lock up early"},
}

// Family is the lock service's entry in the registry.
var Family = &demo.Family{
	Name:    "lockservice",
	Kinds:   []demo.StoreKind{Kind},
	Unit:    "tick",
	Verbs:   Verbs,
	New:     func(*demo.Scenario) demo.Store { return New() },
	Lanes:   func(*demo.Scenario) []demo.Lane { return []demo.Lane{{Key: "", Word: "lockservice"}} },
	Offers:  offers,
	Narrate: Narrate,
	Transcript: func(b *strings.Builder, f *demo.Frame) bool {
		f.Store.(State).transcript(b, f.Scenario)
		return false
	},
}

// LeaseArgs is the lease asked for, in ticks (below 1 counts as 1).
type LeaseArgs struct{ Lease int }

func parseLease(words []string) (any, error) {
	if len(words) != 1 {
		return nil, fmt.Errorf("want LEASE")
	}
	n, err := strconv.Atoi(words[0]) // below 1 is allowed: the lock service counts it as 1
	if err != nil || n > demo.MaxNumber || n < -demo.MaxNumber {
		return nil, fmt.Errorf("the lease %q is not a whole number of at most %d", words[0], demo.MaxNumber)
	}
	return LeaseArgs{n}, nil
}

// Store plays the chapter's LockService. Its clock is the run's: every
// tick moves both, so a lease runs out when the run's time reaches it.
type Store struct {
	Svc *demo.LockService
}

// New makes a store with an empty lock service.
func New() *Store { return &Store{Svc: demo.NewLockService()} }

// State is the lock service as a frame shows it.
type State struct {
	Holder string // "" when free
	Token  int64  // the holder's token; 0 when free
	Expiry int    // when the current (or last) lease runs out
}

// NoLease says that no lease has been granted yet: there is no expiry to
// show, only that nothing is held.
func (s State) NoLease() bool { return s.Holder == "" && s.Expiry == 0 }

// Of returns the lock service's state in f, if f has one.
func Of(f demo.Frame) (State, bool) {
	switch s := f.Store.(type) {
	case State:
		return s, true
	case interface{ LockService() (State, bool) }:
		return s.LockService()
	}
	return State{}, false
}

func (s *Store) Do(r *demo.Run, a demo.Action) error {
	c := r.Client(a.Who)
	h := r.Head(c.Name, "")
	switch a.Verb {
	case Acquire:
		lease := a.Args.(LeaseArgs).Lease
		token, ok := s.Svc.Acquire(c.Name, lease)
		if !ok {
			r.Log(AcquireCall{Head: h, Lease: lease})
			s.deadHolder(r, c)
			return nil
		}
		c.Token = token
		r.Hold(c, s.Svc.Expiry())
		r.Log(AcquireCall{Head: h, Lease: lease, Token: token, Expiry: s.Svc.Expiry(), OK: true})
	case Renew:
		lease := a.Args.(LeaseArgs).Lease
		if !s.Svc.Renew(c.Name, lease) {
			// The client learns that it lost the lock: this is the only way
			// a running client finds out.
			r.LetGo(c)
			r.Log(RenewCall{Head: h, Lease: lease, Token: c.Token})
			return nil
		}
		r.ExtendHold(c, s.Svc.Expiry())
		r.Log(RenewCall{Head: h, Lease: lease, Token: c.Token, Expiry: s.Svc.Expiry(), OK: true})
	case Release:
		holder, _ := s.Svc.Holder()
		s.Svc.Release(c.Name)
		r.LetGo(c)
		r.Log(ReleaseCall{Head: h, Token: c.Token, Held: holder == c.Name})
	default:
		return &demo.ActionError{Action: a, Msg: "the lock service does not " + string(a.Verb)}
	}
	return nil
}

// deadHolder records, when c was just refused the lock, a holder that has
// crashed: its lease keeps the lock from everyone until it runs out.
func (s *Store) deadHolder(r *demo.Run, c *demo.Client) {
	holder, _ := s.Svc.Holder()
	if hc := r.Client(holder); hc == nil || !hc.Crashed {
		return
	}
	r.TurnedAway(c.Name, holder, r.CrashedAt(holder), s.Svc.Expiry())
}

func (s *Store) Elapse(r *demo.Run, since int) {
	holder, token := s.Svc.Holder()
	s.Svc.Tick(r.Now() - since)
	if holder == "" {
		return
	}
	if now, _ := s.Svc.Holder(); now == "" {
		r.Log(LeaseExpiry{Head: r.HeadAt(s.Svc.Expiry(), holder, ""), Token: token})
	}
}

// Forever is always "": a lease lasts at least one tick.
func (s *Store) Forever(*demo.Run) string { return "" }

func (s *Store) State(*demo.Run) any { return s.Now() }

// Now is the lock service's state now.
func (s *Store) Now() State {
	st := State{Expiry: s.Svc.Expiry()}
	st.Holder, st.Token = s.Svc.Holder()
	return st
}

// transcript writes the lock's line; "free" when never lent, as a lease
// lasts at least one tick.
func (st State) transcript(b *strings.Builder, sc *demo.Scenario) {
	switch {
	case st.Holder != "":
		fmt.Fprintf(b, "  lock: %s holds token %d, lease until %s\n", st.Holder, st.Token, demo.Clock(sc, st.Expiry))
	case st.Expiry == 0:
		b.WriteString("  lock: free\n")
	default:
		fmt.Fprintf(b, "  lock: free (last lease until %s)\n", demo.Clock(sc, st.Expiry))
	}
}

// offers are the script's calls, by any client, the chapter's Renew with
// each lease the script asks for, and time passing by each of those leases:
// the moment a lease runs out is what the lesson turns on.
func offers(r *demo.Run) []demo.Offer {
	out := demo.ScriptOffers(r, true)
	for _, o := range RenewOffers(r) {
		if !slices.ContainsFunc(out, func(s demo.Offer) bool { return s.Action.Source == o.Action.Source }) {
			out = append(out, o) // unless the script renews so itself
		}
	}
	for _, l := range leases(r) {
		out = append(out, demo.TickOffer(r.Scenario(), l))
	}
	return out
}

// RenewOffers are Renew(client, lease), the chapter's heartbeat, for every
// client and every lease the script's calls ask for in r's position. A
// script may never renew (it picks a lease long enough instead), yet the
// chapter's holder renews while it runs: free play lets a student try it.
func RenewOffers(r *demo.Run) []demo.Offer {
	var out []demo.Offer
	for _, c := range r.Clients() {
		for _, l := range leases(r) {
			src := c.Name + " renew " + strconv.Itoa(l)
			out = append(out, demo.Offer{
				Action: demo.Action{Who: c.Name, Verb: Renew, Args: LeaseArgs{l}, Source: src},
				Who:    c.Name, Label: demo.Text{EN: "renew " + strconv.Itoa(l), JA: "renew " + strconv.Itoa(l)},
			})
		}
	}
	return out
}

// leases are the leases the script's calls to the lock service ask for in
// r's position, once each, in the order asked.
func leases(r *demo.Run) []int {
	var ls []int
	for _, m := range r.Scenario().Moves {
		for _, a := range m.Do {
			if l, ok := a.Args.(LeaseArgs); ok && a.PlaysWhen(r.On()) && l.Lease > 0 && !slices.Contains(ls, l.Lease) {
				ls = append(ls, l.Lease)
			}
		}
	}
	return ls
}

// What the finder asks of a store beyond demo.Store (state.go): a cheap
// copy, a copy into an earlier one's memory, and a canonical key.
var (
	_ demo.Cloner      = (*Store)(nil)
	_ demo.CopierInto  = (*Store)(nil)
	_ demo.Keyer       = (*Store)(nil)
	_ demo.PastByOrder = (*Store)(nil)
)

// PastByOrder: the lock service keys its lease relative to now and
// forgets an expired one, so no rule of its judges a moment before now;
// the run may key its past moments by their order, and a search that lets
// time pass with nothing happening meets states it has seen.
func (s *Store) PastByOrder() bool { return true }

// Clone copies the lock service, for the finder.
func (s *Store) Clone() demo.Store {
	svc := *s.Svc
	return &Store{Svc: &svc}
}

// CopyInto copies the lock service into dst, an earlier copy, for the
// finder's scratch run.
func (s *Store) CopyInto(dst demo.Store) bool {
	d, ok := dst.(*Store)
	if !ok || d.Svc == nil || d.Svc == s.Svc {
		return false
	}
	*d.Svc = *s.Svc
	return true
}

// Key is the lock service's whole state: holder, lease, tokens.
func (s *Store) Key(b []byte, _ int) []byte { return s.Svc.AppendKey(b) }

// Narrate words a free-play call to the lock service, in the chapter's
// voice: what the client asked, never what it was given.
func Narrate(_ *demo.Scenario, a demo.Action) (demo.Narration, bool) {
	c := a.Who
	switch a.Verb {
	case Acquire, Renew:
		lease := strconv.Itoa(a.Args.(LeaseArgs).Lease)
		if a.Verb == Acquire {
			return demo.Narration{
				Title: demo.Text{EN: c + " asks for the lock", JA: c + " がロックを求める"},
				Text: demo.Text{EN: c + " asks the lock service for the lock with a lease of " + lease + " (Acquire).",
					JA: c + " はリース " + lease + " でロックサービスにロックを求める (Acquire)。"},
			}, true
		}
		return demo.Narration{
			Title: demo.Text{EN: c + " asks to renew its lease", JA: c + " がリースの更新を求める"},
			Text: demo.Text{EN: c + " sends a heartbeat (Renew) asking for a lease of " + lease + " from now.",
				JA: c + " はハートビート (Renew) を送り、今からリース " + lease + " を求める。"},
		}, true
	case Release:
		return demo.Narration{
			Title: demo.Text{EN: c + " gives the lock back", JA: c + " がロックを返す"},
			Text:  demo.Text{EN: c + " calls Release.", JA: c + " は Release を呼ぶ。"},
		}, true
	}
	return demo.Narration{}, false
}
