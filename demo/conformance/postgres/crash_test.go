package postgres_test

import (
	"os"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/conformance/history"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// A database client that crashes holding a row lock: job-queue with
// SKIP LOCKED off, taken over at step 3, where W2 waits for the row W1
// locked, and W1 crashes. Its socket closes with its process; PostgreSQL
// ends its backend, rolls its transaction back and frees the row, and W2's
// SELECT ... FOR UPDATE returns the row at once. The page must show the
// same: no connection of W1's, W2 answered and holding the row.
//
// The model keeps a crashed client's connection, with its transaction and
// its locks, for ever: a known difference, reported, that another change
// fixes in the model. Until then this test skips with that reason, and
// fails under CI, so that the difference cannot be missed there; it passes
// once the model frees the locks.
func TestPostgresCrashFreesLocks(t *testing.T) {
	if testing.Short() {
		t.Skip("conformance against a real PostgreSQL: not in -short")
	}
	sc := testkit.Scenario(t, "job-queue")
	h := history.History{Place: demo.Place{Sc: sc, On: false, Step: 3, Play: "W1 crash"}, Kind: history.Walk, Name: "w1-crash"}
	pg := startPostgres(t)
	tl := history.NewTally("postgres, a crashed client")
	play(t, pg, newDatabase(t, pg), h, tl, failKnown)
	if tl.Count("frames checked") < 4 {
		t.Errorf("checked %d frames of %s, want all 4", tl.Count("frames checked"), h)
	}
}

// failKnown is skipKnown for the test that stands for a known difference:
// it skips with the difference as its reason, and fails under CI.
func failKnown(t *testing.T, _ *replay, msg string) {
	if os.Getenv("CI") != "" {
		t.Fatalf("known difference, awaiting the model's fix: %s", msg)
	}
	t.Skipf("known difference, awaiting the model's fix (fails under CI): %s", msg)
}
