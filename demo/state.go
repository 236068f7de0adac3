package demo

import (
	"slices"
)

// What the finder needs of a run: a cheap copy to try an action on, and a
// canonical key, so that two histories that lead to the same state are
// explored once. A store may provide both (Cloner, Keyer); without them a
// copy is a replay, and only the same history is the same state.

// Cloner is a store that copies itself: a deep copy, sharing nothing the
// copy or the original may change, so the finder can try an action on it.
type Cloner interface{ Clone() Store }

// CopierInto is a Cloner that can also copy itself into the memory of an
// earlier copy of the same store, which nothing else uses: the finder
// copies a run for every step it tries, and reusing the scratch run's
// store saves allocating one each time. False when dst will not do (of
// another type, say); then Clone is used.
type CopierInto interface {
	CopyInto(dst Store) bool
}

// Keyer is a store that appends its canonical state key to b: equal keys
// for states whose futures are the same, whatever the history that led
// there. It may leave out what no action can tell apart. Times are written
// relative to now (RelTime): every rule of the model compares times with
// each other, never with an absolute moment, so two states a tick apart in
// everything have the same future, a tick apart.
type Keyer interface {
	Key(b []byte, now int) []byte
}

// RelTime appends t as seen from now, for a key; -1 (never) stays itself.
func RelTime(b []byte, t, now int) []byte {
	if t < 0 {
		return append(b, 'n')
	}
	return KeyInt(append(b, '='), int64(t-now))
}

