// Package find is the counterexample finder: from a place, a breadth-first
// search over the actions free play offers, for the shortest history that
// breaks the scenario's property. Like Stateright's checker it asks the
// model for little: the actions that make sense in a state (Run.Offers),
// the next state (Run.Free), a canonical key (Run.Key) and the verdict the
// run computes as it plays. It is pure and deterministic, as package demo
// is: no clock and no goroutines; a caller bounds it with a budget of
// states and a Stop function (the web's deadline).
package find

import (
	"encoding/binary"
	"math/bits"

	"github.com/distlock/fencing-demo/demo"
)

// The defaults: a depth the page answers within a second, and a budget of
// states that keeps a search to tens of megabytes.
const (
	DefaultDepth     = 8
	DefaultMaxStates = 200_000
)

// Options bound a search.
type Options struct {
	Depth     int         // the longest history tried; 0: DefaultDepth
	MaxStates int         // distinct states explored at most; 0: DefaultMaxStates
	Stop      func() bool // asked every few hundred states; true ends the search
	// MaxTime bounds how far time may move from the start, in the
	// scenario's unit; 0: only the depth bounds it. With it, a search that
	// runs out of new states has tried every history within the bounds.
	MaxTime int
}

// Met is a violation the search met, with the shortest history to it.
type Met struct {
	Violation demo.Violation
	Trace     []demo.Action
}

// Result is what a search found.
type Result struct {
	Start    demo.Place
	Property demo.Property
	// Found: Trace, played from Start, is the shortest history that breaks
	// an always property, ending in Violation; for a sometimes property,
	// the shortest that reaches the good thing (an example, with no
	// Violation).
	Found     bool
	Trace     []demo.Action
	Violation demo.Violation
	// Others are the other violations met on the way (an overlap the
	// resource contained, say), the first of each kind with its history.
	Others []Met
	States int // distinct states explored
	// Depth: every history of up to Depth steps was tried (with Found, the
	// trace's steps). A step is one action, after the background duties
	// that run before time passes, so a trace may have more actions.
	Depth int
	// OutOfBudget: the states or the time ran out before the depth asked.
	OutOfBudget bool
	// Exhausted: the search ran out of new states before the depth or the
	// budget: every history within the bounds was tried, not only those
	// up to a depth.
	Exhausted bool
	// Closest is, for a sometimes property that was not reached, the
	// shortest history that took its clients furthest through their
	// programs: how near the work came to being done.
	Closest []demo.Action
	// Renewers are the clients with a renewal thread in the search's space
	// (a background duty), which renews while they hold the lock and run.
	Renewers []string
	// Spent is, when a store's own budget ran out first (the learner's
	// scripts ran all one search may), the error that says so; nil
	// otherwise. The search ends on it, OutOfBudget.
	Spent error
}

// Place is the start with the trace played, to show as frames.
func (r Result) Place() demo.Place {
	p := r.Start
	for _, a := range r.Trace {
		p = p.Then(a)
	}
	return p
}

// node is one distinct state: how it was reached, in 16 bytes, so that a
// search of a million states keeps a few tens of megabytes.
type node struct {
	parent int32  // index in the search's nodes; -1 for the start
	step   uint16 // index in the search's steps
	paused uint16 // the clients (by their index) that have paused on the way
	pcs    uint64 // each client's place in its program, 4 bits each
}

// pc is client i's place in its program.
func (n node) pc(i int) int { return int(n.pcs >> (4 * i) & 15) }

// search is one run of the finder.
type search struct {
	start     demo.Place
	prop      demo.Property
	opt       Options
	root      *demo.Run
	scratch   demo.Run    // where each step is tried: never kept, so reused
	along     []*demo.Run // the runs along the path rebuilt last, one per depth (rebuild)
	alongPath []uint16
	space     *space
	nodes     []node
	seen      keySet
	steps     [][]demo.Action // what each node's last step played: its action, after any duties
	index     map[string]uint16
	buf       []byte
	cands     []candidate         // expand's steps to try, reused (candidates)
	refused   []bool              // which of cands their client refuses (lastTried)
	played    []demo.Action       // the step play played last, reused
	ticks     map[int]demo.Action // time passing by a stretch of a duty's rhythm, or the rest (play)
	pathBuf   []uint16            // the path asked last, reused (path)
	name      []byte              // a step's name, reused (intern)
	res       Result
	kinds     map[demo.ViolationKind]bool
	renaming  *demo.Renaming                      // the renaming key writes the state as (symmetry.go)
	alone     [][]byte                            // what each client keeps alone, to order a group by
	canon     func(alone [][]byte) *demo.Renaming // canonical for the node keyed (renamedKey)
	node      node                                // the node keyed
	order     []int                               // a group in that order
	// The store's part of the key of the state expanded (keyAfter),
	// written once for all the steps from it that leave the store and the
	// time as they are: a pause, a resume, a write, a check.
	store storeKey
	// visit is Walk's: shown every new state's history; false ends it.
	visit func(trace []demo.Action) bool
	// goal is a sometimes property looked for in the same search as prop,
	// an always one (Judge): goalRes says whether and how it was reached.
	goal    *demo.Property
	goalRes Result
	// closest is the node whose clients got furthest through their
	// programs, for a sometimes property's Closest; progress is how far.
	closest  int32
	progress int
	// deadline is the latest time a step may lead to (Options.MaxTime);
	// -1 for none.
	deadline int
}

