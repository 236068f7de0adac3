package sql_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/script"
	. "github.com/distlock/fencing-demo/demo/sql"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// database returns a one-move test scenario on the database store with the
// given clients, an accounts table with rows 1 and 2, and the actions.
func database(tb testing.TB, clients string, do ...string) string {
	tb.Helper()
	sc := testkit.OnStore(tb, "database", testkit.YAML("db", do...))
	sc = testkit.Replace(tb, sc, "    clients: [A, B]\n", "    clients: ["+clients+"]\n    setup:\n"+
		"      - A sql INSERT INTO accounts (id, balance) VALUES (1, 100)\n"+
		"      - A sql INSERT INTO accounts (id, balance) VALUES (2, 100)\n")
	return testkit.File(sc)
}

// statements returns the SQLStatement events of f, as "client: sql => reply".
func statements(f demo.Frame) []string {
	var out []string
	for _, e := range f.Events {
		if s, ok := e.(SQLStatement); ok {
			out = append(out, s.Client+": "+s.SQL+" => "+s.Reply())
		}
	}
	return out
}

func wantStatements(t *testing.T, f demo.Frame, want ...string) {
	t.Helper()
	got := statements(f)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("statements:\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// An advisory lock counts re-entries: taken twice, it takes two unlocks, and
// a third is answered false with PostgreSQL's WARNING (checked on a real
// server: true, true, false).
func TestAdvisoryLockCountsReentries(t *testing.T) {
	f := testkit.Play(t, database(t, "A, B",
		"A sql SELECT pg_advisory_lock(42)",
		"A sql SELECT pg_advisory_lock(42)",
		"B sql SELECT pg_try_advisory_lock(42)",
		"A sql SELECT pg_advisory_unlock(42)",
		"B sql SELECT pg_try_advisory_lock(42)",
		"A sql SELECT pg_advisory_unlock(42)",
		"A sql SELECT pg_advisory_unlock(42)",
		"B sql SELECT pg_try_advisory_lock(42)",
	), false)
	wantStatements(t, f,
		"A: SELECT pg_advisory_lock(42) => SELECT 1 (pg_advisory_lock=)",
		"A: SELECT pg_advisory_lock(42) => SELECT 1 (pg_advisory_lock=)",
		"B: SELECT pg_try_advisory_lock(42) => SELECT 1 (pg_try_advisory_lock=f)",
		"A: SELECT pg_advisory_unlock(42) => SELECT 1 (pg_advisory_unlock=t)",
		"B: SELECT pg_try_advisory_lock(42) => SELECT 1 (pg_try_advisory_lock=f)",
		"A: SELECT pg_advisory_unlock(42) => SELECT 1 (pg_advisory_unlock=t)",
		"A: SELECT pg_advisory_unlock(42) => WARNING: you don't own a lock of type ExclusiveLock; SELECT 1 (pg_advisory_unlock=f)",
		"B: SELECT pg_try_advisory_lock(42) => SELECT 1 (pg_try_advisory_lock=t)",
	)
	if got := f.Store.(State).Advisory[0]; got.Holder != "B" || got.Session != 1 {
		t.Fatalf("advisory 42=%+v, want held by B once", got)
	}
}

// Waiters for a row lock queue up in order: when the holder commits, the
// first waiter gets the row and the second now waits for the first.
func TestRowLockQueue(t *testing.T) {
	f := testkit.Play(t, database(t, "A, B, C",
		"A sql BEGIN",
		"A sql SELECT balance FROM accounts WHERE id = 1 FOR UPDATE",
		"tick 10",
		"B sql BEGIN",
		"B sql SELECT balance FROM accounts WHERE id = 1 FOR UPDATE",
		"tick 10",
		"C sql BEGIN",
		"C sql SELECT balance FROM accounts WHERE id = 1 FOR UPDATE",
		"tick 10",
		"A sql UPDATE accounts SET balance = 90 WHERE id = 1",
		"A sql COMMIT",
	), false)
	last := statements(f)[len(statements(f))-1]
	if want := "B: SELECT balance FROM accounts WHERE id = 1 FOR UPDATE => SELECT 1 (balance=90)"; last != want {
		t.Fatalf("last statement %q, want %q", last, want)
	}
	row := f.Store.(State).Tables[0].Rows[0]
	if row.LockedBy != "B" || strings.Join(row.Waiters, ",") != "C" {
		t.Fatalf("row 1 locked by %q with waiters %v, want B with [C]", row.LockedBy, row.Waiters)
	}
	if got := f.Store.(State).Edges; len(got) != 1 || got[0].From != "C" || got[0].To != "B" {
		t.Fatalf("wait-for graph=%+v, want C -> B only", got)
	}
}

// The deadlock detector runs once a waiter has waited deadlock_timeout, not
// before; the backend whose timer runs out first finds the cycle and is the
// one aborted, and its locks go at once, so the other proceeds.
func TestDeadlockDetectedAfterTimeout(t *testing.T) {
	cycle := []string{
		"A sql BEGIN", "B sql BEGIN",
		"A sql UPDATE accounts SET balance = 1 WHERE id = 1",
		"B sql UPDATE accounts SET balance = 2 WHERE id = 2",
		"A sql UPDATE accounts SET balance = 1 WHERE id = 2",
		"tick 5",
		"B sql UPDATE accounts SET balance = 2 WHERE id = 1",
	}
	for _, tt := range []struct {
		wait    int
		aborted bool
	}{{DeadlockTimeout - 1, false}, {DeadlockTimeout, true}} {
		f := testkit.Play(t, database(t, "A, B", append(cycle, "tick "+itoa(tt.wait-5))...), false)
		var checks []DeadlockCheck
		for _, e := range f.Events {
			if d, ok := e.(DeadlockCheck); ok {
				checks = append(checks, d)
			}
		}
		if !tt.aborted {
			if len(checks) != 0 || len(f.Store.(State).Edges) != 2 {
				t.Fatalf("after %d ms: checks %+v, edges %+v; want no check yet and both waiting", tt.wait, checks, f.Store.(State).Edges)
			}
			continue
		}
		if len(checks) != 1 || checks[0].Session != "A" || checks[0].At != DeadlockTimeout {
			t.Fatalf("after %d ms: checks %+v, want one by A at %d", tt.wait, checks, DeadlockTimeout)
		}
		got := statements(f)
		if want := "A: UPDATE accounts SET balance = 1 WHERE id = 2 => ERROR: deadlock detected (SQLSTATE 40P01)"; got[len(got)-2] != want {
			t.Fatalf("A's statement: %q, want %q", got[len(got)-2], want)
		}
		if want := "B: UPDATE accounts SET balance = 2 WHERE id = 1 => UPDATE 1"; got[len(got)-1] != want {
			t.Fatalf("B's statement: %q, want %q", got[len(got)-1], want)
		}
		if f.Store.(State).Sessions[0].State != "idle in transaction (aborted)" {
			t.Fatalf("A's state %q, want aborted", f.Store.(State).Sessions[0].State)
		}
		if len(f.Violations) != 1 || f.Violations[0].Kind != Deadlock || f.Violations[0].Value != "A" {
			t.Fatalf("violations %+v, want one deadlock", f.Violations)
		}
	}
}

// NOWAIT fails at once with 55P03; the transaction is then aborted, every
// statement but the end is refused with 25P02, and COMMIT rolls it back.
// lock_timeout fails the statement with the same code once it runs out.
func TestNowaitAndLockTimeout(t *testing.T) {
	f := testkit.Play(t, database(t, "A, B",
		"A sql BEGIN",
		"A sql SELECT balance FROM accounts WHERE id = 1 FOR UPDATE",
		"B sql BEGIN",
		"B sql SELECT balance FROM accounts WHERE id = 1 FOR UPDATE NOWAIT",
		"B sql SELECT balance FROM accounts WHERE id = 2",
		"B sql COMMIT",
		"B sql SET lock_timeout = '200ms'",
		"B sql SELECT balance FROM accounts WHERE id = 1 FOR UPDATE",
		"tick 199",
		"B sql COMMIT",
		"tick 1",
	), false)
	wantStatements(t, f,
		"A: BEGIN => BEGIN",
		"A: SELECT balance FROM accounts WHERE id = 1 FOR UPDATE => SELECT 1 (balance=100)",
		"B: BEGIN => BEGIN",
		`B: SELECT balance FROM accounts WHERE id = 1 FOR UPDATE NOWAIT => ERROR: could not obtain lock on row in relation "accounts" (SQLSTATE 55P03)`,
		"B: SELECT balance FROM accounts WHERE id = 2 => ERROR: current transaction is aborted, commands ignored until end of transaction block (SQLSTATE 25P02)",
		"B: COMMIT => ROLLBACK",
		"B: SET lock_timeout = '200ms' => SET",
		"B: SELECT balance FROM accounts WHERE id = 1 FOR UPDATE => (waiting for accounts id=1)",
		"B: SELECT balance FROM accounts WHERE id = 1 FOR UPDATE => ERROR: canceling statement due to lock timeout (SQLSTATE 55P03)",
		"B: COMMIT => WARNING: there is no transaction in progress; COMMIT",
	)
}

// Behind a transaction-mode pooler a client gets the server connection that
// came back last, keeps it for its transaction, and gives it back after.
func TestPoolerHandsOutConnectionsLIFO(t *testing.T) {
	src := database(t, "A, B",
		"A sql SELECT balance FROM accounts WHERE id = 1",
		"A sql BEGIN",
		"B sql SELECT balance FROM accounts WHERE id = 1",
		"A sql COMMIT",
		"B sql SELECT balance FROM accounts WHERE id = 2",
	)
	src = testkit.Replace(t, src, "    store: database\n", "    store: database\n    pool: 2\n")
	f := testkit.Play(t, src, false)
	var got []string
	for _, e := range f.Events {
		got = append(got, e.Header().Client+"@"+e.Header().Node)
	}
	if want := "A@s1 A@s1 B@s2 A@s1 B@s1"; strings.Join(got, " ") != want {
		t.Fatalf("connections %s, want %s", strings.Join(got, " "), want)
	}
}

// SQL the model cannot read is a load error on its line, naming the shapes
// it knows.
func TestUnknownSQLIsALoadError(t *testing.T) {
	src := database(t, "A, B", "A sql DELETE FROM accounts")
	_, err := script.Load("test.yaml", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "reads only these SQL shapes") {
		t.Fatalf("Load: %v, want an error naming the SQL shapes", err)
	}
	if want := ":" + itoa(testkit.LineOf(t, src, "DELETE")) + ":"; !strings.Contains(err.Error(), want) {
		t.Fatalf("Load: %v, want line %s", err, want)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// A FOR UPDATE that waited for a row keeps that row's lock once it is freed,
// even when the row no longer matches and another is returned: real
// PostgreSQL 15 lists both rows under W2 in pgrowlocks until W2 commits.
func TestWaitedRowStaysLocked(t *testing.T) {
	r, err := demo.Replay(testkit.Scenario(t, "job-queue"), false, 4)
	if err != nil {
		t.Fatal(err)
	}
	f := r.Frame()
	var locked []string
	for _, tb := range f.Store.(State).Tables {
		for _, row := range tb.Rows {
			if row.LockedBy != "" {
				locked = append(locked, row.Values[0]+" by "+row.LockedBy)
			}
		}
	}
	if got, want := strings.Join(locked, ", "), "1 by W2, 2 by W2"; got != want {
		t.Fatalf("row locks at frame 4: %s, want %s", got, want)
	}
}

// The version check changes the outcome, not only the version: without it
// B's sale is lost (stock 8), with it both sales count (stock 5).
func TestOptimisticVersionChangesTheStock(t *testing.T) {
	for on, want := range map[bool]string{false: "8", true: "5"} {
		f := testkit.LastFrame(t, "optimistic-version", on)
		if got := f.Store.(State).Tables[0].Rows[0].Values[1]; got != want {
			t.Errorf("version check %v: stock %s, want %s", on, got, want)
		}
	}
}

// A table's first column is its key: a second row under a taken key is the
// real server's unique violation, or, with ON CONFLICT DO NOTHING, no row at
// all (checked on PostgreSQL 15: INSERT 0 1, ERROR 23505, INSERT 0 0).
func TestInsertKeepsTheKeyUnique(t *testing.T) {
	f := testkit.Play(t, database(t, "A, B",
		"A sql INSERT INTO accounts (id, balance) VALUES (3, 50)",
		"B sql INSERT INTO accounts (id, balance) VALUES (3, 60)",
		"B sql INSERT INTO accounts (id, balance) VALUES (3, 60) ON CONFLICT DO NOTHING",
		"B sql INSERT INTO accounts (id, balance) VALUES (4, 60) ON CONFLICT (id) DO NOTHING",
	), false)
	wantStatements(t, f,
		"A: INSERT INTO accounts (id, balance) VALUES (3, 50) => INSERT 0 1",
		`B: INSERT INTO accounts (id, balance) VALUES (3, 60) => ERROR: duplicate key value violates unique constraint "accounts_pkey" (SQLSTATE 23505)`,
		"B: INSERT INTO accounts (id, balance) VALUES (3, 60) ON CONFLICT DO NOTHING => INSERT 0 0",
		"B: INSERT INTO accounts (id, balance) VALUES (4, 60) ON CONFLICT (id) DO NOTHING => INSERT 0 1",
	)
}

// balance = balance - 30 is computed by the server from the row's newest
// version, so a commit after another client's loses nothing, even though
// its client read the row before; what it can do is take the balance below
// zero, which the resource's verdict calls oversold.
func TestRelativeUpdateIsNotLostButMayOversell(t *testing.T) {
	src := testkit.Replace(t, database(t, "A, B",
		"A sql SELECT balance FROM accounts WHERE id = 1",
		"B sql SELECT balance FROM accounts WHERE id = 1",
		"A sql UPDATE accounts SET balance = balance - 60 WHERE id = 1",
		"B sql UPDATE accounts SET balance = balance - 60 WHERE id = 1",
	), "resource: row-1", "resource: accounts")
	f := testkit.Play(t, src, false)
	got := f.Violations
	if len(got) != 1 || got[0].Kind != Oversold || got[0].Client != "B" || got[0].Value != "-20" {
		t.Fatalf("violations %+v, want one oversold by B, balance -20", got)
	}
}

// Under max_connections a client connects at its first statement and is
// refused with FATAL 53300 once the server has that many; closing a
// connection frees its place, as pool-exhaustion's replay on a real server
// of that many connections shows.
func TestMaxConnectionsRefusesAndDisconnectFrees(t *testing.T) {
	src := testkit.Replace(t, database(t, "A, B",
		"B sql SELECT balance FROM accounts WHERE id = 1",
		"A disconnect",
		"B sql SELECT balance FROM accounts WHERE id = 1",
	), "    clients: [A, B]\n", "    max-connections: 1\n    clients: [A, B]\n")
	f := testkit.Play(t, src, false)
	var got []string
	for _, e := range f.Events {
		call, reply := e.Wire()
		got = append(got, e.Header().Client+": "+call+" => "+reply)
	}
	want := []string{
		"B: connect (StartupMessage) => FATAL: sorry, too many clients already (SQLSTATE 53300)",
		"A: Terminate => ",
		"B: SELECT balance FROM accounts WHERE id = 1 => SELECT 1 (balance=100)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events:\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if v := demo.Headline(f.Violations); v.Kind != TooManyClients || v.Client != "B" || v.Other != "A" {
		t.Fatalf("headline %+v, want B refused while A held the one connection", v)
	}
}

// A row's key parts, written when its values change rather than for every
// key, are what its values make: after every offer, and every offer after
// it, at every frame of every scenario on the database, played on a copy
// into one scratch run as the finder plays them.
func TestRowKeysFollowTheirValues(t *testing.T) {
	var scratch, next demo.Run
	for _, sc := range testkit.Catalog(t).Scenarios {
		if sc.Store != DatabaseStore {
			continue
		}
		for _, on := range []bool{false, true} {
			for step := 1; step <= sc.Frames(); step++ {
				r, err := demo.Replay(sc, on, step)
				if err != nil {
					t.Fatal(err)
				}
				if w := StaleRowKey(r.Store()); w != "" {
					t.Fatalf("%s frame %d: row %s's key is stale", testkit.Name(sc, on), step, w)
				}
				offers, _ := r.Offers()
				for _, o := range offers {
					if !r.CopyTo(&scratch) || scratch.Free(o.Action) != nil {
						continue
					}
					if w := StaleRowKey(scratch.Store()); w != "" {
						t.Fatalf("%s frame %d after %s: row %s's key is stale", testkit.Name(sc, on), step, o.Action.Source, w)
					}
					for _, o2 := range offers {
						if scratch.CopyTo(&next) && next.Free(o2.Action) == nil && StaleRowKey(next.Store()) != "" {
							t.Fatalf("%s frame %d after %s, %s: a row's key is stale", testkit.Name(sc, on), step, o.Action.Source, o2.Action.Source)
						}
					}
				}
			}
		}
	}
}

// The key tells apart states that play differently, and only those: what a
// client read and at which version, what it kept, whether its statement
// waits and what it queued behind it, whether it believes it holds a lock.
// Histories that differ only in the order of independent steps share one.
func TestKeyTellsStatesApart(t *testing.T) {
	sc, _ := testkit.Catalog(t).Get("lost-update")
	key := func(play ...string) string {
		r, err := demo.Place{Sc: sc, Step: 1, Play: strings.Join(play, "\n")}.Run()
		if err != nil {
			t.Fatal(err)
		}
		return string(r.Key(nil))
	}
	const (
		begin  = "A sql BEGIN"
		read   = "A sql SELECT balance FROM accounts WHERE id = 1"
		lock   = "A sql SELECT balance FROM accounts WHERE id = 1 FOR UPDATE"
		bBegin = "B sql BEGIN"
		bRead  = "B sql SELECT balance FROM accounts WHERE id = 1"
		bLock  = "B sql SELECT balance FROM accounts WHERE id = 1 FOR UPDATE"
		bWrite = "B sql UPDATE accounts SET balance = 100 WHERE id = 1" // a new version, the same value
		bEnd   = "B sql COMMIT"
	)
	same := [][2][]string{
		{{begin, bBegin}, {bBegin, begin}},
		{{read, bRead}, {bRead, read}},
	}
	for _, p := range same {
		if key(p[0]...) != key(p[1]...) {
			t.Errorf("%q and %q have different keys", p[0], p[1])
		}
	}
	differ := [][2][]string{
		{{}, {begin}},
		{{}, {read}},                                       // A read the row and kept its balance
		{{bWrite, read}, {read, bWrite}},                   // A read version 2, or version 1 before B's
		{{begin, lock, bLock}, {begin, lock}},              // B waits for A's row lock
		{{begin, lock, bLock, bEnd}, {begin, lock, bLock}}, // and queued its COMMIT behind it
		{{bRead}, {read}},                                  // who read it
		{{"A sql SELECT pg_advisory_lock(7)"}, {}},         // A believes it holds a lock
	}
	for _, p := range differ {
		if key(p[0]...) == key(p[1]...) {
			t.Errorf("%q and %q have the same key", p[0], p[1])
		}
	}
}

// A client that crashes while its transaction holds a row lock leaves no
// lock behind: its socket closes with its process, and PostgreSQL ends
// the backend, rolls the transaction back and frees the row, so the worker
// waiting for it gets it at once (job-queue, skip-locked off, taken over
// where W2 waits for W1's row).
func TestCrashFreesTheRowLock(t *testing.T) {
	sc := testkit.Scenario(t, "job-queue")
	f, err := demo.Place{Sc: sc, On: false, Step: 3, Play: "W1 crash"}.Frame()
	if err != nil {
		t.Fatal(err)
	}
	db := f.Store.(State)
	if len(db.Sessions) != 1 || db.Sessions[0].Name != "W2" || db.Sessions[0].State != "idle in transaction" || db.Sessions[0].Waiting != "" {
		t.Fatalf("connections %+v, want W2's alone, idle in transaction with the row", db.Sessions)
	}
	if got := db.Tables[0].Rows[0].LockedBy; got != "W2" {
		t.Errorf("jobs id=1 is locked by %q, want W2", got)
	}
	var gone Disconnected
	for _, e := range f.Latest() {
		if d, ok := e.(Disconnected); ok {
			gone = d
		}
	}
	if !gone.Crashed || gone.Client != "W1" || strings.Join(gone.Freed, ",") != "jobs id=1" {
		t.Errorf("the move's disconnection: %+v, want W1's connection ended, freeing jobs id=1", gone)
	}
	st := statements(f)
	if last := st[len(st)-1]; last != "W2: SELECT id FROM jobs WHERE state = 'pending' ORDER BY id LIMIT 1 FOR UPDATE => SELECT 1 (id=1)" {
		t.Errorf("W2's statement answered %q, want the row id=1 at once", last)
	}
	if f.Verdict().Kind != demo.MutualExclusionHeld {
		t.Errorf("verdict %v: W2 took the row it waited for", f.Verdict().Kind)
	}
}

// A client that crashes while its statement waits for a lock leaves its
// backend waiting (PostgreSQL reads the socket only between statements):
// once the lock is its, the statement runs, the backend finds the client
// gone, rolls back and frees what it took.
func TestCrashedWaiterEndsAfterItsStatement(t *testing.T) {
	sc := testkit.Scenario(t, "job-queue")
	f, err := demo.Place{Sc: sc, On: false, Step: 3, Play: "W2 crash\nW1 step 3\nW1 step 4"}.Frame()
	if err != nil {
		t.Fatal(err)
	}
	db := f.Store.(State)
	if len(db.Sessions) != 1 || db.Sessions[0].Name != "W1" || len(db.Sessions[0].Locks) != 0 {
		t.Fatalf("connections %+v, want W1's alone, holding nothing", db.Sessions)
	}
	for _, row := range db.Tables[0].Rows {
		if row.LockedBy != "" {
			t.Errorf("row %v is still locked by %s", row.Values, row.LockedBy)
		}
	}
}

// Behind a transaction pooler a client's crash ends the server connection
// only where its transaction runs: PgBouncer closes a server connection its
// client left inside a transaction, and PostgreSQL ends it and frees its
// session's locks; one already back in the pool outlives its client, and
// keeps the session-level lock it took (advisory-pooler, off).
func TestCrashBehindThePooler(t *testing.T) {
	sc := testkit.Scenario(t, "advisory-pooler")
	idle, err := demo.Place{Sc: sc, On: false, Step: 2, Play: "A crash"}.Frame()
	if err != nil {
		t.Fatal(err)
	}
	if db := idle.Store.(State); len(db.Sessions) != 1 || len(db.Advisory) != 1 || db.Advisory[0].Holder != "s1" {
		t.Errorf("after A's crash, its idle pooled connection: %+v, advisory %+v; want s1 still holding advisory 42", db.Sessions, db.Advisory)
	}
	inTx, err := demo.Place{Sc: sc, On: false, Step: 3, Play: "B crash"}.Frame()
	if err != nil {
		t.Fatal(err)
	}
	if db := inTx.Store.(State); len(db.Sessions) != 0 || len(db.Advisory) != 1 || db.Advisory[0].Holder != "" {
		t.Errorf("after B's crash in its transaction on s1: %+v, advisory %+v; want s1 closed and advisory 42 free", db.Sessions, db.Advisory)
	}
}
