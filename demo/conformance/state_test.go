package conformance

import (
	"context"
	"fmt"
	"maps"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/distlock/fencing-demo/demo"
	model "github.com/distlock/fencing-demo/demo/redis"
	"github.com/distlock/fencing-demo/views"
)

// check compares, at the end of a frame, each node the page shows with the
// real one: up or down, its role, and its keys, each with its value (a
// Redisson lock: its hash's one field and count) and its end, both as the
// frame's state has them and as the nodes panel prints them.
func (cl *cluster) check(p page) {
	t := cl.t
	cl.now(p.Now)
	for _, n := range p.Store.(model.State).Nodes {
		node := cl.nodes[n.Name]
		if node.Running() != n.Up {
			t.Errorf("frame %d: %s: the page shows %s up=%t, the real node up=%t", p.Index, cl.name, n.Name, n.Up, node.Running())
			continue
		}
		if !n.Up {
			continue
		}
		// What the model's clock moved beyond the emulated jumps is slew,
		// which the real node does not play: the expiries compared widen by
		// it, so it must stay within a few ms.
		if cl.slew[n.Name] = n.Offset - cl.offset[n.Name]; abs(cl.slew[n.Name]) > maxSlew {
			t.Errorf("frame %d: %s: %s's clock has slewed %d ms in the model, too much to leave unplayed on the real node", p.Index, cl.name, n.Name, cl.slew[n.Name])
		}
		if n.Role == "primary" || n.Role == "replica" {
			want := map[string]string{"primary": "master", "replica": "slave"}[n.Role]
			if got := cl.info(n.Name, "replication", "role"); got != want {
				t.Errorf("frame %d: %s: the page shows %s as %s, real Redis says role:%s", p.Index, cl.name, n.Name, n.Role, got)
			}
		}
		cl.expired(n.Name, p.Now)
		diffs := cl.keys(p, n)
		diffs = append(diffs, cl.panelKeys(p, n, p.panel[n.Name])...)
		if len(diffs) > 0 {
			cl.differs(n.Name+" state", fmt.Sprintf("frame %d, t=%dms, %s:\n\t%s", p.Index, p.Now, n.Name, strings.Join(diffs, "\n\t")))
		} else {
			cl.agrees(n.Name + " state")
		}
	}
}

// realKey is one key of a real node: its value (a hash's fields and
// values) and its absolute expiry, Unix ms, -1 for none.
type realKey struct {
	value  string
	fields map[string]string
	end    int64
}

// readScript reads every key of a node in one round trip, so that a check
// of five nodes costs five round trips whatever they hold.
const readScript = `local out = {}
for _, k in ipairs(redis.call('KEYS', '*')) do
  local t = redis.call('TYPE', k)['ok']
  local v
  if t == 'hash' then v = redis.call('HGETALL', k) else v = redis.call('GET', k) end
  out[#out+1] = {k, v, redis.call('PEXPIRETIME', k)}
end
return out`

// read returns node's keys.
func (cl *cluster) read(node string) map[string]realKey {
	res, err := cl.conn("", node).Do(context.Background(), "EVAL_RO", readScript, 0).Slice()
	if err != nil {
		cl.t.Fatalf("frame %d: %s: reading the keys: %v", cl.frame, node, err)
	}
	out := map[string]realKey{}
	for _, r := range res {
		kv, _ := r.([]any)
		if len(kv) != 3 {
			cl.t.Fatalf("frame %d: %s: reading the keys: %v", cl.frame, node, r)
		}
		k, _ := kv[0].(string)
		rk := realKey{end: -1}
		switch v := kv[1].(type) {
		case string:
			rk.value = v
		case []any:
			rk.fields = map[string]string{}
			for i := 0; i+1 < len(v); i += 2 {
				rk.fields[fmt.Sprint(v[i])] = fmt.Sprint(v[i+1])
			}
		}
		rk.end, _ = kv[2].(int64)
		out[k] = rk
	}
	return out
}

// keys compares the keys on one node with the frame's, and returns the
// differences.
func (cl *cluster) keys(p page, n model.NodeState) (diffs []string) {
	real := cl.read(n.Name)
	for _, k := range n.Keys {
		r, ok := real[k.Key]
		if !ok {
			if d := cl.gone(p, n.Name, k); d != "" {
				diffs = append(diffs, d)
			}
			continue
		}
		delete(real, k.Key)
		if k.Count > 0 {
			// A Redisson lock: a hash whose one field is the holder's id,
			// holding the count.
			if want := map[string]string{k.Value: strconv.Itoa(k.Count)}; !maps.Equal(r.fields, want) {
				diffs = append(diffs, fmt.Sprintf("page: %s = {%s: %d}; real HGETALL: %v %q", k.Key, demo.Short(k.Value), k.Count, r.fields, r.value))
				continue
			}
		} else if r.fields != nil || r.value != k.Value {
			diffs = append(diffs, fmt.Sprintf("page: %s = %s; real: %q %v", k.Key, demo.Short(k.Value), shortArgs([]string{r.value}), r.fields))
			continue
		}
		v := r.end
		switch {
		case k.TTL < 0 && v != -1:
			diffs = append(diffs, fmt.Sprintf("page: %s never expires; real PEXPIRETIME %d", k.Key, v))
		case k.TTL >= 0 && v < 0:
			diffs = append(diffs, fmt.Sprintf("page: %s ends in %d ms; real PEXPIRETIME %d (none)", k.Key, k.TTL, v))
		case k.TTL >= 0:
			cl.tally.Add("expiries compared", 1)
			if ok, why := cl.matches(n.Name, v, p.Now+k.TTL); !ok {
				diffs = append(diffs, fmt.Sprintf("page: %s ends at t=%dms (TTL %d ms); %s", k.Key, p.Now+k.TTL, k.TTL, why))
			}
		}
		if v > 0 {
			cl.exp.last[[2]string{n.Name, k.Key}] = v
		}
	}
	for k, r := range real {
		if d := cl.extra(p, n.Name, k, r); d != "" {
			diffs = append(diffs, d)
		}
	}
	return diffs
}

