package sql

import (
	"fmt"
	"maps"
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
}

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
	st      statement
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
		idle = d.open("s"+strconv.Itoa(len(d.sessions)+1), "")
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

// exec runs one statement. It returns the lock it must wait for, or nil when
// it has filled in e's answer.
func (d *database) exec(r *demo.Run, s *backend, w *wait, e *SQLStatement, at int) *wait {
	st := w.st
	switch st.kind {
	case stBegin:
		e.Tag = "BEGIN"
		if s.inTx {
			e.Warning = "there is already a transaction in progress"
		}
		s.inTx = true
	case stCommit, stRollback:
		e.Tag = "COMMIT"
		if st.kind == stRollback || s.aborted {
			e.Tag = "ROLLBACK" // COMMIT of a failed transaction rolls it back
		}
		if !s.inTx {
			e.Warning = warnNoTx
		}
		d.end(r, s, e.Tag == "COMMIT", at)
	case stSet:
		if st.stmt {
			s.stmt = st.timeout
		} else {
			s.timeout = st.timeout
		}
		e.Tag = "SET"
	case stInsert:
		d.insert(r, w.client, st, e, at)
	case stSelect:
		return d.selectRows(r, s, w, e)
	case stUpdate:
		return d.update(r, s, w, e)
	case stAdvisory:
		return d.advisoryCall(r, s, w, e)
	}
	return nil
}

// insert adds one row. The table's first column is its primary key: a row
// whose key is taken is refused with PostgreSQL's unique violation, or, with
// ON CONFLICT DO NOTHING, inserts nothing and says so in its tag. The row is
// committed at once: the lessons send an INSERT as a transaction of its own.
func (d *database) insert(r *demo.Run, client string, st statement, e *SQLStatement, at int) {
	t := d.table(st.table)
	if t == nil {
		t = &table{name: st.table, cols: st.cols}
		d.tables = append(d.tables, t)
	}
	vals := map[string]string{}
	for i, c := range st.cols {
		vals[c] = st.values[i]
	}
	for _, w := range t.rows {
		if w.key() != vals[t.cols[0]] {
			continue
		}
		if st.nothing {
			e.Tag = "INSERT 0 0"
			return
		}
		e.Err = &SQLError{"23505", `duplicate key value violates unique constraint "` + t.name + `_pkey"`}
		return
	}
	w := &row{t: t, values: vals, rev: 1, writer: client}
	w.ref = string(demo.KeyInt(append([]byte(t.name), '/'), int64(len(t.rows))))
	w.rekey()
	if t.name == d.resource && r.Index() > 1 {
		d.twice(r, client, w, at)
	}
	t.rows = append(t.rows, w)
	e.Tag = "INSERT 0 1"
}

// twice looks at a row inserted into the resource during the story: one
// equal to a row already there in everything but its key is the same thing
// done twice under two keys, as a payment charged once per attempt.
func (d *database) twice(r *demo.Run, client string, w *row, at int) {
	t := w.t
	for _, o := range t.rows {
		same := true
		for _, c := range t.cols[1:] {
			same = same && o.values[c] == w.values[c]
		}
		if !same {
			continue
		}
		var what []string
		for _, c := range t.cols[1:] {
			what = append(what, c+"="+w.values[c])
		}
		r.Violate(demo.Violation{Kind: ChargedTwice, At: at, Client: client, Other: o.writer,
			Value: t.cols[0] + "=" + w.key(), Before: t.cols[0] + "=" + o.key() + " (" + strings.Join(what, ", ") + ")"})
		return
	}
}

// visible is the version of w that s sees: its own uncommitted change, else
// the last committed one.
func visible(w *row, s *backend) map[string]string {
	if w.pending != nil && w.locker == s {
		return w.pending
	}
	return w.values
}

func matches(vals map[string]string, where []cond) bool {
	for _, c := range where {
		if !c.holds(vals[c.col]) {
			return false
		}
	}
	return true
}

// holds reports whether a column's value v meets the condition. A number
// compared with a value that is not one is false, as NULL would be.
func (c cond) holds(v string) bool {
	if c.op == "=" {
		return v == c.val
	}
	x, ok1 := number(v)
	y, ok2 := number(c.val)
	if !ok1 || !ok2 {
		return false
	}
	switch c.op {
	case "<=":
		return x <= y
	case "<":
		return x < y
	case ">=":
		return x >= y
	}
	return x > y
}

