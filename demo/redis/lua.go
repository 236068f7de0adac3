package redis

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/redis/lua"
)

// Eval sends one of the scenario's scripts: WHO eval NAME KEY [ARG ...].
const Eval demo.Verb = "eval"

// A script's role says what its client believes of the answer, as the
// texts' clients do.
const (
	// RoleRelease: the client lets go of the lock, whatever the answer.
	RoleRelease = "release"
	// RoleRenew: answered 1, the client believes its lease now runs the
	// TTL it asked for, from now; answered anything else, it learns it
	// lost the lock.
	RoleRenew = "renew"
	// RoleAcquire: answered OK (or 1), the client holds the lock, with
	// the random value it drew for the attempt, for the TTL it asked for.
	RoleAcquire = "acquire"
	// RoleToken: answered a number, the client takes it as its fencing
	// token.
	RoleToken = "token"
)

// Roles lists the roles a script may have.
var Roles = []string{RoleRelease, RoleRenew, RoleAcquire, RoleToken}

// ValueArg is the ARG that stands for the client's random lock value (a
// fresh one for an acquire script, as every SET draws one).
const ValueArg = "$value"

// MaxEvalArgs bounds the ARGs of an eval action.
const MaxEvalArgs = 8

// EvalArgs: the script's name, KEYS[1], and ARGV as written.
type EvalArgs struct {
	Script string
	Key    string
	Args   []string
}

func parseEval(w []string) (any, error) {
	if len(w) < 2 {
		return nil, want("NAME KEY [ARG...]")
	}
	if len(w)-2 > MaxEvalArgs {
		return nil, fmt.Errorf("an eval takes at most %d ARGs", MaxEvalArgs)
	}
	for _, a := range w[2:] {
		if strings.HasPrefix(a, "$") && a != ValueArg {
			return nil, fmt.Errorf("ARG %q: the one placeholder is %s, the client's lock value", a, ValueArg)
		}
	}
	return EvalArgs{Script: w[0], Key: w[1], Args: slices.Clone(w[2:])}, nil
}

// checkScripts holds each of the scenario's scripts to a role the family
// knows, and compiles it: a script that does not compile stops the
// scenario from loading, on its line (the error names it).
func checkScripts(sc *demo.Scenario) error {
	for _, s := range sc.Scripts {
		if !slices.Contains(Roles, s.Role) {
			return &scriptError{script: s.Name, msg: fmt.Sprintf("script %q: role %q; want one of %s", s.Name, s.Role, strings.Join(Roles, ", "))}
		}
		if _, err := lua.Compiled(s.Name, s.Lua); err != nil {
			return err
		}
	}
	return nil
}

// scriptError is a mistake in one of the scenario's scripts as a whole,
// which a loader reports on the script's line.
type scriptError struct{ script, msg string }

func (e *scriptError) Error() string             { return e.msg }
func (e *scriptError) ScriptLine() (string, int) { return e.script, 0 }

// scripts is what a store keeps of its scenario's scripts: each compiled,
// found by name, and the VM that runs them. Every copy of a store shares
// it, so that a search runs one Lua state and counts one budget.
type scripts struct {
	vm       *lua.VM
	compiled map[string]*lua.Script
}

func newScripts() *scripts {
	return &scripts{vm: lua.NewVMWithin(searchInstructions), compiled: map[string]*lua.Script{}}
}

// searchInstructions is what a run's scripts, and a search's, may run in
// all: the sandbox's bound, which a test lowers to see a search spend it.
var searchInstructions int64 = lua.SearchInstructions

// script returns the scenario's script called name, compiled.
func (s *redisNodes) script(a demo.Action, name string) (*lua.Script, string, error) {
	def, ok := s.sc.ScriptNamed(name)
	if !ok {
		var names []string
		for _, d := range s.sc.Scripts {
			names = append(names, d.Name)
		}
		return nil, "", &demo.ActionError{Action: a,
			Msg: fmt.Sprintf("the scenario has no script %q (it has: %s)", name, strings.Join(names, ", ")),
			JA:  fmt.Sprintf("このシナリオにスクリプト %q はない (あるのは %s)", name, strings.Join(names, ", "))}
	}
	if c, ok := s.lua.compiled[name]; ok {
		return c, def.Role, nil
	}
	c, err := lua.Compiled(def.Name, def.Lua)
	var ce *lua.CompileError
	if errors.As(err, &ce) {
		ja, en := ce.Text()
		return nil, "", &demo.ActionError{Action: a, Msg: en, JA: ja}
	}
	s.lua.compiled[name] = c
	return c, def.Role, nil
}

