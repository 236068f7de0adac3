package demo

import (
	"fmt"
	"strconv"
)

// The scripts a careful Redis client sends, as the Redis documentation gives
// them: delete, or renew, the lock only while it still holds our value.
const (
	unlockScript = `if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end`
	renewScript  = `if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("pexpire",KEYS[1],ARGV[2]) else return 0 end`
)

// Short cuts a lock's random value to something a person can compare at a
// glance on screen.
func Short(value string) string {
	if len(value) <= 8 {
		return value
	}
	return value[:8] + "…"
}

// Wire returns the call or command a client sent, as the real system spells
// it, and the answer it got; "" for events no client sent. The lock service
// speaks the chapter's Go API; Redis speaks its protocol.
func (e Event) Wire() (call, reply string) {
	v := Short(e.Value)
	integer := func(ok bool) string {
		if ok {
			return "(integer) 1"
		}
		return "(integer) 0"
	}
	switch e.Kind {
	case Acquired, AcquireDenied:
		return fmt.Sprintf("Acquire(%q, %d)", e.Client, e.N), fmt.Sprintf("(%d, %t)", e.Token, e.OK)
	case Renewed, RenewDenied:
		return fmt.Sprintf("Renew(%q, %d)", e.Client, e.N), strconv.FormatBool(e.OK)
	case Released, ReleaseIgnored:
		return fmt.Sprintf("Release(%q)", e.Client), ""
	case Accepted, Rejected:
		return fmt.Sprintf("Write(%d, %q)", e.Token, e.Value), strconv.FormatBool(e.Kind == Accepted)
	case SetCmd, NodeTry:
		if e.N == -1 {
			return fmt.Sprintf("SETNX %s %s", e.Key, v), integer(e.OK)
		}
		call = "SET " + e.Key + " " + v
		if e.NX {
			call += " NX"
		}
		if e.N > 0 {
			call += " PX " + strconv.Itoa(e.N)
		}
		if e.OK {
			return call, "OK"
		}
		return call, "(nil)"
	case ExpireCmd:
		return fmt.Sprintf("EXPIRE %s %d", e.Key, e.N), integer(e.OK)
	case DelCmd:
		return "DEL " + e.Key, integer(e.OK)
	case UnlockCmd:
		return fmt.Sprintf("EVAL '%s' 1 %s %s", unlockScript, e.Key, v), integer(e.OK)
	case ExtendCmd:
		return fmt.Sprintf("EVAL '%s' 1 %s %s %d", renewScript, e.Key, v, e.N), integer(e.OK)
	case WaitCmd:
		return fmt.Sprintf("WAIT %d 0", e.N), "(integer) " + strconv.Itoa(e.Count)
	case Unreachable:
		// A node that is down refuses the connection; one cut off by the
		// network never answers, and Count says how long the client waited.
		switch e.Verb {
		case Set, Redlock:
			call = "SET " + e.Key + " " + v
			if e.NX {
				call += " NX"
			}
			if e.N > 0 {
				call += " PX " + strconv.Itoa(e.N)
			}
		case SetNX:
			call = fmt.Sprintf("SETNX %s %s", e.Key, v)
		case Unlock, RedlockUnlock:
			call = fmt.Sprintf("EVAL '%s' 1 %s %s", unlockScript, e.Key, v)
		case Extend:
			call = fmt.Sprintf("EVAL '%s' 1 %s %s %d", renewScript, e.Key, v, e.N)
		case Expire:
			call = fmt.Sprintf("EXPIRE %s %d", e.Key, e.N)
		case Del:
			call = "DEL " + e.Key
		case Wait:
			call = fmt.Sprintf("WAIT %d 0", e.N)
		}
		if e.Count > 0 {
			return call, fmt.Sprintf("no answer in %d ms", e.Count)
		}
		return call, "connection refused"
	}
	return "", ""
}
