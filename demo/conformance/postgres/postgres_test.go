// Package postgres_test replays every database scenario of the demo on a
// real PostgreSQL 15. It is a package of its own beside the Redis suite in
// demo/conformance, so that each suite builds and runs on its own.
package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/conformance/history"
	model "github.com/distlock/fencing-demo/demo/sql"
	"github.com/distlock/fencing-demo/internal/realserver"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// deadlockTimeout is the server's deadlock_timeout: the model's own, 1 s,
// PostgreSQL's default. The replay lets real time pass as the model's does
// while a statement waits (see pacer), so a backend looks for a cycle at the
// moment the model's does, and a frame where a cycle has formed but no one
// has looked yet shows both still waiting on the real server too.
const deadlockTimeout = "1s"

// walks is how many free-play histories the suite draws for each database
// scenario in each position: 2 x 20 scenario-positions, 40 for the family.
const walks = 2

// TestPostgresConformance replays, for each database scenario of
// scenarios.yaml in both switch positions, the script, the finder's traces
// and a sample of free-play histories on a real PostgreSQL: one connection
// per connection of the model (with a pooler, the server connection the
// model says each statement ran on), each statement sent as the page
// prints it, and each answer compared with the page's: the command tag and
// rows affected, the values returned, the WARNING, the ERROR's SQLSTATE and
// message. A statement the model says waits must be seen waiting on the
// server (pg_stat_activity's wait_event_type Lock, an ungranted lock of the
// right type in pg_locks, and pg_blocking_pids naming the connection the
// page says holds it), never judged by a sleep. At the end of every frame
// every connection's state is the page's (check): its pg_stat_activity
// state and whether it waits for a lock, on whom, the advisory locks and
// row locks it holds, and the rows it sees. For a deadlock the test checks
// what PostgreSQL promises, not which side it picks: exactly one of the
// waiting statements fails with 40P01 and the other completes; where it
// picks the other side than the model, the rest of the history is not
// compared. Each history plays in a database of its own, so histories
// replay side by side on one server.
func TestPostgresConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("conformance against a real PostgreSQL: not in -short")
	}
	pg := startPostgres(t)
	tl := history.NewTally("postgres")
	t.Cleanup(func() { tl.Report(t) })
	for _, sc := range testkit.Catalog(t).Scenarios {
		if sc.Store != model.DatabaseStore {
			continue
		}
		for _, on := range []bool{false, true} {
			hs, err := history.Of(sc, on, walks)
			if err != nil {
				t.Fatal(err)
			}
			replayAll(t, pg, testkit.Name(sc, on), hs, tl, func(h history.History) string { return h.Name })
		}
	}
}

// replayAll replays hs, histories of one scenario, each in a subtest of t
// under group/name(h): side by side on pg; or, for a scenario with a
// max_connections of its own, one after another on a server of its size.
func replayAll(t *testing.T, pg *realserver.Postgres, group string, hs []history.History, tl *history.Tally, name func(history.History) string) {
	if len(hs) == 0 {
		return
	}
	if n := hs[0].Sc.MaxConns; n > 0 {
		// A server of the scenario's max_connections, and one more for the
		// replay's own watching connection, all superuser connections, so
		// none is kept in reserve.
		t.Run(group, func(t *testing.T) {
			t.Parallel()
			small := startPostgres(t, fmt.Sprintf("max_connections=%d", n+1), "superuser_reserved_connections=0")
			for _, h := range hs {
				t.Run(name(h), func(t *testing.T) {
					alone(t, small) // the last history's backends have ended
					db := newDatabase(t, small)
					alone(t, small) // and so has CREATE DATABASE's
					play(t, small, db, h, tl, skipKnown)
				})
			}
		})
		return
	}
	for _, h := range hs {
		t.Run(group+"/"+name(h), func(t *testing.T) {
			t.Parallel()
			play(t, pg, newDatabase(t, pg), h, tl, skipKnown)
		})
	}
}

// startPostgres starts a server with the replay's settings: deadlock_timeout,
// and pgrowlocks in every database made from template1.
func startPostgres(t *testing.T, settings ...string) *realserver.Postgres {
	pg := realserver.StartPostgres(t, append([]string{"deadlock_timeout=" + deadlockTimeout}, settings...)...)
	c := dial(t, pg, "template1")
	defer c.close()
	// Row locks live in the rows themselves, not in pg_locks (which shows a
	// row only while someone queues for it): pgrowlocks reads them.
	mustExec(t, c, "CREATE EXTENSION IF NOT EXISTS pgrowlocks")
	return pg
}

