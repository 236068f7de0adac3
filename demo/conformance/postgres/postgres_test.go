// Package postgres_test replays every database scenario of the demo on a
// real PostgreSQL 15. It is a package of its own beside the Redis suite in
// demo/conformance, so that each suite builds and runs on its own.
package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/demo"
	model "github.com/distlock/fencing-demo/demo/sql"
	"github.com/distlock/fencing-demo/internal/realserver"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/jackc/pgx/v5/pgconn"
)

// The server's deadlock_timeout, scaled down from the default 1 s so a
// deadlock is found in a tenth of the time. The replay waits for the
// server's answers rather than for the clock, so no assertion depends on it
// beyond this: both halves of a cycle must be waiting before the first
// check runs, and the replay puts them there within milliseconds.
const deadlockTimeout = "100ms"

// TestPostgresConformance replays each database scenario of scenarios.yaml,
// in both switch positions, on a real PostgreSQL: one connection per
// connection of the model (with a pooler, the server connection the model
// says each statement ran on), each statement sent as the page shows it, and
// each answer compared with the page's: the command tag and rows affected,
// the values returned, the WARNING, the ERROR's SQLSTATE and message. A
// statement the model says waits must be seen waiting on the server (in
// pg_stat_activity with wait_event_type Lock, and in pg_locks as an
// ungranted lock of the right type, blocked by the connection the page
// says holds it), never judged by a sleep. At the end of every frame the
// advisory locks in pg_locks must be the page's: who holds each key (a lock
// taken twice on one session is still granted after the first unlock) and
// who waits. A statement the page leaves waiting for good must still wait
// after twice deadlock_timeout, the detector having found no cycle; and the
// tables must end with the page's rows. For a deadlock the test checks what
// PostgreSQL promises, not which side it picks: exactly one of the waiting
// statements fails with 40P01 and the other completes.
func TestPostgresConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("conformance against a real PostgreSQL: not in -short")
	}
	pg := realserver.StartPostgres(t, "deadlock_timeout="+deadlockTimeout)
	for _, sc := range testkit.Catalog(t).Scenarios {
		if sc.Store != model.DatabaseStore {
			continue
		}
		server := pg
		if sc.MaxConns > 0 {
			// A server of the scenario's max_connections, and one more for
			// the replay's own watching connection; all of them superuser
			// connections, so none is kept in reserve.
			server = realserver.StartPostgres(t, "deadlock_timeout="+deadlockTimeout,
				fmt.Sprintf("max_connections=%d", sc.MaxConns+1), "superuser_reserved_connections=0")
		}
		for _, on := range []bool{false, true} {
			t.Run(testkit.Name(sc, on), func(t *testing.T) {
				replay(t, server, sc, on)
			})
		}
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

func dial(t *testing.T, pg *realserver.Postgres) *conn {
	t.Helper()
	cfg, err := pgconn.ParseConfig(pg.URL())
	if err != nil {
		t.Fatal(err)
	}
	c := &conn{}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		if n.Severity == "WARNING" {
			c.mu.Lock()
			c.warnings = append(c.warnings, n.Message)
			c.mu.Unlock()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if c.pg, err = pgconn.ConnectConfig(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.pg.Close(context.Background()) })
	return c
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

// replay plays sc in the model and then sends its SQL to the real server.
func replay(t *testing.T, pg *realserver.Postgres, sc *demo.Scenario, on bool) {
	r, err := demo.Replay(sc, on, sc.Frames())
	if err != nil {
		t.Fatal(err)
	}
	f := r.Frame()
	// Every frame's state, to hold the server's pg_locks against at the
	// moment the replay reaches the end of that frame.
	frames := make([]demo.Frame, sc.Frames()+1)
	run := demo.NewRun(sc, on)
	for frames[1] = run.Frame(); run.Step(); {
		frames[run.Index()] = run.Frame()
	}
	first := frames[1] // the stage the setup built
	ctx := context.Background()

	watch := dial(t, pg) // looks at pg_stat_activity, pg_locks and pgrowlocks
	stage(t, watch, sc, first)

	conns := map[string]*conn{}
	pending := map[string]chan model.SQLStatement{}
	var victim string       // the session the real server aborted in a deadlock
	var deadlocked []string // the sessions of that cycle
	frame := 1
	for _, ev := range f.Events {
		if n := ev.Header().Frame; n != frame {
			advisoryLocks(t, watch, conns, frames[n-1])
			if victim == "" || victim == deadlocked[0] {
				rowLocks(t, watch, conns, frames[n-1])
			}
			frame = n
		}
		switch e := ev.(type) {
		case model.DeadlockCheck:
			victim, deadlocked = deadlock(t, e, pending)
		case model.Refused:
			refused(t, pg, e)
		case model.Disconnected:
			hangUp(t, watch, conns[e.Session], e)
			delete(conns, e.Session)
		case model.SQLStatement:
			c := conns[e.Session]
			if c == nil {
				c = dial(t, pg)
				conns[e.Session] = c
			}
			label := fmt.Sprintf("t=%dms %s on %s: %s", e.At, e.Client, e.Session, e.SQL)
			switch {
			case e.Waiting:
				ch := make(chan model.SQLStatement, 1)
				pending[e.Session] = ch
				go func(sql string) { ch <- c.send(ctx, sql) }(e.SQL)
				waitsOnLock(t, watch, c, conns[e.Holder], e, label)
			case e.Sent < e.At && slices.Contains(deadlocked, e.Session):
				// Already judged by deadlock: PostgreSQL may pick either.
				delete(pending, e.Session)
			case e.Sent < e.At:
				got := receive(t, pending, e.Session, label)
				same(t, label, got, e)
			default:
				if pending[e.Session] != nil {
					t.Fatalf("%s: the model sends this while the connection still waits", label)
				}
				sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				got := c.send(sctx, e.SQL)
				cancel()
				want := e
				if victim != "" && slices.Contains(deadlocked, e.Session) && e.Tag != "" {
					// After a deadlock the two transactions' fates follow the
					// side the real server aborted, not the model's.
					want.Tag = "COMMIT"
					if e.Session == victim || strings.EqualFold(e.SQL, "ROLLBACK") {
						want.Tag = "ROLLBACK"
					}
				}
				same(t, label, got, want)
			}
		}
	}
	advisoryLocks(t, watch, conns, f)
	if victim == "" || victim == deadlocked[0] {
		rowLocks(t, watch, conns, f)
	}
	for s := range pending {
		stillWaiting(t, watch, conns[s], pending[s], s, f)
	}
	if victim == "" || len(deadlocked) > 0 && victim == deadlocked[0] {
		// The rows as the page leaves them, unless the real server broke a
		// deadlock on the other side than the model, which changes them.
		sameRows(t, watch, f)
	}
}

// stage builds the tables of the scenario's first frame on the real server,
// each column a bigint or, where a row holds something else, text, and the
// first column the key, as the model has it; then it plays the setup.
func stage(t *testing.T, watch *conn, sc *demo.Scenario, first demo.Frame) {
	t.Helper()
	alone(t, watch)
	// Row locks live in the rows themselves, not in pg_locks (which shows a
	// row only while someone queues for it): pgrowlocks reads them.
	mustExec(t, watch, "CREATE EXTENSION IF NOT EXISTS pgrowlocks")
	for _, tb := range first.Store.(model.State).Tables {
		ddl := make([]string, len(tb.Cols))
		for i, c := range tb.Cols {
			typ := "bigint"
			for _, row := range tb.Rows {
				if _, err := strconv.ParseInt(row.Values[i], 10, 64); err != nil {
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
	for _, a := range sc.Setup {
		mustExec(t, watch, a.Args.(model.Args).SQL)
	}
}

// refused checks that the server turns a new connection away, as the page
// says, with FATAL 53300: it has max_connections open already.
func refused(t *testing.T, pg *realserver.Postgres, e model.Refused) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := pgconn.Connect(ctx, pg.URL())
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		_ = c.Close(ctx)
		t.Fatalf("t=%dms %s: the page says the connection is refused; the server took it", e.At, e.Client)
	case !errors.As(err, &pgErr):
		t.Fatalf("t=%dms %s: connecting: %v, want FATAL 53300", e.At, e.Client, err)
	}
	got := model.SQLStatement{Err: &model.SQLError{Code: pgErr.Code, Message: pgErr.Message}}
	if g := "FATAL: " + got.Err.Message + " (SQLSTATE " + got.Err.Code + ")"; pgErr.Severity != "FATAL" || g != func() string { _, w := e.Wire(); return w }() {
		t.Errorf("t=%dms %s: connecting: real %s %s, page %v", e.At, e.Client, pgErr.Severity, g, e)
	}
}

// hangUp closes a connection as the page's client does, and waits until the
// server's backend has gone: only then is its place among max_connections
// free, which the next connection of the replay may need.
func hangUp(t *testing.T, watch, c *conn, e model.Disconnected) {
	t.Helper()
	if c == nil {
		t.Fatalf("t=%dms %s closes a connection it never opened", e.At, e.Client)
	}
	pid := c.pg.PID()
	if err := c.pg.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := watch.send(context.Background(), fmt.Sprintf("SELECT count(*) FROM pg_stat_activity WHERE pid = %d", pid))
		if got.Err == nil && len(got.Rows) == 1 && got.Rows[0][0] == "0" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("t=%dms %s: its backend (pid %d) is still there 5 s after it closed the connection", e.At, e.Client, pid)
		}
		time.Sleep(2 * time.Millisecond) // polling the server, not waiting for an outcome
	}
}

// alone waits until the backends of the replays before have gone: a closed
// connection's backend ends a moment later, and until then it still holds
// its session's advisory locks.
func alone(t *testing.T, watch *conn) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := watch.send(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`)
		if got.Err != nil {
			t.Fatal(got.Reply())
		}
		if len(got.Rows) == 1 && got.Rows[0][0] == "0" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the last replay's backends are still there after 5 s: %v", got.Rows)
		}
		time.Sleep(2 * time.Millisecond) // polling the server, not waiting for an outcome
	}
}

// advisoryLocks holds pg_locks against the frame's advisory locks: who holds
// each key (a re-entered lock shows once, still granted until its last
// unlock) and who waits for it.
func advisoryLocks(t *testing.T, watch *conn, conns map[string]*conn, f demo.Frame) {
	t.Helper()
	pid := func(session string) string {
		if c := conns[session]; c != nil {
			return strconv.Itoa(int(c.pg.PID()))
		}
		return session + " (never connected)"
	}
	var want []string
	for _, a := range f.Store.(model.State).Advisory {
		if a.Holder != "" {
			want = append(want, fmt.Sprintf("%d granted to %s", a.Key, pid(a.Holder)))
		}
		for _, w := range a.Waiters {
			want = append(want, fmt.Sprintf("%d awaited by %s", a.Key, pid(w)))
		}
	}
	got := watch.send(context.Background(), `SELECT (classid::bigint << 32 | objid::bigint)::text
		|| CASE WHEN granted THEN ' granted to ' ELSE ' awaited by ' END || pid
		FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`)
	if got.Err != nil {
		t.Fatalf("pg_locks: %s", got.Reply())
	}
	var have []string
	for _, row := range got.Rows {
		have = append(have, row[0])
	}
	slices.Sort(want)
	slices.Sort(have)
	if g, w := strings.Join(have, "; "), strings.Join(want, "; "); g != w {
		t.Errorf("frame %d: advisory locks in pg_locks: %q, the page: %q", f.Index, g, w)
	}
}

// rowLocks holds the rows' locks, as pgrowlocks reads them from the heap,
// against the frame's: which row each connection holds locked (for update,
// or because it changed the row) until its transaction ends. A row lock kept
// on a row that no longer matches its query shows here and nowhere else.
func rowLocks(t *testing.T, watch *conn, conns map[string]*conn, f demo.Frame) {
	t.Helper()
	pid := func(session string) string {
		if c := conns[session]; c != nil {
			return strconv.Itoa(int(c.pg.PID()))
		}
		return session + " (never connected)"
	}
	var want, have []string
	for _, tb := range f.Store.(model.State).Tables {
		key := tb.Cols[0] // the model names a row by its key, the first column
		for _, r := range tb.Rows {
			if r.LockedBy != "" {
				want = append(want, fmt.Sprintf("%s %s=%s locked by %s", tb.Name, key, r.Values[0], pid(r.LockedBy)))
			}
		}
		got := watch.send(context.Background(), fmt.Sprintf(`SELECT '%[1]s %[2]s=' || t.%[2]s || ' locked by ' || array_to_string(p.pids, ',')
			FROM %[1]s t JOIN pgrowlocks('%[1]s') p ON p.locked_row = t.ctid`, tb.Name, key))
		if got.Err != nil {
			t.Fatalf("pgrowlocks(%s): %s", tb.Name, got.Reply())
		}
		for _, row := range got.Rows {
			have = append(have, row[0])
		}
	}
	slices.Sort(want)
	slices.Sort(have)
	if g, w := strings.Join(have, "; "), strings.Join(want, "; "); g != w {
		t.Errorf("frame %d: row locks in pgrowlocks: %q, the page: %q", f.Index, g, w)
	}
}

// stillWaiting checks a statement the model leaves waiting for good: the
// server's backend is still waiting for a lock after twice deadlock_timeout
// by the server's own clock, so the deadlock detector has run and found no
// cycle. Then the replay cancels it.
func stillWaiting(t *testing.T, watch, c *conn, ch chan model.SQLStatement, session string, f demo.Frame) {
	t.Helper()
	waiting := false
	for _, s := range f.Store.(model.State).Sessions {
		waiting = waiting || s.Name == session && s.Waiting != ""
	}
	if !waiting || ch == nil {
		t.Errorf("the replay leaves %s waiting; the page says it is not", session)
		return
	}
	q := fmt.Sprintf(`SELECT wait_event_type, clock_timestamp() - query_start > 2 * current_setting('deadlock_timeout')::interval
		FROM pg_stat_activity WHERE pid = %d`, c.pg.PID())
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := watch.send(context.Background(), q)
		if got.Err != nil || len(got.Rows) != 1 || got.Rows[0][0] != "Lock" {
			t.Fatalf("%s: the page leaves it waiting for good; the server says %s", session, got.Reply())
		}
		if got.Rows[0][1] == "t" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the server's clock did not pass twice deadlock_timeout in 5 s", session)
		}
		time.Sleep(5 * time.Millisecond) // polling the server, not waiting for an outcome
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.pg.CancelRequest(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-ch:
		if got.Err == nil || got.Err.Code != "57014" {
			t.Errorf("%s: cancelled, answered %s, want SQLSTATE 57014", session, got.Reply())
		}
	case <-ctx.Done():
		t.Fatalf("%s: no answer to the cancel", session)
	}
}

// sameRows compares each table with the rows the last frame shows.
func sameRows(t *testing.T, watch *conn, f demo.Frame) {
	t.Helper()
	for _, tb := range f.Store.(model.State).Tables {
		got := watch.send(context.Background(), fmt.Sprintf("SELECT %s FROM %s ORDER BY %s", strings.Join(tb.Cols, ", "), tb.Name, tb.Cols[0]))
		if got.Err != nil {
			t.Fatalf("%s: %s", tb.Name, got.Reply())
		}
		var want [][]string
		for _, r := range tb.Rows {
			want = append(want, r.Values)
		}
		if g, w := fmt.Sprint(got.Rows), fmt.Sprint(want); g != w {
			t.Errorf("table %s at the end: real %s, page %s", tb.Name, g, w)
		}
	}
}

// deadlock waits for the answers of every waiting statement of the cycle and
// checks PostgreSQL's promise: one is aborted with 40P01, the rest go on.
func deadlock(t *testing.T, e model.DeadlockCheck, pending map[string]chan model.SQLStatement) (string, []string) {
	t.Helper()
	var victims []string
	for _, s := range e.Cycle {
		got := receive(t, pending, s, "deadlock cycle "+strings.Join(e.Cycle, " -> "))
		switch {
		case got.Err != nil && got.Err.Code == "40P01" && got.Err.Message == "deadlock detected":
			victims = append(victims, s)
		case got.Err != nil:
			t.Fatalf("%s in the deadlock cycle: %s, want 40P01 or success", s, got.Reply())
		}
		pending[s] = nil // judged; its completion event is skipped
	}
	if len(victims) != 1 {
		t.Fatalf("deadlock of %v: aborted %v, want exactly one aborted with 40P01", e.Cycle, victims)
	}
	if victims[0] != e.Session {
		t.Logf("the real server aborted %s; the model's detector, run first by the earlier waiter, aborted %s: PostgreSQL promises only that one is", victims[0], e.Session)
	}
	return victims[0], e.Cycle
}

func receive(t *testing.T, pending map[string]chan model.SQLStatement, session, label string) model.SQLStatement {
	t.Helper()
	ch := pending[session]
	if ch == nil {
		t.Fatalf("%s: nothing was waiting on %s", label, session)
	}
	select {
	case got := <-ch:
		delete(pending, session)
		return got
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: still waiting on the real server after 10 s", label)
	}
	return model.SQLStatement{}
}

// waitsOnLock asks the server, until it says so or 5 s pass, whether c's
// backend is waiting for a lock, for which kind, and whether holder's
// backend is among those pg_blocking_pids says block it: the arrow of the
// page's wait-for graph.
func waitsOnLock(t *testing.T, watch, c, holder *conn, e model.SQLStatement, label string) {
	t.Helper()
	want := []string{"transactionid", "tuple"} // a row lock: the holder's transaction, or the tuple's queue
	if strings.HasPrefix(e.Lock, "advisory") {
		want = []string{"advisory"}
	}
	q := fmt.Sprintf(`SELECT a.wait_event_type, coalesce(string_agg(l.locktype, ','), '')
		FROM pg_stat_activity a LEFT JOIN pg_locks l ON l.pid = a.pid AND NOT l.granted
		WHERE a.pid = %d GROUP BY a.wait_event_type`, c.pg.PID())
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := watch.send(context.Background(), q)
		if got.Err != nil {
			t.Fatalf("%s: %s", label, got.Reply())
		}
		if len(got.Rows) == 1 && got.Rows[0][0] == "Lock" {
			if !slices.Contains(want, got.Rows[0][1]) {
				t.Fatalf("%s: waits for a %s lock, want %v", label, got.Rows[0][1], want)
			}
			if holder == nil {
				t.Fatalf("%s: the page says %s holds the lock, which never sent a statement", label, e.Holder)
			}
			b := watch.send(context.Background(), fmt.Sprintf("SELECT %d = ANY(pg_blocking_pids(%d))", holder.pg.PID(), c.pg.PID()))
			if b.Err != nil || len(b.Rows) != 1 || b.Rows[0][0] != "t" {
				t.Fatalf("%s: the page says %s holds the lock; pg_blocking_pids does not name it (%s)", label, e.Holder, b.Reply())
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the model says it waits for %s; the server's backend is not waiting for a lock (%v)", label, e.Lock, got.Rows)
		}
		time.Sleep(2 * time.Millisecond) // polling the server, not waiting for an outcome
	}
}

func same(t *testing.T, label string, got, want model.SQLStatement) {
	t.Helper()
	if g, w := got.Reply(), want.Reply(); g != w {
		t.Errorf("%s\n   real: %s\n  model: %s", label, g, w)
	}
}

func mustExec(t *testing.T, c *conn, sql string) {
	t.Helper()
	if got := c.send(context.Background(), sql); got.Err != nil {
		t.Fatalf("%s: %s", sql, got.Reply())
	}
}
