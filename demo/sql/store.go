package sql

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/lockservice"
)

// DeadlockTimeout is PostgreSQL's default deadlock_timeout: how long a backend
// waits for a lock before it looks for a cycle of waiters.
const DeadlockTimeout = 1000

// database plays one PostgreSQL server: connections (sessions), each with at
// most one transaction; tables of rows, each row with a version counter; row
// locks taken by UPDATE and SELECT ... FOR UPDATE and held until the end of
// the transaction, with a queue of waiters; advisory locks at session and
// transaction level that count re-entries; and the deadlock detector, which a
// waiting backend runs once it has waited deadlock_timeout.
//
// Reads follow READ COMMITTED: a plain SELECT sees the last committed version
// of a row (and the reader's own uncommitted change); a statement that waited
// for a row lock looks at the row again once it has the lock, as PostgreSQL
// re-checks the newest version of a row it waited for.
type database struct {
	tables   []*table
	sessions []*backend
	advisory []*advisoryLock
	pool     int           // server connections behind a transaction-mode pooler; 0: none
	maxConns int           // max_connections: clients connect at their first statement; 0: all connected from the start
	pooled   bool          // clients go through the pooler
	released int           // counts returns to the pool, for its LIFO order
	opened   int           // connections opened so far, for their pids
	vars     []programVars // by client, in the order of clients
	// By client, in the order of clients: a client's statement that is
	// waiting, and where; and what it sends once the statement returns,
	// nil until it has sent something meanwhile.
	blocked []*backend
	queued  [][]demo.Action
	beliefs []int       // by client, advisory locks it believes it holds; -1 until it is told
	woken   []*backend  // waiters of locks just freed, to run again
	holds   []demo.Span // who actually held locks when, for the diagram
	waits   []demo.Span // who waited for a lock when

	resource string // the table the lock protects: its writes are judged

	// lease is the chapter's lock service beside the database, for a lesson
	// whose table checks the tokens it issues: the Resource written in SQL.
	lease *lockservice.Store

	clients []string // the scenario's, sorted: the order of the slices and a key's maps by client
	buf     *buffers // the arrays this copy's rows and connections live in (CopyInto)
	// committed has a bit for each client (by its place in clients) whose
	// transaction has committed a change since the stage was set: the
	// work a sometimes promise says gets done.
	committed uint32
}

// Staged: the stage is set, and what commits from now on is the story's.
func (d *database) Staged() { d.committed = 0 }

type table struct {
	name string
	cols []string
	rows []*row
}

// row is one row: its committed values and version (rev, bumped by every
// committed change), and while a transaction has changed or locked it, that
// transaction's session and new values.
type row struct {
	t       *table
	values  map[string]string
	rev     int
	writer  string // the client whose commit made the current version
	locker  *backend
	pending map[string]string // the locker's uncommitted version; nil if it only locked
	// given are the columns of pending that the client's program computed
	// and sent as a value, rather than the server computing them from the
	// row's newest version (balance = balance - 30): only those can carry a
	// stale read into the table.
	given   map[string]bool
	waiters []*backend
	// seen is the version each client (by its place in the clients) last
	// read, 0 for none. Copies share it: a read replaces it (read).
	seen []int
	// The key's parts for values, and for pending with given, written when
	// they change (rekey) rather than for every state the finder tries; and
	// its name in a key, its table's and its place there, which never
	// changes, as a table only grows.
	valuesKey, pendingKey, ref string
}

// name is the row as pg_locks and the page name it: by its key, the
// table's first column (its primary key on the real server).
func (w *row) name() string { return w.t.name + " " + w.t.cols[0] + "=" + w.values[w.t.cols[0]] }

// seenBy is the version client i last read of the row, 0 for none.
func (w *row) seenBy(i int) int {
	if w.seen == nil {
		return 0
	}
	return w.seen[i]
}

// key is the row's primary key.
func (w *row) key() string { return w.values[w.t.cols[0]] }