var databases atomic.Int64

// newDatabase makes a database of its own for one history.
func newDatabase(t *testing.T, pg *realserver.Postgres) string {
	name := fmt.Sprintf("h%d", databases.Add(1))
	c := dial(t, pg, "postgres")
	defer c.close()
	// template1 may still be busy with the last CREATE DATABASE's copy: a
	// few tries.
	var got model.SQLStatement
	for range 50 {
		if got = c.send(context.Background(), "CREATE DATABASE "+name); got.Err == nil || got.Err.Code != "55006" {
			break
		}
		time.Sleep(20 * time.Millisecond) // template1 in use: retried, not waited on
	}
	if got.Err != nil {
		t.Fatalf("CREATE DATABASE %s: %s", name, got.Reply())
	}
	return name
}

// alone waits until the server has no client backend left: a closed
// connection's backend ends a moment later, and until then it holds its
// place among max_connections.
func alone(t *testing.T, pg *realserver.Postgres) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		// Until they end, the last history's backends may hold every
		// place: a refusal (53300) says they are still there.
		c, err := connect(pg, "template1")
		var got [][]string
		if err == nil {
			got = c.rows(t, `SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`)
			c.close()
			if got[0][0] == "0" {
				return
			}
		} else if pgErr := (*pgconn.PgError)(nil); !errors.As(err, &pgErr) || pgErr.Code != "53300" {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the last history's backends are still there after 5 s: %v %v", got, err)
		}
		time.Sleep(5 * time.Millisecond) // polling the server, not waiting for an outcome
	}
}

// conn is one client connection to the real server, with the WARNINGs it
// received since they were last taken.
type conn struct {
	pg       *pgconn.PgConn
	mu       sync.Mutex
	warnings []string
}

func (c *conn) takeWarnings() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := strings.Join(c.warnings, "; ")
	c.warnings = nil
	return w
}

func (c *conn) close() { _ = c.pg.Close(context.Background()) }

func dial(t *testing.T, pg *realserver.Postgres, db string) *conn {
	t.Helper()
	c, err := connect(pg, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	return c
}

// connect opens a connection to db, which its caller closes.
func connect(pg *realserver.Postgres, db string) (*conn, error) {
	cfg, err := pgconn.ParseConfig(pg.URLOf(db))
	if err != nil {
		return nil, err
	}
	c := &conn{}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		if n.Severity == "WARNING" {
			c.mu.Lock()
			c.warnings = append(c.warnings, n.Message)
			c.mu.Unlock()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if c.pg, err = pgconn.ConnectConfig(ctx, cfg); err != nil {
		return nil, err
	}
	return c, nil
}

// send runs one statement and returns the answer in the model's terms.
func (c *conn) send(ctx context.Context, sql string) model.SQLStatement {
	results, err := c.pg.Exec(ctx, sql).ReadAll()
	e := model.SQLStatement{SQL: sql}
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr):
		e.Err = &model.SQLError{Code: pgErr.Code, Message: pgErr.Message}
	case err != nil:
		e.Err = &model.SQLError{Code: "client", Message: err.Error()}
	case len(results) == 1:
		r := results[0]
		e.Tag = r.CommandTag.String()
		for _, f := range r.FieldDescriptions {
			e.Cols = append(e.Cols, f.Name)
		}
		for _, row := range r.Rows {
			vals := make([]string, len(row))
			for i, v := range row {
				vals[i] = string(v)
			}
			e.Rows = append(e.Rows, vals)
		}
	}
	e.Warning = c.takeWarnings()
	return e
}

// rows runs a query of the suite's own and returns its rows; a failure
// fails the test.
func (c *conn) rows(t *testing.T, sql string) [][]string {
	t.Helper()
	got := c.send(context.Background(), sql)
	if got.Err != nil {
		t.Fatalf("%s: %s", sql, got.Reply())
	}
	return got.Rows
}

func mustExec(t *testing.T, c *conn, sql string) {
	t.Helper()
	if got := c.send(context.Background(), sql); got.Err != nil {
		t.Fatalf("%s: %s", sql, got.Reply())
	}
}

// skipKnown is what a history does on meeting a disagreement the suite
// knows of and has reported: it stops comparing there, and says so.
func skipKnown(t *testing.T, r *replay, msg string) {
	r.tally.Add("stopped at a known difference", 1)
	t.Logf("known difference, not compared further: %s\n\thistory: %s", msg, r.h)
}