// candidates returns the rows of t that s sees matching where, in the order
// asked for (by id when none).
func candidates(t *table, s *backend, st statement) []*row {
	var out []*row
	for _, w := range t.rows {
		if matches(visible(w, s), st.where) {
			out = append(out, w)
		}
	}
	by := st.orderBy
	if by == "" {
		by = t.cols[0]
	}
	slices.SortStableFunc(out, func(a, b *row) int {
		x, _ := strconv.Atoi(visible(a, s)[by])
		y, _ := strconv.Atoi(visible(b, s)[by])
		return x - y
	})
	return out
}

func (d *database) selectRows(r *demo.Run, s *backend, w *wait, e *SQLStatement) *wait {
	st := w.st
	t := d.table(st.table)
	if t == nil {
		e.Err = &SQLError{"42P01", `relation "` + st.table + `" does not exist`}
		return nil
	}
	cols := st.cols
	if len(cols) == 1 && cols[0] == "*" {
		cols = t.cols
	}
	e.Cols = cols
	if w.freed != nil && st.forUpd && w.freed.locker == nil {
		// The row it waited for is free: PostgreSQL locks it before it looks
		// again at whether it still matches, and keeps that lock until the
		// transaction ends, even when the row is passed over.
		d.lockRow(s, w.freed)
	}
	w.freed = nil
	var got []*row
	for _, row := range candidates(t, s, st) {
		if st.limit > 0 && len(got) == st.limit {
			break
		}
		if st.forUpd && row.locker != nil && row.locker != s {
			switch {
			case st.skip:
				continue
			case st.nowait:
				e.Err = rowLockUnavailable(t.name)
				return nil
			}
			w.row, w.adv = row, nil
			return w
		}
		if st.forUpd {
			d.lockRow(s, row)
		}
		got = append(got, row)
	}
	if d.vars[d.who(w.client)].m == nil {
		d.setVars(w.client, map[string]string{}) // the key names a client that has read, even nothing
	}
	for _, row := range got {
		vals := visible(row, s)
		d.keep(w.client, cols, vals) // what the client's program keeps from its read
		if r.Logs() {                // a lean run logs no answer to show
			out := make([]string, len(cols))
			for i, c := range cols {
				out[i] = vals[c]
			}
			e.Rows = append(e.Rows, out)
		}
		d.read(w.client, row)
	}
	w.got = got
	e.Tag = "SELECT " + strconv.Itoa(len(got))
	return nil
}

// programVars are the variables of one client's program, nil until it
// has read, and their part of the key, written when they change.
type programVars struct {
	m   map[string]string
	key string
}

// setVar sets a variable of client's program, as keep does.
func (d *database) setVar(client, name, v string) {
	vars := d.vars[d.who(client)].m
	if old, ok := vars[name]; ok && old == v {
		return
	}
	vars = maps.Clone(vars)
	if vars == nil {
		vars = map[string]string{}
	}
	vars[name] = v
	d.setVars(client, vars)
}

// keep sets the variables of client's program named cols to their values
// in vals. The finder's copies share each client's map, so a change that
// is one replaces the map, once for all of cols.
func (d *database) keep(client string, cols []string, vals map[string]string) {
	vars, changed := d.vars[d.who(client)].m, false
	for _, c := range cols {
		if old, ok := vars[c]; ok && old == vals[c] {
			continue
		}
		if !changed {
			vars, changed = maps.Clone(vars), true
			if vars == nil {
				vars = map[string]string{}
			}
		}
		vars[c] = vals[c]
	}
	if changed {
		d.setVars(client, vars)
	}
}

// setVars gives client's program its variables, and writes their part of
// the key. The finder's copies share the slice of every client's, so a
// change replaces it.
func (d *database) setVars(client string, vars map[string]string) {
	var keys [16]string
	var buf [256]byte
	d.vars = slices.Clone(d.vars)
	d.vars[d.who(client)] = programVars{vars, string(appendStrings(buf[:0], vars, keys[:0]))}
}

// belief is how many holds client believes it has.
func (d *database) belief(client string) int { return max(d.beliefs[d.who(client)], 0) }

