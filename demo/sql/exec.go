package sql

import (
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// The statements: what one SELECT, INSERT or UPDATE does to the rows, with
// READ COMMITTED's rules and the row locks it takes.

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
func (d *database) insert(r *demo.Run, client string, st *statement, e *SQLStatement, at int) {
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
	d.committed |= 1 << d.who(client) // committed at once
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
func candidates(t *table, s *backend, st *statement) []*row {
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
	e.Tag = countTag(selectTags[:], "SELECT ", len(got))
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

// updated is the version that the UPDATE statement sql, setting sets,
// makes of the version from, which it leaves as it is. The finder plays
// one statement on one version in many of the states it tries, and the
// versions are shared and never changed in place, so the buffers keep the
// last few made (b may be nil: a run that is no copy keeps none). A new map
// for each was two fifths of what a database search allocated.
func (b *buffers) updated(from map[string]string, sql string, sets []assign) map[string]string {
	if b != nil {
		p := reflect.ValueOf(from).UnsafePointer()
		for i := range b.updates {
			if u := &b.updates[i]; u.vals != nil && u.sql == sql && reflect.ValueOf(u.from).UnsafePointer() == p {
				return u.vals
			}
		}
	}
	vals := maps.Clone(from)
	if vals == nil {
		vals = map[string]string{}
	}
	for _, a := range sets {
		if a.ref != "" {
			x, _ := strconv.ParseInt(vals[a.ref], 10, 64)
			vals[a.col] = strconv.FormatInt(x+a.plus, 10)
		} else {
			vals[a.col] = a.val
		}
	}
	if b != nil {
		// It keeps from, so that no other map takes its place in memory.
		b.updates[b.next%len(b.updates)] = update{from: from, sql: sql, vals: vals}
		b.next++
	}
	return vals
}

// update is a version an UPDATE statement made, by the version it read
// and the statement's text.
type update struct {
	from, vals map[string]string
	sql        string
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
		vals := d.buf.updated(visible(row, s), w.sql, st.sets)
		for _, a := range st.sets {
			if a.ref == "" {
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
		row.rekeyPending()
		n++
	}
	e.Tag = countTag(updateTags[:], "UPDATE ", n)
	if t.name == d.resource && keyed != nil {
		for _, a := range st.sets {
			if a.col == "value" {
				after = a.val
			}
		}
		e.Resource, e.ToResource = d.judge(r, w.client, keyed, n > 0, before, after)
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
func (d *database) judge(r *demo.Run, client string, w *row, landed bool, before, after string) (demo.WriteResult, bool) {
	c := r.Client(client)
	if c == nil || c.Token == 0 {
		return demo.WriteResult{}, false // not a client of the lock service: the database's own verdicts apply
	}
	max, _ := strconv.ParseInt(visible(w, nil)["max_token"], 10, 64)
	if !landed {
		before = w.values["value"]
	}
	wr := demo.WriteResult{Head: r.Head(client, ""), Token: c.Token, Value: after, Before: before, Max: max, OK: landed}
	r.JudgeWrite(c, wr, w.writer)
	return wr, true
}

// The command tags with the counts a scenario's statements reach, written
// once: a tag built for every statement was an allocation for every step
// the finder tries.
var (
	updateTags = [...]string{"UPDATE 0", "UPDATE 1", "UPDATE 2", "UPDATE 3", "UPDATE 4"}
	selectTags = [...]string{"SELECT 0", "SELECT 1", "SELECT 2", "SELECT 3", "SELECT 4"}
)

// countTag is the tag prefix n, from tags where it is there.
func countTag(tags []string, prefix string, n int) string {
	if n >= 0 && n < len(tags) {
		return tags[n]
	}
	return prefix + strconv.Itoa(n)
}