// advisoryLock is one key of pg_advisory_lock. One session holds it at a
// time; that session may take it again and again, and each take, at session
// or at transaction level, must be matched by a release.
type advisoryLock struct {
	key     int64
	owner   *backend
	session int // session-level holds: released by pg_advisory_unlock or when the session ends
	xact    int // transaction-level holds: released at commit or rollback
	waiters []*backend
}

func (a *advisoryLock) name() string { return "advisory " + strconv.FormatInt(a.key, 10) }

// backend is one server connection (one backend).
type backend struct {
	name    string
	pid     int
	client  string // who uses it now; with a pooler, "" when idle in the pool
	inTx    bool   // inside BEGIN ... COMMIT
	aborted bool   // the transaction failed: only ROLLBACK (or COMMIT) is taken
	rows    []*row // rows this transaction locked
	timeout int    // lock_timeout in ms; 0: wait for ever
	stmt    int    // statement_timeout in ms; 0: none
	wait    *wait
	back    int // when it went back to the pool
}

// wait is a statement blocked on a lock.
type wait struct {
	st      *statement // shared, never changed (parseCached)
	sql     string
	client  string
	sent    int // when the statement went out
	from    int // when it began waiting for this lock
	checked bool
	row     *row
	adv     *advisoryLock
	first   *row // the first row it waited for
	firstBy string
	got     []*row // select: the rows it returned
	freed   *row   // the row whose lock was freed for it, when it is woken

	started  bool // it has run once
	implicit bool // sent outside BEGIN: a transaction of its own
	logged   bool // its wait has been logged
}

// holder is whom the statement waits for. The first waiter for a row lock
// waits for the row's locker and holds the row's tuple lock meanwhile; a
// later one queues for that tuple lock, so it waits for the first waiter,
// as pg_blocking_pids names it.
func (w *wait) holder() *backend {
	if w.row == nil {
		return w.adv.owner
	}
	if q := w.row.waiters; len(q) > 0 && q[0].wait != w && slices.ContainsFunc(q, func(s *backend) bool { return s.wait == w }) {
		return q[0]
	}
	return w.row.locker
}

func (w *wait) lock() string {
	if w.row != nil {
		return w.row.name()
	}
	return w.adv.name()
}

func newDatabase(sc *demo.Scenario) *database {
	d := &database{
		pool: sc.Pool, pooled: sc.Pool > 0, maxConns: sc.MaxConns,
		lease: lockservice.New(), resource: sc.Resource,
		clients: slices.Clip(slices.Compact(slices.Sorted(slices.Values(sc.Clients)))),
	}
	d.blocked = make([]*backend, len(d.clients))
	d.queued = make([][]demo.Action, len(d.clients))
	d.vars = make([]programVars, len(d.clients))
	d.beliefs = slices.Repeat([]int{-1}, len(d.clients))
	if !d.pooled && d.maxConns == 0 {
		for _, c := range sc.Clients {
			d.open(c, c)
		}
	}
	return d
}

// open starts a server connection; client is "" for one the pooler opens.
func (d *database) open(name, client string) *backend {
	d.opened++
	s := &backend{name: name, pid: 100 + d.opened, client: client}
	d.sessions = append(d.sessions, s)
	return s
}

// connName names client c's nth connection: its first is called after it,
// another one "A#2", as a second connection from the same program.
func connName(c string, n int) string {
	if n <= 1 {
		return c
	}
	return c + "#" + strconv.Itoa(n)
}

// who is client c's place among the scenario's clients, where the slices
// by client keep its program's state. Every statement comes from one of
// them: the run refuses an action of a client the scenario does not name.
func (d *database) who(c string) int {
	i, ok := slices.BinarySearch(d.clients, c)
	if !ok {
		panic("sql: a statement from " + c + ", who is not among the scenario's clients")
	}
	return i
}

func (d *database) table(name string) *table {
	for _, t := range d.tables {
		if t.name == name {
			return t
		}
	}
	return nil
}