// setBelief sets how many holds client believes it has; the finder's
// copies share the slice, so a change replaces it.
func (d *database) setBelief(client string, n int) {
	i := d.who(client)
	if d.beliefs[i] == n {
		return
	}
	d.beliefs = slices.Clone(d.beliefs)
	d.beliefs[i] = n
}

// read records the version of row that client has seen. The finder's
// copies share a row's versions seen, so a change replaces them.
func (d *database) read(client string, w *row) {
	i := d.who(client)
	if w.seen != nil && w.seen[i] == w.rev {
		return
	}
	seen := make([]int, len(d.clients))
	copy(seen, w.seen)
	seen[i] = w.rev
	w.seen = seen
}

func (d *database) lockRow(s *backend, w *row) {
	if w.locker == s {
		return
	}
	w.locker = s
	s.rows = append(s.rows, w)
}

func (d *database) update(r *demo.Run, s *backend, w *wait, e *SQLStatement) *wait {
	st := w.st
	t := d.table(st.table)
	if t == nil {
		e.Err = &SQLError{"42P01", `relation "` + st.table + `" does not exist`}
		return nil
	}
	n := 0
	var keyed *row
	var before, after string
	for _, row := range t.rows {
		// The key picks the row from what s sees; the other conditions are
		// checked once s holds the row's lock, on the newest version.
		if !matches(visible(row, s), st.where[:1]) {
			continue
		}
		if row.locker != nil && row.locker != s {
			w.row, w.adv = row, nil
			return w
		}
		keyed = row
		if !matches(visible(row, s), st.where) {
			continue
		}
		d.lockRow(s, row)
		vals := maps.Clone(visible(row, s))
		for _, a := range st.sets {
			if a.ref != "" {
				x, _ := strconv.ParseInt(vals[a.ref], 10, 64)
				vals[a.col] = strconv.FormatInt(x+a.plus, 10)
			} else {
				vals[a.col] = a.val
				// A copy, since the finder's copies share the map.
				given := maps.Clone(row.given)
				if given == nil {
					given = map[string]bool{}
				}
				given[a.col] = true
				row.given = given
			}
		}
		before = visible(row, s)["value"]
		row.pending = vals
		row.rekey()
		n++
	}
	e.Tag = "UPDATE " + strconv.Itoa(n)
	if t.name == d.resource && keyed != nil {
		for _, a := range st.sets {
			if a.col == "value" {
				after = a.val
			}
		}
		d.judge(r, w.client, keyed, n > 0, before, after)
	}
	return nil
}

// judge looks at a write to the scenario's resource, a table whose row has
// the chapter's data in its value column and, when the table is fenced, the
// largest token it took in max_token. It is the chapter's checkWrite: a
// write that landed after the writer's lease ran out is stale, and one the
// WHERE on max_token turned away contained the overlap. A write is judged
// when its UPDATE is answered: the lessons send it as a transaction of its
// own, so that is when it commits.
func (d *database) judge(r *demo.Run, client string, w *row, landed bool, before, after string) {
	c := r.Client(client)
	if c == nil || c.Token == 0 {
		return // not a client of the lock service: the database's own verdicts apply
	}
	max, _ := strconv.ParseInt(visible(w, nil)["max_token"], 10, 64)
	if !landed {
		before = w.values["value"]
	}
	r.JudgeWrite(c, demo.WriteResult{Token: c.Token, Value: after, Before: before, Max: max, OK: landed}, w.writer)
}

func (d *database) advisoryLock(key int64) *advisoryLock {
	for _, a := range d.advisory {
		if a.key == key {
			return a
		}
	}
	a := &advisoryLock{key: key}
	d.advisory = append(d.advisory, a)
	return a
}

