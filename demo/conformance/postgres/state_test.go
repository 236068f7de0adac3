package postgres_test

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/distlock/fencing-demo/demo"
	model "github.com/distlock/fencing-demo/demo/sql"
)

// check holds, at the end of a frame, every connection the page shows
// against its backend on the real server: that there is one, its
// pg_stat_activity state, whether it waits for a lock and for whom, the
// advisory locks and row locks it holds, and the rows it sees; and the
// real server has no backend the page does not show.
func (r *replay) check(f demo.Frame) {
	st := f.Store.(model.State)
	diffs := r.backends(st)
	diffs = append(diffs, r.advisoryLocks(st)...)
	diffs = append(diffs, r.rowLocks(st)...)
	diffs = append(diffs, r.rowsSeen(st)...)
	r.tally.Add("frames checked", 1)
	if len(diffs) == 0 {
		return
	}
	msg := fmt.Sprintf("frame %d, t=%dms:\n\t%s", f.Index, f.Now, strings.Join(diffs, "\n\t"))
	if c := r.crashedHeld(st); c != "" {
		r.stopped = msg
		r.known(r.t, r, fmt.Sprintf("the page keeps %s's connection, and its transaction and locks, after %s crashed; PostgreSQL ends a backend whose client's socket closes, rolls its transaction back and frees its locks: %s", c, c, msg))
		return
	}
	if why := r.late(st); why != "" {
		r.stop("%s; too close to call: %s", msg, why)
		return
	}
	r.t.Errorf("the page is not PostgreSQL's state at %s\n\thistory: %s", msg, r.h)
}

// crashedHeld returns a connection the page still shows of a client that
// crashed: the model's known difference from PostgreSQL (it keeps a crashed
// client's connection, and so its locks, for ever).
func (r *replay) crashedHeld(st model.State) string {
	for _, s := range st.Sessions {
		owner, _, _ := strings.Cut(s.Name, "#")
		if r.crashed[owner] {
			return s.Name
		}
	}
	return ""
}

// late says why a frame that differs may differ only because the replay
// ran late: a statement the page shows waiting has waited longer on the
// real server than in the model, past one of the times that end a wait
// (deadlock_timeout, its connection's lock_timeout or statement_timeout).
func (r *replay) late(st model.State) string {
	for _, s := range st.Sessions {
		w := r.pending[s.Name]
		if s.Waiting == "" || w == nil || w.sent.IsZero() {
			continue
		}
		modelWait := r.clock.model - w.at
		realWait := int(time.Since(w.sent).Milliseconds())
		bounds := []int{1000, r.timeouts[s.Name+" lock"], r.timeouts[s.Name+" statement"]}
		for _, b := range bounds {
			if b > 0 && modelWait < b && b <= realWait {
				return fmt.Sprintf("%s has waited %d ms in the model and %d ms on the real server, across %d ms", s.Name, modelWait, realWait, b)
			}
		}
	}
	return ""
}

// pid names a connection's backend, or says it has none.
func (r *replay) pid(session string) string {
	if c := r.conns[session]; c != nil {
		return strconv.Itoa(int(c.pg.PID()))
	}
	return session + " (no connection)"
}

// backends holds each connection's backend against the page's: its state,
// and whether, on what and on whom it waits.
func (r *replay) backends(st model.State) (diffs []string) {
	rows := r.watch.rows(r.t, `SELECT pid::text, state, coalesce(wait_event_type, ''),
		coalesce((SELECT string_agg(b::text, ',' ORDER BY b) FROM unnest(pg_blocking_pids(pid)) b), '')
		FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`)
	real := map[string][]string{}
	for _, row := range rows {
		real[row[0]] = row[1:]
	}
	for _, s := range st.Sessions {
		pid := r.pid(s.Name)
		got, ok := real[pid]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("the page shows the connection %s (%s); the server has no backend for it", s.Name, s.State))
			continue
		}
		delete(real, pid)
		r.tally.Add("connections compared", 1)
		if got[0] != s.State {
			diffs = append(diffs, fmt.Sprintf("%s: the page shows it %q; pg_stat_activity.state %q", s.Name, s.State, got[0]))
		}
		if waits := got[1] == "Lock"; waits != (s.Waiting != "") {
			diffs = append(diffs, fmt.Sprintf("%s: the page shows it waiting for %q; wait_event_type %q", s.Name, s.Waiting, got[1]))
		}
		for _, e := range st.Edges {
			if e.From == s.Name && !slices.Contains(strings.Split(got[2], ","), r.pid(e.To)) {
				diffs = append(diffs, fmt.Sprintf("%s: the page shows it waiting for %s (%s); pg_blocking_pids: {%s}", s.Name, e.To, e.Lock, got[2]))
			}
		}
	}
	for pid, got := range real {
		diffs = append(diffs, fmt.Sprintf("the server has a backend (pid %s, %s) the page does not show", pid, got[0]))
	}
	return diffs
}

