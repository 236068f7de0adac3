package conformance

import (
	"os"
	"testing"

	"github.com/distlock/fencing-demo/demo/conformance/history"
)

// TestMain lets more of the histories run at once than go test's default
// (one per CPU): a replay spends nearly all its time waiting for the scaled
// clock, not computing.
func TestMain(m *testing.M) { os.Exit(history.Parallel(m, 8)) }
