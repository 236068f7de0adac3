package script_test

import (
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/lockservice"
	"github.com/distlock/fencing-demo/demo/sql"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// What each script plays out is what its lesson says it shows: the frames
// the model computes from the script's moves, read as a reader would.

// job-queue: SKIP LOCKED saves W2 its wait. Without it W2 asks at 10 ms,
// gets its job when W1 commits at 510 ms and commits at 1010 ms; with it W2
// commits 500 ms after it asked, with W1, and W1 has the third job done by
// the end.
func TestJobQueueSkipLockedSavesTheWait(t *testing.T) {
	for _, tt := range []struct {
		on             bool
		asked, commits int
		done           int
	}{{false, 10, 1010, 2}, {true, 10, 510, 3}} {
		f := testkit.LastFrame(t, "job-queue", tt.on)
		asked, commits := -1, -1
		for _, e := range f.Events {
			s, ok := e.(sql.SQLStatement)
			if !ok || s.Client != "W2" {
				continue
			}
			switch {
			case strings.Contains(s.SQL, "FOR UPDATE") && asked < 0:
				asked = s.Sent
			case s.SQL == "COMMIT":
				commits = s.At
			}
		}
		if asked != tt.asked || commits != tt.commits {
			t.Errorf("skip-locked %s: W2 asks for a job at %dms and commits at %dms, want %d and %d", demo.OnOff(tt.on), asked, commits, tt.asked, tt.commits)
		}
		if n := doneJobs(f); n != tt.done {
			t.Errorf("skip-locked %s: %d jobs done at the end, want %d", demo.OnOff(tt.on), n, tt.done)
		}
	}
}

// doneJobs counts the rows of jobs whose committed state is done.
func doneJobs(f demo.Frame) int {
	db, _ := f.Store.(sql.State)
	n := 0
	for _, tb := range db.Tables {
		if tb.Name != "jobs" {
			continue
		}
		for _, r := range tb.Rows {
			for i, c := range tb.Cols {
				if c == "state" && r.Values[i] == "done" {
					n++
				}
			}
		}
	}
	return n
}

// The quiz's note on reentrant says in words what the lesson says: a lock
// taken twice on one session must be unlocked twice.
func TestQuizReentrantNote(t *testing.T) {
	found := false
	for _, q := range testkit.Guide(t).Quiz {
		for _, d := range q.Demos {
			if d.ID != "reentrant" {
				continue
			}
			found = true
			if en := d.Note.EN; !strings.Contains(en, "unlocked as many times as it was taken") || strings.Contains(en, "as takes") {
				t.Errorf("the quiz's note on reentrant says %q", en)
			}
		}
	}
	if !found {
		t.Fatal("no quiz question links to reentrant")
	}
}

// lease-length calls the chapter's Renew where its lesson cites it: with
// the short lease A renews before its pause, and the renewal takes, yet a
// stopped A sends no more and B takes the lock once the renewed lease has
// run out.
func TestLeaseLengthRenews(t *testing.T) {
	f := testkit.LastFrame(t, "lease-length", false)
	renewed, expiry, taken := -1, -1, -1
	for _, e := range f.Events {
		switch e := e.(type) {
		case lockservice.RenewCall:
			if e.Client == "A" && e.OK {
				renewed, expiry = e.At, e.Expiry
			}
		case lockservice.AcquireCall:
			if e.Client == "B" && e.OK && taken < 0 {
				taken = e.At
			}
		}
	}
	if renewed < 0 || taken < expiry || expiry <= renewed {
		t.Errorf("lease-length off: A renews at %d, its lease then runs to %d, and B takes the lock at %d; want a renewal that took, and B after it ran out", renewed, expiry, taken)
	}
}

// The ZooKeeper recipe is told with the client most Java code uses for it:
// Curator's InterProcessMutex, its acquire and release, in the lesson and
// its sources (seed 000, 5.5), and in the quiz's answer on ZooKeeper.
func TestZooKeeperRecipeNamesCurator(t *testing.T) {
	sc := testkit.Scenario(t, "zookeeper-recipe")
	for _, lang := range []string{"ja", "en"} {
		for _, want := range []string{"InterProcessMutex", "acquire()", "acquire(time, unit)", "release()"} {
			if !strings.Contains(sc.Lesson.In(lang), want) {
				t.Errorf("zookeeper-recipe's lesson (%s) does not name %s", lang, want)
			}
		}
	}
	cited := false
	for _, s := range sc.Sources {
		cited = cited || s.URL == "https://curator.apache.org/docs/recipes-shared-reentrant-lock/"
	}
	if !cited {
		t.Error("zookeeper-recipe does not cite Curator's Shared Reentrant Lock")
	}
	named := false
	for _, q := range testkit.Guide(t).Quiz {
		if q.Tree != "consensus" || !strings.Contains(q.Ask.EN, "ZooKeeper") {
			continue
		}
		for _, a := range q.Answer {
			named = named || strings.Contains(a.EN, "InterProcessMutex") && strings.Contains(a.JA, "InterProcessMutex")
		}
	}
	if !named {
		t.Error("the quiz's answer on ZooKeeper does not name Curator's InterProcessMutex")
	}
}
