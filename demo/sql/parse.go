package sql

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// The database store reads real SQL, but only the handful of statement shapes
// the lessons send: the transaction words, a SELECT of some columns by key or
// of the oldest matching row, with the row-locking clauses; an UPDATE of one
// row by key, with an optional extra condition; an INSERT of one row, which
// may do nothing on a conflict with its key (a table's first column); the
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
	nothing bool     // insert: ON CONFLICT DO NOTHING
	text    uint64   // textKey of the statement's text, for a state's key (parseCached)
	fn      string   // advisory: the function's name
	key     int64    // advisory: the lock's key
	timeout int      // set: lock_timeout (or statement_timeout) in ms; 0 turns it off
	stmt    bool     // set: statement_timeout rather than lock_timeout
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

// tokens splits SQL into words, numbers, quoted strings and punctuation: a
// quoted string (” inside is a quote), a word of letters, digits and _, a
// number with an optional minus, or a run of the punctuation the shapes use.
// It is read by hand rather than with a regular expression: every replay of
// a database scenario reads its statements again.
func tokens(sql string) ([]string, error) {
	var out []string
	rest := strings.TrimSpace(sql)
	for rest != "" {
		n := tokenLen(rest)
		if n == 0 {
			return nil, fmt.Errorf("cannot read %q", rest)
		}
		out = append(out, rest[:n])
		rest = strings.TrimSpace(rest[n:])
	}
	if n := len(out); n > 0 && out[n-1] == ";" {
		out = out[:n-1]
	}
	return out, nil
}

// tokenLen is the length of the token s starts with; 0 for none.
func tokenLen(s string) int {
	const punct = "(),=*+;<>-"
	isWord := func(c byte, first bool) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && c >= '0' && c <= '9'
	}
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	switch c := s[0]; {
	case c == '\'':
		for i := 1; i < len(s); i++ {
			if s[i] != '\'' {
				continue
			}
			if i+1 < len(s) && s[i+1] == '\'' {
				i++
				continue
			}
			return i + 1
		}
		return 0 // an unclosed quote
	case isWord(c, true):
		n := 1
		for n < len(s) && isWord(s[n], false) {
			n++
		}
		return n
	case isDigit(c) || c == '-' && len(s) > 1 && isDigit(s[1]):
		n := 1
		for n < len(s) && isDigit(s[n]) {
			n++
		}
		return n
	case strings.IndexByte(punct, c) >= 0:
		n := 1
		for n < len(s) && strings.IndexByte(punct, s[n]) >= 0 {
			n++
		}
		return n
	}
	return 0
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
	"UPDATE t SET c = v | c = c ± n [, ...] WHERE c = v [AND c = v | c <= n | c < n ...]; INSERT INTO t (cols) VALUES (vals) [ON CONFLICT [(key)] DO NOTHING]; " +
	"SELECT pg_advisory_lock(k) (and pg_try_advisory_lock, pg_advisory_unlock, pg_advisory_xact_lock); SET lock_timeout | statement_timeout = 'N ms'"

// errShape is a statement of none of the shapes above.
var errShape = fmt.Errorf("the model reads only these SQL shapes: %s", sqlShapes)

// parseSQL reads one statement of the shapes above.
func parseSQL(sql string) (statement, error) {
	t, err := tokens(sql)
	if err != nil {
		return statement{}, err
	}
	p := &parser{t: t}
	var st statement
	ok := true
	switch {
	case p.is("BEGIN"):
		st.kind = stBegin
	case p.is("COMMIT"):
		st.kind = stCommit
	case p.is("ROLLBACK"):
		st.kind = stRollback
	case p.is("SET", "lock_timeout"):
		return p.setTimeout()
	case p.is("SET", "statement_timeout"):
		st, err := p.setTimeout()
		st.stmt = true
		return st, err
	case p.is("SELECT"):
		st, ok = p.selectStmt()
	case p.is("UPDATE"):
		st, ok = p.update()
	case p.is("INSERT", "INTO"):
		st, ok = p.insert()
	default:
		ok = false
	}
	if !ok || !p.done() {
		return statement{}, errShape
	}
	return st, nil
}

// setTimeout reads the rest of SET lock_timeout = 'N ms'.
func (p *parser) setTimeout() (statement, error) {
	st := statement{kind: stSet}
	if !p.is("=") && !p.is("TO") {
		return statement{}, errShape
	}
	v, ok := p.literal()
	if !ok || !p.done() {
		return statement{}, errShape
	}
	ms, err := parseMillis(v)
	if err != nil {
		return statement{}, err
	}
	st.timeout = ms
	return st, nil
}

