package conformance

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// scale is how much faster than the model the suite runs: one model second
// is 1000/scale ms of real time (200 ms), so a 30 s TTL lasts 6 s on the
// real server. Faster scales flaked on this machine's two shared cores under
// a load of 20, where the suite ran up to a second behind its clock. Every
// duration a command carries (PX, EXPIRE, the renewal's TTL) is divided by
// scale before it is sent; the model's numbers must divide evenly, so
// nothing is rounded.
const scale = 5

// pacer maps the model's time onto real time: model time t is real time
// base + t/scale. A suite that falls behind (round trips, a busy machine)
// is late, and a late suite would find on the real nodes keys run out that
// the model still keeps. Where every node is a primary of its own (one
// node, Redlock's), catchUp moves every key's expiry later by what the
// suite is late, and base with it: for the keys, it is as if no real time
// had passed. A replica's keys cannot be moved (it takes no writes but its
// primary's, through the held stream), so there the suite stays late, and
// a reply that differs where it is late is a close call (cluster.close).
type pacer struct {
	base  time.Time // real time of model time 0
	moved time.Duration
}

func newPacer() *pacer { return &pacer{base: time.Now()} }

// realDuration returns the real duration of d model ms.
func realDuration(d int) time.Duration {
	return time.Duration(d) * time.Millisecond / scale
}

// at is model time t in real time.
func (p *pacer) at(t int) time.Time { return p.base.Add(realDuration(t)) }

// until waits until model time t has come.
func (p *pacer) until(t int) { time.Sleep(time.Until(p.at(t))) }

// late returns how far real time has run past model time t.
func (p *pacer) late(t int) time.Duration { return max(0, time.Since(p.at(t))) }

// slack is how late the suite may run before catchUp moves the keys: a
// round trip's worth, 5 model ms at this scale.
const slack = time.Millisecond

// shiftScript moves every key's absolute expiry ARGV[1] ms later and
// returns each moved key with its old expiry.
const shiftScript = `local out = {}
for _, k in ipairs(redis.call('KEYS', '*')) do
  local at = redis.call('PEXPIRETIME', k)
  if at > 0 then
    redis.call('PEXPIREAT', k, at + tonumber(ARGV[1]))
    out[#out+1] = k
    out[#out+1] = at
  end
end
return out`

// catchUp, before the suite acts at model time t, moves every key's expiry
// on every node later by what the suite is late, where the nodes take it
// (see pacer).
func (cl *cluster) catchUp(t int) {
	late := cl.clock.late(t).Truncate(time.Millisecond)
	if late < slack || cl.relay != nil {
		return
	}
	ctx := context.Background()
	for name, n := range cl.nodes {
		if !n.Running() {
			continue
		}
		res, err := cl.conn("", name).Do(ctx, "EVAL", shiftScript, 0, late.Milliseconds()).Slice()
		if err != nil {
			cl.t.Fatalf("frame %d: %s: moving the expiries %v later: %v", cl.frame, name, late, err)
		}
		for i := 0; i+1 < len(res); i += 2 {
			k, _ := res[i].(string)
			from, _ := res[i+1].(int64)
			cl.moved(name, k, from, from+late.Milliseconds(), late)
		}
	}
	cl.clock.base = cl.clock.base.Add(late)
	cl.clock.moved += late
}

// A key's TTL is compared through the absolute expiry the real node keeps
// (PEXPIRETIME, in Unix ms), never through a PTTL read later, which would
// count every round trip and oversleep the suite has made since as time
// gone by. Redis sets the expiry of SET ... PX d to the moment it ran the
// command, in whole ms, plus d; the suite knows that moment within the
// command's round trip. So the key ends, in model time, within
//
//	[at + (R - got) x scale, at + (R - sent + 1) x scale]
//
// where at is the model time of the command that set it, sent and got the
// real moments it went out and its answer came back, and R the node's
// expiry: a window (1 ms + the round trip) x scale wide, some 5 to 10
// model ms. It cannot be narrower: Redis keeps an expiry in whole ms, 5
// model ms at this scale, and when within its round trip the server ran a
// command no client can know. The model's expiry must fall in the window.

// maxSlew is the most, in model ms, the model may slew a node's clock,
// which the suite does not play: 500 ppm over a minute is 30 ms.
const maxSlew = 50

// expiry is how one expiry on a real node came about: the command that set
// it, at model time At, sent at Sent and answered at Got; Real is the
// expiry the node keeps, Unix ms.
type expiry struct {
	At        int
	Sent, Got time.Time
	Real      int64
}

// window is the model times the key's end stands for (see above).
func (e expiry) window() (lo, hi int) {
	ms := func(t time.Time) float64 { return float64(t.UnixMicro()) / 1000 }
	lo = e.At + int((float64(e.Real)-ms(e.Got))*scale)
	hi = e.At + int((float64(e.Real)-ms(e.Sent)+1)*scale) + 1
	return lo, hi
}

// expiries are the expiries the suite saw each command set, by the
// absolute time (a replica's copy of a key keeps its primary's, so one
// record serves every node), and what each node's keys had when the suite
// last looked.
type expiries struct {
	by    map[int64][]expiry
	last  map[[2]string]int64 // (node, key) -> its expiry when last seen; absent: none or no key
	width int                 // the widest window compared, in model ms
}

func newExpiries() *expiries {
	return &expiries{by: map[int64][]expiry{}, last: map[[2]string]int64{}}
}

// pexpiretime asks a node a key's absolute expiry: -2 for no key, -1 for
// none.
func (cl *cluster) pexpiretime(node, key string) int64 {
	v, err := cl.conn("", node).Do(context.Background(), "PEXPIRETIME", key).Int64()
	if err != nil {
		cl.t.Fatalf("frame %d: %s: PEXPIRETIME %s: %v", cl.frame, node, key, err)
	}
	return v
}

