package redis

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/redis/lua"
)

// The keyspace a script reaches with redis.call: the node the client's
// EVAL went to, at the run's now, so that what a script does shows in the
// panels, the diagram and the verdict as a command's does. It plays the
// commands a lock script uses and a learner will try, with Redis 7's
// answers, errors included; any other is refused with a clear error.

// MaxKeys bounds the keys a script may leave on one node: the finder
// copies every node's keys for every state it tries. A lock needs one
// or two. (lua.MaxArg bounds a key and a value: 1 KiB.)
const MaxKeys = 64

// keyspace is node n of a run, as a script's redis.call sees it.
type keyspace struct {
	s *redisNodes
	r *demo.Run
	n *Node
}

// command is one command a script may call: its arity as Redis states it
// (N: exactly N words with the name; -N: at least N), and what it does.
type command struct {
	arity int
	run   func(k *keyspace, a []string) (lua.Reply, error)
}

var commands map[string]command

func init() {
	// Assigned here, as the commands refer to the table's own names for
	// their messages.
	commands = map[string]command{
		"get": {2, (*keyspace).get}, "set": {-3, (*keyspace).set}, "setnx": {3, (*keyspace).setnx},
		"del": {-2, (*keyspace).del}, "exists": {-2, (*keyspace).exists},
		"pexpire": {-3, (*keyspace).pexpire}, "expire": {-3, (*keyspace).expire},
		"pttl": {2, (*keyspace).pttl}, "ttl": {2, (*keyspace).ttl},
		"incr": {2, (*keyspace).incr}, "incrby": {3, (*keyspace).incrby},
		"hset": {-4, (*keyspace).hset}, "hget": {3, (*keyspace).hget}, "hdel": {-3, (*keyspace).hdel},
		"hexists": {3, (*keyspace).hexists}, "hincrby": {4, (*keyspace).hincrby},
		"publish": {3, func(*keyspace, []string) (lua.Reply, error) { return lua.Zero, nil }},
	}
}

// playedCommands names the commands, for a refusal's message.
const playedCommands = "GET, SET, SETNX, DEL, EXISTS, EXPIRE, PEXPIRE, TTL, PTTL, INCR, INCRBY, HSET, HGET, HDEL, HEXISTS, HINCRBY, PUBLISH"

// notFromScripts are commands Redis itself refuses in a script.
var notFromScripts = map[string]bool{"wait": true, "multi": true, "exec": true, "discard": true, "watch": true,
	"unwatch": true, "subscribe": true, "psubscribe": true, "eval": true, "evalsha": true, "script": true}

// Redis's error replies that the commands share.
var (
	wrongType = lua.Err("WRONGTYPE Operation against a key holding the wrong kind of value")
	notInt    = lua.Err("ERR value is not an integer or out of range")
	syntaxErr = lua.Err("ERR syntax error")
)

// Call runs one command for a script.
func (k *keyspace) Call(a []string) (lua.Reply, error) {
	name := strings.ToLower(a[0])
	c, ok := commands[name]
	switch {
	case notFromScripts[name]:
		return lua.Err("ERR This Redis command is not allowed from script"), nil
	case !ok:
		return lua.Reply{}, unplayed(fmt.Sprintf("this demo's Redis does not play %s from a script (it plays %s)", strings.ToUpper(a[0]), playedCommands),
			fmt.Sprintf("このデモの Redis はスクリプトからの %s を再現しない (再現するのは %s)", strings.ToUpper(a[0]), playedCommands))
	case c.arity > 0 && len(a) != c.arity || c.arity < 0 && len(a) < -c.arity:
		return lua.Err("ERR Wrong number of args calling Redis command from script"), nil
	}
	return c.run(k, a)
}

func unplayed(en, ja string) *lua.LimitError {
	return &lua.LimitError{Kind: lua.Unplayed, EN: en, JA: ja}
}

func (k *keyspace) now() int { return k.r.Now() }

