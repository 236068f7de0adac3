package find

import (
	"errors"
	"math"
	"slices"
	"strconv"

	"github.com/distlock/fencing-demo/demo"
)

// candidate is one step the finder may take from a state: an action, and
// how the node changes with it.
type candidate struct {
	a    demo.Action
	next node
}

// candidates are the steps from node n in run r, in a fixed order: each
// client's next call, each client's pause, resume and crash, then the
// world's actions and time. They are written into the search's one slice,
// and the client actions come from the space, written once: building them
// per state tried was half of what a search allocated.
func (s *search) candidates(r *demo.Run, n node) []candidate {
	out := s.cands[:0]
	for i, prog := range s.space.programs {
		if pc := n.pc(i); pc < len(prog) {
			next := n
			next.pcs += 1 << (4 * i)
			out = append(out, candidate{prog[pc], next})
		}
	}
	for i, c := range r.Clients() {
		if i >= len(s.space.own) || c.Crashed {
			continue
		}
		own := &s.space.own[i]
		if !c.Paused && n.paused&(1<<i) == 0 {
			next := n
			next.paused |= 1 << i
			out = append(out, candidate{own.pause, next})
		}
		if c.Paused {
			out = append(out, candidate{own.resume, n})
		}
		if c.Holds {
			// A crash matters as a holder's death, paused or running; a
			// client that holds nothing and crashes is one that stops
			// calling, which not scheduling it already explores. (A
			// database client's row locks go with its connection, as in a
			// rollback: its crash only lets others on, and is left to free
			// play.)
			out = append(out, candidate{own.crash, n})
		}
	}
	for _, a := range s.space.world {
		if a.Verb == demo.Tick && s.deadline >= 0 && r.Now()+a.Args.(demo.TickArgs).Forward > s.deadline {
			continue // past the bound on time
		}
		out = append(out, candidate{a, n})
	}
	s.cands = out
	return out
}

// expand tries every step from node id, adding each state not seen before
// to next. done: the property is broken (s.res says how), or the budget
// ran out.
func (s *search) expand(id int32, next *[]int32) (done bool, err error) {
	path := s.path(id)
	r, err := s.rebuild(path)
	if err != nil {
		return s.spend(err)
	}
	cands := s.candidates(r, s.nodes[id])
	last := s.lastTried(r, cands, path)
	s.store.reset()
	now := r.Now()
	for i, cand := range cands {
		if s.refused[i] {
			continue // refused for its client: no need of a copy to know
		}
		c := r // the last step tried plays on the node's own run (lastTried)
		if i != last {
			if c, err = s.copyOf(r, path, cand.a); err != nil {
				return false, err
			}
		}
		before := len(c.Violations())
		played, err := s.play(c, cand.a)
		if err != nil {
			if exhausted(err) {
				return s.spend(err)
			}
			continue // the store refused it here: no state to explore
		}
		// A step that leaves the store and the time as they were leaves
		// the store's part of the key as it was at r (the last step, which
		// plays on r itself, comes after every other).
		same := !c.Touches(cand.a) && c.Now() == now
		if !s.seen.add(s.keyAfter(c, cand.next, same)) {
			continue // seen: one look at the table, which adds it when not
		}
		step, ok := s.intern(played)
		if !ok {
			s.res.OutOfBudget = true // the search ends: the key added leads nowhere
			return true, nil
		}
		child := cand.next
		child.parent, child.step = id, step
		s.addNode(child)
		s.res.States++
		if s.visit != nil && !s.visit(s.trace(int32(len(s.nodes)-1))) {
			s.res.OutOfBudget = true
			return true, nil
		}
		if s.judge(c, c.Violations()[before:], len(s.nodes)-1) {
			return true, nil
		}
		s.reach(c, int32(len(s.nodes)-1))
		if p := s.space.progress(child); p > s.progress {
			s.closest, s.progress = int32(len(s.nodes)-1), p
		}
		*next = append(*next, int32(len(s.nodes)-1))
		if s.res.States >= s.opt.MaxStates || s.res.States%256 == 0 && s.opt.Stop != nil && s.opt.Stop() {
			s.res.OutOfBudget = true
			return true, nil
		}
	}
	return false, nil
}

