package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/demo"
	model "github.com/distlock/fencing-demo/demo/sql"
	"github.com/distlock/fencing-demo/internal/realserver"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// A client whose process dies closes its socket without a Terminate
// message. The page says (demo/sql: Crashed) that the server ends the
// backend of a connection so closed, rolls back its transaction and frees
// its locks, so the worker waiting for the row gets it at once; and that a
// backend still waiting for a lock when its client dies waits on, and ends
// once its statement is over. Both are played on a real PostgreSQL from
// job-queue, skip-locked off, taken over at step 3 (W2 waits for W1's row):
// the sockets are closed as a dying process closes them, and the server's
// answers and pg_stat_activity are held to the free-play frames.
func TestPostgresCrashEndsTheSession(t *testing.T) {
	if testing.Short() {
		t.Skip("conformance against a real PostgreSQL: not in -short")
	}
	pg := realserver.StartPostgres(t, "deadlock_timeout="+deadlockTimeout)
	sc := testkit.Scenario(t, "job-queue")
	ctx := context.Background()
	start := demo.Place{Sc: sc, On: false, Step: 3}
	at3, err := start.Frame()
	if err != nil {
		t.Fatal(err)
	}

	// The holder dies: the waiter's SELECT ... FOR UPDATE returns the row.
	t.Run("holder", func(t *testing.T) {
		f := freeFrame(t, start, "W1 crash")
		watch, w1, w2, pending := atStep3(t, pg, sc, at3)
		pid := w1.pg.PID()
		_ = w1.pg.Conn().Close() // no Terminate: the process is gone
		got := receive(t, pending, "W2", "W2's SELECT ... FOR UPDATE after W1's crash")
		same(t, "W2 after W1's crash", got, lastStatement(t, f, "W2"))
		ended(t, watch, pid)
		rowLocks(t, watch, map[string]*conn{"W2": w2}, f)
	})

	// The waiter dies: its backend waits on, gets the row when W1 commits,
	// and ends, freeing it.
	t.Run("waiter", func(t *testing.T) {
		f := freeFrame(t, start, "W2 crash\nW1 step 3\nW1 step 4")
		watch, w1, w2, _ := atStep3(t, pg, sc, at3)
		pid := w2.pg.PID()
		_ = w2.pg.Conn().Close()
		if state := activity(t, watch, pid); state != "active Lock" {
			t.Fatalf("W2's backend after its client died: %q, want still waiting for the lock, as the page shows", state)
		}
		for _, sql := range []string{"UPDATE jobs SET state = 'done' WHERE id = 1", "COMMIT"} {
			if got := w1.send(ctx, sql); got.Err != nil {
				t.Fatalf("W1: %s: %s", sql, got.Reply())
			}
		}
		ended(t, watch, pid)
		rowLocks(t, watch, map[string]*conn{"W1": w1}, f)
		if n := len(f.Store.(model.State).Sessions); n != 1 {
			t.Errorf("the page keeps %d connections, want W1's alone", n)
		}
	})
}

// atStep3 stages job-queue and plays its first two moves on the real
// server: W1 holds jobs id=1 in its transaction, W2's SELECT ... FOR
// UPDATE waits for it.
func atStep3(t *testing.T, pg *realserver.Postgres, sc *demo.Scenario, f demo.Frame) (watch, w1, w2 *conn, pending map[string]chan model.SQLStatement) {
	t.Helper()
	ctx := context.Background()
	first, err := demo.Place{Sc: sc, Step: 1}.Frame()
	if err != nil {
		t.Fatal(err)
	}
	watch = dial(t, pg)
	stage(t, watch, sc, first)
	w1, w2 = dial(t, pg), dial(t, pg)
	pending = map[string]chan model.SQLStatement{}
	for _, ev := range f.Events {
		e, ok := ev.(model.SQLStatement)
		if !ok {
			continue
		}
		c := map[string]*conn{"W1": w1, "W2": w2}[e.Session]
		if e.Waiting {
			ch := make(chan model.SQLStatement, 1)
			pending[e.Session] = ch
			go func(sql string) { ch <- c.send(ctx, sql) }(e.SQL)
			waitsOnLock(t, watch, c, w1, e, e.SQL)
			continue
		}
		same(t, e.SQL, c.send(ctx, e.SQL), e)
	}
	return watch, w1, w2, pending
}

// freeFrame is the frame at p with play, a free-play history, played.
func freeFrame(t *testing.T, p demo.Place, play string) demo.Frame {
	t.Helper()
	p.Play = play
	f, err := p.Frame()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// lastStatement is client's last answered statement in f.
func lastStatement(t *testing.T, f demo.Frame, client string) model.SQLStatement {
	t.Helper()
	for i := len(f.Events) - 1; i >= 0; i-- {
		if e, ok := f.Events[i].(model.SQLStatement); ok && e.Client == client && !e.Waiting {
			return e
		}
	}
	t.Fatalf("the page shows no answer to %s", client)
	return model.SQLStatement{}
}

// activity is the backend pid's state and wait event type, "" once gone.
func activity(t *testing.T, watch *conn, pid uint32) string {
	t.Helper()
	got := watch.send(context.Background(), fmt.Sprintf("SELECT state || ' ' || coalesce(wait_event_type, '') FROM pg_stat_activity WHERE pid = %d", pid))
	if got.Err != nil {
		t.Fatal(got.Reply())
	}
	if len(got.Rows) == 0 {
		return ""
	}
	return strings.TrimSpace(got.Rows[0][0])
}

// ended waits until the server has ended the backend pid, as it does once
// it reads the closed socket: asked of the server, not slept on.
func ended(t *testing.T, watch *conn, pid uint32) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for activity(t, watch, pid) != "" {
		if time.Now().After(deadline) {
			t.Fatalf("the backend (pid %d) is still there 5 s after its client's socket closed", pid)
		}
		time.Sleep(2 * time.Millisecond) // polling the server, not waiting for an outcome
	}
}
