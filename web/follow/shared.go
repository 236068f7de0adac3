package follow

import (
	"context"
	"math"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Limits that must hold across replicas are counted in the relay's Redis:
// behind a round-robin balancer each replica sees a third of an address's
// streams and new runs, and limits counted per replica would be three times
// as loose. Both scripts read Redis's own clock (TIME), so replicas whose
// clocks disagree still count the same.

// holdScript gives member (one follow stream) a place among address KEYS[1]'s
// streams if fewer than ARGV[2] are held, for ARGV[3] ms: a place is a lease,
// so the places of a replica killed with its streams open come free by
// themselves. ARGV[4] "renew" only extends a place already held.
var holdScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if ARGV[4] == 'renew' then
  redis.call('ZADD', KEYS[1], 'XX', now + ttl, ARGV[1])
elseif redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
else
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
end
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
`)

// runScript takes one new run from address KEYS[1]'s allowance: ARGV[2]
// runs at once, one more every ARGV[1] ms (the generic cell rate algorithm:
// the key holds when the allowance is next full). It returns 0, or how many
// ms to wait.
var runScript = redis.NewScript(`
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

var leases atomic.Uint64

// hold gives a new stream from addr one of its limit places across
// replicas; the member it returns names the place.
func (r *Redis) hold(ctx context.Context, addr string, limit int, ttl time.Duration) (string, bool, error) {
	member := r.replica + ":" + strconv.FormatUint(leases.Add(1), 36)
	ok, err := holdScript.Run(ctx, r.client, []string{r.prefix + "addr:" + addr}, member, limit, ttl.Milliseconds(), "take").Int()
	return member, ok == 1, err
}

func (r *Redis) renew(ctx context.Context, addr, member string, ttl time.Duration) error {
	return holdScript.Run(ctx, r.client, []string{r.prefix + "addr:" + addr}, member, 0, ttl.Milliseconds(), "renew").Err()
}

func (r *Redis) release(ctx context.Context, addr, member string) error {
	return r.client.ZRem(ctx, r.prefix+"addr:"+addr, member).Err()
}

// TakeRun takes one new run from addr's allowance across every replica:
// burst at once, perSecond after that. ok false says how long to wait.
func (r *Redis) TakeRun(ctx context.Context, addr string, perSecond float64, burst int) (ok bool, retry time.Duration, err error) {
	interval := 1000 / perSecond
	if math.IsInf(interval, 0) || interval <= 0 {
		return true, 0, nil
	}
	ms, err := runScript.Run(ctx, r.client, []string{r.prefix + "runs:" + addr}, interval, burst).Int64()
	if err != nil {
		return false, 0, err
	}
	return ms == 0, time.Duration(ms) * time.Millisecond, nil
}
