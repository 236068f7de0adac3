package sql

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The database store reads real SQL, but only the handful of statement shapes
// the lessons send: the transaction words, a SELECT of some columns by key or
// of the oldest matching row, with the row-locking clauses; an UPDATE of one
// row by key, with an optional extra condition; an INSERT of one row; the
// advisory-lock functions; and SET lock_timeout. Anything else is refused
// with the shape it should have, so a scenario cannot send SQL the model
// would quietly misread.

type stmtKind uint8

const (
	stBegin stmtKind = iota + 1
	stCommit
	stRollback
	stSelect
	stUpdate
	stInsert
	stAdvisory
	stSet
)

// statement is one parsed SQL statement.
type statement struct {
	kind    stmtKind
	table   string
	cols    []string // select: the columns returned; insert: the columns given
	where   []cond   // every condition, joined by AND
	orderBy string   // select: the column the oldest row is picked by
	limit   int      // select: 0 for no limit
	forUpd  bool     // select: FOR UPDATE
	nowait  bool     // FOR UPDATE NOWAIT
	skip    bool     // FOR UPDATE SKIP LOCKED
	sets    []assign // update
	values  []string // insert
	fn      string   // advisory: the function's name
	key     int64    // advisory: the lock's key
	timeout int      // set: lock_timeout in ms; 0 turns it off
}

// cond is "col = value", or a comparison of numbers such as
// "max_token <= 7": the fenced resource's condition.
type cond struct{ col, op, val string }

// assign is "col = value" or "col = col + n".
type assign struct {
	col  string
	val  string // a literal; "" when ref is set
	ref  string // the column added to
	plus int64
}

// The advisory-lock functions the store knows.
var advisoryFns = []string{
	"pg_advisory_lock", "pg_try_advisory_lock", "pg_advisory_unlock", "pg_advisory_xact_lock", "pg_try_advisory_xact_lock",
}

var sqlToken = regexp.MustCompile(`\s*('(?:[^']|'')*'|[A-Za-z_][A-Za-z_0-9]*|-?[0-9]+|[(),=*+;<>-]+)`)

// tokens splits SQL into words, numbers, quoted strings and punctuation.
func tokens(sql string) ([]string, error) {
	var out []string
	rest := strings.TrimSpace(sql)
	for rest != "" {
		m := sqlToken.FindStringSubmatchIndex(rest)
		if m == nil || m[0] != 0 {
			return nil, fmt.Errorf("cannot read %q", rest)
		}
		out = append(out, rest[m[2]:m[3]])
		rest = strings.TrimSpace(rest[m[1]:])
	}
	if n := len(out); n > 0 && out[n-1] == ";" {
		out = out[:n-1]
	}
	return out, nil
}

// parser walks the tokens of one statement.
type parser struct {
	t []string
	i int
}

func (p *parser) peek() string {
	if p.i < len(p.t) {
		return p.t[p.i]
	}
	return ""
}

func (p *parser) next() string {
	s := p.peek()
	p.i++
	return s
}

// is consumes the keywords ws if they come next, case-insensitively.
func (p *parser) is(ws ...string) bool {
	for k, w := range ws {
		if !strings.EqualFold(p.i2(k), w) {
			return false
		}
	}
	p.i += len(ws)
	return true
}

func (p *parser) i2(k int) string {
	if p.i+k < len(p.t) {
		return p.t[p.i+k]
	}
	return ""
}

func (p *parser) ident() (string, bool) {
	s := p.peek()
	if s == "" || !(s[0] == '_' || s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return "", false
	}
	p.i++
	return strings.ToLower(s), true
}

// literal reads a number or a quoted string, returned as PostgreSQL's text
// form of the value.
func (p *parser) literal() (string, bool) {
	s := p.peek()
	switch {
	case s == "":
		return "", false
	case s[0] == '\'':
		p.i++
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'"), true
	case s[0] == '-' || s[0] >= '0' && s[0] <= '9':
		if _, err := strconv.ParseInt(s, 10, 64); err != nil {
			return "", false
		}
		p.i++
		return s, true
	}
	return "", false
}

