package views

import (
	"fmt"
	"reflect"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/redis"
	"github.com/distlock/fencing-demo/demo/redis/lua"
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
	case redis.EvalCommand:
		return describeEval(sc, e).In(lang), true
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

// describeEval says what a client's script did: its name, what it did to
// each key, and what the client made of the answer; a script that raised
// an error names its line.
func describeEval(sc *demo.Scenario, e redis.EvalCommand) demo.Text {
	t := demo.Says("%s → %s: スクリプト %s", "%s → %s: script %s", e.Client, e.Node, e.Script)
	var parts []demo.Text
	for _, c := range e.Changes {
		parts = append(parts, changeWords(sc, c))
	}
	switch {
	case e.Answer.Kind == lua.Error && e.Answer.Line > 0:
		parts = append(parts, demo.Says("%d 行目でエラー", "failed at line %d", e.Answer.Line))
	case e.Answer.Kind == lua.Error:
		parts = append(parts, demo.Says("エラーを返した", "answered an error"))
	case len(parts) == 0:
		parts = append(parts, demo.Says("キーを変えなかった", "changed no key"))
	}
	if o := outcomeWords(sc, e); o != (demo.Text{}) {
		parts = append(parts, o)
	}
	for i, p := range parts {
		sep := demo.Text{JA: "。", EN: "; "}
		if i == 0 {
			sep = demo.Text{JA: ": ", EN: ": "}
		}
		t = t.Join(sep).Join(p)
	}
	return t
}

// changeWords: what a script did to one key, and whose it was.
func changeWords(sc *demo.Scenario, c redis.Change) demo.Text {
	whose := func(k redis.KeyState) demo.Text {
		switch {
		case k.Counter:
			return demo.Text{JA: "カウンター", EN: "the counter"}
		case k.Owner != "":
			return demo.Says("%s のロック", "%s's lock", k.Owner)
		}
		return demo.Text{JA: "誰のものでもない値", EN: "nobody's value"}
	}
	ttl := demo.Text{JA: "TTL なし", EN: "no TTL"}
	if c.After.TTL >= 0 {
		ttl = demo.Says("TTL %s", "TTL %s", Duration(sc, c.After.TTL))
	}
	w := whose(c.After)
	switch {
	case !c.Exists:
		w = whose(c.Before)
		return demo.Text{JA: fmt.Sprintf("%s (%s) を削除", c.Key, w.JA), EN: fmt.Sprintf("deleted %s (%s)", c.Key, w.EN)}
	case c.After.Counter:
		return demo.Says("%s を %s にした", "set %s to %s", c.Key, c.After.Value)
	case !c.Existed || c.Before.Value != c.After.Value || c.Before.Count != c.After.Count:
		return demo.Text{JA: fmt.Sprintf("%s を%sにした (%s)", c.Key, w.JA, ttl.JA), EN: fmt.Sprintf("set %s to %s (%s)", c.Key, w.EN, ttl.EN)}
	}
	if c.After.TTL < 0 {
		return demo.Text{JA: fmt.Sprintf("%s (%s) の TTL を外した", c.Key, w.JA), EN: fmt.Sprintf("took the TTL off %s (%s)", c.Key, w.EN)}
	}
	left := Duration(sc, c.After.TTL)
	return demo.Text{JA: fmt.Sprintf("%s (%s) の TTL を %s にした", c.Key, w.JA, left), EN: fmt.Sprintf("set the TTL of %s (%s) to %s", c.Key, w.EN, left)}
}

// outcomeWords: what the client made of the answer.
func outcomeWords(sc *demo.Scenario, e redis.EvalCommand) demo.Text {
	c := e.Client
	switch e.Outcome {
	case redis.Released:
		return demo.Says("%s はロックを手放す", "%s lets go of the lock", c)
	case redis.Renewed:
		at := Clock(sc, e.Until)
		return demo.Says("%[1]s は自分のリースが %[2]s まで延びたと思う", "%[1]s counts on its lease until %[2]s", c, at)
	case redis.Lost:
		return demo.Says("%s はロックを失ったと知る", "%s learns it lost the lock", c)
	case redis.Acquired:
		if e.Until < 0 {
			return demo.Says("%s はロックを取った (期限なし)", "%s holds the lock, with no TTL", c)
		}
		return demo.Says("%[1]s は %[2]s までロックを持つ", "%[1]s holds the lock until %[2]s", c, Clock(sc, e.Until))
	case redis.NotAcquired:
		return demo.Says("%s はロックを取れなかった", "%s did not get the lock", c)
	case redis.GotToken:
		return demo.Says("%[1]s のトークンは %[2]d", "%[1]s's token is %[2]d", c, e.Answer.Int)
	case redis.NoToken:
		return demo.Says("%s はトークンを得られなかった", "%s got no token", c)
	}
	return demo.Text{}
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
// expiry times, and the page says so. A scenario whose moves run scripts
// says nothing: its scripts may be a learner's own, which no suite sent.
func redisChecked(sc *demo.Scenario) string {
	key := "checked.redis"
	for _, m := range sc.Moves {
		for _, a := range m.Do {
			switch a.Verb {
			case redis.Jump:
				key = "checked.redis.jump"
			case redis.Eval:
				return ""
			}
		}
	}
	return key
}
