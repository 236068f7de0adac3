package follow

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Limits that must hold across replicas are counted in the relay's Redis:
// behind a round-robin balancer each replica sees a third of an address's
// streams and new runs, and limits counted per replica would be three times
// as loose. The scripts read Redis's own clock (TIME), so replicas whose
// clocks disagree still count the same.
//
// An address's follow places are a hash of replica -> streams held, and
// only replicas alive count: each says so every beatEvery, with the counts
// of the addresses that changed since its last beat. A lecture's seated
// followers are counted the same way, so that a replica whose share of the
// room is full knows whether the room is (places.go). A replica killed with
// its streams open stops counting aliveFor after its last beat, so its
// followers, reconnecting through the balancer to the others, find their
// places free within seconds; one that stops in order leaves at once.

const (
	beatEvery = 500 * time.Millisecond
	aliveFor  = 2 * time.Second
	placesTTL = time.Hour // an address's hash, after its last change
	beatBatch = 500       // addresses per beat script
)

// Each replica's count of an address's streams is "<count>/<version>":
// the versions order this replica's readings of its own counts, so a
// reading sent by a beat that raced a later take never overwrites it.
const setCount = `
local function set(key, replica, count, version)
  local cur = redis.call('HGET', key, replica)
  if not cur or tonumber(string.match(cur, '/(%d+)$')) < tonumber(version) then
    redis.call('HSET', key, replica, count .. '/' .. version)
  end
end
`

// beatScript marks replica ARGV[1] alive for ARGV[2] ms in KEYS[1] and sets
// its count of each address's streams (KEYS[2...], ARGV[5...]) at version
// ARGV[4]; it returns how many replicas are alive.
var beatScript = redis.NewScript(setCount + `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
for i = 2, #KEYS do
  set(KEYS[i], ARGV[1], ARGV[i + 3], ARGV[4])
  redis.call('PEXPIRE', KEYS[i], ARGV[3])
end
return redis.call('ZCARD', KEYS[1])
`)

// others sums the counts of the replicas alive (KEYS[2]) other than
// ARGV[1] in hash key, forgetting those of replicas dead.
const others = `
local function others(key, now)
  local held = 0
  local h = redis.call('HGETALL', key)
  for i = 1, #h, 2 do
    if h[i] ~= ARGV[1] then
      if (tonumber(redis.call('ZSCORE', KEYS[2], h[i])) or 0) < now then
        redis.call('HDEL', key, h[i])
      else
        held = held + tonumber(string.match(h[i + 1], '^%d+'))
      end
    end
  end
  return held
end
`

// takeScript gives replica ARGV[1] one more of address KEYS[1]'s places if
// what the other replicas alive (KEYS[2]) hold and what this one holds
// with it (ARGV[5], at version ARGV[6]) come to no more than ARGV[2]. It
// returns whether it did, and how many seated followers the other replicas
// have in the lecture KEYS[3]. Taking a place is a sign of life too.
var takeScript = redis.NewScript(setCount + others + `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[1])
local room = others(KEYS[3], now)
if others(KEYS[1], now) + tonumber(ARGV[5]) > tonumber(ARGV[2]) then return {0, room} end
set(KEYS[1], ARGV[1], ARGV[5], ARGV[6])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, room}
`)

func (r *Redis) replicasKey() string          { return r.prefix + "replicas" }
func (r *Redis) placesKey(addr string) string { return r.prefix + "places:" + addr }
func (r *Redis) roomKey(fid string) string    { return r.prefix + "room:" + fid }

// take gives this replica one more of addr's limit places across replicas,
// where it holds held of them with the new one (version orders this
// replica's readings); room is how many seated followers lecture fid has
// on the other replicas alive.
func (r *Redis) take(ctx context.Context, addr, fid string, limit, held int, version uint64) (ok bool, room int, err error) {
	v, err := takeScript.Run(ctx, r.client, []string{r.placesKey(addr), r.replicasKey(), r.roomKey(fid)},
		r.replica, limit, placesTTL.Milliseconds(), aliveFor.Milliseconds(), held, version).Int64Slice()
	if err == nil && len(v) != 2 {
		err = errors.New("follow redis: a count of places")
	}
	if err != nil {
		return false, 0, err
	}
	return v[0] == 1, int(v[1]), nil
}

// beat says this replica is alive and how many streams it holds of each
// key (an address's places, a lecture's room: counts, in the same order),
// read at version.
func (r *Redis) beat(ctx context.Context, keys []string, counts []int, version uint64) error {
	for first := true; first || len(keys) > 0; first = false {
		n := min(len(keys), beatBatch)
		batch := []string{r.replicasKey()}
		args := []any{r.replica, aliveFor.Milliseconds(), placesTTL.Milliseconds(), version}
		for i := range n {
			batch = append(batch, keys[i])
			args = append(args, counts[i])
		}
		live, err := beatScript.Run(ctx, r.client, batch, args...).Int()
		if err != nil {
			return err
		}
		r.live.Store(int64(max(live, 1)))
		keys, counts = keys[n:], counts[n:]
	}
	return nil
}

// Leave says this replica is gone, so its places count no more at once:
// for a replica stopping in order, whose streams have ended.
func (r *Redis) Leave(ctx context.Context) error {
	return r.client.ZRem(ctx, r.replicasKey(), r.replica).Err()
}

