package find_test

import (
	"testing"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// Every lab's tries, the reference solutions and the classic wrong ones,
// get the judge's answer the lab states: a wrong try is broken by its
// shortest history, a reference solution holds for every history within
// the bounds, and a fix that stops everyone never gets the work done.
func TestLabTries(t *testing.T) {
	for _, sc := range testkit.Catalog(t).Scenarios {
		if sc.Lab == nil {
			continue
		}
		for _, try := range sc.Lab.Tries {
			t.Run(sc.ID+"/"+try.Name, func(t *testing.T) {
				built, err := demo.Apply(sc, try.Build)
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				j, err := find.Judge(demo.Place{Sc: built, On: built.Default, Step: 1}, find.Options{MaxStates: 2_000_000})
				if err != nil {
					t.Fatal(err)
				}
				states := j.Always.States
				if j.Sometimes != nil {
					states += j.Sometimes.States
				}
				t.Logf("%s: %s, %d states, %s", try.Name, j.Verdict(), states, time.Since(start).Round(time.Millisecond))
				if len(j.Steps()) == 0 {
					t.Errorf("the judge lets no time pass: every step time moves by is longer than the lab's time %d (%s)", built.TimeBound, j.Bounds().EN)
				}
				if got := j.Verdict(); got != try.Expect {
					t.Errorf("the judge says %q, the lab states %q (trace %v)", got, try.Expect, j.Always.Trace)
				}
			})
		}
	}
}
