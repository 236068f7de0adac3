package find

import "testing"

// Keys that differ in one bit, or only in their length, hash apart in both
// lanes: the seen set takes a shared hash for the same state.
func TestHashTellsKeysApart(t *testing.T) {
	seen := map[uint64]string{}
	add := func(b []byte) {
		h := hash128(b)
		for _, lane := range h {
			if other, dup := seen[lane]; dup {
				t.Fatalf("%q and %q share a lane of their hash", b, other)
			}
			seen[lane] = string(b)
		}
	}
	for n := 0; n <= 40; n++ {
		base := make([]byte, n)
		add(base)
		for i := range n * 8 {
			b := append([]byte(nil), base...)
			b[i/8] ^= 1 << (i % 8)
			add(b)
		}
	}
}

// The seen set holds what a map holds: keys added are in it, others are
// not, and an add tells whether its key was new, through its growth,
// keys that share a first word or a slot, and the key of zeros, which
// marks an empty slot.
func TestKeySetIsASet(t *testing.T) {
	var s keySet
	want := map[[2]uint64]bool{}
	x := uint64(1)
	next := func() uint64 { // a xorshift: deterministic, and spread
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return x
	}
	for i := range 20_000 {
		var k [2]uint64
		switch i % 4 {
		case 0:
			k = [2]uint64{next(), next()}
		case 1:
			k = [2]uint64{uint64(i) << 10, next()} // all in the same few slots
		case 2:
			k = [2]uint64{7, uint64(i)} // one first word
		case 3:
			k = [2]uint64{0, uint64(i / 4 % 4)} // the zero key among them
		}
		if got := s.has(k); got != want[k] {
			t.Fatalf("key %d %x: has=%v before adding, want %v", i, k, got, want[k])
		}
		if added := s.add(k); added == want[k] {
			t.Fatalf("key %d %x: add reported %v, and it was in the set: %v", i, k, added, want[k])
		}
		want[k] = true
		if miss := [2]uint64{next(), 1}; s.has(miss) != want[miss] {
			t.Fatalf("key %x: has=%v, never added", miss, s.has(miss))
		}
	}
	for k := range want {
		if !s.has(k) {
			t.Fatalf("key %x added, then not found", k)
		}
	}
	if s.n+1 != len(want) || !s.zero {
		t.Errorf("%d keys in slots and zero %v, want %d and the zero key", s.n, s.zero, len(want)-1)
	}
}

// A set made for its keys holds them without growing, and is still a set;
// one made for more than reserveMax starts at reserveMax's room and grows.
func TestKeySetReserved(t *testing.T) {
	var s keySet
	s.reserve(100_000)
	room := len(s.slots)
	for i := range 100_000 {
		k := hash128([]byte{byte(i), byte(i >> 8), byte(i >> 16)})
		if !s.add(k) || s.add(k) {
			t.Fatalf("key %d: added twice, or not the first time", i)
		}
	}
	if len(s.slots) != room || room*3 < 100_000*4 {
		t.Errorf("%d slots made, %d after 100,000 keys", room, len(s.slots))
	}
	var big keySet
	big.reserve(10_000_000)
	if len(big.slots) != 1<<18 {
		t.Errorf("made for ten million: %d slots, want %d", len(big.slots), 1<<18)
	}
}

// The hash of a long key, 500 bytes (a state's is 200 to 400):
//
//	go test -run '^$' -bench Hash ./demo/find/
func BenchmarkHash(b *testing.B) {
	key := make([]byte, 500)
	for i := range key {
		key[i] = byte(i * 7)
	}
	var h [2]uint64
	for b.Loop() {
		h = hash128(key)
	}
	if h == ([2]uint64{}) {
		b.Fatal("no hash")
	}
}
