package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/conformance/history"
	model "github.com/distlock/fencing-demo/demo/sql"
)

// event plays one event of the model on the real server.
func (r *replay) event(ev demo.Event, line history.Line) {
	switch e := ev.(type) {
	case model.DeadlockCheck:
		r.pace(e.At)
		r.deadlock(e)
	case model.Refused:
		r.pace(e.At)
		r.page(e, line)
		r.refused(e)
	case model.Disconnected:
		r.pace(e.At)
		r.page(e, line)
		// A crash closed the client's sockets when it happened (crash); the
		// server's end of a connection comes later where its backend was
		// waiting, and sends nothing on the wire.
		r.hangUp(e.Session, fmt.Sprintf("t=%dms %s closes its connection", e.At, e.Client), e.Crashed)
	case demo.ClientChange:
		if e.What == demo.Crashed {
			r.pace(e.At)
			r.crash(e.Client)
		}
	case model.SQLStatement:
		r.pace(e.At)
		r.page(e, line)
		r.statement(e, line.Call)
	}
}

// page holds what the page prints for an event against the event: the
// statement the suite sends is the page's, and the page must print what
// the model played and the answer it got.
func (r *replay) page(e demo.Event, line history.Line) {
	call, reply := e.Wire()
	if s, ok := e.(model.SQLStatement); ok {
		reply = s.Reply()
	}
	if line.Call != call || line.Reply != reply {
		r.t.Errorf("frame %d: the page prints %q => %q; the model played %q => %q\n\thistory: %s", r.frame, line.Call, line.Reply, call, reply, r.h)
	}
}

// statement sends a statement as the page prints it, on the connection the
// model says it ran on, or collects the answer of one sent before.
func (r *replay) statement(e model.SQLStatement, sql string) {
	t := r.t
	label := fmt.Sprintf("frame %d, t=%dms %s on %s: %s", r.frame, e.At, e.Client, e.Session, sql)
	c := r.conns[e.Session]
	if c == nil {
		c = dial(t, r.pg, r.db)
		r.conns[e.Session] = c
	}
	switch {
	case e.Waiting:
		w := &waiting{answer: make(chan model.SQLStatement, 1), sent: time.Now(), at: e.Sent, lock: e.Lock}
		r.pending[e.Session] = w
		go func() { w.answer <- c.send(context.Background(), sql) }()
		r.waitsOnLock(c, r.conns[e.Holder], e, label)
		r.tally.Add("statements", 1)
	case r.pending[e.Session] != nil:
		// The answer to the statement that waited: the model logs it when
		// the wait ends, which may be at the moment it began.
		r.same(label, r.receive(e.Session, label), e)
	default:
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		got := c.send(ctx, sql)
		cancel()
		r.tally.Add("statements", 1)
		r.same(label, got, e)
		if got.Err == nil {
			r.setting(e.Session, sql)
		}
	}
}

// setting notes a connection's statement_timeout or lock_timeout, which
// bound how long its statements wait.
func (r *replay) setting(session, sql string) {
	f := strings.Fields(strings.ToLower(strings.TrimSuffix(sql, ";")))
	if len(f) != 4 || f[0] != "set" || f[2] != "=" || f[1] != "statement_timeout" && f[1] != "lock_timeout" {
		return
	}
	v := strings.Trim(f[3], "'")
	unit := 1
	switch {
	case strings.HasSuffix(v, "ms"):
		v = strings.TrimSuffix(v, "ms")
	case strings.HasSuffix(v, "s"):
		v, unit = strings.TrimSuffix(v, "s"), 1000
	}
	if n, err := strconv.Atoi(v); err == nil {
		r.timeouts[session+" "+strings.TrimSuffix(f[1], "_timeout")] = n * unit
	}
}

func (r *replay) same(label string, got, want model.SQLStatement) {
	if g, w := got.Reply(), want.Reply(); g != w {
		r.t.Errorf("%s\n   real: %s\n  model: %s\n\thistory: %s", label, g, w, r.h)
	}
}

// receive waits for the answer to the statement session sent before.
func (r *replay) receive(session, label string) model.SQLStatement {
	w := r.pending[session]
	if w == nil {
		r.t.Fatalf("%s: nothing was waiting on %s", label, session)
	}
	select {
	case got := <-w.answer:
		delete(r.pending, session)
		return got
	case <-time.After(10 * time.Second):
		r.t.Fatalf("%s: still waiting on the real server after 10 s\n\thistory: %s", label, r.h)
	}
	return model.SQLStatement{}
}

// deadlock waits for the answers of every waiting statement of the cycle and
// checks PostgreSQL's promise: one is aborted with 40P01, the rest go on.
// Where the real server aborted another than the model's, the rest of the
// history is not compared.
func (r *replay) deadlock(e model.DeadlockCheck) {
	t := r.t
	var victims []string
	for _, s := range e.Cycle {
		got := r.receive(s, "deadlock cycle "+strings.Join(e.Cycle, " -> "))
		switch {
		case got.Err != nil && got.Err.Code == "40P01" && got.Err.Message == "deadlock detected":
			victims = append(victims, s)
		case got.Err != nil:
			t.Fatalf("%s in the deadlock cycle: %s, want 40P01 or success", s, got.Reply())
		}
		// Its answer comes as an event of its own, which the suite skips.
		r.pending[s] = &waiting{answer: make(chan model.SQLStatement, 1)}
		r.pending[s].answer <- got
	}
	if len(victims) != 1 {
		t.Fatalf("deadlock of %v: aborted %v, want exactly one aborted with 40P01", e.Cycle, victims)
	}
	r.tally.Add("deadlocks", 1)
	if victims[0] != e.Session {
		r.stop("the real server aborted %s in the deadlock of %v, the model %s: PostgreSQL promises only that one is", victims[0], e.Cycle, e.Session)
	}
}

