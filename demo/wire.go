package demo

import (
	"fmt"
	"strconv"
	"strings"
)

// The scripts a careful Redis client sends, as the Redis documentation gives
// them: delete, or renew, the lock only while it still holds our value.
const (
	UnlockScriptText = `if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end`
	RenewScriptText  = `if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("pexpire",KEYS[1],ARGV[2]) else return 0 end`
)

// Command is a Redis command a client sent and the node answered.
//
// Args is the command word for word as a Redis client sends it, with the
// full random value: ["SET", "lock:row-42", "<40 hex digits>", "NX", "PX",
// "30000"], or ["EVAL", "<script>", "1", "lock:row-42", "<value>"]. Send it
// as it stands (go-redis: client.Do(ctx, args...)) and the real server
// answers what Reply says, as redis-cli prints it: "OK", "(nil)",
// "(integer) 1". Wire shortens the value for the screen; Args never does.
type Command interface {
	Event
	Args() []string
	Reply() string
}

// Short cuts a lock's random value to something a person can compare at a
// glance on screen.
func Short(value string) string {
	if len(value) <= 8 {
		return value
	}
	return value[:8] + "…"
}

// wire spells args for the screen: the random value shortened, a script in
// quotes, as one types it into redis-cli.
func wire(args []string, value string) string {
	words := make([]string, len(args))
	for i, a := range args {
		switch {
		case i == 1 && args[0] == "EVAL":
			words[i] = "'" + a + "'"
		case a == value && i > 1:
			words[i] = Short(a)
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
	Head
	Key, Value string
	NX         bool
	PX         int // 0: no PX
	Redlock    bool
	OK         bool
	Expiry     int
}

func (e SetCommand) Kind() Kind { return pick(e.Redlock, NodeTry, SetCmd) }

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
	Head
	Key, Value string
	OK         bool
}

func (SetNXCommand) Kind() Kind               { return SetCmd }
func (e SetNXCommand) Args() []string         { return []string{"SETNX", e.Key, e.Value} }
func (e SetNXCommand) Reply() string          { return integer(e.OK) }
func (e SetNXCommand) Wire() (string, string) { return wire(e.Args(), e.Value), e.Reply() }

// ExpireCommand is EXPIRE key seconds.
type ExpireCommand struct {
	Head
	Key     string
	Seconds int
	OK      bool
}

func (ExpireCommand) Kind() Kind { return ExpireCmd }
func (e ExpireCommand) Args() []string {
	return []string{"EXPIRE", e.Key, strconv.Itoa(e.Seconds)}
}
func (e ExpireCommand) Reply() string          { return integer(e.OK) }
func (e ExpireCommand) Wire() (string, string) { return wire(e.Args(), ""), e.Reply() }

// DelCommand is a plain DEL key, whoever's lock it is.
type DelCommand struct {
	Head
	Key string
	OK  bool
}

func (DelCommand) Kind() Kind               { return DelCmd }
func (e DelCommand) Args() []string         { return []string{"DEL", e.Key} }
func (e DelCommand) Reply() string          { return integer(e.OK) }
func (e DelCommand) Wire() (string, string) { return wire(e.Args(), ""), e.Reply() }

// UnlockScript is the compare-and-delete script: EVAL script 1 key value.
type UnlockScript struct {
	Head
	Key, Value string
	OK         bool
}

func (UnlockScript) Kind() Kind { return UnlockCmd }
func (e UnlockScript) Args() []string {
	return []string{"EVAL", UnlockScriptText, "1", e.Key, e.Value}
}
func (e UnlockScript) Reply() string          { return integer(e.OK) }
func (e UnlockScript) Wire() (string, string) { return wire(e.Args(), e.Value), e.Reply() }

// RenewScript is the watchdog's compare-and-renew script: EVAL script 1 key
// value ms. Expiry is the new end of the key when it was renewed.
type RenewScript struct {
	Head
	Key, Value string
	PX         int
	OK         bool
	Expiry     int
}

func (RenewScript) Kind() Kind { return ExtendCmd }
func (e RenewScript) Args() []string {
	return []string{"EVAL", RenewScriptText, "1", e.Key, e.Value, strconv.Itoa(e.PX)}
}
func (e RenewScript) Reply() string          { return integer(e.OK) }
func (e RenewScript) Wire() (string, string) { return wire(e.Args(), e.Value), e.Reply() }

// WaitCommand is WAIT numreplicas timeout; Acked is how many replicas
// acknowledged the client's writes.
type WaitCommand struct {
	Head
	Replicas int
	Timeout  int // ms; 0 blocks until enough replicas acknowledge
	Acked    int
}

func (WaitCommand) Kind() Kind { return WaitCmd }
func (e WaitCommand) Args() []string {
	return []string{"WAIT", strconv.Itoa(e.Replicas), strconv.Itoa(e.Timeout)}
}
func (e WaitCommand) Reply() string          { return "(integer) " + strconv.Itoa(e.Acked) }
func (e WaitCommand) Wire() (string, string) { return wire(e.Args(), ""), e.Reply() }

// NoAnswer is a command that got no reply: the node was down and refused the
// connection, or the network dropped the packets and the client gave up
// after Waited ms. Sent is the command as it went out; its own reply means
// nothing here.
type NoAnswer struct {
	Head
	Sent   Command
	Waited int // ms; 0 when the connection was refused
}

func (NoAnswer) Kind() Kind { return Unreachable }

func (e NoAnswer) Wire() (string, string) {
	call, _ := e.Sent.Wire()
	if e.Waited > 0 {
		return call, fmt.Sprintf("no answer in %d ms", e.Waited)
	}
	return call, "connection refused"
}

// The lock service speaks the chapter's Go API.

func (e AcquireCall) Wire() (string, string) {
	return fmt.Sprintf("Acquire(%q, %d)", e.Client, e.Lease), fmt.Sprintf("(%d, %t)", e.Token, e.OK)
}

func (e RenewCall) Wire() (string, string) {
	return fmt.Sprintf("Renew(%q, %d)", e.Client, e.Lease), strconv.FormatBool(e.OK)
}

func (e ReleaseCall) Wire() (string, string) { return fmt.Sprintf("Release(%q)", e.Client), "" }

func (e WriteResult) Wire() (string, string) {
	return fmt.Sprintf("Write(%d, %q)", e.Token, e.Value), strconv.FormatBool(e.OK)
}