func (d *database) advisoryCall(r *demo.Run, s *backend, w *wait, e *SQLStatement) *wait {
	st := w.st
	a := d.advisoryLock(st.key)
	e.Cols, e.Tag = []string{st.fn}, "SELECT 1"
	answer := func(v string) { e.Rows = [][]string{{v}} }
	free := a.owner == nil || a.owner == s
	take := func(xact bool) {
		a.owner = s
		if xact {
			a.xact++
		} else {
			a.session++
		}
		// The client now believes it holds the lock: the first take starts
		// its hold, a re-entry only counts.
		if d.setBelief(w.client, d.belief(w.client)+1); d.belief(w.client) == 1 {
			if c := r.Client(w.client); c != nil {
				r.Hold(c, -1)
			}
		}
	}
	switch st.fn {
	case "pg_advisory_lock", "pg_advisory_xact_lock":
		if !free {
			w.adv, w.row = a, nil
			return w
		}
		take(st.fn == "pg_advisory_xact_lock")
		answer("")
	case "pg_try_advisory_lock", "pg_try_advisory_xact_lock":
		if !free {
			answer("f")
			break
		}
		take(st.fn == "pg_try_advisory_xact_lock")
		answer("t")
	case "pg_advisory_unlock":
		if a.owner != s || a.session == 0 {
			e.Warning = warnNotOwned
			answer("f")
		} else {
			a.session--
			answer("t")
			d.settle(r, a, e.At)
		}
		// Either way the client believes it let go of one hold.
		if d.belief(w.client) > 0 {
			if d.setBelief(w.client, d.belief(w.client)-1); d.belief(w.client) == 0 {
				if c := r.Client(w.client); c != nil {
					r.LetGo(c)
				}
			}
		}
	}
	return nil
}

// settle frees an advisory lock whose holds are all released and lets its
// waiters try again.
func (d *database) settle(r *demo.Run, a *advisoryLock, at int) {
	if a.session > 0 || a.xact > 0 || a.owner == nil {
		return
	}
	a.owner = nil
	d.woken = append(d.woken, a.waiters...)
	a.waiters = nil
}

// end finishes s's transaction: commit makes its changes the rows' new
// versions; either way its row locks and transaction-level advisory locks
// go, and the statements waiting for them try again.
func (d *database) end(r *demo.Run, s *backend, commit bool, at int) {
	if commit && !s.aborted {
		for _, w := range s.rows {
			if w.pending == nil {
				continue
			}
			d.commitRow(r, s, w, at)
		}
	}
	d.release(r, s, at)
	s.inTx, s.aborted = false, false
	// A transaction-level advisory lock ends with the transaction, and so
	// does the client's belief in it.
	if s.client != "" {
		if c := r.Client(s.client); c != nil && c.Holds && d.belief(s.client) > 0 && !d.holdsSession(s) {
			d.setBelief(s.client, 0)
			r.LetGo(c)
		}
	}
}

func (d *database) holdsSession(s *backend) bool {
	for _, a := range d.advisory {
		if a.owner == s && a.session > 0 {
			return true
		}
	}
	return false
}

// commitRow makes the pending version of w current, and looks for a lost
// update: the writer's client read w at a version that another client's
// commit has replaced since, so its write is based on a value that is gone.
func (d *database) commitRow(r *demo.Run, s *backend, w *row, at int) {
	client := s.client
	given := false
	for _, c := range w.t.cols {
		given = given || w.given[c] && w.values[c] != w.pending[c]
	}
	if seen := w.seenBy(d.who(client)); seen > 0 && seen < w.rev && w.writer != client && given && !r.StaleNow(client, at) {
		before, after := w.changes()
		r.Violate(demo.Violation{Kind: demo.LostUpdate, At: at, Client: client, Other: w.writer,
			Value: strings.Join(after, ", "), Before: strings.Join(before, ", ")})
	}
	if w.t.name == d.resource {
		d.oversold(r, client, w, at)
	}
	w.values, w.pending, w.given = w.pending, nil, nil
	w.rekey()
	w.rev++
	w.writer = client
	d.read(client, w)
}

// changes are the columns the pending version changes, as col=value,
// before and after, for a lost update's verdict.
func (w *row) changes() (before, after []string) {
	for _, c := range w.t.cols {
		if w.values[c] != w.pending[c] {
			before = append(before, c+"="+w.values[c])
			after = append(after, c+"="+w.pending[c])
		}
	}
	return before, after
}

// oversold looks at a commit to the resource that takes a count below zero:
// more was sold (or paid out) than there was. The row's first such commit
// is the violation; a later one that goes further only brings its count up
// to date, so the verdict says where the count ended.
func (d *database) oversold(r *demo.Run, client string, w *row, at int) {
	for _, c := range w.t.cols[1:] {
		old, ok1 := number(w.values[c])
		now, ok2 := number(w.pending[c])
		if !ok1 || !ok2 || now >= 0 || now >= old {
			continue
		}
		where := w.name() + " " + c
		if r.Amend(func(v *demo.Violation) bool {
			if v.Kind != Oversold || v.Before != where {
				return false
			}
			v.Other, v.Value = client, w.pending[c]
			return true
		}) {
			continue
		}
		r.Violate(demo.Violation{Kind: Oversold, At: at, Client: client, Other: client, Value: w.pending[c], Before: where})
	}
}

