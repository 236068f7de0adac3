package conformance

import (
	"flag"
	"os"
	"testing"
)

// TestMain lets more of the scenarios run at once than go test's default
// (one per CPU): a conformance run spends nearly all its time waiting for
// the scaled clock, not computing. An explicit -parallel still wins.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", "8")
	}
	os.Exit(m.Run())
}
