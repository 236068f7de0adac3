package room

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis keeps rooms in the replicas' Redis (the one follow-along shares),
// so a room outlives a restart and every replica counts the same
// submissions. Each change is one script: a submission's key is looked up
// and its counts made in one step, so two replicas, or a learner's retry
// after a replica died, never count one submission twice. Every key of a
// room expires after the idle limit unless the room is used, and Close
// deletes them all: nothing about a learner outlives the room.
//
// A room's keys (keys): its settings, learners (id -> nickname), learners
// per address, submissions by learner and key, submissions by id, the
// latest solved ones; then per challenge a tally (submissions and the
// histogram of moves), and the sets of learners who tried, solved and
// solved at par. Changes are announced on one channel, the room's id the
// message, so each replica's boards wake.
type Redis struct {
	changes
	client  *redis.Client
	prefix  string
	channel string
	limits  Limits
	log     *slog.Logger
	stop    context.CancelFunc
	keep    *keep // what this replica wrote, to write back after a Redis restart (keep.go)
}

// NewRedis keeps rooms in the Redis at url, within limits.
func NewRedis(url string, limits Limits, log *slog.Logger) (*Redis, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("room redis: %w", err)
	}
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = time.Second, time.Second, time.Second
	r := &Redis{client: redis.NewClient(opt), prefix: "fencing-demo:room:", channel: "fencing-demo:rooms", limits: limits, log: log, keep: newKeep(limits.Idle)}
	ctx, cancel := context.WithCancel(context.Background())
	r.stop = cancel
	go r.listen(ctx)
	return r, nil
}

// Stop stops listening and lets the connections go.
func (r *Redis) Stop() error {
	r.stop()
	return r.client.Close()
}

// listen wakes this replica's boards at each change any replica announces.
// go-redis subscribes again by itself after a lost connection (a Redis
// restart); changes made meanwhile reach a board at its next reading (the
// board reads again every few seconds whatever happens).
func (r *Redis) listen(ctx context.Context) {
	ps := r.client.Subscribe(ctx, r.channel)
	defer ps.Close()
	for {
		msg, err := ps.Receive(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			select {
			case <-ctx.Done():
				return
			case <-time.After(200 * time.Millisecond): // Redis is away: try again soon, not in a tight loop
			}
			continue
		}
		m, ok := msg.(*redis.Message)
		if !ok {
			continue
		}
		if id, ok := strings.CutPrefix(m.Payload, closedMark); ok {
			r.keep.forget(id) // closed on some replica: nothing of it is kept here either
			r.changed(id)
			continue
		}
		r.changed(m.Payload)
	}
}

// closedMark starts the announcement of a room closed.
const closedMark = "closed "

// Fixed keys of a room, before the per-challenge ones.
const (
	kMeta = iota
	kLearners
	kAddrs
	kKeys
	kSubs
	kShown
	kFixed
)

// keys are room id's keys with n challenges (see Redis).
func (r *Redis) keys(id string, n int) []string {
	b := r.prefix + id
	ks := []string{b, b + ":learners", b + ":addrs", b + ":keys", b + ":subs", b + ":shown"}
	for _, kind := range []string{"tally", "tried", "solved", "par"} {
		for c := range n {
			ks = append(ks, b+":"+kind+":"+strconv.Itoa(c))
		}
	}
	return ks
}

func (r *Redis) roomsKey() string { return r.prefix + "open" }

// redisNow is Redis's clock in ms, so replicas whose clocks differ agree.
const redisNow = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`

// touch makes every key of the room live for the idle limit again.
const touch = `
local function touch(ttl)
  for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ttl) end
