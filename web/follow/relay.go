package follow

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/distlock/fencing-demo/demo"
)

// Relay carries moves between the replicas behind a load balancer, and keeps
// each lecture's latest move where every replica can read it.
type Relay interface {
	// Publish records at as lecture fid's latest move with a version of at
	// least floor and above any before it, tells every replica, and returns
	// the version.
	// A touch is the same frame drawn again (a question asked): replicas
	// draw it even though they show that frame already.
	Publish(ctx context.Context, fid string, at At, floor uint64, touch bool) (uint64, error)
	// Latest is lecture fid's latest move; false when it has none.
	Latest(ctx context.Context, fid string) (At, uint64, bool, error)
}

// Redis is the relay through Redis pub/sub. Redis rather than NATS or
// PostgreSQL's LISTEN/NOTIFY: the project's conformance suite already runs
// a real redis-server, Redis keeps the latest move under a key with an
// expiry in the same atomic script that publishes it (so a follower joining
// on any replica starts from it, and a version is never handed out twice),
// and a lecture's moves are a few bytes a click. Pub/sub delivers nothing
// sent while a replica was cut off; the replica reads every lecture it
// serves again from the keys when it subscribes anew.
type Redis struct {
	client  *redis.Client
	lookup  func(id string) (*demo.Scenario, bool)
	channel string
	prefix  string
	ttl     time.Duration
	replica string       // names this process's places in the shared limits (shared.go)
	live    atomic.Int64 // replicas alive at the last beat (shared.go)
	// resubscribed run each time the subscription is made again: the
	// polls' answers and the tickets' secret are written back to a Redis
	// that lost them.
	hooks        sync.Mutex
	resubscribed []func(context.Context)
	// pollChanged, when set, hears each poll change any replica announced.
	pollChanged atomic.Pointer[func(fid string)]
}

// pollChannel carries the follow id of each poll change (poll.go's
// scripts publish it), beside the moves' channel.
func (r *Redis) pollChannel() string { return r.channel + ":poll" }

// NewRedis connects to the Redis at url (redis://host:port/db) and finds
// scenarios by id with lookup (a built one by the key move writes). A lecture's latest move is kept for ttl after
// its last.
func NewRedis(url string, ttl time.Duration, lookup func(id string) (*demo.Scenario, bool)) (*Redis, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("follow redis: %w", err)
	}
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = time.Second, time.Second, time.Second
	return &Redis{client: redis.NewClient(opt), lookup: lookup, channel: "fencing-demo:follow", prefix: "fencing-demo:follow:", ttl: ttl,
		replica: strconv.FormatInt(time.Now().UnixNano(), 36)}, nil
}

// Close lets the connections go.
func (r *Redis) Close() error { return r.client.Close() }

// publishScript sets a lecture's latest move and publishes it, in one step,
// so two replicas never hand out one version twice. The key's value is
// "<version> <scenario> <on|off> <step> [<play>]" (parse); the message is the follow id and
// the same.
var publishScript = redis.NewScript(`
local v = tonumber(ARGV[1])
local cur = redis.call('GET', KEYS[1])
if cur then
  local c = tonumber(string.match(cur, '^%d+'))
  if c and c >= v then v = c + 1 end
end
local val = string.format('%d', v) .. ' ' .. ARGV[2]
redis.call('SET', KEYS[1], val, 'PX', ARGV[3])
redis.call('PUBLISH', ARGV[4], ARGV[5] .. ' ' .. val)
return val
`)

// Publish is Relay.Publish.
func (r *Redis) Publish(ctx context.Context, fid string, at At, floor uint64, touch bool) (uint64, error) {
	m := move(at)
	if touch {
		m += " " + touchField
	}
	val, err := publishScript.Run(ctx, r.client, []string{r.prefix + fid},
		floor, m, r.ttl.Milliseconds(), r.channel, fid).Text()
	if err != nil {
		return 0, err
	}
	_, v, err := r.parse(val)
	return v, err
}