// KeyInt appends v to a key as a varint (binary.AppendVarint's bytes): a
// key is hashed, never read, and a varint is a few shifts where a number in
// base 36 took a division a digit. It ends itself, so what follows it is
// not taken for more of it. Written out, it is small enough to be inlined
// where a key is written.
func KeyInt(b []byte, v int64) []byte {
	u := uint64(v)<<1 ^ uint64(v>>63)
	for u >= 0x80 {
		b = append(b, byte(u)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}

// Clone returns a copy of the run to play on without changing r, or false
// when its store cannot copy itself (then replay the history instead).
// Events and the free-play history are only ever appended to, so the copy
// shares them until it appends; everything changed in place is copied.
func (r *Run) Clone() (*Run, bool) {
	c, ok := r.store.(Cloner)
	if !ok {
		return nil, false
	}
	n := *r
	n.store, n.borrowed, n.kept = c.Clone(), false, nil
	res := *r.res
	n.res = &res
	n.clients = slices.Clone(r.clients)
	n.holdings = slices.Clone(r.holdings)
	n.violations = slices.Clone(r.violations)
	n.events = r.events[:len(r.events):len(r.events)]
	n.free = r.free[:len(r.free):len(r.free)]
	return &n, true
}

// Violations returns every violation found so far, in order; the finder
// reads what an action added without copying a frame.
func (r *Run) Violations() []Violation { return r.violations }

// Holdings returns every hold on the lock so far, for the same reader.
func (r *Run) Holdings() []Holding { return r.holdings }

// Key appends the run's canonical state key to b: each client's belief,
// the resource, every holding, the violations found (by what they are, not
// when they were found) and the store's key, with every time relative to
// now. Two runs with the same key play every later action alike.
func (r *Run) Key(b []byte) []byte {
	b = r.keyRun(b)
	if k, ok := r.store.(Keyer); ok {
		return k.Key(b, r.now)
	}
	// Without the store's own key, only the same history is the same
	// state: never merging two states is slow but never wrong.
	b = KeyInt(b, int64(r.now))
	for _, a := range r.free {
		b = append(b, a.Source...)
		b = append(b, '\n')
	}
	return b
}

// keyRun appends all of Key but the store's own part.
func (r *Run) keyRun(b []byte) []byte {
	var buf [32]int
	past := r.past(buf[:0])
	for i := range r.clients {
		b = r.clientKey(append(b, '|'), i, past)
	}
	return r.keyShared(b, nil, past)
}

// StoreKey appends the store's own key, the last part of Key, or reports
// false for a store without one (Keyer). A step that leaves the store as
// it is (Touches) and lets no time pass leaves this part as it was: the
// finder writes it once for all such steps it tries from one state, and
// keys each with KeyWith.
func (r *Run) StoreKey(b []byte) ([]byte, bool) {
	k, ok := r.store.(Keyer)
	if !ok {
		return b, false
	}
	return k.Key(b, r.now), true
}

// KeyWith is Key, with the store's part already written (StoreKey) for
// the same store at the same moment.
func (r *Run) KeyWith(b, store []byte) []byte {
	return append(r.keyRun(b), store...)
}

// keyShared appends the resource, the holdings and the violations, every
// client named by its place under n (nil: by name), every moment before
// now in past by its order.
func (r *Run) keyShared(b []byte, n *Renaming, past []int) []byte {
	now := r.now
	b = append(b, '|')
	b = n.AppendValue(b, r.res.data)
	b = append(b, ',')
	b = KeyInt(b, r.res.maxToken)
	b = append(b, ',')
	// Whose value the resource has decides whom a late write is judged to
	// have overwritten.
	b = n.AppendName(b, r.lastWrote)
	for i := range r.holdings {
		h := &r.holdings[i]
		b = append(b, '|')
		b = n.AppendName(b, h.Client)
		b = append(b, ',')
		b = KeyInt(b, h.Token)
		b = RelTime(append(b, ','), byOrder(past, h.From, now), now)
		b = RelTime(append(b, ','), byOrder(past, h.Until, now), now)
		b = RelTime(append(b, ','), byOrder(past, h.Ended, now), now)
	}
	for i := range r.violations {
		v := &r.violations[i]
		b = append(b, '!', byte(v.Kind))
		b = n.AppendName(b, v.Client)
		b = append(b, ',')
		b = n.AppendName(b, v.Other)
		b = RelTime(append(b, ','), byOrder(past, v.At, now), now)
	}
	return append(b, '#')
}

// PastByOrder is a store whose rules never judge a moment before the run's
// now when it is keyed: a store that plays something as of an earlier
// moment (AsOf) plays it as of a moment after that, as a consensus session
// ends at its deadline, which is later than any moment the run stood at
// with the session alive. For such a store the run's holdings and
// violations before now are only ever compared with each other and with
// moments from now on, so their order decides what follows, not how long
// ago they were. (A client's Until is only shown: it goes by order too.)
type PastByOrder interface {
	PastByOrder() bool
}

// past appends, for a store that is PastByOrder, the distinct moments
// before now that the clients' leases, the holdings and the violations
// name, latest first; nil
// (every moment as it is) for any other store, or for more than fit.
func (r *Run) past(p []int) []int {
	if !r.byOrder {
		return nil
	}
	room, now := cap(p), r.now
	for i := range r.clients {
		p = addPast(p, r.clients[i].Until, now)
	}
	for i := range r.holdings {
		h := &r.holdings[i]
		p = addPast(addPast(addPast(p, h.From, now), h.Until, now), h.Ended, now)
	}
	for i := range r.violations {
		p = addPast(p, r.violations[i].At, now)
	}
	if len(p) > room {
		return nil // what did not fit would be told apart from what did
	}
	// Latest first; insertion sort, as the moments are a few.
	for i := 1; i < len(p); i++ {
		for j := i; j > 0 && p[j] > p[j-1]; j-- {
			p[j], p[j-1] = p[j-1], p[j]
		}
	}
	return p
}

// addPast appends t to the past moments p, if it is one (before now) and
// not there yet.
func addPast(p []int, t, now int) []int {
	if t < 0 || t >= now {
		return p
	}
	for _, q := range p {
		if q == t {
			return p
		}
	}
	return append(p, t)
}

// byOrder is t for a key: a moment before now, among the past moments,
// as now less its place among them (the latest is now-1), so that two
// runs whose past moments come in the same order, and fall alike around
// now, have one key; t itself otherwise.
func byOrder(past []int, t, now int) int {
	if t < 0 || t >= now {
		return t // never in past
	}
	for i, q := range past {
		if q == t {
			return now - 1 - i
		}
	}
	return t
}

// clientKey appends client i's belief, without its name, with its lease's
// end by its place among the past moments, if it is one of them.
func (r *Run) clientKey(b []byte, i int, past []int) []byte {
	c := &r.clients[i]
	f := byte('a')
	if c.Paused {
		f++
	}
	if c.Crashed {
		f += 2
	}
	if c.Blocked {
		f += 4
	}
	if c.Holds {
		f += 8
	}
	b = append(b, f)
	b = KeyInt(b, c.Token)
	b = append(b, ',')
	b = append(b, c.Value...)
	b = append(b, ',')
	return RelTime(b, byOrder(past, c.Until, r.now), r.now)
}

// CopyTo makes dst a copy of r as Clone does, but in dst's memory: the
// finder tries every action on one scratch run, so copying a run costs no
// allocation beyond the store's. False when the store cannot copy itself.
func (r *Run) CopyTo(dst *Run) bool {
	c, ok := r.store.(Cloner)
	if !ok {
		return false
	}
	old := r.copyBase(dst)
	// dst's own store was a copy of its own, unless dst was r's copy by
	// assignment rather than by CopyTo.
	if ci, ok := r.store.(CopierInto); ok && old != nil && old != r.store && ci.CopyInto(old) {
		dst.store = old
		return true
	}
	dst.store = c.Clone()
	return true
}

// ShareTo makes dst a copy of r as CopyTo does, but sharing r's store
// rather than copying it, for an action that leaves the store as it is
// (Touches): the finder tries a pause, a resume or a write on it, then
// only reads the store for the key. dst keeps its own store aside for its
// next CopyTo. False when the store cannot copy itself.
func (r *Run) ShareTo(dst *Run) bool {
	if _, ok := r.store.(Cloner); !ok {
		return false
	}
	own := r.copyBase(dst)
	dst.store, dst.borrowed, dst.kept = r.store, true, own
	return true
}

// Touches reports whether playing a may change the run's store: time
// passing, a node's action, a family's call, a program's step, or a
// client's crash that its store learns of (Crasher). A write, a pause, a
// resume and a lease check are the engine's alone.
func (r *Run) Touches(a Action) bool {
	switch a.Verb {
	case Write, Pause, Resume, Check:
		return false
	case Crash:
		_, ok := r.store.(Crasher)
		return ok
	}
	return true
}

// copyBase copies all of r but its store into dst's memory, and returns
// the store dst owns (one it kept aside while it shared another's: ShareTo),
// for the caller to copy r's store into or to keep.
func (r *Run) copyBase(dst *Run) Store {
	res, old := dst.res, dst.store
	if dst.borrowed {
		old = dst.kept
	}
	clients, holdings, violations := dst.clients[:0], dst.holdings[:0], dst.violations[:0]
	events, free := dst.events[:0], dst.free[:0]
	*dst = *r
	dst.borrowed, dst.kept = false, nil
	if res == nil || res == r.res {
		res = new(Resource)
	}
	*res = *r.res
	dst.res = res
	dst.clients = append(clients, r.clients...)
	dst.holdings = append(holdings, r.holdings...)
	dst.violations = append(violations, r.violations...)
	dst.events = append(events, r.events...)
	dst.free = append(free, r.free...)
	return old
}

// SortedKeys appends m's keys to keys, sorted, for a family's Key: a key
// must not depend on a map's order.
func SortedKeys[V any](m map[string]V, keys []string) []string {
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// KeyBit is a flag in a family's Key.
func KeyBit(v bool) byte {
	if v {
		return '1'
	}
	return '0'
}