// conn finds the connection client c's next statement runs on. Without a
// pooler it is c's own; with one in transaction mode it is the connection c's
// open transaction runs on, else the idle one returned to the pool last
// (PgBouncer's LIFO order), else a new one while the pool has room.
func (d *database) conn(c string, n int) *backend {
	if !d.pooled {
		name := connName(c, n)
		for _, s := range d.sessions {
			if s.name == name {
				return s
			}
		}
		// The program asks its own pool for another connection. To the
		// server it is a stranger: a session of its own, with its own locks.
		// Under max_connections the server refuses one more than that.
		if d.maxConns > 0 && len(d.sessions) >= d.maxConns {
			return nil
		}
		return d.open(name, c)
	}
	var idle *backend
	for _, s := range d.sessions {
		if s.client == c {
			return s
		}
		if s.client == "" && (idle == nil || s.back > idle.back) {
			idle = s
		}
	}
	if idle == nil && len(d.sessions) < d.pool {
		// Named in the order opened: one the pooler closed is not reused.
		idle = d.open("s"+strconv.Itoa(d.opened+1), "")
	}
	if idle != nil {
		idle.client = c
	}
	return idle
}

// unbind returns a pooled connection to the pool once its client's
// transaction is over: whatever the connection still holds stays with it.
func (d *database) unbind(r *demo.Run, s *backend) {
	if d.pooled && !s.inTx && s.wait == nil && s.client != "" {
		s.client = ""
		d.released++
		s.back = d.released
	}
}

func (d *database) Do(r *demo.Run, a demo.Action) error {
	if a.Verb != SQL && a.Verb != Disconnect {
		return d.lease.Do(r, a) // acquire, renew, release: the lock service's
	}
	c := a.Who
	if i := d.who(c); d.blocked[i] != nil {
		// The client's program is stuck in the call that waits; what it
		// does next goes out once that call returns.
		d.queued[i] = append(d.queued[i], a)
		return nil
	}
	if a.Verb == Disconnect {
		return d.disconnect(r, a, r.Now())
	}
	return d.send(r, a, r.Now())
}

// send plays one statement of client a.Who at time at.
func (d *database) send(r *demo.Run, a demo.Action, at int) error {
	c := a.Who
	if cl := r.Client(c); cl != nil && cl.Token > 0 {
		// The token the lock service gave the client, which its program
		// sends along with a write to a fenced table.
		d.setVar(c, "token", strconv.FormatInt(cl.Token, 10))
	}
	args := a.Args.(Args)
	sql, err := substitute(args.SQL, d.vars[d.who(c)].m)
	if err != nil {
		return &demo.ActionError{Action: a, Msg: err.Error()}
	}
	st, err := parseCached(sql)
	if err != nil {
		return &demo.ActionError{Action: a, Msg: err.Error()}
	}
	if d.pooled && args.Conn > 1 {
		return &demo.ActionError{Action: a, Msg: "behind a pooler the pooler picks the connection: conn N is for clients with connections of their own"}
	}
	s := d.conn(c, args.Conn)
	if s == nil && !d.pooled {
		// The connection is refused before the statement goes out.
		// Before names those of them that wait for a lock: the failure
		// that spread from the lock to a request that wants none.
		open := make([]string, len(d.sessions))
		var waiting []string
		for i, s := range d.sessions {
			open[i] = s.name
			if s.wait != nil {
				waiting = append(waiting, s.name)
			}
		}
		r.Log(Refused{Head: r.HeadAt(at, c, ""), SQL: sql, Max: d.maxConns})
		r.Violate(demo.Violation{Kind: TooManyClients, At: at, Client: c, Other: strings.Join(open, ", "),
			Value: strconv.Itoa(d.maxConns), Before: strings.Join(waiting, ", ")})
		return nil
	}
	if s == nil {
		return &demo.ActionError{Action: a, Msg: fmt.Sprintf("every one of the pool's %d server connections is in use", d.pool)}
	}
	w := d.buf.newWait()
	*w = wait{st: st, sql: sql, client: c, sent: at, from: at}
	d.run(r, s, w, at)
	if s.wait != w {
		d.spareWait(w) // answered: nothing names it
	}
	return nil
}