// refused checks that the server turns a new connection away, as the page
// says, with FATAL 53300: it has max_connections open already.
func (r *replay) refused(e model.Refused) {
	t := r.t
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := pgconn.Connect(ctx, r.pg.URLOf(r.db))
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		_ = c.Close(ctx)
		t.Fatalf("t=%dms %s: the page says the connection is refused; the server took it", e.At, e.Client)
	case !errors.As(err, &pgErr):
		t.Fatalf("t=%dms %s: connecting: %v, want FATAL 53300", e.At, e.Client, err)
	}
	got := "FATAL: " + pgErr.Message + " (SQLSTATE " + pgErr.Code + ")"
	if _, want := e.Wire(); pgErr.Severity != "FATAL" || got != want {
		t.Errorf("t=%dms %s: connecting: real %s %s, page %s", e.At, e.Client, pgErr.Severity, got, want)
	}
}

// crash plays a client's process dying: its sockets close with it, without
// the protocol's Terminate, and the server ends the backend of each
// connection it had, rolling back its transaction and freeing its locks.
func (r *replay) crash(client string) {
	r.crashed[client] = true
	for name := range r.conns {
		if owner, _, _ := strings.Cut(name, "#"); owner == client {
			r.hangUp(name, fmt.Sprintf("%s crashes", client), true)
		}
	}
}

// hangUp closes a connection, as the client's Terminate (a disconnect) or
// its socket closing (a crash), and waits until the server's backend has
// gone: only then are its locks and its place among max_connections free.
func (r *replay) hangUp(session, why string, crash bool) {
	t := r.t
	c := r.conns[session]
	if c == nil {
		if crash {
			return
		}
		t.Fatalf("frame %d: %s: it has no connection", r.frame, why)
	}
	pid := c.pg.PID()
	if crash {
		_ = c.pg.Conn().Close()
	} else if err := c.pg.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	delete(r.conns, session)
	if w := r.pending[session]; w != nil {
		<-w.answer // the statement in flight ends with the connection
		delete(r.pending, session)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := r.watch.rows(t, fmt.Sprintf("SELECT count(*) FROM pg_stat_activity WHERE pid = %d", pid))
		if got[0][0] == "0" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("frame %d: %s: its backend (pid %d) is still there 5 s after its connection closed", r.frame, why, pid)
		}
		time.Sleep(2 * time.Millisecond) // polling the server, not waiting for an outcome
	}
}

// cancel ends a statement still waiting when the history ends.
func (r *replay) cancel(session string, w *waiting) {
	c := r.conns[session]
	if c == nil {
		return
	}
	ctx, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	_ = c.pg.CancelRequest(ctx)
	select {
	case <-w.answer:
	case <-ctx.Done():
	}
}

// waitsOnLock asks the server, until it says so or 5 s pass, whether c's
// backend is waiting for a lock, for which kind, and whether holder's
// backend is among those pg_blocking_pids says block it: the arrow of the
// page's wait-for graph.
func (r *replay) waitsOnLock(c, holder *conn, e model.SQLStatement, label string) {
	t := r.t
	want := []string{"transactionid", "tuple"} // a row lock: the holder's transaction, or the tuple's queue
	if strings.HasPrefix(e.Lock, "advisory") {
		want = []string{"advisory"}
	}
	q := fmt.Sprintf(`SELECT a.wait_event_type, coalesce(string_agg(l.locktype, ','), '')
		FROM pg_stat_activity a LEFT JOIN pg_locks l ON l.pid = a.pid AND NOT l.granted
		WHERE a.pid = %d GROUP BY a.wait_event_type`, c.pg.PID())
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := r.watch.rows(t, q)
		if len(got) == 1 && got[0][0] == "Lock" {
			if !slices.Contains(want, got[0][1]) {
				t.Errorf("%s: waits for a %s lock, want %v", label, got[0][1], want)
			}
			if holder == nil {
				t.Fatalf("%s: the page says %s holds the lock, which has no connection", label, e.Holder)
			}
			b := r.watch.rows(t, fmt.Sprintf("SELECT %d = ANY(pg_blocking_pids(%d))", holder.pg.PID(), c.pg.PID()))
			if b[0][0] != "t" {
				t.Errorf("%s: the page says %s holds the lock; pg_blocking_pids does not name it\n\thistory: %s", label, e.Holder, r.h)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the model says it waits for %s; the server's backend is not waiting for a lock (%v)\n\thistory: %s", label, e.Lock, got, r.h)
		}
		time.Sleep(2 * time.Millisecond) // polling the server, not waiting for an outcome
	}
}