// play replays h on db of pg, frame by frame.
func play(t *testing.T, pg *realserver.Postgres, db string, h history.History, tl *history.Tally, known func(*testing.T, *replay, string)) {
	frames, err := history.Show(h)
	if err != nil {
		t.Fatal(err)
	}
	r := &replay{
		t: t, h: h, pg: pg, db: db, tally: tl, known: known,
		conns: map[string]*conn{}, pending: map[string]*waiting{}, timeouts: map[string]int{}, crashed: map[string]bool{},
	}
	r.watch = dial(t, pg, db) // looks at pg_stat_activity, pg_locks and pgrowlocks
	r.stage(frames[0].Frame.Frame)
	r.clock.real = time.Now()
	for _, f := range frames {
		r.frame = f.Index
		for i, e := range f.Latest() {
			r.event(e, f.Lines[i])
			if r.stopped != "" {
				break
			}
		}
		if r.stopped == "" {
			r.pace(f.Now)
			r.check(f.Frame.Frame)
		}
		if r.stopped != "" {
			tl.Played(h, r.frame)
			return
		}
	}
	tl.Played(h, r.frame)
	for s, w := range r.pending {
		r.cancel(s, w)
	}
}

// replay is the real side of one history.
type replay struct {
	t       *testing.T
	h       history.History
	pg      *realserver.Postgres
	db      string
	tally   *history.Tally
	known   func(*testing.T, *replay, string)
	watch   *conn
	frame   int
	conns   map[string]*conn    // by the model's connection (session) name
	pending map[string]*waiting // statements sent that have not been answered, by connection
	// timeouts are each connection's statement_timeout and lock_timeout
	// as its client set them, in ms ("s1 statement", "s1 lock").
	timeouts map[string]int
	crashed  map[string]bool // clients that crashed
	clock    struct {
		model int
		real  time.Time
	}
	stopped string // why the history was not compared to its end
}

// waiting is a statement sent that has not been answered yet.
type waiting struct {
	answer chan model.SQLStatement
	sent   time.Time // real
	at     int       // model
	lock   string
}

// pace lets real time pass as the model's does while a statement waits:
// only then does anything on the server depend on time (deadlock_timeout,
// lock_timeout, statement_timeout). When none waits, the replay does not
// wait.
func (r *replay) pace(t int) {
	if t <= r.clock.model {
		return
	}
	if len(r.pending) > 0 {
		time.Sleep(time.Until(r.clock.real.Add(time.Duration(t-r.clock.model) * time.Millisecond)))
	}
	r.clock.model, r.clock.real = t, time.Now()
}

// stage builds the tables of the scenario's first frame on the real server,
// each column a bigint or, where a row holds something else, text, and the
// first column the key, as the model has it; then it plays the setup and
// opens the connections the model has open from the start.
func (r *replay) stage(first demo.Frame) {
	stage(r.t, r.watch, first)
	for _, s := range first.Store.(model.State).Sessions {
		r.conns[s.Name] = dial(r.t, r.pg, r.db)
	}
}

func stage(t *testing.T, watch *conn, first demo.Frame) {
	t.Helper()
	for _, tb := range first.Store.(model.State).Tables {
		ddl := make([]string, len(tb.Cols))
		for i, c := range tb.Cols {
			typ := "bigint"
			for _, row := range tb.Rows {
				if !isInt(row.Values[i]) {
					typ = "text"
				}
			}
			ddl[i] = c + " " + typ
			if i == 0 {
				ddl[i] += " PRIMARY KEY" // the model's key: a table's first column
			}
		}
		mustExec(t, watch, "DROP TABLE IF EXISTS "+tb.Name)
		mustExec(t, watch, fmt.Sprintf("CREATE TABLE %s (%s)", tb.Name, strings.Join(ddl, ", ")))
	}
	for _, a := range first.Scenario.Setup {
		mustExec(t, watch, a.Args.(model.Args).SQL)
	}
}

func isInt(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if (c < '0' || c > '9') && !(i == 0 && c == '-' && len(s) > 1) {
			return false
		}
	}
	return true
}

// stop ends the comparison of the history: what follows depends on a
// choice the real server made otherwise than the model, which PostgreSQL
// leaves open.
func (r *replay) stop(format string, args ...any) {
	r.stopped = fmt.Sprintf(format, args...)
	r.tally.Add("stopped where PostgreSQL chose otherwise", 1)
	r.t.Logf("not compared past frame %d: %s\n\thistory: %s", r.frame, r.stopped, r.h)
}
