package redis

import (
	"slices"
	"strconv"
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// The scripts a careful Redis client sends, as the Redis documentation gives
// them: delete, or renew, the lock only while it still holds our value.
const (
	UnlockScriptText = `if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end`
	RenewScriptText  = `if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("pexpire",KEYS[1],ARGV[2]) else return 0 end`
)

// Redisson's three lock scripts, written for this demo: they send the same
// commands Redisson's scripts send, in the same order, with the same KEYS and
// ARGV, so real Redis answers them as it answers Redisson. (Redisson sends
// EVALSHA once its script cache is on, and may follow a script with WAIT on a
// replicated setup; neither changes what the script does on one node.)
//
// Lock: KEYS[1] the lock; ARGV[1] the lease in ms, ARGV[2] the holder's field.
// Renew: the same KEYS and ARGV. Unlock: KEYS[1] the lock, KEYS[2] its
// channel, KEYS[3] the call's latch; ARGV[1] the unlock message (0), ARGV[2]
// the lease, ARGV[3] the field, ARGV[4] "publish", ARGV[5] the latch's TTL.
const (
	RedissonLockScript = `if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then ` +
		`redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil end; ` +
		`return redis.call('pttl', KEYS[1])`
	RedissonRenewScript = `if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then return 0 end; ` +
		`redis.call('pexpire', KEYS[1], ARGV[1]); return 1`
	RedissonUnlockScript = `local done = redis.call('get', KEYS[3]); if done then return tonumber(done) end; ` +
		`if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then return nil end; ` +
		`local reply = 0; if redis.call('hincrby', KEYS[1], ARGV[3], -1) > 0 then redis.call('pexpire', KEYS[1], ARGV[2]) ` +
		`else redis.call('del', KEYS[1]); redis.call(ARGV[4], KEYS[2], ARGV[1]); reply = 1 end; ` +
		`redis.call('set', KEYS[3], reply, 'px', ARGV[5]); return reply`

	// How the wire shows each script: what it does, in a line.
	redissonLockWire   = "‹lock: HINCRBY+PEXPIRE if free or mine, else PTTL›"
	redissonRenewWire  = "‹renew: PEXPIRE if mine, 1, else 0›"
	redissonUnlockWire = "‹unlock: HINCRBY -1, at 0 DEL+PUBLISH; nil if not mine›"

	// RedissonLatchTTL is how long the unlock latch lives: Redisson's
	// (timeout + retryInterval) x retryAttempts with the defaults
	// (3000 + 1500) x 3 ms.
	RedissonLatchTTL = 13500
)

// RedissonChannel is the channel Redisson publishes a lock's release on: the
// name in braces, so that it hashes to the lock's cluster slot.
func RedissonChannel(key string) string {
	if strings.Contains(key, "{") {
		return "redisson_lock__channel:" + key
	}
	return "redisson_lock__channel:{" + key + "}"
}

// RedissonLatch is the key an unlock call keeps its answer in, so that a
// retried call answers the same.
func RedissonLatch(key, request string) string {
	if strings.Contains(key, "{") {
		return "redisson_unlock_latch:" + key + ":" + request
	}
	return "redisson_unlock_latch:{" + key + "}:" + request
}

// Command is a Redis command a client sent and the node answered.
//
// Args is the command word for word as a Redis client sends it, with the
// full random value: ["SET", "lock:row-42", "<40 hex digits>", "NX", "PX",
// "30000"], or ["EVAL", "<script>", "1", "lock:row-42", "<value>"]. Send it
// as it stands (go-redis: client.Do(ctx, args...)) and the real server
// answers what Reply says, as redis-cli prints it: "OK", "(nil)",
// "(integer) 1". Wire shortens the value for the screen; Args never does.
type Command interface {
	demo.Event
	Args() []string
	Reply() string
}

// shortLatch cuts the request id at the end of a latch's name.
func shortLatch(latch string) string {
	if i := strings.LastIndexByte(latch, ':'); i >= 0 && len(latch)-i > 9 {
		return latch[:i+9] + "…"
	}
	return latch
}

// redissonWire spells a Redisson script call for the screen: the script as
// its one-line rendering, the field and the latch cut short, an empty word
// as "".
func redissonWire(args []string, rendering, field string) string {
	words := slices.Clone(args)
	words[1] = rendering
	for i, w := range words[2:] {
		switch {
		case w == "":
			words[i+2] = `""`
		case w == field:
			words[i+2] = demo.Short(w)
		case strings.HasPrefix(w, "redisson_unlock_latch:"):
			words[i+2] = shortLatch(w)
		}
	}
	return strings.Join(words, " ")
}

// wire spells args for the screen: the random value shortened, a script in
// quotes, an empty word as "", as one types it into redis-cli.
func wire(args []string, value string) string {
	words := make([]string, len(args))
	for i, a := range args {
		switch {
		case i == 1 && args[0] == "EVAL":
			words[i] = "'" + a + "'"
		case a == "":
			words[i] = `""`
		case a == value && i > 1:
			words[i] = demo.Short(a)
		default:
			words[i] = a
		}
	}
	return strings.Join(words, " ")
}

func integer(ok bool) string {
	if ok {
		return "(integer) 1"
	}
	return "(integer) 0"
}

// SetCommand is SET key value [NX] [PX ms], sent on its own or as one node's
// part of a Redlock acquisition (Redlock). Expiry is when the key runs out
// if it was set (-1: never).
type SetCommand struct {
	demo.Head
	Key, Value string
	NX         bool
	PX         int // 0: no PX
	Redlock    bool
	OK         bool
	Expiry     int
}

func (e SetCommand) Kind() demo.Kind { return demo.Pick(e.Redlock, NodeTry, SetCmd) }

func (e SetCommand) Args() []string {
	args := []string{"SET", e.Key, e.Value}
	if e.NX {
		args = append(args, "NX")
	}
	if e.PX > 0 {
		args = append(args, "PX", strconv.Itoa(e.PX))
	}
	return args
}

func (e SetCommand) Reply() string {
	if e.OK {
		return "OK"
	}
	return "(nil)"
}

func (e SetCommand) Wire() (string, string) { return wire(e.Args(), e.Value), e.Reply() }

// SetNXCommand is the old SETNX key value, which cannot carry a TTL: the key
// never expires unless an EXPIRE follows.
type SetNXCommand struct {
	demo.Head
	Key, Value string
	OK         bool
}

func (SetNXCommand) Kind() demo.Kind          { return SetCmd }
func (e SetNXCommand) Args() []string         { return []string{"SETNX", e.Key, e.Value} }
func (e SetNXCommand) Reply() string          { return integer(e.OK) }
func (e SetNXCommand) Wire() (string, string) { return wire(e.Args(), e.Value), e.Reply() }

// ExpireCommand is EXPIRE key seconds. It sets the TTL of whatever the key
// holds: Owner is the client whose value it held when it landed, which need
// not be the sender's.
type ExpireCommand struct {
	demo.Head
	Key     string
	Seconds int
	OK      bool
	Owner   string
}

func (ExpireCommand) Kind() demo.Kind { return ExpireCmd }
func (e ExpireCommand) Args() []string {
	return []string{"EXPIRE", e.Key, strconv.Itoa(e.Seconds)}
}
func (e ExpireCommand) Reply() string          { return integer(e.OK) }
func (e ExpireCommand) Wire() (string, string) { return wire(e.Args(), ""), e.Reply() }

// IncrCommand is INCR key: the counter a client takes its fencing token
// from, the number it answers. Err: the key held no number, and Redis
// answered an error.
type IncrCommand struct {
	demo.Head
	Key   string
	Value int64
	Err   bool
}

func (IncrCommand) Kind() demo.Kind  { return IncrCmd }
func (e IncrCommand) Args() []string { return []string{"INCR", e.Key} }
func (e IncrCommand) Reply() string {
	if e.Err {
		return "(error) ERR value is not an integer or out of range"
	}
	return "(integer) " + strconv.FormatInt(e.Value, 10)
}
func (e IncrCommand) Wire() (string, string) { return wire(e.Args(), ""), e.Reply() }

// DelCommand is a plain DEL key, whoever's lock it is.
type DelCommand struct {
	demo.Head
	Key string
	OK  bool
}

func (DelCommand) Kind() demo.Kind          { return DelCmd }
func (e DelCommand) Args() []string         { return []string{"DEL", e.Key} }
func (e DelCommand) Reply() string          { return integer(e.OK) }
func (e DelCommand) Wire() (string, string) { return wire(e.Args(), ""), e.Reply() }

// UnlockScript is the compare-and-delete script: EVAL script 1 key value.
type UnlockScript struct {
	demo.Head
	Key, Value string
	OK         bool
}

func (UnlockScript) Kind() demo.Kind { return UnlockCmd }
func (e UnlockScript) Args() []string {
	return []string{"EVAL", UnlockScriptText, "1", e.Key, e.Value}
}
func (e UnlockScript) Reply() string          { return integer(e.OK) }
func (e UnlockScript) Wire() (string, string) { return wire(e.Args(), e.Value), e.Reply() }

// RenewScript is the watchdog's compare-and-renew script: EVAL script 1 key
// value ms. Expiry is the new end of the key when it was renewed.
type RenewScript struct {
	demo.Head
	Key, Value string
	PX         int
	OK         bool
	Expiry     int
}

func (RenewScript) Kind() demo.Kind { return ExtendCmd }
func (e RenewScript) Args() []string {
	return []string{"EVAL", RenewScriptText, "1", e.Key, e.Value, strconv.Itoa(e.PX)}
}
func (e RenewScript) Reply() string          { return integer(e.OK) }
func (e RenewScript) Wire() (string, string) { return wire(e.Args(), e.Value), e.Reply() }

// WaitCommand is WAIT numreplicas timeout; Acked is how many replicas
// acknowledged the client's writes.
type WaitCommand struct {
	demo.Head
	Replicas int
	Timeout  int // ms; 0 blocks until enough replicas acknowledge
	Acked    int
}

func (WaitCommand) Kind() demo.Kind { return WaitCmd }
func (e WaitCommand) Args() []string {
	return []string{"WAIT", strconv.Itoa(e.Replicas), strconv.Itoa(e.Timeout)}
}
func (e WaitCommand) Reply() string          { return "(integer) " + strconv.Itoa(e.Acked) }
func (e WaitCommand) Wire() (string, string) { return wire(e.Args(), ""), e.Reply() }

// RedissonLock is Redisson's lock script, sent by lock() or, with Try, by
// tryLock(): EVAL script 1 key lease field. It answers nil when the client
// got (or re-entered) the lock, and otherwise the ms the holder has Left.
type RedissonLock struct {
	demo.Head
	Key, Field string
	Lease      int
	Try        bool
	OK         bool
	Left       int
	Expiry     int // when the key runs out, if the client got it
}

func (RedissonLock) Kind() demo.Kind { return RLockCmd }
func (e RedissonLock) Args() []string {
	return []string{"EVAL", RedissonLockScript, "1", e.Key, strconv.Itoa(e.Lease), e.Field}
}
func (e RedissonLock) Reply() string {
	if e.OK {
		return "(nil)"
	}
	return "(integer) " + strconv.Itoa(e.Left)
}
func (e RedissonLock) Wire() (string, string) {
	return redissonWire(e.Args(), redissonLockWire, e.Field), e.Reply()
}

// RedissonRenew is the watchdog's renewal script: EVAL script 1 key lease
// field, answered 1 when the field was there and the TTL is set back.
type RedissonRenew struct {
	demo.Head
	Key, Field string
	Lease      int
	OK         bool
	Expiry     int
}

func (RedissonRenew) Kind() demo.Kind { return RRenewCmd }
func (e RedissonRenew) Args() []string {
	return []string{"EVAL", RedissonRenewScript, "1", e.Key, strconv.Itoa(e.Lease), e.Field}
}
func (e RedissonRenew) Reply() string { return integer(e.OK) }
func (e RedissonRenew) Wire() (string, string) {
	return redissonWire(e.Args(), redissonRenewWire, e.Field), e.Reply()
}

// RedissonUnlock is unlock()'s script: EVAL script 3 key channel latch 0
// lease field publish latchTTL. It answers nil when the field is not there
// (Found false: Redisson throws IllegalMonitorStateException), 1 when the
// lock was deleted and its release published, 0 when a re-entered lock is
// still held.
type RedissonUnlock struct {
	demo.Head
	Key, Field, Latch string
	Lease             int
	Found             bool
	Released          bool
}

func (RedissonUnlock) Kind() demo.Kind { return RUnlockCmd }
func (e RedissonUnlock) Args() []string {
	return []string{"EVAL", RedissonUnlockScript, "3", e.Key, RedissonChannel(e.Key), e.Latch,
		"0", strconv.Itoa(e.Lease), e.Field, "publish", strconv.Itoa(RedissonLatchTTL)}
}
func (e RedissonUnlock) Reply() string {
	if !e.Found {
		return "(nil)"
	}
	return integer(e.Released)
}
func (e RedissonUnlock) Wire() (string, string) {
	return redissonWire(e.Args(), redissonUnlockWire, e.Field), e.Reply()
}

// LatchDel is the DEL of an unlock call's latch, which Redisson sends once
// the unlock script has answered, whatever it answered.
type LatchDel struct {
	demo.Head
	Latch string
	OK    bool
}

func (LatchDel) Kind() demo.Kind          { return LatchDelCmd }
func (e LatchDel) Args() []string         { return []string{"DEL", e.Latch} }
func (e LatchDel) Reply() string          { return integer(e.OK) }
func (e LatchDel) Wire() (string, string) { return "DEL " + shortLatch(e.Latch), e.Reply() }

// NoAnswer is a command that got no reply: the node was down and refused the
// connection (Waited 0), or the network dropped the packets and the client
// gave up after Waited ms. Sent is the command as it went out; its own reply
// means nothing here. The wire shows no reply: what went wrong is words, and
// a page says them in its own language (see Refused).
type NoAnswer struct {
	demo.Head
	Sent   Command
	Waited int // ms; 0 when the connection was refused
}

func (NoAnswer) Kind() demo.Kind { return Unreachable }

// Refused reports whether the node refused the connection, rather than the
// client giving up after Waited ms.
func (e NoAnswer) Refused() bool { return e.Waited == 0 }

func (e NoAnswer) Wire() (string, string) {
	call, _ := e.Sent.Wire()
	return call, ""
}

// What the transcripts add to a command's line, and how the commands draw.

// Note says what the client did not get: the node refused, or no answer
// came in time.
func (e NoAnswer) Note(*demo.Scenario) string {
	if e.Refused() {
		return " => connection refused"
	}
	return " => no answer in " + strconv.Itoa(e.Waited) + " ms"
}

// Note names the holder whose lock a plain EXPIRE renewed, when it was not
// the sender's own.
func (e ExpireCommand) Note(*demo.Scenario) string {
	if e.OK && e.Owner != e.Client {
		return ": renewed " + e.Owner + "'s lock"
	}
	return ""
}

func (e RedissonUnlock) Note(*demo.Scenario) string {
	if !e.Found {
		return ": IllegalMonitorStateException"
	}
	return ""
}

// Draw: a SET without NX replaces whoever's key it was.
func (e SetCommand) Draw(d *demo.Drawing) {
	if e.OK {
		d.Stop(e.Node, "", e.At)
		d.Start(e.Node, e.Client, e.At, 0, e.Expiry)
	}
}

func (e SetNXCommand) Draw(d *demo.Drawing) {
	if e.OK {
		d.Stop(e.Node, "", e.At)
		d.Start(e.Node, e.Client, e.At, 0, -1)
	}
}

func (e DelCommand) Draw(d *demo.Drawing) {
	if e.OK {
		d.Stop(e.Node, "", e.At)
	}
}

func (e UnlockScript) Draw(d *demo.Drawing) {
	if e.OK {
		d.Stop(e.Node, "", e.At)
	}
}
