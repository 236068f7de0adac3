package views

import (
	"fmt"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/sql"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// A second connection of one client is a connection of its own on the page:
// its row says whose it is and what it waits for, and the wait-for graph
// draws the arrow from it to the client's first connection.
func TestSecondConnectionWaitsOnItsOwnClient(t *testing.T) {
	for _, lang := range []string{"ja", "en"} {
		doc, _ := frameDoc(t, "reentrant", false, 3, lang)
		row := doc.Find(`[data-testid="conn-A#2"]`)
		if row.Length() != 1 {
			t.Fatalf("%s: no row for A#2", lang)
		}
		if got := row.AttrOr("data-state", ""); got != "active" {
			t.Errorf("%s: A#2 is %q, want active", lang, got)
		}
		if !strings.Contains(row.Find("th .owner").Text(), "A") || !strings.Contains(row.Text(), "advisory 42") {
			t.Errorf("%s: A#2's row %q does not say it is A's and waits for advisory 42", lang, row.Text())
		}
		if got := doc.Find(`[data-testid="wait-graph"] line.waits-for`).Length(); got != 1 {
			t.Errorf("%s: %d arrows in the wait-for graph, want 1", lang, got)
		}
	}
	// The same session counts the re-entry: after one unlock it still holds.
	doc, _ := frameDoc(t, "reentrant", true, 4, "en")
	if got := doc.Find(`[data-testid="advisory-42"]`).Text(); !strings.Contains(got, "held by A (session 1, transaction 0)") {
		t.Errorf("advisory 42 after the first unlock: %q, want held by A once", got)
	}
}

// A database scenario that takes its lock from the lock service shows the
// service's holder and token and the clients beside the database; the
// others show the database alone.
func TestLockServiceBesideTheDatabase(t *testing.T) {
	doc, _ := frameDoc(t, "fencing-sql", true, 7, "en")
	if got := doc.Find(`[data-testid="holder"]`).Text(); strings.TrimSpace(got) != "B" {
		t.Errorf("holder %q, want B", got)
	}
	if got := doc.Find(`[data-testid="token"]`).Text(); strings.TrimSpace(got) != "2" {
		t.Errorf("token %q, want 2", got)
	}
	if doc.Find(`[data-testid="client-A"]`).Length() != 1 || doc.Find(`[data-testid="table-resource"]`).Length() != 1 {
		t.Error("want the clients panel and the resource table")
	}
	doc, _ = frameDoc(t, "lost-update", true, 2, "en")
	if doc.Find(`[data-testid="holder"]`).Length() != 0 {
		t.Error("lost-update shows a lock service it does not use")
	}
}

// A client's crash in free play is told as the server sees it: the move
// says that its connection closed, the transaction rolled back and the row
// is free, and the panel no longer shows the dead connection, while the
// worker that waited holds the row (job-queue, skip-locked off, taken over
// at step 3).
func TestCrashEndsTheConnectionOnThePage(t *testing.T) {
	sc := testkit.Scenario(t, "job-queue")
	p := demo.Place{Sc: sc, On: false, Step: 3, Play: "W1 crash"}
	f, err := p.Frame()
	if err != nil {
		t.Fatal(err)
	}
	for lang, want := range map[string][]string{
		"en": {"W1's process died", "rolling back its open transaction", "jobs id=1 is free again"},
		"ja": {"W1 のプロセスが落ち", "ロールバック", "jobs id=1 は解放された"},
	} {
		d := Demo{Page: Page{Lang: lang, Chrome: true}, Frame: f, Here: Place{Place: p, Lang: lang, FreePlay: true}}
		doc := render(t, DemoPage(d))
		move := doc.Find(".happened").Text()
		for _, w := range want {
			if !strings.Contains(move, w) {
				t.Errorf("%s: the move %q does not say %q", lang, move, w)
			}
		}
		if doc.Find(`[data-testid="conn-W1"]`).Length() != 0 || doc.Find(`[data-testid="conn-W2"]`).AttrOr("data-state", "") != "idle in transaction" {
			t.Errorf("%s: the connections panel still shows W1, or W2 waiting", lang)
		}
	}
}

// A database page that found nothing says only what is true of its frame:
// the scenario's own promise, who waited for a lock or that nobody has, and
// that no lock was taken where none was; never "nobody waited for
// nothing" or two holders where there is no lock. Every frame of every
// database scenario, both positions, both languages.
func TestNoAnomalySaysWhatIsTrue(t *testing.T) {
	seen := map[string]bool{}
	for _, sc := range testkit.Catalog(t).Scenarios {
		if sc.Family.Name != "sql" {
			continue
		}
		for _, on := range []bool{false, true} {
			r := demo.NewRun(sc, on)
			for more := true; more; more = r.Step() {
				f := r.Frame()
				if f.Verdict().Kind != demo.MutualExclusionHeld {
					continue
				}
				waited, locked := false, len(f.Holdings) > 0
				for _, e := range f.Events {
					if s, ok := e.(sql.SQLStatement); ok && s.Waiting {
						waited = true
					}
				}
				db, _ := sql.Of(f)
				locked = locked || len(db.Holds) > 0 || db.Lock.Expiry > 0
				en, ja := Verdict("en", f), Verdict("ja", f)
				where := fmt.Sprintf("%s frame %d", testkit.Name(sc, on), f.Index)
				if strings.Contains(en, "for nothing") || strings.Contains(en, "no transaction was aborted") {
					t.Errorf("%s: %q", where, en)
				}
				if strings.Contains(ja, "。 ") {
					t.Errorf("%s: a space after 。 in %q", where, ja)
				}
				if nobody := strings.Contains(en, "Nobody has waited"); nobody == waited || nobody != strings.Contains(ja, "誰もロックを待っていない") {
					t.Errorf("%s: waited=%v, and the verdict says %q / %q", where, waited, en, ja)
				}
				if none := strings.Contains(en, "No lock has been taken"); none == locked {
					t.Errorf("%s: a lock was taken=%v, and the verdict says %q", where, locked, en)
				}
				if !locked && (strings.Contains(en, "held the lock") || strings.Contains(ja, "ロックを持っている")) {
					t.Errorf("%s: no lock at all, and the verdict speaks of holders: %q / %q", where, en, ja)
				}
				if p, _ := sc.Promise(); !strings.Contains(en, p.Says.EN) || !strings.Contains(ja, p.Says.JA) {
					t.Errorf("%s: the verdict %q does not name the scenario's promise %q", where, en, p.Says.EN)
				}
				seen[fmt.Sprint(waited, locked)] = true
			}
		}
	}
	if len(seen) < 3 {
		t.Errorf("the frames tried cover %v of waited × locked, want frames with and without each", seen)
	}
}

// The no-anomaly verdict tells a wait that ended in the very moment it
// began (W1 crashes, and W2 gets the row at once) as over, not as waiting.
func TestNoAnomalyAfterACrash(t *testing.T) {
	sc := testkit.Scenario(t, "job-queue")
	f, err := demo.Place{Sc: sc, On: false, Step: 3, Play: "W1 crash"}.Frame()
	if err != nil {
		t.Fatal(err)
	}
	if got := Verdict("en", f); strings.Contains(got, "is waiting") || !strings.Contains(got, "W2 waited") {
		t.Errorf("the verdict says %q, want W2's wait over", got)
	}
}