// Find searches from start for the shortest history that breaks prop, or
// for a sometimes property the shortest that reaches what it says can
// happen. An error is a start that does not play, or a family with no free
// play.
func Find(start demo.Place, prop demo.Property, opt Options) (Result, error) {
	s, err := newSearch(start, prop, opt)
	if err != nil {
		return Result{}, err
	}
	return s.explore()
}

// newSearch readies a search from start: its run, its space and the
// clients it may take as interchangeable.
func newSearch(start demo.Place, prop demo.Property, opt Options) (*search, error) {
	if opt.Depth <= 0 {
		opt.Depth = DefaultDepth
	}
	if opt.MaxStates <= 0 {
		opt.MaxStates = DefaultMaxStates
	}
	root, err := start.Run()
	if err != nil {
		return nil, err
	}
	sp, err := newSpace(start, root)
	root.Lean() // the search keeps each state's history, and plays its frames anew
	if err != nil {
		return nil, err
	}
	deadline := -1
	if opt.MaxTime > 0 {
		deadline = root.Now() + opt.MaxTime
	}
	s := &search{
		deadline: deadline,
		start:    start, prop: prop, opt: opt, root: root, space: sp,
		index: map[string]uint16{},
		ticks: map[int]demo.Action{},
		kinds: map[demo.ViolationKind]bool{},
		res:   Result{Start: start, Property: prop},
	}
	s.symmetric(root)
	for _, d := range sp.duties {
		if d.Verb != "" {
			s.res.Renewers = append(s.res.Renewers, d.Who)
		}
	}
	return s, nil
}

// explore judges the start, then searches from it.
func (s *search) explore() (Result, error) {
	if s.prop.Sometimes() && s.prop.Reached(s.root) {
		s.res.Found = true // already so where it starts
		return s.res, nil
	}
	if s.goal != nil {
		s.goalRes = Result{Start: s.start, Property: *s.goal, Found: s.goal.Reached(s.root)}
	}
	for _, v := range s.root.Violations() {
		if s.prop.Breaks(v, s.root.Holdings()) {
			// Broken where it starts: the empty history is the shortest.
			s.res.Found, s.res.Violation = true, v
			return s.res, nil
		}
		s.kinds[v.Kind] = true
	}
	s.addNode(node{parent: -1})
	defer s.release()
	s.seen.reserve(s.opt.MaxStates)
	s.seen.add(s.key(s.root, node{}))
	s.res.States = 1
	err := s.run()
	return s.res, err
}

// run explores level by level: each level's nodes are the states first
// reached by histories of that length, so the first violation met is on a
// shortest history.
func (s *search) run() error {
	level, next := []int32{0}, []int32(nil)
	for depth := 1; depth <= s.opt.Depth && len(level) > 0; depth++ {
		next = next[:0] // the level before last's memory: nothing reads it again
		for _, id := range level {
			done, err := s.expand(id, &next)
			if err != nil {
				return err
			}
			if done {
				if s.res.Found {
					s.res.Depth = depth
				}
				return nil
			}
		}
		s.res.Depth = depth
		level, next = next, level
	}
	s.res.Exhausted = len(level) == 0
	sometimes := &s.res
	if s.goal != nil {
		sometimes = &s.goalRes
		s.goalRes.States, s.goalRes.Depth, s.goalRes.Exhausted, s.goalRes.OutOfBudget = s.res.States, s.res.Depth, s.res.Exhausted, s.res.OutOfBudget
	}
	if !sometimes.Found && s.closest > 0 {
		sometimes.Closest = s.trace(s.closest)
	}
	return nil
}

// addNode appends n to the search's nodes, doubling their room as they
// grow, never past the budget of states: append grows a large slice by a
// quarter at a time, which allocated a search's nodes some five times over
// and had the collector run for it.
func (s *search) addNode(n node) {
	if len(s.nodes) == cap(s.nodes) {
		room := min(max(2*cap(s.nodes), 1024), s.opt.MaxStates+1)
		if room <= len(s.nodes) {
			room = 2*len(s.nodes) + 1 // a caller past the budget (Walk's root)
		}
		s.nodes = append(newNodes(room), s.nodes...)
	}
	s.nodes = append(s.nodes, n)
}

// reach records, for a search that also looks for a sometimes goal, the
// first state that reaches it: a level of the search is a length of
// history, so the first is on a shortest one.
func (s *search) reach(r *demo.Run, id int32) {
	if s.goal == nil || s.goalRes.Found || !s.goal.Reached(r) {
		return
	}
	s.goalRes.Found, s.goalRes.Trace = true, s.trace(id)
}

// key is a state's canonical key with the pauses spent and each client's
// place in its program, hashed to 128 bits: two different states share one
// with a chance far below a lifetime's.
func (s *search) key(r *demo.Run, n node) [2]uint64 {
	return s.keyAfter(r, n, false)
}

