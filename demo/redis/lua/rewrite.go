package lua

import (
	"strconv"

	"github.com/yuin/gopher-lua/ast"
)

// The sandbox's own functions that a rewritten script calls. Their names
// cannot be written as a Lua name, so a script cannot shadow them.
const (
	fnConcat = "(concat)" // a .. b, charged and bounded
	fnSet    = "(set)"    // t[k] = v, each new slot charged
	fnTable  = "(table)"  // a table constructor, its slots charged
)

// rewrite turns what the VM would grow unseen into calls of the sandbox's
// checked functions: every a .. b (gopher-lua's VM cannot be hooked on
// concatenation), every assignment to a table's field, and every table
// constructor. It refuses what Redis's Lua 5.1 does not take.
func rewrite(chunk []ast.Stmt) *CompileError {
	w := &rewriter{}
	w.stmts(chunk)
	return w.err
}

type rewriter struct {
	err    *CompileError
	temp   int  // hidden locals made so far, for unique names
	vararg bool // the function being read takes ...; Redis's script body does not
}

func (w *rewriter) stmts(ss []ast.Stmt) {
	for i, s := range ss {
		ss[i] = w.stmt(s)
	}
}

func (w *rewriter) stmt(s ast.Stmt) ast.Stmt {
	switch s := s.(type) {
	case *ast.AssignStmt:
		w.exprs(s.Lhs)
		w.exprs(s.Rhs)
		return w.assign(s)
	case *ast.LocalAssignStmt:
		w.exprs(s.Exprs)
	case *ast.FuncCallStmt:
		s.Expr = w.expr(s.Expr)
	case *ast.DoBlockStmt:
		w.stmts(s.Stmts)
	case *ast.WhileStmt:
		s.Condition = w.expr(s.Condition)
		w.stmts(s.Stmts)
	case *ast.RepeatStmt:
		w.stmts(s.Stmts)
		s.Condition = w.expr(s.Condition)
	case *ast.IfStmt:
		s.Condition = w.expr(s.Condition)
		w.stmts(s.Then)
		w.stmts(s.Else)
	case *ast.NumberForStmt:
		s.Init, s.Limit = w.expr(s.Init), w.expr(s.Limit)
		if s.Step != nil {
			s.Step = w.expr(s.Step)
		}
		w.stmts(s.Stmts)
	case *ast.GenericForStmt:
		w.exprs(s.Exprs)
		w.stmts(s.Stmts)
	case *ast.FuncDefStmt:
		if s.Name.Func != nil {
			s.Name.Func = w.expr(s.Name.Func)
		}
		if s.Name.Receiver != nil {
			s.Name.Receiver = w.expr(s.Name.Receiver)
		}
		w.function(s.Func)
	case *ast.ReturnStmt:
		w.exprs(s.Exprs)
	case *ast.GotoStmt, *ast.LabelStmt:
		w.refuse(s.Line(), "goto and labels are Lua 5.2; Redis runs Lua 5.1", "goto とラベルは Lua 5.2 の機能で、Redis の Lua 5.1 にはない")
	}
	return s
}

func (w *rewriter) refuse(line int, en, ja string) {
	if w.err == nil {
		w.err = &CompileError{Line: line, EN: en, JA: ja}
	}
}

func (w *rewriter) exprs(es []ast.Expr) {
	for i, e := range es {
		es[i] = w.expr(e)
	}
}

func (w *rewriter) function(f *ast.FunctionExpr) {
	outer := w.vararg
	w.vararg = f.ParList.HasVargs
	w.stmts(f.Stmts)
	w.vararg = outer
}

