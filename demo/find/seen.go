package find

// keySet is the set of the keys of the states seen: open addressing in one
// flat slice, probed in order from the slot the key's first word names, as
// a key is a hash already. A Go map hashed each key again and followed
// several pointers to it, a sixth of a database search; here a look is
// mostly one read.
type keySet struct {
	slots [][2]uint64 // a power of two of them; {0, 0} is an empty one
	n     int         // keys in slots
	zero  bool        // the key {0, 0}, which cannot live in a slot, is in the set
}

// has reports whether k is in the set.
func (s *keySet) has(k [2]uint64) bool {
	if k == ([2]uint64{}) {
		return s.zero
	}
	if len(s.slots) == 0 {
		return false
	}
	mask := uint64(len(s.slots) - 1)
	for i := k[0] & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case k:
			return true
		case [2]uint64{}:
			return false
		}
	}
}

// add puts k in the set, and reports whether it was not there: the finder
// looks a key up and adds it in one probe of the table, where a look and
// then an add went to the same slot twice, and the table is too large for
// a cache to keep.
func (s *keySet) add(k [2]uint64) bool {
	if k == ([2]uint64{}) {
		added := !s.zero
		s.zero = true
		return added
	}
	if (s.n+1)*4 > len(s.slots)*3 { // at most three quarters full, so a look ends soon
		s.grow()
	}
	if s.put(k) {
		s.n++
		return true
	}
	return false
}

// put writes k in its slot, and reports whether it was not there.
func (s *keySet) put(k [2]uint64) bool {
	mask := uint64(len(s.slots) - 1)
	for i := k[0] & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case k:
			return false
		case [2]uint64{}:
			s.slots[i] = k
			return true
		}
	}
}

// reserve makes room for n keys, up to reserveMax, before the first: a
// search told its budget grows its table no more, where every doubling
// had put every key again (the last of them, a quarter of a million, for
// each 100,000-state search).
func (s *keySet) reserve(n int) {
	size := 1024
	for size*3 < min(n, reserveMax)*4 {
		size *= 2
	}
	if len(s.slots) < size && s.n == 0 && !s.zero {
		s.slots = newSlots(size)
	}
}

// reserveMax keys are the most a table is made for before it fills: three
// quarters of the largest table that searches keep (kept.go), 1<<18 slots,
// 4 MB.
const reserveMax = 3 * (1 << (keptClasses - 1)) / 4

// grow doubles the slots, and puts every key in its new one.
func (s *keySet) grow() {
	old := s.slots
	s.slots = newSlots(max(1024, 2*len(old)))
	for _, k := range old {
		if k != ([2]uint64{}) {
			s.put(k)
		}
	}
}
