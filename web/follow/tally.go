package follow

// tally counts what each client address holds (streams, answers) and names
// the address holding the most at once, whatever the number of addresses:
// places and answers are shared max-min fairly (places.go, poll.go), and a
// full room asks "who holds the most?" at every arrival, under a lock the
// lecturer's every move needs too. Addresses are kept in buckets by count,
// so a count moves by one bucket and the heaviest is the top bucket.
type tally struct {
	n       map[string]int
	buckets map[int]map[string]struct{}
	top     int
	sum     int
}

func newTally() *tally {
	return &tally{n: map[string]int{}, buckets: map[int]map[string]struct{}{}}
}

// of is how many addr holds.
func (t *tally) of(addr string) int { return t.n[addr] }

// add changes addr's count by d (+1 or -1).
func (t *tally) add(addr string, d int) {
	old := t.n[addr]
	now := old + d
	t.sum += max(now, 0) - old
	if old > 0 {
		b := t.buckets[old]
		delete(b, addr)
		if len(b) == 0 {
			delete(t.buckets, old)
		}
	}
	if now <= 0 {
		delete(t.n, addr)
	} else {
		t.n[addr] = now
		b := t.buckets[now]
		if b == nil {
			b = map[string]struct{}{}
			t.buckets[now] = b
		}
		b[addr] = struct{}{}
	}
	if now > t.top {
		t.top = now
	}
	for t.top > 0 && len(t.buckets[t.top]) == 0 {
		t.top--
	}
}

// heaviest is an address holding the most other than but, and how many it
// holds; "" when no other address holds any.
func (t *tally) heaviest(but string) (string, int) {
	for n := t.top; n > 0; n-- {
		for a := range t.buckets[n] {
			if a != but {
				return a, n
			}
		}
	}
	return "", 0
}

// len is how many addresses hold something.
func (t *tally) len() int { return len(t.n) }

// total is what all addresses hold together.
func (t *tally) total() int { return t.sum }