// keyAfter is key, for a run that a step led to from the state expanded;
// same: the step left the store and the time as they were, so the store's
// part of the key is the one written for the state (storeKey).
func (s *search) keyAfter(r *demo.Run, n node, same bool) [2]uint64 {
	if len(s.space.groups) > 0 {
		var store [][]byte
		if same {
			store = s.store.parts(r, len(s.alone))
		}
		s.buf = s.renamedKey(s.buf[:0], r, n, store)
		return hash128(s.buf)
	}
	if store, ok := s.store.key(r, same); ok {
		s.buf = r.KeyWith(s.buf[:0], store)
	} else {
		s.buf = r.Key(s.buf[:0])
	}
	s.buf = binary.LittleEndian.AppendUint16(s.buf, n.paused)
	s.buf = binary.LittleEndian.AppendUint64(s.buf, n.pcs)
	return hash128(s.buf)
}

// storeKey is the store's part of the key of the state expanded: the
// whole of it (Run.StoreKey), or each client's (Run.StoreClientKeys) for a
// renamed key, each written at its first use from that state.
type storeKey struct {
	whole          []byte
	keyed, written bool // whole holds the store's key; it was asked for
	alone          [][]byte
	aloneWritten   bool
}

// reset forgets the state's, for the next state expanded.
func (k *storeKey) reset() { k.written, k.aloneWritten = false, false }

// key is the store's key, written from r at its first use; false when the
// step changed the store or the time (same false), or the store has none.
func (k *storeKey) key(r *demo.Run, same bool) ([]byte, bool) {
	if !same {
		return nil, false
	}
	if !k.written {
		k.whole, k.keyed = r.StoreKey(k.whole[:0])
		k.written = true
	}
	return k.whole, k.keyed
}

// parts is what the store keeps for each of n clients alone, written from
// r at its first use.
func (k *storeKey) parts(r *demo.Run, n int) [][]byte {
	if !k.aloneWritten {
		for len(k.alone) < n {
			k.alone = append(k.alone, nil)
		}
		r.StoreClientKeys(k.alone[:n])
		k.aloneWritten = true
	}
	return k.alone[:n]
}

// hash128 hashes a key thirty-two bytes at a time in two chains of two
// lanes of 64 bits, each chain taking sixteen: each lane multiplies the
// block's two words, each mixed with both of its chain's lanes, into 128
// bits and folds the product's halves, so every bit of the block reaches
// every bit of both lanes. The chains do not wait for each other, so the
// processor multiplies for both at once; at the end each lane takes in the
// other chain's, and each lane's bits are mixed through the other's. A key
// is hashed for every state tried.
func hash128(b []byte) [2]uint64 {
	const (
		k1 = 0x9e3779b97f4a7c15
		k2 = 0xc2b2ae3d27d4eb4f
		k3 = 0x165667b19e3779f9
		k4 = 0xff51afd7ed558ccd
	)
	h1, h2 := uint64(len(b))*k3, ^uint64(len(b))*k4
	h3, h4 := uint64(len(b))*k1, ^uint64(len(b))*k2
	for ; len(b) >= 32; b = b[32:] {
		w0, w1 := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
		w2, w3 := binary.LittleEndian.Uint64(b[16:]), binary.LittleEndian.Uint64(b[24:])
		h1, h2 = fold(w0^h1^k1, w1^h2^k2), fold(w1^h2^k3, w0^h1^k4)
		h3, h4 = fold(w2^h3^k2, w3^h4^k1), fold(w3^h4^k4, w2^h3^k3)
	}
	if len(b) >= 16 {
		w0, w1 := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
		h1, h2 = fold(w0^h1^k1, w1^h2^k2), fold(w1^h2^k3, w0^h1^k4)
		b = b[16:]
	}
	if len(b) > 0 {
		w0, w1 := tail(b)
		h3, h4 = fold(w0^h3^k2, w1^h4^k1), fold(w1^h4^k4, w0^h3^k3)
	}
	h1, h2 = fold(h1^h4^k1, h2^h3^k2), fold(h2^h4^k3, h1^h3^k4)
	return [2]uint64{fmix(h1 ^ h2>>31), fmix(h2 ^ h1>>29)}
}

// tail is the last 1 to 15 bytes of a key as two words, read in place
// rather than copied into a block: the two words may overlap, but they
// cover every byte, and the key's length, in both lanes from the start,
// tells how.
func tail(b []byte) (uint64, uint64) {
	n := len(b)
	switch {
	case n >= 8:
		return binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[n-8:])
	case n >= 4:
		return uint64(binary.LittleEndian.Uint32(b)), uint64(binary.LittleEndian.Uint32(b[n-4:]))
	}
	return uint64(b[0]) | uint64(b[n/2])<<8 | uint64(b[n-1])<<16, uint64(n)
}

// fold multiplies a and b into 128 bits and folds the halves together.
func fold(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// fmix spreads every bit of h over all of them (MurmurHash3's finalizer).
func fmix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	return h ^ h>>33
}