func (p *parser) done() bool { return p.i >= len(p.t) }

// The shapes, for error messages.
const sqlShapes = "BEGIN, COMMIT, ROLLBACK; SELECT cols FROM t WHERE c = v [AND ...] [ORDER BY c LIMIT n] [FOR UPDATE [NOWAIT | SKIP LOCKED]]; " +
	"UPDATE t SET c = v | c = c ± n [, ...] WHERE c = v [AND c = v | c <= n | c < n ...]; INSERT INTO t (cols) VALUES (vals); " +
	"SELECT pg_advisory_lock(k) (and pg_try_advisory_lock, pg_advisory_unlock, pg_advisory_xact_lock); SET lock_timeout = 'N ms'"

// parseSQL reads one statement of the shapes above.
func parseSQL(sql string) (statement, error) {
	t, err := tokens(sql)
	if err != nil {
		return statement{}, err
	}
	p := &parser{t: t}
	var st statement
	bad := func() (statement, error) {
		return statement{}, fmt.Errorf("the model reads only these SQL shapes: %s", sqlShapes)
	}
	switch {
	case p.is("BEGIN"):
		st.kind = stBegin
	case p.is("COMMIT"):
		st.kind = stCommit
	case p.is("ROLLBACK"):
		st.kind = stRollback
	case p.is("SET", "lock_timeout"):
		st.kind = stSet
		if !p.is("=") && !p.is("TO") {
			return bad()
		}
		v, ok := p.literal()
		if !ok {
			return bad()
		}
		ms, err := parseMillis(v)
		if err != nil {
			return statement{}, err
		}
		st.timeout = ms
	case p.is("SELECT"):
		if fn, ok := p.advisory(); ok {
			st.kind, st.fn = stAdvisory, fn
			if !p.is("(") {
				return bad()
			}
			v, ok := p.literal()
			if !ok || !p.is(")") {
				return bad()
			}
			st.key, _ = strconv.ParseInt(v, 10, 64)
			break
		}
		st.kind = stSelect
		for {
			c, ok := p.ident()
			if !ok {
				if p.is("*") {
					c = "*"
				} else {
					return bad()
				}
			}
			st.cols = append(st.cols, c)
			if !p.is(",") {
				break
			}
		}
		if !p.is("FROM") {
			return bad()
		}
		var ok bool
		if st.table, ok = p.ident(); !ok {
			return bad()
		}
		if st.where, ok = p.conds(); !ok {
			return bad()
		}
		if p.is("ORDER", "BY") {
			if st.orderBy, ok = p.ident(); !ok {
				return bad()
			}
		}
		if p.is("LIMIT") {
			v, ok := p.literal()
			if !ok {
				return bad()
			}
			st.limit, _ = strconv.Atoi(v)
		}
		if p.is("FOR", "UPDATE") {
			st.forUpd = true
			switch {
			case p.is("NOWAIT"):
				st.nowait = true
			case p.is("SKIP", "LOCKED"):
				st.skip = true
			}
		}
	case p.is("UPDATE"):
		st.kind = stUpdate
		var ok bool
		if st.table, ok = p.ident(); !ok || !p.is("SET") {
			return bad()
		}
		for {
			c, ok := p.ident()
			if !ok || !p.is("=") {
				return bad()
			}
			a := assign{col: c}
			if v, ok := p.literal(); ok {
				a.val = v
			} else if ref, ok := p.ident(); ok && (p.peek() == "+" || p.peek() == "-") {
				minus := p.next() == "-"
				n, ok := p.literal()
				if !ok {
					return bad()
				}
				a.ref = ref
				a.plus, _ = strconv.ParseInt(n, 10, 64)
				if minus {
					a.plus = -a.plus
				}
			} else {
				return bad()
			}
			st.sets = append(st.sets, a)
			if !p.is(",") {
				break
			}
		}
		if st.where, ok = p.conds(); !ok || len(st.where) == 0 {
			return bad()
		}
	case p.is("INSERT", "INTO"):
		st.kind = stInsert
		var ok bool
		if st.table, ok = p.ident(); !ok || !p.is("(") {
			return bad()
		}
		for {
			c, ok := p.ident()
			if !ok {
				return bad()
			}
			st.cols = append(st.cols, c)
			if !p.is(",") {
				break
			}
		}
		if !p.is(")") || !p.is("VALUES") || !p.is("(") {
			return bad()
		}
		for {
			v, ok := p.literal()
			if !ok {
				return bad()
			}
			st.values = append(st.values, v)
			if !p.is(",") {
				break
			}
		}
		if !p.is(")") || len(st.values) != len(st.cols) {
			return bad()
		}
	default:
		return bad()
	}
	if !p.done() {
		return bad()
	}
	return st, nil
}

