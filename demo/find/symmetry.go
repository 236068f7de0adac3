package find

import (
	"bytes"
	"encoding/binary"
	"reflect"
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
func interchangeable(root *demo.Run, sp *space) [][]int {
	if !root.Renames() {
		return nil
	}
	names := make([]string, len(sp.programs))
	for i := range names {
		names[i] = root.Clients()[i].Name
	}
	var groups [][]int
	grouped := make([]bool, len(names))
	for i := range names {
		if grouped[i] {
			continue
		}
		g := []int{i}
		for j := i + 1; j < len(names); j++ {
			if !grouped[j] && sp.alike(i, j) && swapKeepsStart(root, names, i, j) {
				g, grouped[j] = append(g, j), true
			}
		}
		if len(g) > 1 {
			groups = append(groups, g)
		}
	}
	return groups
}

// alike reports whether clients i and j make the same calls and have the
// same duty, but for who makes them.
func (sp *space) alike(i, j int) bool {
	if len(sp.programs[i]) != len(sp.programs[j]) || !sameCall(sp.duties[i], sp.duties[j]) {
		return false
	}
	for k, a := range sp.programs[i] {
		if !sameCall(a, sp.programs[j][k]) {
			return false
		}
	}
	return true
}

// sameCall reports whether a and b are one call made by two clients.
func sameCall(a, b demo.Action) bool {
	return a.Verb == b.Verb && reflect.DeepEqual(a.Args, b.Args) &&
		strings.TrimPrefix(a.Source, a.Who) == strings.TrimPrefix(b.Source, b.Who)
}

// swapKeepsStart reports whether the start is its own renaming with i and
// j swapped: the two clients start alike.
func swapKeepsStart(root *demo.Run, names []string, i, j int) bool {
	same := &demo.Renaming{Names: names, To: make([]int, len(names))}
	swap := &demo.Renaming{Names: names, To: make([]int, len(names))}
	for k := range names {
		same.To[k], swap.To[k] = k, k
	}
	swap.To[i], swap.To[j] = j, i
	return bytes.Equal(root.KeyRenamed(nil, same), root.KeyRenamed(nil, swap))
}

// canonical sets s.renaming to the renaming of r (at node n) that orders
// each group by what its clients keep alone.
func (s *search) canonical(r *demo.Run, n node) *demo.Renaming {
	to := s.renaming.To
	for i := range to {
		to[i] = i
	}
	for _, g := range s.space.groups {
		for _, i := range g {
			b := r.ClientKey(s.alone[i][:0], i)
			b = append(b, byte(n.pc(i)), byte(n.paused>>i&1))
			s.alone[i] = b
		}
		// Insertion sort: a group is a few clients.
		order := append(s.order[:0], g...)
		for k := 1; k < len(order); k++ {
			for m := k; m > 0 && bytes.Compare(s.alone[order[m]], s.alone[order[m-1]]) < 0; m-- {
				order[m], order[m-1] = order[m-1], order[m]
			}
		}
		for k, i := range order {
			to[i] = g[k]
		}
		s.order = order
	}
	return s.renaming
}

// renamedNode appends the pauses spent and each client's place in its
// program, each at its place in the renamed state.
func renamedNode(b []byte, n node, rn *demo.Renaming) []byte {
	var paused uint16
	var pcs uint64
	for i, j := range rn.To {
		paused |= uint16(n.paused>>i&1) << j
		pcs |= uint64(n.pc(i)) << (4 * j)
	}
	b = binary.LittleEndian.AppendUint16(b, paused)
	return binary.LittleEndian.AppendUint64(b, pcs)
}

// symmetric finds the interchangeable clients and readies the key's
// renaming.
func (s *search) symmetric(root *demo.Run) {
	s.space.groups = interchangeable(root, s.space)
	if len(s.space.groups) == 0 {
		return
	}
	n := len(s.space.programs)
	s.renaming = &demo.Renaming{To: make([]int, n)}
	for _, c := range root.Clients()[:n] {
		s.renaming.Names = append(s.renaming.Names, c.Name)
	}
	s.alone = make([][]byte, n)
}
