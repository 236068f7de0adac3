package conformance

import (
	"strconv"
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// command is one command a client sent to a Redis node, as the page shows it
// but with the lock's full random value: who sent it, to which node, the
// exact arguments, and the reply the page shows.
type command struct {
	Client string
	Node   string
	Args   []string
	Reply  string
}

// commandOf is the one place that knows how a model event spells a Redis
// command. ok is false for events that are not a command sent to a node.
//
// The engine's events are about to carry their own arguments (Event.Args);
// until then the arguments are rebuilt here from the event's fields, with
// the full value where the page shortens it, and the scripts taken from the
// page's own call so they are byte for byte what the page shows.
func commandOf(e demo.Event) (c command, ok bool) {
	call, reply := e.Wire()
	if call == "" || e.Node == "" {
		return command{}, false
	}
	c = command{Client: e.Client, Node: e.Node, Reply: reply}
	script := func() string {
		s, _ := strings.CutPrefix(call, "EVAL '")
		s, _, _ = strings.Cut(s, "' 1 ")
		return s
	}
	set := func(nx bool, px int) []string {
		args := []string{"SET", e.Key, e.Value}
		if nx {
			args = append(args, "NX")
		}
		if px > 0 {
			args = append(args, "PX", strconv.Itoa(px))
		}
		return args
	}
	verb := e.Verb
	switch e.Kind {
	case demo.SetCmd, demo.NodeTry:
		if e.N == -1 {
			c.Args = []string{"SETNX", e.Key, e.Value}
		} else {
			c.Args = set(e.NX, e.N)
		}
		return c, true
	case demo.ExpireCmd:
		verb = demo.Expire
	case demo.DelCmd:
		verb = demo.Del
	case demo.UnlockCmd:
		verb = demo.Unlock
	case demo.ExtendCmd:
		verb = demo.Extend
	case demo.WaitCmd:
		verb = demo.Wait
	case demo.Unreachable:
	default:
		return command{}, false
	}
	switch verb {
	case demo.Set, demo.Redlock:
		c.Args = set(e.NX, e.N)
	case demo.SetNX:
		c.Args = []string{"SETNX", e.Key, e.Value}
	case demo.Expire:
		c.Args = []string{"EXPIRE", e.Key, strconv.Itoa(e.N)}
	case demo.Del:
		c.Args = []string{"DEL", e.Key}
	case demo.Unlock, demo.RedlockUnlock:
		c.Args = []string{"EVAL", script(), "1", e.Key, e.Value}
	case demo.Extend:
		c.Args = []string{"EVAL", script(), "1", e.Key, e.Value, strconv.Itoa(e.N)}
	case demo.Wait:
		c.Args = []string{"WAIT", strconv.Itoa(e.N), "0"}
	default:
		return command{}, false
	}
	return c, true
}