end
`

// openScript keeps room ARGV[1] (settings ARGV[2]) unless ARGV[3] rooms
// are open (KEYS[#KEYS], each with when it is forgotten).
var openScript = redis.NewScript(redisNow + `
local open = KEYS[#KEYS]
redis.call('ZREMRANGEBYSCORE', open, '-inf', now)
if redis.call('ZCARD', open) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', open, now + tonumber(ARGV[4]), ARGV[1])
redis.call('HSET', KEYS[1], 'room', ARGV[2], 'n', '0', 'epoch', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`)

// reopenScript writes room ARGV[1] (settings ARGV[2]) back unless it is
// there, under epoch ARGV[4], and returns the room's epoch; false when the
// room was closed (KEYS[3], its tombstone).
var reopenScript = redis.NewScript(redisNow + `
if redis.call('EXISTS', KEYS[3]) == 1 then return false end
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'room', ARGV[2], 'n', '0', 'epoch', ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[1])
end
return redis.call('HGET', KEYS[1], 'epoch')
`)

// reopen writes rm back unless it is in Redis, and returns its epoch;
// ErrGone when it was closed.
func (r *Redis) reopen(ctx context.Context, rm Room) (string, error) {
	b, err := json.Marshal(rm)
	if err != nil {
		return "", err
	}
	epoch, err := reopenScript.Run(ctx, r.client, []string{r.keys(rm.ID, 0)[kMeta], r.roomsKey(), r.tombstone(rm.ID)},
		rm.ID, b, r.limits.Idle.Milliseconds(), NewID()).Text()
	if err == redis.Nil {
		r.keep.forget(rm.ID) // closed, on a replica whose announcement this one missed
		return "", ErrGone
	}
	return epoch, err
}

// tombstone is the key that says room id was closed, for as long as a
// replica may still keep it: so no replica writes it back.
func (r *Redis) tombstone(id string) string { return r.prefix + "closed:" + id }

func (r *Redis) Open(ctx context.Context, rm Room) error {
	b, err := json.Marshal(rm)
	if err != nil {
		return err
	}
	epoch := NewID()
	ok, err := openScript.Run(ctx, r.client, []string{r.keys(rm.ID, 0)[kMeta], r.roomsKey()},
		rm.ID, b, r.limits.Rooms, r.limits.Idle.Milliseconds(), epoch).Int()
	if err != nil {
		return err
	}
	if ok == 0 {
		return ErrRooms
	}
	r.keep.of(rm.ID, &rm).epoch = epoch
	return nil
}

// getScript reads the room's settings and makes its keys (KEYS[1..#-1])
// live again, the open rooms' list (KEYS[#KEYS]) with them.
var getScript = redis.NewScript(redisNow + `
local room = redis.call('HGET', KEYS[1], 'room')
if not room then return false end
local open = table.remove(KEYS)
redis.call('ZADD', open, now + tonumber(ARGV[2]), ARGV[1])
for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
return room
`)

func (r *Redis) Get(ctx context.Context, id string) (Room, error) {
	if !ValidID(id) {
		return Room{}, ErrGone
	}
	rm, epoch, err := r.read(ctx, id)
	if errors.Is(err, ErrGone) {
		kr := r.keep.of(id, nil)
		if kr == nil {
			return Room{}, err
		}
		// Redis lost the room (it restarted): write this replica's part back.
		if err := r.writeBack(ctx, kr); err != nil {
			return Room{}, err
		}
		rm, epoch, err = r.read(ctx, id)
	}
	if err != nil {
		return Room{}, err
	}
	if known, ok := r.keep.epochOf(id); !ok {
		r.keep.of(id, &rm).epoch = epoch
	} else if known != epoch {
		// Another replica wrote the room back: this one's part goes too.
		if err := r.writeBack(ctx, r.keep.of(id, &rm)); err != nil {
			return Room{}, err
		}
	}
	ks := append(r.keys(id, len(rm.Challenges)), r.roomsKey())
	if err := getScript.Run(ctx, r.client, ks, id, r.limits.Idle.Milliseconds()).Err(); err != nil && err != redis.Nil {
		return Room{}, err
	}
	return rm, nil
}

// read is room id's settings and epoch as Redis holds them.
func (r *Redis) read(ctx context.Context, id string) (Room, string, error) {
	v, err := r.client.HMGet(ctx, r.keys(id, 0)[kMeta], "room", "epoch").Result()
	if err != nil {
		return Room{}, "", err
	}
	raw, _ := v[0].(string)
	epoch, _ := v[1].(string)
	if raw == "" {
		return Room{}, "", ErrGone
	}
	var rm Room
	if err := json.Unmarshal([]byte(raw), &rm); err != nil {
		return Room{}, "", fmt.Errorf("room redis: room %s: %w", id, err)
	}
	return rm, epoch, nil
}

// joinScript counts learner ARGV[1] (nickname ARGV[2], address ARGV[3]):
// 1 done, 0 no room, -1 the room full (ARGV[4]), -2 the address (ARGV[5]).
var joinScript = redis.NewScript(touch + `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
  return 1
end
if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[4]) then return -1 end
if tonumber(redis.call('HGET', KEYS[3], ARGV[3]) or '0') >= tonumber(ARGV[5]) then return -2 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HINCRBY', KEYS[3], ARGV[3], 1)
touch(ARGV[6])
redis.call('PUBLISH', ARGV[7], ARGV[8])
return 1
`)

func (r *Redis) Join(ctx context.Context, id, learner, nick, addr string) error {
	if _, err := r.Get(ctx, id); err != nil { // written back first, if Redis lost it
		return err
	}
	if err := r.join(ctx, id, learner, nick, addr, true); err != nil {
		return err
	}
	r.keep.note(id, func(kr *keptRoom) { kr.learners[learner] = [2]string{nick, addr} })
	return nil
}

// join is Join, within the limits when limited (a learner written back
// was let in already).
func (r *Redis) join(ctx context.Context, id, learner, nick, addr string, limited bool) error {
	learners, perAddr := r.limits.Learners, r.limits.PerAddr
	if !limited {
		learners, perAddr = 1<<30, 1<<30
	}
	n, err := joinScript.Run(ctx, r.client, r.keys(id, 0)[:kKeys],
		learner, nick, addr, learners, perAddr, r.limits.Idle.Milliseconds(), r.channel, id).Int()
	switch {
	case err != nil:
		return err
	case n == 0:
		return ErrGone
	case n == -1:
		return ErrFull
	case n == -2:
		return ErrAddr
	}
	return nil
}

func (r *Redis) Nick(ctx context.Context, id, learner string) (string, bool, error) {
	nick, err := r.client.HGet(ctx, r.keys(id, 0)[kLearners], learner).Result()
	if err == redis.Nil {
		return "", false, nil
	}
	return nick, err == nil, err
}

// tryScript counts learner ARGV[1] in the set of those who tried, KEYS[2].
var tryScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('SADD', KEYS[2], ARGV[1]) == 1 then
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
  redis.call('PUBLISH', ARGV[3], ARGV[4])
end
return 1
`)

