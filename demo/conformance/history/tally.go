package history

import (
	"flag"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// Tally counts what a suite replayed, across its parallel subtests, for the
// line it ends with: how many histories of each kind, frames, commands
// sent, comparisons made and how long it took.
type Tally struct {
	Family string
	start  time.Time
	mu     sync.Mutex
	counts map[string]int
	order  []string
}

// NewTally starts counting for family.
func NewTally(family string) *Tally {
	return &Tally{Family: family, start: time.Now(), counts: map[string]int{}}
}

// Add adds n to the count called what ("commands", "frames", ...).
func (t *Tally) Add(what string, n int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.counts[what]; !ok {
		t.order = append(t.order, what)
	}
	t.counts[what] += n
}

// Max keeps the largest n seen for what ("widest window", ...).
func (t *Tally) Max(what string, n int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.counts[what]; !ok {
		t.order = append(t.order, what)
	}
	t.counts[what] = max(t.counts[what], n)
}

// Count returns the count called what.
func (t *Tally) Count(what string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.counts[what]
}

// Played counts one history replayed to its end (or stopped), by kind.
func (t *Tally) Played(h History, frames int) {
	t.Add("histories", 1)
	t.Add(string(h.Kind), 1)
	t.Add("frames", frames)
}

// Report logs the counts: call it from the suite's Cleanup, after every
// subtest has ended.
func (t *Tally) Report(tb testing.TB) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var parts []string
	for _, k := range t.order {
		parts = append(parts, fmt.Sprintf("%s %d", k, t.counts[k]))
	}
	tb.Logf("%s: %s; in %v", t.Family, strings.Join(parts, ", "), time.Since(t.start).Round(100*time.Millisecond))
}

// Parallel runs a suite's tests with n of them at once rather than go
// test's default of one per CPU, unless -parallel says otherwise: a replay
// spends nearly all its time waiting for a scaled clock and for its
// server. Call it from TestMain.
func Parallel(m *testing.M, n int) int {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", fmt.Sprint(n))
	}
	return m.Run()
}