// advisory reads the name of an advisory-lock function if one comes next.
func (p *parser) advisory() (string, bool) {
	for _, fn := range advisoryFns {
		if strings.EqualFold(p.peek(), fn) {
			p.i++
			return fn, true
		}
	}
	return "", false
}

// The comparisons a condition may make; all but "=" compare numbers.
var condOps = []string{"=", "<=", "<", ">=", ">"}

// conds reads an optional WHERE c = v AND c <= n ...
func (p *parser) conds() ([]cond, bool) {
	if !p.is("WHERE") {
		return nil, true
	}
	var cs []cond
	for {
		c, ok := p.ident()
		if !ok || !slices.Contains(condOps, p.peek()) {
			return nil, false
		}
		op := p.next()
		v, ok := p.literal()
		if !ok {
			return nil, false
		}
		if _, err := strconv.ParseInt(v, 10, 64); op != "=" && err != nil {
			return nil, false
		}
		cs = append(cs, cond{c, op, v})
		if !p.is("AND") {
			return cs, true
		}
	}
}

// parseMillis reads a lock_timeout setting: "500ms", "1s" or a bare number
// of milliseconds, as PostgreSQL takes it.
func parseMillis(v string) (int, error) {
	v = strings.TrimSpace(v)
	mult := 1
	switch {
	case strings.HasSuffix(v, "ms"):
		v = strings.TrimSpace(strings.TrimSuffix(v, "ms"))
	case strings.HasSuffix(v, "s"):
		v, mult = strings.TrimSpace(strings.TrimSuffix(v, "s")), 1000
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > maxMillis {
		return 0, fmt.Errorf("lock_timeout %q: want a whole number of ms or s", v)
	}
	return n * mult, nil
}

const maxMillis = 1_000_000_000

var clientVar = regexp.MustCompile(`\$([a-z_][a-z_0-9]*)(\s*([+-])\s*([0-9]+))?`)

// substitute fills in what the client's program computed from its last read:
// "$balance - 30" becomes the number the client sends. This is the
// read-modify-write of an application, done outside the database, which is
// exactly where an update can be lost.
func substitute(sql string, vars map[string]string) (string, error) {
	var err error
	out := clientVar.ReplaceAllStringFunc(sql, func(m string) string {
		g := clientVar.FindStringSubmatch(m)
		v, ok := vars[g[1]]
		if !ok {
			err = fmt.Errorf("$%s: the client has not read %s yet", g[1], g[1])
			return m
		}
		if g[2] == "" {
			if _, e := strconv.ParseInt(v, 10, 64); e != nil {
				return "'" + strings.ReplaceAll(v, "'", "''") + "'"
			}
			return v
		}
		a, e1 := strconv.ParseInt(v, 10, 64)
		b, e2 := strconv.ParseInt(g[4], 10, 64)
		if e1 != nil || e2 != nil {
			err = fmt.Errorf("$%s: %q is not a number", g[1], v)
			return m
		}
		if g[3] == "-" {
			b = -b
		}
		return strconv.FormatInt(a+b, 10)
	})
	return out, err
}
