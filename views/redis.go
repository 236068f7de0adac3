package views

import (
	"fmt"
	"reflect"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/redis"
)

// describeRedis puts a Redis command or a node's happening in a sentence.
func describeRedis(lang string, f demo.Frame, e demo.Event) (string, bool) {
	sc := f.Scenario
	key := "ev." + e.Kind().String()
	node := nodeAsOf(lang, f, e)
	// ok picks the sentence for a command's answer.
	ok := func(yes bool, ok, no string) string {
		if yes {
			return key + ok
		}
		return key + no
	}
	switch e := e.(type) {
	case redis.SetCommand:
		return fmt.Sprintf(T(lang, ok(e.OK, ".ok", ".nil")), e.Client, node, e.Key), true
	case redis.SetNXCommand:
		return fmt.Sprintf(T(lang, ok(e.OK, ".ok", ".nil")), e.Client, node, e.Key), true
	case redis.ExpireCommand:
		if e.OK && e.Owner != e.Client {
			return fmt.Sprintf(T(lang, key+".other"), e.Client, node, e.Key, ownerOf(lang, e.Owner)), true
		}
		return fmt.Sprintf(T(lang, ok(e.OK, ".ok", ".no")), e.Client, node, e.Key), true
	case redis.IncrCommand:
		if e.Err {
			return fmt.Sprintf(T(lang, key+".err"), e.Client, node, e.Key), true
		}
		return fmt.Sprintf(T(lang, key), e.Client, node, e.Key, e.Value), true
	case redis.DelCommand:
		return fmt.Sprintf(T(lang, ok(e.OK, ".ok", ".no")), e.Client, node, e.Key), true
	case redis.UnlockScript:
		return fmt.Sprintf(T(lang, ok(e.OK, ".ok", ".no")), e.Client, node, e.Key), true
	case redis.RenewScript:
		return fmt.Sprintf(T(lang, ok(e.OK, ".ok", ".no")), e.Client, node, e.Key), true
	case redis.WaitCommand:
		return fmt.Sprintf(T(lang, key), e.Client, e.Acked, e.Replicas), true
	case redis.RedlockResult:
		q := e.Quorum
		return fmt.Sprintf(T(lang, key), e.Client, q.Locked, q.Need, q.TTL, q.Elapsed, q.Drift, q.Validity), true
	case redis.KeyExpiry:
		return fmt.Sprintf(T(lang, key), e.Key, node, ownerOf(lang, e.Client)), true
	case redis.NoAnswer:
		return fmt.Sprintf(T(lang, ok(e.Refused(), ".refused", ".timeout")), e.Client, node), true
	case redis.RedissonLock:
		if e.OK {
			return fmt.Sprintf(T(lang, key+".ok"), e.Client, node, e.Key), true
		}
		return fmt.Sprintf(T(lang, key+".held"), e.Client, node, e.Key, Duration(sc, e.Left)), true
	case redis.RedissonRenew:
		return fmt.Sprintf(T(lang, ok(e.OK, ".ok", ".no")), e.Client, node, e.Key), true
	case redis.RedissonUnlock:
		switch {
		case !e.Found:
			key += ".nil"
		case e.Released:
			key += ".released"
		default:
			key += ".held"
		}
		return fmt.Sprintf(T(lang, key), e.Client, node, e.Key), true
	case redis.LatchDel:
		return fmt.Sprintf(T(lang, key), e.Client, node), true
	case redis.ClockSlewing:
		return fmt.Sprintf(T(lang, key), node, e.Rate, Duration(sc, e.By)), true
	case redis.RetryDelay:
		return fmt.Sprintf(T(lang, key), e.Client, e.Delay, e.Max), true
	case redis.BlockedWait:
		return fmt.Sprintf(T(lang, key), e.Client, e.Replicas), true
	case redis.NodeChange:
		return fmt.Sprintf(T(lang, key), node), true
	case redis.Replication:
		return fmt.Sprintf(T(lang, key), node, e.Shipped), true
	case redis.ClockJumped:
		return fmt.Sprintf(T(lang, key), node, Duration(sc, e.By)), true
	case redis.Partition:
		return fmt.Sprintf(T(lang, key), e.Client), true
	}
	return "", false
}

// nodeAsOf names e's node as it stood when e happened: a replica promoted
// before it is the primary now ("replica (promoted)"), and the primary it
// replaced is the former one, so "B → replica" after a failover does not
// read as B writing to a replica.
func nodeAsOf(lang string, f demo.Frame, e demo.Event) string {
	h := e.Header()
	if h.Node == "" {
		return ""
	}
	role := ""
	for _, x := range f.Events {
		if x.Header().At > h.At || sameEvent(x, e) {
			break
		}
		if c, ok := x.(redis.NodeChange); ok && c.What == redis.Promoted {
			switch {
			case c.Node == h.Node:
				role = "node.as-promoted"
			case h.Node == "primary":
				role = "node.as-former"
			}
		}
	}
	if role == "" {
		return h.Node
	}
	return fmt.Sprintf(T(lang, role), h.Node)
}

// sameEvent reports whether x is e: the same happening, compared by value.
func sameEvent(x, e demo.Event) bool {
	return x.Header() == e.Header() && x.Kind() == e.Kind() && reflect.DeepEqual(x, e)
}

// redisNodes are the frame's Redis nodes.
func redisNodes(f demo.Frame) []redis.NodeState {
	st, _ := redis.Of(f)
	return st.Nodes
}

// redisReply says what happened to a command that got no answer.
func redisReply(lang string, e demo.Event) (string, bool) {
	n, ok := e.(redis.NoAnswer)
	if !ok {
		return "", false
	}
	if n.Refused() {
		return T(lang, "wire.refused"), true
	}
	return fmt.Sprintf(T(lang, "wire.timeout"), n.Waited), true
}

// redisChecked: every Redis scenario is replayed against redis-server. No
// Debian redis-server can be given a jumped clock here (libfaketime clashes
// with its jemalloc), so the suite plays a jump by moving the keys' absolute
// expiry times, and the page says so.
func redisChecked(sc *demo.Scenario) string {
	for _, m := range sc.Moves {
		for _, a := range m.Do {
			if a.Verb == redis.Jump {
				return "checked.redis.jump"
			}
		}
	}
	return "checked.redis"
}