func (r *Redis) Try(ctx context.Context, id, learner string, c int) error {
	rm, err := r.Get(ctx, id)
	if err != nil {
		return err
	}
	if err := r.try(ctx, rm, learner, c); err != nil {
		return err
	}
	r.keep.note(id, func(kr *keptRoom) { kr.tries[learner] = append(kr.tries[learner], c) })
	return nil
}

func (r *Redis) try(ctx context.Context, rm Room, learner string, c int) error {
	id, n := rm.ID, len(rm.Challenges)
	if c < 0 || c >= n {
		return nil
	}
	ks := r.keys(id, n)
	return tryScript.Run(ctx, r.client, []string{ks[kMeta], ks[kFixed+n+c]}, learner, r.limits.Idle.Milliseconds(), r.channel, id).Err()
}

// submitScript counts submission ARGV[2] (JSON, without its id) of
// learner-and-key ARGV[1] for challenge ARGV[3] of ARGV[4]: learner
// ARGV[5], solved ARGV[6], moves ARGV[7] (a break's), at par ARGV[8].
// It returns {1, id} when counted, {0, id, json} when the key was counted
// before, {-1} when the room is gone.
var submitScript = redis.NewScript(touch + `
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1} end
local sid = redis.call('HGET', KEYS[4], ARGV[1])
if sid then return {0, sid, redis.call('HGET', KEYS[5], sid)} end
sid = tostring(redis.call('HINCRBY', KEYS[1], 'n', 1) - 1)
redis.call('HSET', KEYS[4], ARGV[1], sid)
redis.call('HSET', KEYS[5], sid, ARGV[2])
local c, n = tonumber(ARGV[3]), tonumber(ARGV[4])
local base = 6
redis.call('HINCRBY', KEYS[base + 1 + c], 'subs', 1)
redis.call('SADD', KEYS[base + 1 + n + c], ARGV[5])
if ARGV[6] == '1' then
  redis.call('SADD', KEYS[base + 1 + 2 * n + c], ARGV[5])
  if ARGV[7] ~= '' then redis.call('HINCRBY', KEYS[base + 1 + c], 'm' .. ARGV[7], 1) end
end
redis.call('LPUSH', KEYS[6], sid)
redis.call('LTRIM', KEYS[6], 0, tonumber(ARGV[9]) - 1)
if ARGV[8] == '1' then redis.call('SADD', KEYS[base + 1 + 3 * n + c], ARGV[5]) end
touch(ARGV[10])
redis.call('PUBLISH', ARGV[11], ARGV[12])
return {1, sid}
`)

func (r *Redis) Submit(ctx context.Context, id string, s Submission) (Submission, bool, error) {
	rm, err := r.Get(ctx, id)
	if err != nil {
		return s, false, err
	}
	got, counted, err := r.submit(ctx, rm, s)
	if err == nil && counted {
		r.keep.note(id, func(kr *keptRoom) { kr.subs = append(kr.subs, s) })
	}
	return got, counted, err
}

