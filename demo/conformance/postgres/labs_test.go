package postgres_test

import (
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/conformance/history"
	model "github.com/distlock/fencing-demo/demo/sql"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// TestPostgresLabTries replays every try of every lab of a database
// scenario in scenarios.yaml (its reference solutions and the classic
// wrong tries) on a real PostgreSQL, as the lab's page plays them: the
// built scenario's script, the judge's break and the judge's example of
// the good thing (history.Labs). Each statement a try's programs send goes
// as the page prints it, and every answer, every wait and every frame's
// connections, locks and rows are compared with the page's, as
// TestPostgresConformance compares a scenario's (play).
func TestPostgresLabTries(t *testing.T) {
	if testing.Short() {
		t.Skip("conformance against a real PostgreSQL: not in -short")
	}
	pg := startPostgres(t)
	tl := history.NewTally("postgres labs")
	t.Cleanup(func() { tl.Report(t) })
	onDatabase := func(sc *demo.Scenario) bool { return sc.Store == model.DatabaseStore }
	history.EachLabTry(t, testkit.Catalog(t).Scenarios, onDatabase, tl, func(sc *demo.Scenario, try history.Try) {
		replayAll(t, pg, sc.ID+"/"+try.Name, try.Histories, tl, func(h history.History) string { return string(h.Kind) })
	})
}