// Replicas is how many replicas were alive at the last beat (at least 1).
func (r *Redis) Replicas() int { return int(max(r.live.Load(), 1)) }

// share is this replica's part of a bound limit shared by the replicas
// alive: what it allows by itself while Redis does not answer, so that
// together they still allow no more than limit.
func (r *Redis) share(limit int) int {
	return max(1, int(math.Ceil(float64(limit)/float64(r.Replicas()))))
}

// Share is share, for the limits web counts (new runs, tickets).
func (r *Redis) Share(limit int) int { return r.share(limit) }

// beats tells Redis, every beatEvery until ctx ends, that this replica is
// alive and what it holds from the addresses whose count changed. An
// address whose count Redis did not take is sent again at the next beat.
func (b *Broker) beats(ctx context.Context, r *Redis) {
	tick := time.NewTicker(beatEvery)
	defer tick.Stop()
	for {
		b.beatOnce(ctx, r)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// counted is what a beat tells Redis this replica holds: an address's
// streams, or a lecture's.
type counted struct{ addr, fid string }

func (b *Broker) beatOnce(ctx context.Context, r *Redis) {
	b.mu.Lock()
	dirty := make([]counted, 0, len(b.dirty))
	keys := make([]string, 0, len(b.dirty))
	counts := make([]int, 0, len(b.dirty))
	for d := range b.dirty {
		dirty = append(dirty, d)
		if d.fid != "" {
			keys = append(keys, r.roomKey(d.fid))
			counts = append(counts, b.roomHeld(d.fid))
		} else {
			keys = append(keys, r.placesKey(d.addr))
			counts = append(counts, len(b.perAddr[d.addr])+b.pending[d.addr])
		}
	}
	clear(b.dirty)
	b.readings++
	version := b.readings
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, beatEvery)
	defer cancel()
	if err := r.beat(ctx, keys, counts, version); err != nil {
		b.log.Debug("follow: telling redis this replica is alive", "err", err)
		b.recount(dirty)
	}
}

// roomHeld is how many seated followers lecture fid has here, with those
// being admitted. b.mu is held.
func (b *Broker) roomHeld(fid string) int {
	n := b.pending[roomPending+fid]
	if s := b.byID[fid]; s != nil {
		n += s.seated.total()
	}
	return n
}

// roomPending marks a lecture's seated count among the addresses' in
// pending.
const roomPending = "room:"

// recount marks what dirty names, or with nil everything this replica
// holds streams of, as to be told to Redis at the next beat: after a beat
// that failed, and after Redis came back, perhaps empty.
func (b *Broker) recount(dirty []counted) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if dirty == nil {
		for a := range b.perAddr {
			b.dirty[counted{addr: a}] = struct{}{}
		}
		for fid := range b.byID {
			b.dirty[counted{fid: fid}] = struct{}{}
		}
	}
	for _, d := range dirty {
		b.dirty[d] = struct{}{}
	}
}

// allowanceScript takes one from address KEYS[1]'s allowance: ARGV[2] at
// once, one more every ARGV[1] ms (the generic cell rate algorithm: the key
// holds when the allowance is next full). It returns 0, or how many ms to
// wait.
var allowanceScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local nxt = tat + interval
local allowAt = nxt - burst * interval
if now < allowAt then return math.ceil(allowAt - now) end
redis.call('SET', KEYS[1], string.format('%d', math.ceil(nxt)), 'PX', math.ceil(nxt - now) + 1000)
return 0
`)

// Take takes one from addr's allowance of kind ("runs", "tickets") across
// every replica: burst at once, perSecond after that. ok false says how
// long to wait.
func (r *Redis) Take(ctx context.Context, kind, addr string, perSecond float64, burst int) (ok bool, retry time.Duration, err error) {
	interval := 1000 / perSecond
	if math.IsInf(interval, 0) || interval <= 0 {
		return true, 0, nil
	}
	ms, err := allowanceScript.Run(ctx, r.client, []string{r.prefix + kind + ":" + addr}, interval, burst).Int64()
	if err != nil {
		return false, 0, err
	}
	return ms == 0, time.Duration(ms) * time.Millisecond, nil
}

// rarely lets something happen at most once a second: a warning that could
// otherwise be logged thousands of times a second.
type rarely struct{ last atomic.Int64 }

func (r *rarely) allow(now time.Time) bool {
	last := r.last.Load()
	return now.UnixNano()-last >= int64(time.Second) && r.last.CompareAndSwap(last, now.UnixNano())
}

// Cached is what Cache kept under key, if anything: answers that cost
// a replica a second of CPU (a search from the page) and that are the same
// on every replica, kept so that only one of them pays.
func (r *Redis) Cached(ctx context.Context, key string) ([]byte, bool, error) {
	b, err := r.client.Get(ctx, r.prefix+"cache:"+key).Bytes()
	if err == redis.Nil {
		return nil, false, nil
	}
	return b, err == nil, err
}

// Cache keeps val under key for ttl, for every replica.
func (r *Redis) Cache(ctx context.Context, key string, val []byte, ttl time.Duration) error {
	return r.client.Set(ctx, r.prefix+"cache:"+key, val, ttl).Err()
}