// gone judges a key the page shows that the real node no longer has. The
// real node may have let it expire because the suite ran late: it agrees
// when the page gives the key time left, its real end stands for the
// page's, and real time has passed that end.
func (cl *cluster) gone(f page, node string, k model.KeyState) string {
	v, ok := cl.exp.last[[2]string{node, k.Key}]
	if k.TTL > 0 && ok && time.Now().UnixMilli() > v {
		if agree, why := cl.matches(node, v, f.Now+k.TTL); agree {
			cl.note("%s frame %d: %s %s had expired on the real node, as the suite ran late; its end agreed", cl.name, f.Index, node, k.Key)
			return ""
		} else {
			return fmt.Sprintf("page: %s ends at t=%dms; the real key has gone: %s", k.Key, f.Now+k.TTL, why)
		}
	}
	return fmt.Sprintf("page: %s = %s; real: no such key", k.Key, demo.Short(k.Value))
}

// extra judges a key the real node has that the page does not show: it
// agrees only where the model let the key run out within the window of its
// real end, a moment too close to call.
func (cl *cluster) extra(f page, node, key string, r realKey) string {
	if lo, hi, ok := cl.around(r.end); ok && lo <= f.Now && f.Now < hi {
		cl.note("%s frame %d: %s %s ends within [%d, %d], too close to t=%dms to say whether it is there", cl.name, f.Index, node, key, lo, hi, f.Now)
		return ""
	}
	return fmt.Sprintf("page: no %s; real: %s %v, PEXPIRETIME %d", key, shortArgs([]string{r.value}), r.fields, r.end)
}

// panelNode is one node's row of the nodes panel: its keys as "key =
// value", and its TTL cell, which prints each key's TTL one after the other.
type panelNode struct {
	keys []string
	ttls string
}

// nodesPanel reads the nodes panel of a frame's page, by node.
func nodesPanel(doc *goquery.Document) map[string]panelNode {
	out := map[string]panelNode{}
	doc.Find(`tr[data-testid^="node-"]`).Each(func(_ int, tr *goquery.Selection) {
		id, _ := tr.Attr("data-testid")
		var p panelNode
		tr.Find("code.full").Each(func(_ int, c *goquery.Selection) { p.keys = append(p.keys, c.Text()) })
		if cells := tr.Find("td"); cells.Length() == 3 && len(p.keys) > 0 {
			p.ttls = strings.TrimSpace(cells.Eq(2).Text())
		}
		out[strings.TrimPrefix(id, "node-")] = p
	})
	return out
}

// panelKeys holds what the panel prints of node's keys against the real
// node: each key's value, and its TTL, which must be a time left within
// the window of the real key's end.
func (cl *cluster) panelKeys(f page, n model.NodeState, shown panelNode) (diffs []string) {
	if len(shown.keys) != len(n.Keys) {
		return []string{fmt.Sprintf("the panel prints %d keys on %s, the frame has %d", len(shown.keys), n.Name, len(n.Keys))}
	}
	ttls := durations(shown.ttls, views.TTL("en", f.Scenario, -1))
	if len(ttls) != len(n.Keys) {
		return []string{fmt.Sprintf("the panel prints the TTLs %q on %s, for %d keys", shown.ttls, n.Name, len(n.Keys))}
	}
	for i, k := range n.Keys {
		key, value, _ := strings.Cut(shown.keys[i], " = ")
		want := k.Value
		if k.Count > 0 {
			want = "{" + k.Value + " → " + strconv.Itoa(k.Count) + "}"
		}
		if key != k.Key || value != want {
			diffs = append(diffs, fmt.Sprintf("the panel prints %q; the frame has %s = %s", shown.keys[i], k.Key, want))
		}
		v, ok := cl.exp.last[[2]string{n.Name, k.Key}]
		lo, hi, found := cl.around(v)
		switch {
		case k.TTL < 0 && ttls[i] >= 0:
			diffs = append(diffs, fmt.Sprintf("the panel prints %s's TTL %d ms; the key never expires", k.Key, ttls[i]))
		case k.TTL < 0, !ok || !found:
			// Never expires, or a difference keys has reported.
		case ttls[i] < lo-f.Now || ttls[i] > hi-f.Now:
			diffs = append(diffs, fmt.Sprintf("the panel prints %s's TTL %d ms; the real key has %d to %d ms left", k.Key, ttls[i], lo-f.Now, hi-f.Now))
		}
	}
	return diffs
}

// aDuration is a duration as the page prints one in ms: "9.5s", "500ms".
var aDuration = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?(ms|s)`)

// durations reads a panel's cell of TTLs printed one after the other, in
// ms, -1 for none (the words none).
func durations(cell, none string) []int {
	var out []int
	for rest := strings.TrimSpace(cell); rest != ""; rest = strings.TrimSpace(rest) {
		if r, ok := strings.CutPrefix(rest, none); ok {
			out, rest = append(out, -1), r
			continue
		}
		m := aDuration.FindString(rest)
		if m == "" {
			return nil
		}
		num, unit := strings.TrimSuffix(strings.TrimSuffix(m, "s"), "m"), 1000.0
		if strings.HasSuffix(m, "ms") {
			unit = 1
		}
		x, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return nil
		}
		out, rest = append(out, int(math.Round(x*unit))), rest[len(m):]
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