// move is a place as the key's value holds it, after the version. A
// learner's build (a lab's built scenario) rides after its scenario's id,
// "+" and its text in base64url, which the lookup the relay was made with
// applies.
func move(at At) string {
	id := at.Sc.ID
	if at.Sc.Built != "" {
		id += "+" + base64.RawURLEncoding.EncodeToString([]byte(at.Sc.Built))
	}
	m := id + " " + demo.OnOff(at.On) + " " + strconv.Itoa(at.Step)
	if at.Play != "" {
		m += " " + base64.RawURLEncoding.EncodeToString([]byte(at.Play))
	}
	return m
}

// touchField ends a move that draws the frame shown again.
const touchField = "touch"

// Latest is Relay.Latest.
func (r *Redis) Latest(ctx context.Context, fid string) (At, uint64, bool, error) {
	val, err := r.client.Get(ctx, r.prefix+fid).Result()
	if err == redis.Nil {
		return At{}, 0, false, nil
	}
	if err != nil {
		return At{}, 0, false, err
	}
	at, v, err := r.parse(val)
	return at, v, err == nil, err
}

// parse reads "<version> <scenario> <on|off> <step> [<play>] [touch]": the
// free-play history (demo.Place.Play) in base64url, as it has spaces, and
// a touch's field.
func (r *Redis) parse(val string) (At, uint64, error) {
	f := strings.Fields(val)
	if len(f) > 4 && f[len(f)-1] == touchField {
		f = f[:len(f)-1]
	}
	if len(f) != 4 && len(f) != 5 {
		return At{}, 0, fmt.Errorf("follow redis: a move %q", val)
	}
	v, err := strconv.ParseUint(f[0], 10, 64)
	step, err2 := strconv.Atoi(f[3])
	sc, ok := r.lookup(f[1])
	var play []byte
	var err3 error
	if len(f) == 5 {
		play, err3 = base64.RawURLEncoding.DecodeString(f[4])
	}
	if err != nil || err2 != nil || err3 != nil || !ok || step < 1 || step > sc.Frames() {
		return At{}, 0, fmt.Errorf("follow redis: a move %q", val)
	}
	return At{Sc: sc, On: f[2] == "on", Step: step, Play: string(play)}, v, nil
}

// onResubscribe runs f each time the relay subscribes again.
func (r *Redis) onResubscribe(f func(context.Context)) {
	r.hooks.Lock()
	defer r.hooks.Unlock()
	r.resubscribed = append(r.resubscribed, f)
}

// UseRelay makes b tell every replica of its moves through r, and hear
// theirs, until ctx ends. Call it before the server takes requests.
func (b *Broker) UseRelay(ctx context.Context, r *Redis, log *slog.Logger) {
	b.relay, b.log, b.shared = r, log, r
	go b.listen(ctx, r)
	go b.beats(ctx, r)
}

// listen applies every replica's moves as Redis delivers them. go-redis
// subscribes again by itself after a lost connection (a Redis restart); each
// time it has, the lectures followed here are read again from their keys,
// since what was published in between is lost.
func (b *Broker) listen(ctx context.Context, r *Redis) {
	ps := r.client.Subscribe(ctx, r.channel, r.pollChannel())
	defer ps.Close()
	for {
		msg, err := ps.Receive(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			b.log.Debug("follow: redis subscription", "err", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(200 * time.Millisecond): // Redis is away: try again soon, not in a tight loop
			}
			continue
		}
		switch m := msg.(type) {
		case *redis.Subscription:
			if m.Kind == "subscribe" && m.Channel == r.channel {
				go b.resync(ctx)
				b.recount(nil) // Redis may have restarted empty: the places held here, again
				r.hooks.Lock()
				for _, f := range r.resubscribed {
					go f(ctx)
				}
				r.hooks.Unlock()
			}
		case *redis.Message:
			if m.Channel != r.channel {
				if f := r.pollChanged.Load(); f != nil {
					(*f)(m.Payload)
				}
				continue
			}
			fid, val, ok := strings.Cut(m.Payload, " ")
			if !ok {
				continue
			}
			at, v, err := r.parse(val)
			if err != nil {
				b.log.Warn("follow: a move from redis", "err", err)
				continue
			}
			b.applyTouch(fid, at, v, false, strings.HasSuffix(val, " "+touchField))
		}
	}
}
