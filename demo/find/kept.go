package find

import (
	"math/bits"
	"sync"
)

// The large tables of a search, its seen set and its nodes, are kept when
// it ends, the largest of each size, for the searches that follow: the
// finder runs search after search (a page's, a lab's tries, the check
// command's), and tables made anew for each, eight megabytes and more for
// 100,000 states as they double, had the collector run several times in
// every search. A search keeps none while it runs, so its heap is what it
// was; between searches tables up to 1<<(keptClasses-1) entries (4 MB) are
// kept, one of each size, at most 16 MB in all.
var kept struct {
	sync.Mutex
	slots [keptClasses][][2]uint64 // by size: 1<<i slots
	nodes [keptClasses][]node      // by room: from 1<<i up to 1<<(i+1)
}

const keptClasses = 19

// class is the size class of a table of n entries: its highest bit.
func class(n int) int { return bits.Len(uint(n)) - 1 }

// newSlots is n empty slots (n a power of two), a table kept, cleared, or
// a new one.
func newSlots(n int) [][2]uint64 {
	if c := class(n); c < keptClasses {
		kept.Lock()
		s := kept.slots[c]
		kept.slots[c] = nil
		kept.Unlock()
		if len(s) == n {
			clear(s)
			return s
		}
	}
	return make([][2]uint64, n)
}

// keepSlots keeps slots, which nothing reads again, for newSlots.
func keepSlots(s [][2]uint64) {
	if c := class(len(s)); len(s) > 0 && c < keptClasses {
		kept.Lock()
		kept.slots[c] = s
		kept.Unlock()
	}
}

// newNodes is an empty slice of nodes with room for at least room, a kept
// one or a new one.
func newNodes(room int) []node {
	if c := class(room); c < keptClasses {
		kept.Lock()
		ns := kept.nodes[c]
		if cap(ns) >= room {
			kept.nodes[c] = nil
		}
		kept.Unlock()
		if cap(ns) >= room {
			return ns[:0]
		}
	}
	return make([]node, 0, room)
}

// keepNodes keeps ns, which nothing reads again, for newNodes: the larger
// of its size's.
func keepNodes(ns []node) {
	if c := class(cap(ns)); cap(ns) > 0 && c < keptClasses {
		kept.Lock()
		if cap(ns) > cap(kept.nodes[c]) {
			kept.nodes[c] = ns[:0]
		}
		kept.Unlock()
	}
}

// release keeps the search's tables for later searches: the result it
// returned keeps none of them.
func (s *search) release() {
	keepSlots(s.seen.slots)
	keepNodes(s.nodes)
	s.seen, s.nodes = keySet{}, nil
}