// selectStmt reads the rest of a SELECT: an advisory-lock function's call,
// or columns from a table with their conditions and row-locking clauses.
func (p *parser) selectStmt() (statement, bool) {
	var st statement
	if fn, ok := p.advisory(); ok {
		st.kind, st.fn = stAdvisory, fn
		if !p.is("(") {
			return st, false
		}
		v, ok := p.literal()
		st.key, _ = strconv.ParseInt(v, 10, 64)
		return st, ok && p.is(")")
	}
	st.kind = stSelect
	var ok bool
	if st.cols, ok = p.list(func() (string, bool) {
		if c, ok := p.ident(); ok {
			return c, true
		}
		return "*", p.is("*")
	}); !ok || !p.is("FROM") {
		return st, false
	}
	if st.table, ok = p.ident(); !ok {
		return st, false
	}
	if st.where, ok = p.conds(); !ok {
		return st, false
	}
	if p.is("ORDER", "BY") {
		if st.orderBy, ok = p.ident(); !ok {
			return st, false
		}
	}
	if p.is("LIMIT") {
		v, ok := p.literal()
		if !ok {
			return st, false
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
	return st, true
}

// update reads the rest of UPDATE t SET ... WHERE ...: each assignment a
// value, or a column plus or minus a number.
func (p *parser) update() (statement, bool) {
	st := statement{kind: stUpdate}
	var ok bool
	if st.table, ok = p.ident(); !ok || !p.is("SET") {
		return st, false
	}
	for {
		a, ok := p.assignment()
		if !ok {
			return st, false
		}
		st.sets = append(st.sets, a)
		if !p.is(",") {
			break
		}
	}
	st.where, ok = p.conds()
	return st, ok && len(st.where) > 0
}

// assignment reads one "c = v" or "c = c ± n".
func (p *parser) assignment() (assign, bool) {
	c, ok := p.ident()
	if !ok || !p.is("=") {
		return assign{}, false
	}
	a := assign{col: c}
	if v, ok := p.literal(); ok {
		a.val = v
		return a, true
	}
	ref, ok := p.ident()
	if !ok || p.peek() != "+" && p.peek() != "-" {
		return assign{}, false
	}
	minus := p.next() == "-"
	n, ok := p.literal()
	a.ref = ref
	a.plus, _ = strconv.ParseInt(n, 10, 64)
	if minus {
		a.plus = -a.plus
	}
	return a, ok
}

// insert reads the rest of INSERT INTO t (cols) VALUES (vals).
func (p *parser) insert() (statement, bool) {
	st := statement{kind: stInsert}
	var ok bool
	if st.table, ok = p.ident(); !ok || !p.is("(") {
		return st, false
	}
	if st.cols, ok = p.list(p.ident); !ok || !p.is(")") || !p.is("VALUES") || !p.is("(") {
		return st, false
	}
	if st.values, ok = p.list(p.literal); !ok || !p.is(")") {
		return st, false
	}
	if p.is("ON", "CONFLICT") {
		// The conflict target, when named, must be the key: the only
		// unique constraint a table of the model has.
		if p.is("(") {
			if c, ok := p.ident(); !ok || c != st.cols[0] || !p.is(")") {
				return st, false
			}
		}
		if st.nothing = p.is("DO", "NOTHING"); !st.nothing {
			return st, false
		}
	}
	return st, len(st.values) == len(st.cols)
}

// list reads one or more items separated by commas.
func (p *parser) list(item func() (string, bool)) ([]string, bool) {
	var out []string
	for {
		v, ok := item()
		if !ok {
			return nil, false
		}
		out = append(out, v)
		if !p.is(",") {
			return out, true
		}
	}
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

// substitute fills in what the client's program computed from its last read:
// "$balance - 30" becomes the number the client sends. This is the
// read-modify-write of an application, done outside the database, which is
// exactly where an update can be lost. A variable is $ and a name of
// a-z, _ and digits, not starting with one, with an optional "+ N" or "- N"
// after it; one the client has not read, or a sum of what is not a number,
// is left as written and the last such is the error. It scans by hand: the
// finder sends a statement for every step it tries, and a regexp was a
// sixth of a search.
func substitute(sql string, vars map[string]string) (string, error) {
	i := strings.IndexByte(sql, '$')
	if i < 0 {
		return sql, nil // nothing to fill in
	}
	var b strings.Builder
	b.Grow(len(sql) + 16)
	var err error
	for ; i >= 0; i = strings.IndexByte(sql, '$') {
		b.WriteString(sql[:i])
		v := scanVar(sql[i:])
		if v.n == 0 {
			b.WriteByte('$') // not a variable: a $ as any other character
			sql = sql[i+1:]
			continue
		}
		out, e := v.fill(vars)
		if e != nil {
			out, err = sql[i:i+v.n], e
		}
		b.WriteString(out)
		sql = sql[i+v.n:]
	}
	b.WriteString(sql)
	return b.String(), err
}

// clientVar is one variable of a statement as scanVar reads it.
type clientVar struct {
	n      int    // its length from the $; 0: not a variable
	name   string // without the $
	sign   byte   // '+' or '-' before digits; 0 for none
	digits string
}

// scanVar reads the variable at the start of s, which starts with $.
func scanVar(s string) clientVar {
	j := 1
	if j == len(s) || !isNameByte(s[j]) || isDigit(s[j]) {
		return clientVar{}
	}
	for j < len(s) && isNameByte(s[j]) {
		j++
	}
	v := clientVar{n: j, name: s[1:j]}
	k := skipSpace(s, j)
	if k == len(s) || s[k] != '+' && s[k] != '-' {
		return v
	}
	d := skipSpace(s, k+1)
	e := d
	for e < len(s) && isDigit(s[e]) {
		e++
	}
	if e > d {
		v.n, v.sign, v.digits = e, s[k], s[d:e]
	}
	return v
}

// fill is what the client sends for v: its value, quoted unless it is a
// number, or the sum.
func (v clientVar) fill(vars map[string]string) (string, error) {
	val, ok := vars[v.name]
	if !ok {
		return "", fmt.Errorf("$%s: the client has not read %s yet", v.name, v.name)
	}
	if v.sign == 0 {
		if _, ok := number(val); !ok {
			return "'" + strings.ReplaceAll(val, "'", "''") + "'", nil
		}
		return val, nil
	}
	a, ok1 := number(val)
	b, ok2 := number(v.digits)
	if !ok1 || !ok2 {
		return "", fmt.Errorf("$%s: %q is not a number", v.name, val)
	}
	if v.sign == '-' {
		b = -b
	}
	return strconv.FormatInt(a+b, 10), nil
}

// number is s as a whole number, as strconv.ParseInt reads it in base 10,
// without the error ParseInt allocates for a word that is not one: the
// finder compares and fills in words such as 'A' for every step it tries.
func number(s string) (int64, bool) {
	digits := s
	if digits != "" && (digits[0] == '+' || digits[0] == '-') {
		digits = digits[1:]
	}
	if digits == "" || strings.ContainsFunc(digits, func(c rune) bool { return c < '0' || c > '9' }) {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

func isNameByte(c byte) bool { return c >= 'a' && c <= 'z' || c == '_' || isDigit(c) }
func isDigit(c byte) bool    { return c >= '0' && c <= '9' }

// skipSpace is the first index from i on of s that is not a space, as
// RE2's \s reads one.
func skipSpace(s string, i int) int {
	for i < len(s) && strings.IndexByte("\t\n\f\r ", s[i]) >= 0 {
		i++
	}
	return i
}

// parsed holds each statement text read so far: the finder sends the same
// few texts in every state it tries, and a statement, once read, is never
// changed. It is shared by every run, on the web server's goroutines too,
// hence a sync.Map; it stops growing at parsedMax texts, which the
// lessons' statements, even with their variables filled in, stay far below.
var (
	parsed      sync.Map // string → *statement
	parsedCount atomic.Int64
)

const parsedMax = 4096

// parseCached is parseSQL, reading each text once. The statement is
// shared by every wait that runs it, and never changed: a wait copied for
// every state the finder tries copies a pointer, not the statement.
func parseCached(sql string) (*statement, error) {
	if st, ok := parsed.Load(sql); ok {
		return st.(*statement), nil
	}
	st, err := parseSQL(sql)
	if err != nil {
		return nil, err
	}
	st.text = textKey(sql)
	if parsedCount.Load() < parsedMax {
		if v, loaded := parsed.LoadOrStore(sql, &st); loaded {
			return v.(*statement), nil
		}
		parsedCount.Add(1)
	}
	return &st, nil
}

// textKey is a statement's text as a state's key writes it: its FNV-1a
// hash of 64 bits, worked out once per text rather than the text written
// and hashed for every state the finder tries. The texts a search meets
// are a handful, so two share a hash with a chance near 2^-60.
func textKey(sql string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(sql); i++ {
		h = (h ^ uint64(sql[i])) * 1099511628211
	}
	return h
}