// eval plays a client's EVAL: the script runs on the primary, against its
// keys at the run's now, and the client believes what its role says of
// the answer. A script the sandbox stops (a bound, a command the model
// does not play) is an ActionError, and changes nothing.
func (s *redisNodes) eval(r *demo.Run, c *demo.Client, a demo.Action) error {
	x := a.Args.(EvalArgs)
	script, role, err := s.script(a, x.Script)
	if err != nil {
		return err
	}
	n := s.primary()
	e := EvalCommand{Head: r.Head(c.Name, n.Name), Script: x.Script, Role: role, Text: script.Text, Key: x.Key, LeaseArg: -1}
	k := s.of(c)
	tries := k.tries
	e.Value = c.Value
	if role == RoleAcquire {
		k.tries++
		e.Value = lockValue(s.sc.RandomSeed(), c.Name, k.tries)
	}
	for i, w := range x.Args {
		if w == ValueArg {
			w = e.Value
		} else if _, err := strconv.Atoi(w); err == nil {
			e.LeaseArg = i
		}
		e.Argv = append(e.Argv, w)
	}
	if (role == RoleRenew || role == RoleAcquire) && e.LeaseArg < 0 {
		k.tries = tries
		return &demo.ActionError{Action: a,
			Msg: fmt.Sprintf("a %s script's eval names the TTL its client asks for, in ms, as a number among its ARGs", role),
			JA:  fmt.Sprintf("%s の役割のスクリプトを呼ぶ eval は、クライアントが求める TTL (ms) を ARG の中の数で示す", role)}
	}
	if !n.Up {
		r.Log(NoAnswer{Head: e.Head, Sent: e})
		return nil
	}
	before, err := s.run(r, n, &e, script)
	if err != nil {
		k.tries = tries
		var le *lua.LimitError
		if errors.As(err, &le) {
			ja, en := le.Text()
			ae := &demo.ActionError{Action: a, Msg: en, JA: ja}
			if le.Exhausted() {
				return spent{ae}
			}
			return ae
		}
		return err
	}
	s.believe(r, c, &e)
	if r.Logs() { // a frame tells what the script changed, whose keys they are now
		e.Changes = s.changes(r, n, before)
	}
	r.Log(e)
	return nil
}

// spent is a refusal because the run's or the search's scripts have run
// all they may: an ActionError for the page, which a search also reads as
// its end (Exhausted), since every later script would be refused alike.
type spent struct{ *demo.ActionError }

func (e spent) Unwrap() error { return e.ActionError }
func (spent) Exhausted() bool { return true }

// run runs the script on node n and records its reply; before is the
// node's keys as they were. A script the sandbox stops leaves the node as
// it was.
func (s *redisNodes) run(r *demo.Run, n *Node, e *EvalCommand, script *lua.Script) (before []entry, err error) {
	keys, backlog := len(n.keys), len(n.backlog)
	s.undo = append(append(s.undo[:0], n.keys...), n.backlog...)
	reply, err := s.lua.vm.Run(script, []string{e.Key}, e.Argv, &keyspace{s: s, r: r, n: n})
	if err != nil {
		n.keys = append(n.keys[:0], s.undo[:keys]...)
		n.backlog = append(n.backlog[:0], s.undo[keys:keys+backlog]...)
		return nil, err
	}
	e.Answer = reply
	return s.undo[:keys], nil
}

// believe is what the client makes of the answer, as its role says.
func (s *redisNodes) believe(r *demo.Run, c *demo.Client, e *EvalCommand) {
	lease := 0
	if e.LeaseArg >= 0 {
		lease, _ = strconv.Atoi(e.Argv[e.LeaseArg])
	}
	until := r.Now() + lease
	switch e.Role {
	case RoleRelease:
		s.letGo(r, c)
		e.Outcome = Released
	case RoleRenew:
		switch {
		case !c.Holds:
			e.Outcome = NotHeld
		case e.Answer.Kind == lua.Integer && e.Answer.Int == 1:
			value, _ := s.primary().Get(e.Key, r.Now())
			s.renewed(r, c, e.Key, value, until)
			e.Outcome, e.Until = Renewed, until
		default:
			r.LetGo(c)
			e.Outcome = Lost
		}
	case RoleAcquire:
		if e.Answer.Kind == lua.Status && e.Answer.Str == "OK" || e.Answer.Kind == lua.Integer && e.Answer.Int == 1 {
			e.Outcome, e.Until = Acquired, s.taken(r, c, e.Value, lease)
		} else {
			e.Outcome = NotAcquired
		}
	case RoleToken:
		if e.Answer.Kind == lua.Integer {
			c.Token = e.Answer.Int
			e.Outcome = GotToken
		} else {
			e.Outcome = NoToken
		}
	}
}

// changes is what the script did to node n's keys, which were before.
func (s *redisNodes) changes(r *demo.Run, n *Node, before []entry) []Change {
	now := r.Now()
	var out []Change
	for _, b := range before {
		if n.expired(b, now) {
			continue
		}
		ch := Change{Key: b.key, Before: s.keyState(r, n, b)}
		if i := n.find(b.key); i >= 0 {
			ch.After, ch.Exists = s.keyState(r, n, n.keys[i]), true
		}
		ch.Existed = true
		if !ch.Exists || ch.Before != ch.After || b.setAt != n.keys[n.find(b.key)].setAt {
			out = append(out, ch)
		}
	}
	for _, e := range n.keys {
		if !slices.ContainsFunc(before, func(b entry) bool { return b.key == e.key && !n.expired(b, now) }) {
			out = append(out, Change{Key: e.key, After: s.keyState(r, n, e), Exists: true})
		}
	}
	return out
}

// keyState is entry e of node n as a panel shows it.
func (s *redisNodes) keyState(r *demo.Run, n *Node, e entry) KeyState {
	ks := KeyState{Key: e.key, Value: e.value, TTL: -1, Count: e.count, Counter: e.counter, Hash: e.hash}
	if e.ttl != 0 {
		ks.TTL = e.ttl - (r.Now() + n.Offset - e.wallAt)
	}
	if !e.counter {
		ks.Owner = s.owner(r, e.value)
	}
	return ks
}
