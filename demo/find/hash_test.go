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