func (r *Redis) submit(ctx context.Context, rm Room, s Submission) (Submission, bool, error) {
	id, n := rm.ID, len(rm.Challenges)
	if s.Challenge < 0 || s.Challenge >= n {
		return s, false, ErrGone
	}
	b, err := json.Marshal(s)
	if err != nil {
		return s, false, err
	}
	moves := ""
	if s.Kind == Break {
		moves = strconv.Itoa(s.Moves)
	}
	v, err := submitScript.Run(ctx, r.client, r.keys(id, n), s.Learner+"."+s.Key, b, s.Challenge, n,
		s.Learner, flag(s.Solved), moves, flag(s.AtPar), shownKept, r.limits.Idle.Milliseconds(), r.channel, id).Slice()
	if err != nil {
		return s, false, err
	}
	if len(v) == 0 || v[0] == int64(-1) {
		return s, false, ErrGone
	}
	if v[0] == int64(0) && len(v) == 3 {
		raw, _ := v[2].(string)
		old, err := decode(raw)
		old.ID, _ = v[1].(string)
		return old, false, err
	}
	s.ID, _ = v[1].(string)
	return s, true, nil
}

func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func decode(raw string) (Submission, error) {
	var s Submission
	err := json.Unmarshal([]byte(raw), &s)
	return s, err
}

func (r *Redis) Submission(ctx context.Context, id, sid string) (Submission, error) {
	raw, err := r.client.HGet(ctx, r.keys(id, 0)[kSubs], sid).Result()
	if err == redis.Nil {
		return Submission{}, ErrGone
	}
	if err != nil {
		return Submission{}, err
	}
	s, err := decode(raw)
	s.ID = sid
	return s, err
}

func (r *Redis) Board(ctx context.Context, rm Room) (Board, error) {
	n := len(rm.Challenges)
	ks := r.keys(rm.ID, n)
	pipe := r.client.Pipeline()
	joined := pipe.HLen(ctx, ks[kLearners])
	shown := pipe.LRange(ctx, ks[kShown], 0, shownKept-1)
	tallies := make([]*redis.MapStringStringCmd, n)
	sets := make([][3]*redis.IntCmd, n)
	for c := range n {
		tallies[c] = pipe.HGetAll(ctx, ks[kFixed+c])
		for j := range 3 {
			sets[c][j] = pipe.SCard(ctx, ks[kFixed+(j+1)*n+c])
		}
	}
	total := pipe.HGet(ctx, ks[kMeta], "n")
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return Board{}, err
	}
	b := Board{Joined: int(joined.Val())}
	b.Submissions, _ = strconv.Atoi(total.Val())
	for c := range n {
		t := Tally{Moves: map[int]int{}, Tried: int(sets[c][0].Val()), AtPar: int(sets[c][2].Val())}
		solved := int(sets[c][1].Val())
		for k, v := range tallies[c].Val() {
			x, _ := strconv.Atoi(v)
			if k == "subs" {
				t.Submissions = x
			} else if m, err := strconv.Atoi(strings.TrimPrefix(k, "m")); err == nil {
				t.Moves[m] = x
			}
		}
		t.solved(rm.Challenges[c].Kind, solved)
		b.Challenges = append(b.Challenges, t)
	}
	if sids := shown.Val(); len(sids) > 0 {
		raws, err := r.client.HMGet(ctx, ks[kSubs], sids...).Result()
		if err != nil {
			return Board{}, err
		}
		for i, raw := range raws {
			if s, ok := raw.(string); ok {
				if sub, err := decode(s); err == nil {
					sub.ID = sids[i]
					b.Shown = append(b.Shown, sub)
				}
			}
		}
	}
	return b, nil
}

func (r *Redis) Close(ctx context.Context, id string) error {
	rm, err := r.Get(ctx, id)
	if err == ErrGone {
		return nil
	}
	if err != nil {
		return err
	}
	pipe := r.client.TxPipeline()
	pipe.Del(ctx, r.keys(id, len(rm.Challenges))...)
	pipe.ZRem(ctx, r.roomsKey(), id)
	pipe.Set(ctx, r.tombstone(id), "1", r.limits.Idle)
	pipe.Publish(ctx, r.channel, closedMark+id)
	_, err = pipe.Exec(ctx)
	r.keep.forget(id)
	return err
}