// release drops s's row locks and transaction-level advisory locks.
func (d *database) release(r *demo.Run, s *backend, at int) {
	for _, w := range s.rows {
		w.locker, w.pending, w.given, w.pendingKey = nil, nil, nil, ""
		d.woken = append(d.woken, w.waiters...)
		w.waiters = nil
	}
	s.rows = nil
	for _, a := range d.advisory {
		if a.owner == s && a.xact > 0 {
			a.xact = 0
			if a.session == 0 {
				a.owner = nil
				d.woken = append(d.woken, a.waiters...)
				a.waiters = nil
			}
		}
	}
}

// wake lets each waiter of a lock that was just freed, first come first
// served, run its statement again: the first takes the lock, the others find
// it held again and go on waiting. It runs after the answer that freed the
// lock has been logged, so the story reads in order.
func (d *database) wake(r *demo.Run, at int) {
	for len(d.woken) > 0 {
		s := d.woken[0]
		d.woken = d.woken[1:]
		w := s.wait
		if w == nil {
			continue
		}
		w.freed, w.row, w.adv = w.row, nil, nil
		w.from, w.checked = at, false
		if d.run(r, s, w, at); s.wait != w {
			d.spareWait(w)
		}
	}
}

// check looks at a statement that waited and then got its answer: a worker
// that waited for one row and took another waited for nothing.
func (d *database) check(r *demo.Run, w *wait, e *SQLStatement, at int) {
	if w.first == nil || e.Err != nil || w.st.kind != stSelect {
		return
	}
	if slices.Contains(w.got, w.first) {
		return
	}
	if len(w.got) > 0 {
		r.Violate(demo.Violation{Kind: QueuedBehind, At: at, Client: w.client, Other: w.firstBy,
			Value: w.first.name(), Before: strconv.Itoa(at - w.sent)})
	}
}

// elapse plays, in the order they fall due, the timers of the waiting
// backends: the deadlock check after deadlock_timeout, and lock_timeout.
func (d *database) Elapse(r *demo.Run, since int) {
	d.lease.Elapse(r, since)
	for {
		var next *backend
		var err *SQLError
		due, isCheck := 0, false
		for _, s := range d.sessions {
			w := s.wait
			if w == nil {
				continue
			}
			if !w.checked && (next == nil || w.from+DeadlockTimeout < due) {
				next, due, isCheck = s, w.from+DeadlockTimeout, true
			}
			if s.timeout > 0 && (next == nil || w.from+s.timeout < due) {
				next, due, isCheck, err = s, w.from+s.timeout, false, errLockTimeout
			}
			// statement_timeout counts from when the statement was sent,
			// however many locks it has waited for since.
			if s.stmt > 0 && (next == nil || w.sent+s.stmt < due) {
				next, due, isCheck, err = s, w.sent+s.stmt, false, errStatementTimeout
			}
		}
		if next == nil || due > r.Now() {
			return
		}
		if isCheck {
			d.deadlockCheck(r, next, due)
		} else {
			d.fail(r, next, err, due)
		}
	}
}

// deadlockCheck is what a backend does once it has waited deadlock_timeout:
// follow who waits for whom from itself, and if the path comes back, abort
// its own statement. Which transaction of a cycle is aborted thus depends on
// whose timer runs out first; PostgreSQL promises only that one is.
func (d *database) deadlockCheck(r *demo.Run, s *backend, at int) {
	s.wait.checked = true
	cycle := []string{s.name}
	for h := s.wait.holder(); h != nil; {
		if h == s {
			r.Log(DeadlockCheck{Head: r.HeadAt(at, s.client, d.node(s)), Session: s.name, Cycle: cycle})
			var other string
			if o := s.wait.holder(); o != nil {
				other = o.client
			}
			brokeDeadlock(r, s.client, other, at)
			d.fail(r, s, errDeadlock, at)
			return
		}
		if slices.Contains(cycle, h.name) || h.wait == nil {
			return
		}
		cycle = append(cycle, h.name)
		h = h.wait.holder()
	}
}

