package script

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// The grammar of one action, as scenarios.yaml writes it: "tick N", or
// "WHO VERB ARGS...". demo.Verb's comments give each verb's form.

// maxNumber bounds every number in a script: a billion milliseconds is
// eleven days, far more than any lock needs, and far from overflowing.
const maxNumber = 1_000_000_000

func number(s, what string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > maxNumber {
		return 0, fmt.Errorf("the %s %q is not a whole number from 0 to %d", what, s, maxNumber)
	}
	return n, nil
}

// ttl reads a TTL that must be at least 1.
func ttl(s, what, floor string) (int, error) {
	n, err := number(s, what)
	if err == nil && n == 0 {
		err = errors.New(floor)
	}
	return n, err
}

// ParseAction reads one action from its one-line form. It knows the words,
// not the cast: whether the client or node exists, and whether the store
// takes the verb, is the scenario's check.
func ParseAction(s string) (demo.Action, error) {
	f := strings.Fields(s)
	a := demo.Action{Source: strings.Join(f, " ")}
	wrap := func(err error) (demo.Action, error) { return a, fmt.Errorf("%q: %w", a.Source, err) }
	if len(f) == 0 {
		return a, errors.New("empty action")
	}
	if f[0] == string(demo.Tick) {
		if len(f) != 2 {
			return wrap(errors.New(`want "tick N"`))
		}
		n, err := number(f[1], "tick")
		if err != nil {
			return wrap(err)
		}
		a.Verb, a.Forward = demo.Tick, n
		return a, nil
	}
	if len(f) < 2 {
		return wrap(errors.New(`want "WHO VERB ..." or "tick N"`))
	}
	a.Who, a.Verb = f[0], demo.Verb(strings.ToLower(f[1]))
	if err := parseArgs(&a, f[2:]); err != nil {
		return wrap(err)
	}
	return a, nil
}

// parseArgs reads the words after the verb into a's arguments.
func parseArgs(a *demo.Action, args []string) error {
	want := func(form string) error {
		return fmt.Errorf("want %q", a.Who+" "+string(a.Verb)+form)
	}
	var err error
	switch a.Verb {
	case demo.Acquire, demo.Renew:
		if len(args) != 1 {
			return want(" LEASE")
		}
		a.Lease, err = strconv.Atoi(args[0]) // below 1 is allowed: the lock service counts it as 1
		if err != nil || a.Lease > maxNumber || a.Lease < -maxNumber {
			return fmt.Errorf("the lease %q is not a whole number of at most %d", args[0], maxNumber)
		}
	case demo.Jump:
		if len(args) != 1 {
			return want(" MS")
		}
		a.Jump, err = number(args[0], "jump")
	case demo.Slew:
		if len(args) != 2 {
			return want(" MS PPM")
		}
		if a.Jump, err = number(args[0], "correction"); err == nil {
			a.Rate, err = ttl(args[1], "slew rate", "the slew rate must be at least 1 ppm")
		}
	case demo.Write:
		if len(args) != 1 {
			return want(" VALUE (one word)")
		}
		a.Value = args[0]
	case demo.Release, demo.Pause, demo.Resume, demo.Crash, demo.Heal,
		demo.Down, demo.Up, demo.Promote, demo.Replicate:
		if len(args) != 0 {
			return fmt.Errorf("%s takes no arguments", a.Verb)
		}
	case demo.Cut:
		if len(args) == 0 {
			return want(" NODE...")
		}
		a.Nodes = args
	case demo.Set:
		return parseSet(a, args, want)
	case demo.Session:
		if len(args) != 1 && (len(args) != 3 || args[1] != "delay") {
			return want(" MS [delay MS]")
		}
		if a.TTL, err = ttl(args[0], "session timeout", "the session timeout must be at least 1 ms"); err == nil && len(args) == 3 {
			a.Delay, err = number(args[2], "lock-delay")
		}
	case demo.Create:
		if len(args) != 1 || !strings.HasPrefix(args[0], "/") {
			return want(" /PATH")
		}
		a.Key = args[0]
	case demo.Lock:
		if len(args) < 1 || len(args) > 2 || len(args) == 2 && args[1] != "herd" {
			return want(" PATH [herd]")
		}
		a.Key, a.Herd = args[0], len(args) == 2
	case demo.Reconnect:
		if len(args) != 0 {
			return fmt.Errorf("%s takes no arguments", a.Verb)
		}
	case demo.SetNX, demo.Del, demo.Unlock, demo.RedlockUnlock, demo.RUnlock:
		if len(args) != 1 {
			return want(" KEY")
		}
		a.Key = args[0]
	case demo.Expire:
		if len(args) != 2 {
			return want(" KEY N")
		}
		a.Key = args[0]
		a.Seconds, err = ttl(args[1], "TTL", "the TTL must be at least 1")
	case demo.Extend, demo.RLock, demo.RTryLock, demo.RRenew:
		if len(args) != 2 {
			return want(" KEY N")
		}
		a.Key = args[0]
		a.PX, err = ttl(args[1], "TTL", "the TTL must be at least 1")
	case demo.Wait:
		if len(args) != 2 {
			return want(" NUMREPLICAS TIMEOUT")
		}
		if a.Replicas, err = number(args[0], "replica count"); err == nil {
			a.Timeout, err = number(args[1], "timeout")
		}
	case demo.SQL:
		// The statement is checked when the scenario is rehearsed: the
		// database store reads it, and says which shapes it knows.
		if len(args) >= 2 && args[0] == "conn" {
			// The client's program opens another connection of its own,
			// as a helper that asks the pool for one does.
			n, err := number(args[1], "connection")
			if err != nil || n < 1 || n > 9 {
				return errors.New(`"conn N": a client has connections 1 to 9`)
			}
			a.Conn, args = n, args[2:]
		}
		if len(args) == 0 {
			return want(" [conn N] STATEMENT")
		}
		a.SQL = strings.Join(args, " ")
	case demo.Redlock:
		if len(args) != 3 && len(args) != 5 || strings.ToLower(args[1]) != "px" ||
			len(args) == 5 && strings.ToLower(args[3]) != "retry" {
			return want(" KEY px MS [retry N]")
		}
		a.Key = args[0]
		if a.PX, err = ttl(args[2], "PX", "PX must be at least 1 ms"); err == nil && len(args) == 5 {
			if a.Retries, err = number(args[4], "retry count"); err == nil && a.Retries > 10 {
				err = errors.New("retry: at most 10 new attempts")
			}
		}
	default:
		var known []string
		for _, v := range demo.Verbs() {
			if v != demo.Tick {
				known = append(known, string(v))
			}
		}
		return fmt.Errorf("unknown action %q (known: tick, %s)", a.Verb, strings.Join(known, ", "))
	}
	return err
}

// parseSet reads SET KEY NX [PX MS]: the options in either case, as Redis
// takes them.
func parseSet(a *demo.Action, args []string, want func(string) error) error {
	if len(args) < 1 {
		return want(" KEY nx [px MS]")
	}
	a.Key = args[0]
	for i := 1; i < len(args); i++ {
		switch strings.ToLower(args[i]) {
		case "nx":
			a.NX = true
		case "px":
			if i+1 >= len(args) {
				return want(" KEY nx [px MS]")
			}
			i++
			var err error
			if a.PX, err = ttl(args[i], "PX", "PX must be at least 1 ms"); err != nil {
				return err
			}
		default:
			return fmt.Errorf("unknown SET option %q (this demo knows NX and PX)", args[i])
		}
	}
	return nil
}