// integer reads a number as Redis does: decimal digits, an optional
// minus, no spaces, no plus, no leading zeros.
func parseInteger(s string) (int64, bool) {
	if s == "" || s[0] == '+' || len(s) > 1 && s[0] == '0' || strings.HasPrefix(s, "-0") {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// room refuses a new key past MaxKeys.
func (k *keyspace) room(key string) error {
	if _, ok := k.n.lookup(key, k.now()); ok {
		return nil
	}
	live := 0
	for _, e := range k.n.keys {
		if !k.n.expired(e, k.now()) {
			live++
		}
	}
	if live >= MaxKeys {
		return &lua.LimitError{Kind: lua.Size,
			EN: fmt.Sprintf("a script may leave at most %d keys on a node of this model", MaxKeys),
			JA: fmt.Sprintf("このモデルでは、スクリプトが 1 台のノードに置けるキーは %d 個まで", MaxKeys)}
	}
	return nil
}

func (k *keyspace) get(a []string) (lua.Reply, error) {
	e, ok := k.n.lookup(a[1], k.now())
	switch {
	case !ok:
		return lua.Reply{}, nil
	case e.hash:
		return wrongType, nil
	}
	return lua.Str(e.value), nil
}

// set is SET key value [NX|XX] [EX s|PX ms].
func (k *keyspace) set(a []string) (lua.Reply, error) {
	var nx, xx bool
	ttl := 0
	for i := 3; i < len(a); i++ {
		switch opt := strings.ToLower(a[i]); opt {
		case "nx":
			nx = true
		case "xx":
			xx = true
		case "ex", "px":
			if ttl != 0 || i+1 >= len(a) {
				return syntaxErr, nil
			}
			i++
			n, ok := parseInteger(a[i])
			if !ok {
				return notInt, nil
			}
			if n <= 0 || n > maxTTL {
				return lua.Err("ERR invalid expire time in 'set' command"), nil
			}
			if ttl = int(n); opt == "ex" {
				ttl *= 1000
			}
		case "get", "keepttl", "exat", "pxat":
			return lua.Reply{}, unplayed("this demo's Redis does not play SET's "+strings.ToUpper(opt)+" option (it plays NX, XX, EX and PX)",
				"このデモの Redis は SET の "+strings.ToUpper(opt)+" を再現しない (再現するのは NX, XX, EX, PX)")
		default:
			return syntaxErr, nil
		}
	}
	if nx && xx {
		return syntaxErr, nil
	}
	_, exists := k.n.lookup(a[1], k.now())
	if nx && exists || xx && !exists {
		return lua.Reply{}, nil
	}
	if err := k.room(a[1]); err != nil {
		return lua.Reply{}, err
	}
	k.n.Set(a[1], a[2], false, ttl, k.now())
	return lua.OK, nil
}

// maxTTL is the longest TTL the model's clock plays: a billion seconds,
// 31 years; Redis itself takes up to where its clock would overflow.
const maxTTL = demo.MaxNumber * 1000

func (k *keyspace) setnx(a []string) (lua.Reply, error) {
	if _, exists := k.n.lookup(a[1], k.now()); exists {
		return lua.Zero, nil
	}
	if err := k.room(a[1]); err != nil {
		return lua.Reply{}, err
	}
	k.n.Set(a[1], a[2], false, 0, k.now())
	return lua.One, nil
}

func (k *keyspace) del(a []string) (lua.Reply, error) {
	var n int64
	for _, key := range a[1:] {
		if k.n.Del(key, k.now()) {
			n++
		}
	}
	return lua.Int(n), nil
}

func (k *keyspace) exists(a []string) (lua.Reply, error) {
	var n int64
	for _, key := range a[1:] {
		if _, ok := k.n.lookup(key, k.now()); ok {
			n++
		}
	}
	return lua.Int(n), nil
}

func (k *keyspace) pexpire(a []string) (lua.Reply, error) { return k.expireBy(a, 1, "pexpire") }
func (k *keyspace) expire(a []string) (lua.Reply, error)  { return k.expireBy(a, 1000, "expire") }

// expireBy is PEXPIRE (unit 1) or EXPIRE (unit 1000): a TTL of 0 or less
// deletes the key, as Redis does.
func (k *keyspace) expireBy(a []string, unit int64, name string) (lua.Reply, error) {
	if len(a) > 3 {
		return lua.Reply{}, unplayed("this demo's Redis does not play "+strings.ToUpper(name)+"'s NX, XX, GT and LT options",
			"このデモの Redis は "+strings.ToUpper(name)+" の NX, XX, GT, LT を再現しない")
	}
	n, ok := parseInteger(a[2])
	if !ok {
		return notInt, nil
	}
	if n > maxTTL/unit {
		return lua.Err("ERR invalid expire time in '" + name + "' command"), nil
	}
	if _, exists := k.n.lookup(a[1], k.now()); !exists {
		return lua.Zero, nil
	}
	if n <= 0 {
		k.n.Del(a[1], k.now())
		return lua.One, nil
	}
	k.n.Expire(a[1], int(n*unit), k.now())
	return lua.One, nil
}

func (k *keyspace) pttl(a []string) (lua.Reply, error) { return k.ttlIn(a[1], 1), nil }
func (k *keyspace) ttl(a []string) (lua.Reply, error)  { return k.ttlIn(a[1], 1000), nil }

// ttlIn is PTTL or TTL: -2 without the key, -1 without a TTL, the time
// left (TTL rounds to the nearest second, as Redis does).
func (k *keyspace) ttlIn(key string, unit int) lua.Reply {
	left, ok := k.n.TTL(key, k.now())
	switch {
	case !ok:
		return lua.Int(-2)
	case left < 0:
		return lua.Int(-1)
	}
	return lua.Int(int64((left + unit/2) / unit))
}

func (k *keyspace) incr(a []string) (lua.Reply, error) { return k.incrBy(a[1], 1) }

func (k *keyspace) incrby(a []string) (lua.Reply, error) {
	by, ok := parseInteger(a[2])
	if !ok {
		return notInt, nil
	}
	return k.incrBy(a[1], by)
}

// incrBy adds by to the number key holds (none counts as 0), keeping its
// TTL; the key is then a counter, as INCR's.
func (k *keyspace) incrBy(key string, by int64) (lua.Reply, error) {
	now := k.now()
	e, found := k.n.lookup(key, now)
	if !found {
		if err := k.room(key); err != nil {
			return lua.Reply{}, err
		}
		e = entry{key: key, value: "0", setAt: now, wallAt: now + k.n.Offset}
	}
	if e.hash {
		return wrongType, nil
	}
	v, ok := parseInteger(e.value)
	if !ok {
		return notInt, nil
	}
	if by > 0 && v > math.MaxInt64-by || by < 0 && v < math.MinInt64-by {
		return lua.Err("ERR increment or decrement would overflow"), nil
	}
	e.value, e.counter = strconv.FormatInt(v+by, 10), true
	k.n.put(e)
	return lua.Int(v + by), nil
}

// A hash in this model is Redisson's lock: one field, holding a number
// (the hold count). The hash commands play that much of a hash, and refuse
// a second field or a value that is no number with a clear error.

func oneField(field string) *lua.LimitError {
	return unplayed(fmt.Sprintf("this demo's Redis keeps a hash as Redisson's lock: one field holding a number; %q would be another", field),
		fmt.Sprintf("このデモの Redis のハッシュは Redisson のロックの形 (数を持つフィールド 1 つ) だけを再現する。%q は 2 つ目のフィールドになる", field))
}

// hash is key's hash for a hash command: found false when there is none;
// a reply (WRONGTYPE) when key holds a string.
func (k *keyspace) hash(key string) (e entry, found bool, wrong bool) {
	e, found = k.n.lookup(key, k.now())
	return e, found, found && !e.hash
}

func (k *keyspace) hset(a []string) (lua.Reply, error) {
	if len(a)%2 != 0 {
		return lua.Err("ERR wrong number of arguments for 'hset' command"), nil
	}
	e, found, wrong := k.hash(a[1])
	if wrong {
		return wrongType, nil
	}
	added := int64(0)
	for i := 2; i < len(a); i += 2 {
		n, ok := parseInteger(a[i+1])
		if !ok {
			return lua.Reply{}, unplayed(fmt.Sprintf("this demo's Redis keeps a hash as Redisson's lock: one field holding a number, not %q", a[i+1]),
				fmt.Sprintf("このデモの Redis のハッシュは Redisson のロックの形 (数を持つフィールド 1 つ) だけを再現する。%q は数ではない", a[i+1]))
		}
		if found && e.value != a[i] {
			return lua.Reply{}, oneField(a[i])
		}
		if !found {
			if err := k.room(a[1]); err != nil {
				return lua.Reply{}, err
			}
			now := k.now()
			e, found, added = entry{key: a[1], value: a[i], hash: true, setAt: now, wallAt: now + k.n.Offset}, true, 1
		}
		e.count = int(n)
	}
	k.n.put(e)
	return lua.Int(added), nil
}

func (k *keyspace) hget(a []string) (lua.Reply, error) {
	e, found, wrong := k.hash(a[1])
	switch {
	case wrong:
		return wrongType, nil
	case !found || e.value != a[2]:
		return lua.Reply{}, nil
	}
	return lua.Str(strconv.Itoa(e.count)), nil
}

func (k *keyspace) hexists(a []string) (lua.Reply, error) {
	e, found, wrong := k.hash(a[1])
	if wrong {
		return wrongType, nil
	}
	if found && e.value == a[2] {
		return lua.One, nil
	}
	return lua.Zero, nil
}

// hdel removes the field, and with it the hash, which it leaves empty.
func (k *keyspace) hdel(a []string) (lua.Reply, error) {
	e, found, wrong := k.hash(a[1])
	if wrong {
		return wrongType, nil
	}
	for _, f := range a[2:] {
		if found && e.value == f {
			k.n.Del(a[1], k.now())
			return lua.One, nil
		}
	}
	return lua.Zero, nil
}

func (k *keyspace) hincrby(a []string) (lua.Reply, error) {
	by, ok := parseInteger(a[3])
	if !ok {
		return notInt, nil
	}
	e, found, wrong := k.hash(a[1])
	switch {
	case wrong:
		return wrongType, nil
	case found && e.value != a[2]:
		return lua.Reply{}, oneField(a[2])
	case !found:
		if err := k.room(a[1]); err != nil {
			return lua.Reply{}, err
		}
		now := k.now()
		e = entry{key: a[1], value: a[2], hash: true, setAt: now, wallAt: now + k.n.Offset}
	}
	c := int64(e.count)
	if by > 0 && c > math.MaxInt64-by || by < 0 && c < math.MinInt64-by {
		return lua.Err("ERR increment or decrement would overflow"), nil
	}
	e.count = int(c + by)
	k.n.put(e)
	return lua.Int(c + by), nil
}