// before notes, ahead of a command on node, the expiry of each of its keys
// that the suite has not seen yet (a copy the node got by replication),
// so that after the command only a change is put down to it.
func (cl *cluster) before(node string, keys []string) {
	for _, k := range keys {
		if _, ok := cl.exp.last[[2]string{node, k}]; !ok {
			if v := cl.pexpiretime(node, k); v > 0 {
				cl.exp.last[[2]string{node, k}] = v
			}
		}
	}
}

// after records the expiry v that a command at model time at, sent and
// answered at sent and got, left on node's key, if it changed it.
func (cl *cluster) after(node, key string, v int64, at int, sent, got time.Time) {
	nk := [2]string{node, key}
	if v <= 0 {
		delete(cl.exp.last, nk)
		return
	}
	if cl.exp.last[nk] != v {
		cl.exp.by[v] = append(cl.exp.by[v], expiry{At: at, Sent: sent, Got: got, Real: v})
	}
	cl.exp.last[nk] = v
}

// matches reports whether the model's end of node's key, end, falls in the
// window of one of the commands that could have set real expiry v, and
// describes the windows for a message. A node whose clock the model slews
// ends its keys earlier or later by what it has slewed since, which the
// real node does not play: the window widens by that much.
func (cl *cluster) matches(node string, v int64, end int) (bool, string) {
	recs := cl.exp.by[v]
	if len(recs) == 0 {
		return false, fmt.Sprintf("no command the suite sent set the expiry %d", v)
	}
	slew := abs(cl.slew[node])
	var ws []string
	for _, r := range recs {
		lo, hi := r.window()
		cl.exp.width = max(cl.exp.width, hi-lo)
		if lo-slew <= end && end <= hi+slew {
			return true, ""
		}
		ws = append(ws, fmt.Sprintf("[%d, %d] (set at t=%dms, round trip %v)", lo, hi, r.At, r.Got.Sub(r.Sent).Round(time.Microsecond)))
	}
	if slew > 0 {
		ws = append(ws, fmt.Sprintf("each widened by the %d ms the model slewed %s's clock", slew, node))
	}
	return false, fmt.Sprintf("the real expiry stands for model times %v", ws)
}

// around returns the earliest and latest model times the real expiry v
// stands for, over the commands that could have set it; ok is false when
// no command the suite sent set it.
func (cl *cluster) around(v int64) (lo, hi int, ok bool) {
	for i, r := range cl.exp.by[v] {
		l, h := r.window()
		if i == 0 || l < lo {
			lo = l
		}
		if i == 0 || h > hi {
			hi = h
		}
		ok = true
	}
	return lo, hi, ok
}

// moved notes that node's key, whose expiry was from, now ends at to:
// moved by the emulated clock jump (by 0: its records keep their model
// times, so the key ends earlier in model time), or later by catchUp (by
// the real time the suite was late: as if each command that set it ran
// that much later).
func (cl *cluster) moved(node, key string, from, to int64, by time.Duration) {
	for _, r := range cl.exp.by[from] {
		r.Real, r.Sent, r.Got = to, r.Sent.Add(by), r.Got.Add(by)
		// Several nodes may keep one expiry (a Redlock's five SETs within
		// one ms): each moves its key, and the records once.
		if !slices.ContainsFunc(cl.exp.by[to], func(o expiry) bool { return o.At == r.At && o.Sent.Equal(r.Sent) && o.Got.Equal(r.Got) }) {
			cl.exp.by[to] = append(cl.exp.by[to], r)
		}
	}
	cl.exp.last[[2]string{node, key}] = to
}

// expired waits, before the suite acts at model time t on node, until the
// real node has let every key run out whose end, in model time, is before
// t: Redis lets a key go the first whole ms after its expiry.
func (cl *cluster) expired(node string, t int) {
	for nk, v := range cl.exp.last {
		if nk[0] != node {
			continue
		}
		if _, hi, ok := cl.around(v); ok && hi <= t {
			time.Sleep(time.Until(time.UnixMilli(v + 1)))
		}
	}
}

// ended plays a key the model lets run out on node at model time at,
// often the very moment a later command comes (a tick of the key's TTL,
// then SET NX): where at lies in the window of the real key's end, it is
// the same moment as far as the suite can tell, and the suite waits until
// the real node has let the key go.
func (cl *cluster) ended(node, key string, at int) {
	v, ok := cl.exp.last[[2]string{node, key}]
	if lo, hi, found := cl.around(v); ok && found && lo <= at && at <= hi {
		time.Sleep(time.Until(time.UnixMilli(v + 1)))
	}
}

// close reports whether a command at model time t on node's key is too
// close to the key's end to judge: the model's time lies within the real
// expiry's window, or the suite runs so late that the real key is already
// gone where the model's still lives.
func (cl *cluster) close(node, key string, t int) (bool, string) {
	v, ok := cl.exp.last[[2]string{node, key}]
	if !ok {
		return false, ""
	}
	lo, hi, ok := cl.around(v)
	switch {
	case !ok || t >= hi:
		return false, ""
	case t >= lo:
		return true, fmt.Sprintf("t=%dms lies within %s %s's end, model times [%d, %d]", t, node, key, lo, hi)
	case time.Now().UnixMilli() >= v:
		return true, fmt.Sprintf("the suite ran %v late: %s %s ended on the real node before t=%dms was reached (it stands for [%d, %d])", cl.clock.late(t).Round(time.Millisecond), node, key, t, lo, hi)
	}
	return false, ""
}