// advisoryLocks holds pg_locks against the frame's advisory locks: who holds
// each key (a re-entered lock shows once, still granted until its last
// unlock) and who waits for it.
func (r *replay) advisoryLocks(st model.State) []string {
	var want []string
	for _, a := range st.Advisory {
		if a.Holder != "" {
			want = append(want, fmt.Sprintf("%d granted to %s", a.Key, r.pid(a.Holder)))
		}
		for _, w := range a.Waiters {
			want = append(want, fmt.Sprintf("%d awaited by %s", a.Key, r.pid(w)))
		}
	}
	var have []string
	for _, row := range r.watch.rows(r.t, `SELECT DISTINCT (classid::bigint << 32 | objid::bigint)::text
		|| CASE WHEN granted THEN ' granted to ' ELSE ' awaited by ' END || pid
		FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`) {
		have = append(have, row[0])
	}
	slices.Sort(want)
	slices.Sort(have)
	if g, w := strings.Join(have, "; "), strings.Join(want, "; "); g != w {
		return []string{fmt.Sprintf("advisory locks in pg_locks: %q, the page: %q", g, w)}
	}
	return nil
}

// rowLocks holds the rows' locks, as pgrowlocks reads them from the heap,
// against the frame's: which row each connection holds locked (for update,
// or because it changed the row) until its transaction ends. A row lock kept
// on a row that no longer matches its query shows here and nowhere else.
func (r *replay) rowLocks(st model.State) []string {
	var want, have []string
	for _, tb := range st.Tables {
		key := tb.Cols[0] // the model names a row by its key, the first column
		for _, row := range tb.Rows {
			if row.LockedBy != "" {
				want = append(want, fmt.Sprintf("%s %s=%s locked by %s", tb.Name, key, row.Values[0], r.pid(row.LockedBy)))
			}
		}
		for _, row := range r.watch.rows(r.t, fmt.Sprintf(`SELECT '%[1]s %[2]s=' || t.%[2]s || ' locked by ' || array_to_string(p.pids, ',')
			FROM %[1]s t JOIN pgrowlocks('%[1]s') p ON p.locked_row = t.ctid`, tb.Name, key)) {
			have = append(have, row[0])
		}
	}
	slices.Sort(want)
	slices.Sort(have)
	if g, w := strings.Join(have, "; "), strings.Join(want, "; "); g != w {
		return []string{fmt.Sprintf("row locks in pgrowlocks: %q, the page: %q", g, w)}
	}
	return nil
}

// rowsSeen holds the rows each connection would read now against the
// page's: the committed values, and a connection's own uncommitted
// changes. The suite reads them on each connection that can take a
// statement (not one that waits, nor one whose transaction failed), and
// the committed ones on its own.
func (r *replay) rowsSeen(st model.State) (diffs []string) {
	view := func(s string) *conn {
		if s == "" {
			return r.watch
		}
		return r.conns[s]
	}
	viewers := []string{""}
	for _, s := range st.Sessions {
		if s.Waiting == "" && !strings.Contains(s.State, "aborted") && r.conns[s.Name] != nil {
			viewers = append(viewers, s.Name)
		}
	}
	for _, tb := range st.Tables {
		for _, s := range viewers {
			var want [][]string
			for _, row := range tb.Rows {
				vals := row.Values
				if s != "" && row.LockedBy == s && row.Pending != nil {
					vals = row.Pending
				}
				want = append(want, vals)
			}
			got := view(s).rows(r.t, fmt.Sprintf("SELECT %s FROM %s", strings.Join(tb.Cols, ", "), tb.Name))
			// A table has no order: the panel lists rows as they were
			// inserted, a heap as it stores them. Both are compared by key.
			slices.SortFunc(got, byKey)
			slices.SortFunc(want, byKey)
			r.tally.Add("row views compared", 1)
			if g, w := fmt.Sprint(got), fmt.Sprint(want); g != w {
				who := "committed"
				if s != "" {
					who = "as " + s + " sees it"
				}
				diffs = append(diffs, fmt.Sprintf("table %s %s: real %s, page %s", tb.Name, who, g, w))
			}
		}
	}
	return diffs
}

// byKey orders rows by their key, the first column: as numbers where both
// are, else as strings.
func byKey(a, b []string) int {
	x, errx := strconv.ParseInt(a[0], 10, 64)
	y, erry := strconv.ParseInt(b[0], 10, 64)
	if errx == nil && erry == nil {
		return cmp.Compare(x, y)
	}
	return strings.Compare(a[0], b[0])
}