func (w *rewriter) expr(e ast.Expr) ast.Expr {
	switch e := e.(type) {
	case *ast.StringConcatOpExpr:
		return call(e.Line(), fnConcat, w.expr(e.Lhs), w.expr(e.Rhs))
	case *ast.TableExpr:
		for _, f := range e.Fields {
			if f.Key != nil {
				f.Key = w.expr(f.Key)
			}
			f.Value = w.expr(f.Value)
		}
		return call(e.Line(), fnTable, e)
	case *ast.AttrGetExpr:
		e.Object, e.Key = w.expr(e.Object), w.expr(e.Key)
	case *ast.FuncCallExpr:
		if e.Func != nil {
			e.Func = w.expr(e.Func)
		}
		if e.Receiver != nil {
			e.Receiver = w.expr(e.Receiver)
		}
		w.exprs(e.Args)
	case *ast.LogicalOpExpr:
		e.Lhs, e.Rhs = w.expr(e.Lhs), w.expr(e.Rhs)
	case *ast.RelationalOpExpr:
		e.Lhs, e.Rhs = w.expr(e.Lhs), w.expr(e.Rhs)
	case *ast.ArithmeticOpExpr:
		e.Lhs, e.Rhs = w.expr(e.Lhs), w.expr(e.Rhs)
	case *ast.UnaryMinusOpExpr:
		e.Expr = w.expr(e.Expr)
	case *ast.UnaryNotOpExpr:
		e.Expr = w.expr(e.Expr)
	case *ast.UnaryLenOpExpr:
		e.Expr = w.expr(e.Expr)
	case *ast.FunctionExpr:
		w.function(e)
	case *ast.Comma3Expr:
		if !w.vararg {
			// Redis wraps a script's body in a function of no arguments.
			w.refuse(e.Line(), "cannot use '...' outside a vararg function", "可変長引数の関数の外では '...' を使えない")
		}
	}
	return e
}

// assign rewrites an assignment with a table's field among its targets.
// One target is one call, t[k] = v becoming (set)(t, k, v), which keeps
// Lua's order of evaluation. Several are evaluated into hidden locals
// first, objects and keys, then values, then assigned, as Lua does:
//
//	do local o1, k1, v1, v2 = t, k, a, b; (set)(o1, k1, v1); x = v2 end
func (w *rewriter) assign(s *ast.AssignStmt) ast.Stmt {
	fields := false
	for _, l := range s.Lhs {
		_, ok := l.(*ast.AttrGetExpr)
		fields = fields || ok
	}
	if !fields {
		return s
	}
	line := s.Line()
	if len(s.Lhs) == 1 && len(s.Rhs) == 1 {
		t := s.Lhs[0].(*ast.AttrGetExpr)
		return callStmt(line, fnSet, t.Object, t.Key, s.Rhs[0])
	}
	var names []string
	var exprs []ast.Expr
	hidden := func(e ast.Expr) ast.Expr {
		w.temp++
		n := "(t" + strconv.Itoa(w.temp) + ")"
		names, exprs = append(names, n), append(exprs, e)
		id := &ast.IdentExpr{Value: n}
		id.SetLine(line)
		return id
	}
	type target struct{ obj, key ast.Expr }
	targets := make([]target, len(s.Lhs))
	for i, l := range s.Lhs {
		if t, ok := l.(*ast.AttrGetExpr); ok {
			targets[i] = target{hidden(t.Object), hidden(t.Key)}
		}
	}
	// The values: one hidden local each, the last taking what a call or
	// ... adjusts to, as a multiple assignment does.
	first := len(names)
	for range s.Lhs {
		w.temp++
		names = append(names, "(t"+strconv.Itoa(w.temp)+")")
	}
	local := &ast.LocalAssignStmt{Names: names, Exprs: append(exprs, s.Rhs...)}
	local.SetLine(line)
	block := &ast.DoBlockStmt{Stmts: []ast.Stmt{local}}
	block.SetLine(line)
	for i, l := range s.Lhs {
		v := &ast.IdentExpr{Value: names[first+i]}
		v.SetLine(line)
		if t := targets[i]; t.obj != nil {
			block.Stmts = append(block.Stmts, callStmt(line, fnSet, t.obj, t.key, v))
			continue
		}
		a := &ast.AssignStmt{Lhs: []ast.Expr{l}, Rhs: []ast.Expr{v}}
		a.SetLine(line)
		block.Stmts = append(block.Stmts, a)
	}
	return block
}

// call is a call of one of the sandbox's functions, on the line of what
// it replaces, so that an error in it names that line.
func call(line int, fn string, args ...ast.Expr) *ast.FuncCallExpr {
	f := &ast.IdentExpr{Value: fn}
	f.SetLine(line)
	c := &ast.FuncCallExpr{Func: f, Args: args}
	c.SetLine(line)
	c.SetLastLine(line)
	return c
}

func callStmt(line int, fn string, args ...ast.Expr) ast.Stmt {
	s := &ast.FuncCallStmt{Expr: call(line, fn, args...)}
	s.SetLine(line)
	return s
}