// lastTried marks each of cands that r refuses (s.refused), and returns the index of
// the last one it does not, for expand to play on r itself rather than a
// copy: no later step needs r, and the next node's rebuild plays it again
// from its parent's run, which is kept (rebuild). -1 when every one is
// refused, or when r is the start's run, which every rebuild copies.
func (s *search) lastTried(r *demo.Run, cands []candidate, path []uint16) int {
	last := -1
	s.refused = s.refused[:0]
	for i := range cands {
		refused := r.Refuses(cands[i].a)
		if s.refused = append(s.refused, refused); !refused {
			last = i
		}
	}
	if len(path) == 0 || last < 0 {
		return -1 // the start's run: tried on copies alone
	}
	s.alongPath = s.alongPath[:min(len(s.alongPath), len(path)-1)]
	return last
}

// play plays a on c; when a lets time pass, the background duties of the
// clients that hold the lock and run are played first, and again after
// every stretch of the duties' rhythm while any of them runs (a renewal
// thread renews as often as its script's rhythm, however long the wait).
// It returns what it played, in the search's one slice (intern copies a
// step it keeps). A duty the store refuses (a watchdog that has stopped) is
// left out, unless the store's budget is spent; a refused action refuses
// the step, with the store's reason.
func (s *search) play(c *demo.Run, a demo.Action) ([]demo.Action, error) {
	played := s.played[:0]
	if a.Verb != demo.Tick {
		if err := c.Free(a); err != nil {
			return nil, err
		}
		s.played = append(played, a)
		return s.played, nil
	}
	for left, whole := a.Args.(demo.TickArgs).Forward, true; left > 0; whole = false {
		n := len(played)
		var err error
		if played, err = s.duties(c, played); err != nil {
			return nil, err
		}
		t := a
		switch d := s.space.rhythm; {
		case len(played) > n && left > d:
			t = s.tick(d) // a stretch of the rhythm, then the duties again
		case !whole:
			t = s.tick(left) // the rest
		}
		if err := c.Free(t); err != nil {
			return nil, err
		}
		played = append(played, t)
		left -= t.Args.(demo.TickArgs).Forward
	}
	s.played = played
	return s.played, nil
}

// tick is time passing by d, written once for each d the search meets.
func (s *search) tick(d int) demo.Action {
	t, ok := s.ticks[d]
	if !ok {
		t = demo.Action{Verb: demo.Tick, Args: demo.TickArgs{Forward: d}, Source: "tick " + strconv.Itoa(d)}
		s.ticks[d] = t
	}
	return t
}

// duties plays on c the duty of every client that believes it holds the
// lock and is not paused, appending each one played to played. A duty the
// store refuses is left out, unless the store's budget is spent.
func (s *search) duties(c *demo.Run, played []demo.Action) ([]demo.Action, error) {
	clients := c.Clients() // a duty is its client's, at the client's place
	for i, d := range s.space.duties {
		if d.Verb == "" {
			continue
		}
		if cl := &clients[i]; !cl.Holds || cl.Paused {
			continue // a thread of a client that holds nothing, or stopped
		}
		if err := c.Free(d); err == nil {
			played = append(played, d)
		} else if exhausted(err) {
			return nil, err
		}
	}
	return played, nil
}

// exhausted reports whether err is a store's own budget spent (an error
// that says Exhausted, as the Redis family's when a learner's scripts ran
// all one search may): every later step would be refused the same way.
func exhausted(err error) bool {
	var x interface{ Exhausted() bool }
	return errors.As(err, &x) && x.Exhausted()
}

// spend ends the search on err when it is a store's budget spent, and
// otherwise fails it with err.
func (s *search) spend(err error) (bool, error) {
	if !exhausted(err) {
		return false, err
	}
	s.res.OutOfBudget, s.res.Spent = true, err
	return true, nil
}

