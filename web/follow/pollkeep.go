package follow

import (
	"context"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
	"github.com/redis/go-redis/v9"
)

// Redis runs without persistence, so a restart while a question is open
// would forget every answer. Each replica therefore keeps the answers it
// took itself (one choice per voter, with the moment Redis counted it) and
// writes them back when it finds the question gone: when its subscription
// is made again, and when a read finds no question where it kept one.
// Writing back is idempotent: a voter is a field of a hash, the newer of two
// copies of one voter wins, and the counts are derived from the voters
// again, so however many replicas write back, in whatever order, each
// follower is counted once.

// maxKept bounds the lectures whose answers a replica keeps.
const maxKept = 1000

// keptQuestion is a question as this replica last saw it.
type keptQuestion struct {
	id    string
	where string // "<scenario> <on|off> <step>", as Redis holds it
	n     int
	asked int64 // Redis's clock when it was asked, µs: the later question wins
	open  bool  // false once this replica saw it revealed, and never again true
}

type keptChoice struct {
	option int
	stamp  int64
	addr   string
}

type keptPoll struct {
	keptQuestion
	votes map[string]keptChoice
}

// kept is the answers one replica took, per lecture.
type kept struct {
	mu    sync.Mutex
	polls *expirable.LRU[string, *keptPoll]
}

func newKept(max int, idle time.Duration) *kept {
	return &kept{polls: expirable.NewLRU[string, *keptPoll](max, nil, idle)}
}

// note records the lecture's question as read from Redis: a new question
// replaces the one kept, and a revealed one stays revealed.
func (k *kept) note(fid string, q keptQuestion) {
	k.mu.Lock()
	defer k.mu.Unlock()
	p, ok := k.polls.Peek(fid)
	switch {
	case !ok || p.id != q.id && q.asked >= p.asked:
		k.polls.Add(fid, &keptPoll{keptQuestion: q, votes: map[string]keptChoice{}})
	case p.id == q.id && !q.open:
		p.open = false
	}
}

func (k *kept) ask(fid string, q keptQuestion) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.polls.Add(fid, &keptPoll{keptQuestion: q, votes: map[string]keptChoice{}})
}

func (k *kept) answer(fid, id, voter, addr string, option int, stamp int64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if p, ok := k.polls.Peek(fid); ok && p.id == id {
		p.votes[voter] = keptChoice{option, stamp, addr}
	}
}

func (k *kept) reveal(fid, id string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if p, ok := k.polls.Peek(fid); ok && p.id == id {
		p.open = false
	}
}

// knows reports whether question id is the lecture's kept one.
func (k *kept) knows(fid, id string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	p, ok := k.polls.Peek(fid)
	return ok && p.id == id
}

func (k *kept) has(fid string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	_, ok := k.polls.Peek(fid)
	return ok
}

// forget drops the lecture's question if it is still id: Redis holds a
// newer one.
func (k *kept) forget(fid, id string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if p, ok := k.polls.Peek(fid); ok && p.id == id {
		k.polls.Remove(fid)
	}
}

// args is the lecture's kept question and answers as reseedScript takes
// them; ok false when none is kept.
func (k *kept) args(fid string, most int) (id string, argv []any, ok bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	p, ok := k.polls.Peek(fid)
	if !ok {
		return "", nil, false
	}
	open := "0"
	if p.open {
		open = "1"
	}
	argv = make([]any, 0, 7+4*len(p.votes))
	argv = append(argv, p.id, p.where, p.n, p.asked, open, 0, most)
	for v, c := range p.votes {
		argv = append(argv, v, c.option, c.stamp, c.addr)
	}
	return p.id, argv, true
}

func (k *kept) lectures() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.polls.Keys()
}

// reseedScript writes one replica's copy of question ARGV[1] back: the
// question (at ARGV[2], ARGV[3] options, asked at ARGV[4], open ARGV[5])
// unless Redis holds a later one, then each voter (ARGV[8...], fours of
// voter, option, moment, address) unless Redis holds a newer choice of
// theirs, then the counts again from the voters. ARGV[6] is the keys'
// expiry (ms), ARGV[7] the most voters. It returns 0 when a later question
// stands. The keys are RedisPolls.keys.
var reseedScript = redis.NewScript(pushVoter + `
local cur = redis.call('HGET', KEYS[1], 'id')
if cur and cur ~= ARGV[1] then
  if (tonumber(redis.call('HGET', KEYS[1], 'asked')) or 0) >= tonumber(ARGV[4]) then return 0 end
  redis.call('DEL', unpack(KEYS))
  cur = false
end
if not cur then
  redis.call('HSET', KEYS[1], 'id', ARGV[1], 'at', ARGV[2], 'n', ARGV[3], 'open', ARGV[5], 'asked', ARGV[4])
elseif ARGV[5] == '0' then
  redis.call('HSET', KEYS[1], 'open', '0')
end
local most = tonumber(ARGV[7])
for i = 8, #ARGV, 4 do
  local voter, addr = ARGV[i], ARGV[i+3]
  local had = tonumber(redis.call('HGET', KEYS[4], voter))
  if (had and had < tonumber(ARGV[i+2])) or (not had and redis.call('HLEN', KEYS[3]) < most) then
    redis.call('HSET', KEYS[3], voter, ARGV[i+1])
    redis.call('HSET', KEYS[4], voter, ARGV[i+2])
    if not had then push(voter, addr) end
  end
end
local counts = {}
local votes = redis.call('HVALS', KEYS[3])
for _, o in ipairs(votes) do counts[o] = (counts[o] or 0) + 1 end
redis.call('DEL', KEYS[2])
for o, c in pairs(counts) do redis.call('HSET', KEYS[2], o, c) end
for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[6]) end
return 1
`)

// reseed writes this replica's kept answers to lecture fid's question back.
func (p *RedisPolls) reseed(ctx context.Context, fid string) error {
	id, argv, ok := p.kept.args(fid, p.MaxVoters)
	if !ok {
		return nil
	}
	argv[5] = p.r.ttl.Milliseconds()
	n, err := reseedScript.Run(ctx, p.r.client, p.keys(fid), argv...).Int()
	if err != nil {
		return err
	}
	if n == 0 {
		p.kept.forget(fid, id)
		return nil
	}
	return p.r.client.Publish(ctx, p.r.pollChannel(), fid).Err() // the totals read differently now, on every replica
}

// reseedAll writes back every lecture's kept answers: the relay subscribed
// again, so Redis may have restarted empty.
func (p *RedisPolls) reseedAll(ctx context.Context) {
	for _, fid := range p.kept.lectures() {
		if err := p.reseed(ctx, fid); err != nil {
			return // Redis is away again: the next subscription tries again
		}
	}
}
