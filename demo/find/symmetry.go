package find

import (
	"bytes"
	"reflect"
	"slices"
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// Symmetry. Clients that run the same program (the same calls, but for who
// makes them), with the same background duty, from the same state but for
// their names, are interchangeable: a state and its renaming by a
// permutation of them have the same futures, renamed, and break a property
// alike, as no property names a client. The finder keys a state as its
// renaming that orders each group of interchangeable clients by what each
// keeps alone (its belief, its session, its place in its program, its pause
// spent), so it explores one state of each renamed family. The key is the
// whole renamed state, so two states share one only when one is a renaming
// of the other; clients that keep the same alone may still leave two
// renamings of one state apart, which costs states, not soundness. The
// trace found is still a real history: the search keeps how it reached
// the state it met first.

// interchangeable groups the clients that can be renamed into each other,
// by index, in groups of two or more; none unless the store Renames.
func interchangeable(root *demo.Run, sp *space, rn *demo.Renaming) [][]int {
	if !root.Renames() {
		return nil
	}
	rn.Values = sp.ownValues(rn.Names())
	var groups [][]int
	grouped := make([]bool, len(sp.programs)) // the clients the finder follows
	for i := range grouped {
		if grouped[i] {
			continue
		}
		g := []int{i}
		for j := i + 1; j < len(grouped); j++ {
			if !grouped[j] && sp.alike(i, j, rn.Values) && swapKeepsStart(root, rn, i, j) {
				g, grouped[j] = append(g, j), true
			}
		}
		if len(g) > 1 {
			groups = append(groups, g)
		}
	}
	return groups
}

// ownValues reports whether every value a client writes that is a
// client's name is the writer's own: then the resource's value is renamed
// with its writer, and clients that each write their own name are alike.
func (sp *space) ownValues(names []string) bool {
	for _, prog := range sp.programs {
		for _, a := range prog {
			if w, ok := a.Args.(demo.WriteArgs); ok && w.Value != a.Who && slices.Contains(names, w.Value) {
				return false
			}
		}
	}
	return true
}

// alike reports whether clients i and j make the same calls and have the
// same duty, but for who makes them.
func (sp *space) alike(i, j int, values bool) bool {
	if len(sp.programs[i]) != len(sp.programs[j]) || !sameCall(sp.duties[i], sp.duties[j], values) {
		return false
	}
	for k, a := range sp.programs[i] {
		if !sameCall(a, sp.programs[j][k], values) {
			return false
		}
	}
	return true
}

// sameCall reports whether a and b are one call made by two clients: the
// same verb and arguments, or, where values are renamed, each writing its
// own name.
func sameCall(a, b demo.Action, values bool) bool {
	if a.Verb == demo.Write && values && ownWrite(a) && ownWrite(b) {
		return true
	}
	return a.Verb == b.Verb && reflect.DeepEqual(a.Args, b.Args) &&
		strings.TrimPrefix(a.Source, a.Who) == strings.TrimPrefix(b.Source, b.Who)
}

// ownWrite reports whether a is its client writing its own name.
func ownWrite(a demo.Action) bool {
	w, ok := a.Args.(demo.WriteArgs)
	return a.Verb == demo.Write && ok && w.Value == a.Who
}

// swapKeepsStart reports whether the start is its own renaming with i and
// j swapped: the two clients start alike.
func swapKeepsStart(root *demo.Run, rn *demo.Renaming, i, j int) bool {
	same := root.KeyRenamed(nil, rn)
	rn.Move(i, j)
	rn.Move(j, i)
	swapped := root.KeyRenamed(nil, rn)
	rn.Move(i, i)
	rn.Move(j, j)
	return bytes.Equal(same, swapped)
}

// canonical writes into s.alone what each client of r (at node n) keeps
// alone, with its place in its program and its pause spent, and sets
// s.renaming to the renaming that orders each group by it.
func (s *search) canonical(r *demo.Run, n node) *demo.Renaming {
	r.ClientKeys(s.alone)
	return s.canonicalOf(s.alone, n)
}

// canonicalOf is canonical from what each client keeps alone, written in
// alone already (Run.KeyCanonical writes it).
func (s *search) canonicalOf(alone [][]byte, n node) *demo.Renaming {
	rn := s.renaming
	for i, b := range alone {
		alone[i] = append(b, byte(n.pc(i)), byte(n.paused>>i&1))
	}
	for _, g := range s.space.groups {
		// Insertion sort: a group is a few clients.
		order := append(s.order[:0], g...)
		for k := 1; k < len(order); k++ {
			for m := k; m > 0 && bytes.Compare(alone[order[m]], alone[order[m-1]]) < 0; m-- {
				order[m], order[m-1] = order[m-1], order[m]
			}
		}
		for k, i := range order {
			rn.Move(i, g[k])
		}
		s.order = order
	}
	return rn
}

// renamedKey appends the key of r (at node n) renamed into its canonical
// order: each client's part, with its length, in that order, then the
// rest with every client by its place; store is the store's part of each
// client's, written already (storeKey), or nil.
func (s *search) renamedKey(b []byte, r *demo.Run, n node, store [][]byte) []byte {
	s.node = n
	return r.KeyCanonicalWith(b, s.alone, store, s.canon)
}

// symmetric finds the interchangeable clients and readies the key's
// renaming, and canonicalOf as the function KeyCanonical asks, bound once
// rather than as a closure for every state tried.
func (s *search) symmetric(root *demo.Run) {
	var names []string
	for _, c := range root.Clients() {
		names = append(names, c.Name)
	}
	rn := demo.NewRenaming(names)
	if s.space.groups = interchangeable(root, s.space, rn); len(s.space.groups) > 0 {
		s.renaming, s.alone = rn, make([][]byte, len(names))
		s.canon = func(alone [][]byte) *demo.Renaming { return s.canonicalOf(alone, s.node) }
	}
}