// fail ends s's waiting statement with err.
func (d *database) fail(r *demo.Run, s *backend, err *SQLError, at int) {
	w := s.wait
	d.unqueue(s)
	e := SQLStatement{Head: r.HeadAt(at, w.client, d.node(s)), Session: s.name, SQL: w.sql, Sent: w.sent, Err: err}
	s.wait = nil
	d.blocked[d.who(w.client)] = nil
	d.stopWaiting(r, w.client, at)
	logStatement(r, e)
	if w.implicit {
		d.end(r, s, false, at) // it was a transaction of its own, now over
	} else {
		// Inside BEGIN the error aborts the transaction: its locks go now,
		// and the other side of a deadlock carries on at once.
		d.release(r, s, at)
		s.aborted = true
	}
	d.answered(r, s, w.client, at)
	d.spareWait(w)
}

// unqueue takes s out of every lock's queue.
func (d *database) unqueue(s *backend) {
	for _, t := range d.tables {
		for _, w := range t.rows {
			w.waiters = slices.DeleteFunc(w.waiters, func(x *backend) bool { return x == s })
		}
	}
	for _, a := range d.advisory {
		a.waiters = slices.DeleteFunc(a.waiters, func(x *backend) bool { return x == s })
	}
}

// stopWaiting closes client's open wait span. A lean run, which shows no
// frame, keeps no spans.
func (d *database) stopWaiting(r *demo.Run, client string, at int) {
	if !r.Logs() || !slices.ContainsFunc(d.waits, func(w demo.Span) bool { return w.Lane == client && w.Open }) {
		return
	}
	d.waits = slices.Clone(d.waits) // the finder's copies share the spans
	for i := range d.waits {
		if w := &d.waits[i]; w.Lane == client && w.Open {
			w.To, w.Open = at, false
		}
	}
}

// trace brings the spans of who holds locks up to date: a lane for each
// client whose connection holds a row or advisory lock, and the server's own
// lane for a pooled connection that holds one with no client at all. A
// lean run, which shows no frame, keeps no spans.
func (d *database) trace(r *demo.Run, at int) {
	if !r.Logs() {
		return
	}
	now := map[string]bool{}
	for _, s := range d.sessions {
		held := len(s.rows) > 0
		for _, a := range d.advisory {
			held = held || a.owner == s
		}
		if !held {
			continue
		}
		lane := s.client
		if lane == "" {
			lane = "postgres"
		}
		now[lane] = true
	}
	if slices.ContainsFunc(d.holds, func(h demo.Span) bool { return h.Open && !now[h.Lane] }) {
		d.holds = slices.Clone(d.holds) // the finder's copies share the spans
	}
	for i := range d.holds {
		if h := &d.holds[i]; h.Open && !now[h.Lane] {
			h.To, h.Open = at, false
		}
	}
	for lane := range now {
		open := false
		for _, h := range d.holds {
			open = open || h.Open && h.Lane == lane
		}
		if !open {
			d.holds = append(d.holds, demo.Span{Lane: lane, Owner: lane, From: at, Open: true, Until: -1})
		}
	}
	from := func(a, b demo.Span) int { return a.From - b.From }
	if !slices.IsSortedFunc(d.holds, from) {
		d.holds = slices.Clone(d.holds)
		slices.SortStableFunc(d.holds, from)
	}
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
	if s.inTx {
		d.end(r, s, false, at)
	}
	for _, l := range d.advisory {
		if l.owner == s {
			l.session, l.xact = 0, 0
			d.settle(r, l, at)
		}
	}
	d.sessions = slices.Delete(d.sessions, i, i+1)
	if c := r.Client(a.Who); c != nil && c.Holds {
		d.setBelief(a.Who, 0)
		r.LetGo(c)
	}
	r.Log(Disconnected{Head: r.HeadAt(at, a.Who, ""), Session: s.name, Pid: s.pid})
	d.answered(r, s, a.Who, at)
	return nil
}

// forever is "": a crash ends the session and with it every lock.
func (d *database) Forever(*demo.Run) string { return "" }