// spareWait keeps w, the wait of a statement answered that nothing names
// any more, for newWait: a few, as a step may answer one and a copy fill
// another.
func (d *database) spareWait(w *wait) {
	if d.buf != nil && len(d.buf.waits) < 4 {
		d.buf.waits = append(d.buf.waits, w)
	}
}

// run executes a statement, or resumes one that waited, on s at time at, and
// logs what the client saw.
func (d *database) run(r *demo.Run, s *backend, w *wait, at int) {
	e := SQLStatement{Head: r.HeadAt(at, w.client, d.node(s)), Session: s.name, SQL: w.sql, Sent: w.sent}
	if s.aborted && w.st.kind != stCommit && w.st.kind != stRollback {
		e.Err = errAborted
		logStatement(r, e)
		return
	}
	if !w.started {
		w.started = true
		w.implicit = !s.inTx && w.st.kind != stBegin && w.st.kind != stCommit && w.st.kind != stRollback
	}
	implicit := w.implicit
	if implicit {
		s.inTx = true // a statement outside BEGIN is a transaction of its own
	}
	blocked := d.exec(r, s, w, &e, at)
	if blocked != nil {
		if w.first == nil {
			w.first = blocked.row
			if h := blocked.holder(); h != nil {
				w.firstBy = h.client
			}
		}
		s.wait = w
		d.blocked[d.who(w.client)] = s
		if blocked.row != nil {
			blocked.row.waiters = append(blocked.row.waiters, s)
		} else {
			blocked.adv.waiters = append(blocked.adv.waiters, s)
		}
		d.checkCycle(r, s, at)
		if w.logged {
			return // woken, but the lock went to someone queued before it
		}
		w.logged = true
		if r.Logs() { // a lean run shows no frame: no span, no answer
			d.waits = append(d.waits, demo.Span{Lane: w.client, Owner: w.client, From: at, Open: true, Until: -1})
			e.Waiting, e.Lock = true, blocked.lock()
			if h := blocked.holder(); h != nil {
				e.Holder = h.name
			}
			r.Log(e)
		}
		if h := blocked.holder(); h != nil && h.client == w.client {
			r.Violate(demo.Violation{Kind: WaitsOnItself, At: at, Client: w.client, Value: blocked.lock()})
		}
		return
	}
	s.wait = nil
	d.blocked[d.who(w.client)] = nil
	d.stopWaiting(r, w.client, at)
	if e.Err != nil && s.inTx {
		if implicit {
			d.end(r, s, false, at)
		} else {
			// An error inside BEGIN aborts the transaction at once: its locks
			// go now, and only the client's ROLLBACK ends the block.
			d.release(r, s, at)
			s.aborted = true
		}
	} else if implicit {
		d.end(r, s, true, at)
	}
	logStatement(r, e)
	d.check(r, w, &e, at)
	d.answered(r, s, w.client, at)
}

// logStatement logs a statement's answer, unless the run is lean: no rule
// reads one back, and boxing it as an event allocated for every step the
// finder tries.
func logStatement(r *demo.Run, e SQLStatement) {
	if r.Logs() {
		r.Log(e)
	}
}

// node is the connection's name for the event header: with a pooler the
// reader needs to see which server connection a client got, and a client's
// second connection must not pass for its first.
func (d *database) node(s *backend) string {
	if d.pooled || s.name != s.client {
		return s.name
	}
	return ""
}

