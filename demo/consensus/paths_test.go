package consensus

import (
	"strconv"
	"sync"
	"testing"
)

// A numbering names each string by one number, the same whoever asks and
// however often, and no two strings by one; past numberingMax it still
// tells strings apart, by their hashes, whose top bit no number has.
func TestNumberingNamesEachStringOnce(t *testing.T) {
	var nb numbering
	seen := map[uint64]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range 4 { // searches side by side ask for the same paths
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range numberingMax + 100 {
				p := "/locks/row-42/lock-" + strconv.Itoa((i+w*7919)%(numberingMax+100))
				k := nb.of(p)
				if k == 0 {
					t.Errorf("%s numbered 0, which stands for no path", p)
					return
				}
				mu.Lock()
				if other, ok := seen[k]; ok && other != p {
					t.Errorf("%s and %s share the number %d", p, other, k)
				}
				seen[k] = p
				mu.Unlock()
				if again := nb.of(p); again != k {
					t.Errorf("%s numbered %d, then %d", p, k, again)
				}
			}
		}()
	}
	wg.Wait()
	hashed := 0
	for k := range seen {
		if k > numberingMax {
			if k < 1<<63 {
				t.Fatalf("%d: past the numbers, but not a hash", k)
			}
			hashed++
		}
	}
	if len(seen) != numberingMax+100 || hashed != 100 {
		t.Errorf("%d strings, %d of them hashed; want %d and 100", len(seen), hashed, numberingMax+100)
	}
}