// judge looks at the state the last step led to: a sometimes property
// reached, or a violation it added that breaks an always property, ends the
// search; the other violations are kept, the first of each kind.
func (s *search) judge(r *demo.Run, vs []demo.Violation, id int) bool {
	if s.prop.Sometimes() && s.prop.Reached(r) {
		s.res.Found, s.res.Trace = true, s.trace(int32(id))
		return true
	}
	for _, v := range vs {
		if s.prop.Breaks(v, r.Holdings()) {
			s.res.Found, s.res.Violation, s.res.Trace = true, v, s.trace(int32(id))
			return true
		}
		if !s.kinds[v.Kind] {
			s.kinds[v.Kind] = true
			s.res.Others = append(s.res.Others, Met{Violation: v, Trace: s.trace(int32(id))})
		}
	}
	return false
}

// path is the steps (by index) that lead from the start to node id, in
// the search's one slice: expand reads it until its next node.
func (s *search) path(id int32) []uint16 {
	s.pathBuf = s.appendPath(s.pathBuf[:0], id)
	return s.pathBuf
}

// appendPath appends to p the steps that lead to node id.
func (s *search) appendPath(p []uint16, id int32) []uint16 {
	from := len(p)
	for ; id > 0; id = s.nodes[id].parent {
		p = append(p, s.nodes[id].step)
	}
	slices.Reverse(p[from:])
	return p
}

// trace is the actions that lead to node id. It walks a path of its own, as
// judge asks for it while expand still reads the path in s.pathBuf.
func (s *search) trace(id int32) []demo.Action {
	var t []demo.Action
	for _, i := range s.appendPath(nil, id) {
		t = append(t, s.steps[i]...)
	}
	return t
}

// rebuild plays path from the start: the finder keeps only how each state
// was reached, and plays it again to expand it, which saves keeping every
// run of a level. A level's nodes come in their parents' order, so a path
// shares all but its last steps with the one rebuilt before it: for a store
// that copies itself, the runs along that path are kept, one per depth, and
// only the steps after the shared part are played again.
func (s *search) rebuild(path []uint16) (*demo.Run, error) {
	if s.along == nil {
		s.along = []*demo.Run{new(demo.Run)}
		if !s.root.CopyTo(s.along[0]) {
			s.along = []*demo.Run{}
		}
	}
	if len(s.along) == 0 {
		return s.replay(path)
	}
	k := 0
	for k < len(path) && k < len(s.alongPath) && path[k] == s.alongPath[k] {
		k++
	}
	s.alongPath = append(s.alongPath[:k], path[k:]...)
	for len(s.along) <= len(path) {
		s.along = append(s.along, new(demo.Run))
	}
	for j := k; j < len(path); j++ {
		r := s.along[j+1]
		s.along[j].CopyTo(r)
		for _, a := range s.steps[path[j]] {
			if err := r.Free(a); err != nil {
				s.alongPath = s.alongPath[:j]
				return nil, err
			}
		}
	}
	return s.along[len(path)], nil
}

// replay plays path from the start on a new run, for a store that cannot
// copy itself.
func (s *search) replay(path []uint16) (*demo.Run, error) {
	r, err := s.start.Run()
	if err != nil {
		return nil, err
	}
	for _, i := range path {
		for _, a := range s.steps[i] {
			if err := r.Free(a); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}

// copyOf is a copy of r (reached by path) to try a on: the scratch run,
// sharing r's store where a leaves it as it is, or for a store that cannot
// copy itself, a replay.
func (s *search) copyOf(r *demo.Run, path []uint16, a demo.Action) (*demo.Run, error) {
	if !r.Touches(a) && r.ShareTo(&s.scratch) {
		return &s.scratch, nil
	}
	if r.CopyTo(&s.scratch) {
		return &s.scratch, nil
	}
	return s.replay(path)
}

// intern numbers each distinct step once; false when the numbers ran out
// (steps are a few dozen, so only a runaway family gets there). The step's
// name is written into a buffer and looked up without a string: only a new
// step is copied and named.
func (s *search) intern(step []demo.Action) (uint16, bool) {
	b := s.name[:0]
	for _, a := range step {
		b = append(b, a.Source...)
		b = append(b, '\n')
	}
	s.name = b
	if i, ok := s.index[string(b)]; ok {
		return i, true
	}
	if len(s.steps) == math.MaxUint16 {
		return 0, false
	}
	i := uint16(len(s.steps))
	s.steps = append(s.steps, slices.Clone(step))
	s.index[string(b)] = i
	return i, true
}