// disconnect ends the client's session as PostgreSQL does when a client
// closes its connection: an open transaction is rolled back, every lock of
// the session goes, and its place among max_connections is free again.
func (d *database) disconnect(r *demo.Run, a demo.Action, at int) error {
	if d.pooled {
		return &demo.ActionError{Action: a, Msg: "behind a pooler the pooler keeps the server connections: disconnect is for clients with connections of their own"}
	}
	i := slices.IndexFunc(d.sessions, func(s *backend) bool { return s.name == a.Who })
	if i < 0 {
		return &demo.ActionError{Action: a, Msg: "it has no connection to close"}
	}
	s := d.sessions[i]
	e := Disconnected{Head: r.HeadAt(at, a.Who, ""), Session: s.name, Pid: s.pid, RolledBack: s.inTx}
	e.Freed = d.hangUp(r, s, at)
	if c := r.Client(a.Who); c != nil && c.Holds {
		d.setBelief(a.Who, 0)
		r.LetGo(c)
	}
	r.Log(e)
	d.answered(r, s, a.Who, at)
	return nil
}

// hangUp ends session s as PostgreSQL ends the backend of a connection
// that closed: its open transaction is rolled back, every lock of the
// session goes (their waiters run again once the answer is told), and its
// place among max_connections is free again. It returns the locks freed.
func (d *database) hangUp(r *demo.Run, s *backend, at int) (freed []string) {
	if r.Logs() {
		freed = d.locksOf(s)
	}
	if s.inTx {
		d.end(r, s, false, at)
	}
	for _, l := range d.advisory {
		if l.owner == s {
			l.session, l.xact = 0, 0
			d.settle(r, l, at)
		}
	}
	d.sessions = slices.DeleteFunc(d.sessions, func(x *backend) bool { return x == s })
	return freed
}

// Crashed is client c's process dying, and its sockets closing with it.
// PostgreSQL ends the backend of a connection that closed, as the pooler
// closes the server connection a client's open transaction ran on: the
// transaction rolls back and every lock of the session goes, so whoever
// waits for one gets it at once. A backend still running a statement
// (waiting for a lock) reads the closed socket only once the statement is
// over, and ends then (answered). What the client's program would have
// sent next never goes out.
func (d *database) Crashed(r *demo.Run, c *demo.Client) {
	at := r.Now()
	if i := d.who(c.Name); d.queued[i] != nil {
		d.queued[i] = d.queued[i][:0]
	}
	for _, s := range slices.Clone(d.sessions) {
		if s.client == c.Name && s.wait == nil && (!d.pooled || s.inTx) {
			d.gone(r, s, c.Name, at)
		}
	}
	d.trace(r, at)
	d.wake(r, at)
}

// gone ends session s of client, whose process died, and says so.
func (d *database) gone(r *demo.Run, s *backend, client string, at int) {
	e := Disconnected{Head: r.HeadAt(at, client, d.node(s)), Session: s.name, Pid: s.pid, RolledBack: s.inTx, Crashed: true}
	e.Freed = d.hangUp(r, s, at)
	if r.Logs() {
		r.Log(e)
	}
}

// forever is "": a crash ends the session and with it every lock.
func (d *database) Forever(*demo.Run) string { return "" }

// answered follows a statement's answer on s: the connection goes back to the
// pool if the pooler takes it, waiters of locks just freed run again, and the
// client's program carries on with what it sent meanwhile.
func (d *database) answered(r *demo.Run, s *backend, client string, at int) {
	if c := r.Client(client); c != nil && c.Crashed && s.wait == nil && (!d.pooled || s.inTx) && slices.Contains(d.sessions, s) {
		// Its client died while the statement ran: the backend finds the
		// socket closed as it sends the answer.
		d.gone(r, s, client, at)
	}
	d.unbind(r, s)
	d.trace(r, at)
	d.wake(r, at)
	i := d.who(client)
	for len(d.queued[i]) > 0 && d.blocked[i] == nil {
		next := d.queued[i][0]
		d.queued[i] = d.queued[i][1:] // empty, not nil: the key tells it from a client that never queued
		var err error
		if next.Verb == Disconnect {
			err = d.disconnect(r, next, at)
		} else {
			err = d.send(r, next, at)
		}
		if err != nil {
			r.Fail(err)
		}
	}
}