func (d *database) State(r *demo.Run) any {
	db := State{Lock: d.lease.Now()}
	for _, s := range d.sessions {
		ss := BackendState{Name: s.name, Pid: s.pid, Client: s.client, State: "idle"}
		switch {
		case s.wait != nil:
			ss.State = "active"
			ss.Query, ss.Since = s.wait.sql, s.wait.sent
			ss.Waiting = s.wait.lock()
			for _, a := range d.queued[d.who(s.wait.client)] {
				if args, ok := a.Args.(Args); ok {
					ss.Next = append(ss.Next, args.SQL)
				} else {
					ss.Next = append(ss.Next, "Terminate") // disconnect
				}
			}
			if h := s.wait.holder(); h != nil {
				db.Edges = append(db.Edges, WaitEdge{From: s.name, To: h.name, Lock: s.wait.lock(), Since: s.wait.from})
			}
		case s.aborted:
			ss.State = "idle in transaction (aborted)"
		case s.inTx:
			ss.State = "idle in transaction"
		}
		for _, w := range s.rows {
			ss.Locks = append(ss.Locks, w.name())
		}
		for _, a := range d.advisory {
			if a.owner == s {
				ss.Locks = append(ss.Locks, fmt.Sprintf("%s (session %d, xact %d)", a.name(), a.session, a.xact))
			}
		}
		db.Sessions = append(db.Sessions, ss)
	}
	for _, t := range d.tables {
		ts := TableState{Name: t.name, Cols: t.cols}
		for _, w := range t.rows {
			rs := RowState{Rev: w.rev}
			for _, c := range t.cols {
				rs.Values = append(rs.Values, w.values[c])
				if w.pending != nil {
					rs.Pending = append(rs.Pending, w.pending[c])
				}
			}
			if w.locker != nil {
				rs.LockedBy = w.locker.name
			}
			for _, s := range w.waiters {
				rs.Waiters = append(rs.Waiters, s.name)
			}
			ts.Rows = append(ts.Rows, rs)
		}
		db.Tables = append(db.Tables, ts)
	}
	for _, a := range d.advisory {
		as := AdvisoryState{Key: a.key, Session: a.session, Xact: a.xact}
		if a.owner != nil {
			as.Holder = a.owner.name
		}
		for _, s := range a.waiters {
			as.Waiters = append(as.Waiters, s.name)
		}
		db.Advisory = append(db.Advisory, as)
	}
	db.Holds, db.Waits = slices.Clone(d.holds), slices.Clone(d.waits)
	return db
}

// State is the database as a frame shows it: the connections, what each
// holds and waits for, the rows, and the wait-for graph; and the lock
// service beside it, for a lesson whose table checks its tokens.
type State struct {
	Lock     lockservice.State
	Sessions []BackendState
	Tables   []TableState
	Advisory []AdvisoryState
	Edges    []WaitEdge  // who waits for whom: the picture of a deadlock
	Holds    []demo.Span // on each client's lane, when its connection held locks
	Waits    []demo.Span // on each client's lane, when it waited for a lock
}

// BackendState is one connection, as pg_stat_activity and pg_locks show it.
type BackendState struct {
	Name    string
	Pid     int
	Client  string   // who uses it now; "" when idle in the pool
	State   string   // pg_stat_activity.state: idle, idle in transaction, active, ...
	Query   string   // active: the statement waiting
	Since   int      // active: when it was sent
	Waiting string   // active: the lock it waits for
	Locks   []string // the locks it holds
	Next    []string // what its client will send once the waiting statement returns
}

// TableState is one table with its rows.
type TableState struct {
	Name string
	Cols []string
	Rows []RowState
}

// RowState is one row: its committed values, the uncommitted ones of the
// transaction that changed it, who holds its lock and who waits for it.
type RowState struct {
	Values   []string
	Pending  []string // nil when nobody changed it
	Rev      int      // committed versions so far
	LockedBy string
	Waiters  []string
}

// AdvisoryState is one advisory lock key.
type AdvisoryState struct {
	Key           int64
	Holder        string
	Session, Xact int // holds at each level
	Waiters       []string
}

// WaitEdge is one arrow of the wait-for graph.
type WaitEdge struct {
	From, To string
	Lock     string
	Since    int
}

// answered follows a statement's answer on s: the connection goes back to the
// pool if the pooler takes it, waiters of locks just freed run again, and the
// client's program carries on with what it sent meanwhile.
func (d *database) answered(r *demo.Run, s *backend, client string, at int) {
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
