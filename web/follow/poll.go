package follow

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
	"github.com/redis/go-redis/v9"

	"github.com/distlock/fencing-demo/demo"
)

// A lecture's poll: the lecturer asks the question of the frame on screen,
// each follower answers once (and may change the answer until the reveal),
// and the counts per option are all anyone is shown: never who chose what.
// Only the counts and each voter's own choice are kept, for as long as a
// lecture is, and only while the poll is open can an answer change them.

// Poll is where a lecture's question stands.
type Poll struct {
	ID     string // the question: its frame and when it was asked; "" for none
	At     At     // the frame the question is asked on
	Open   bool   // answers are taken; false once revealed
	Counts []int64
}

// Total is how many followers have answered.
func (p Poll) Total() int64 {
	var n int64
	for _, c := range p.Counts {
		n += c
	}
	return n
}

// The ways an answer is refused.
var (
	ErrClosed = errors.New("follow: the question is not open")
	// ErrVoters: the question holds all the answers it takes, and the
	// voter's address holds as many of them as any other.
	ErrVoters = errors.New("follow: the question has all the answers it takes")
)

// MaxVoters bounds one question's answers: a hall of followers, with
// room for phones that lost their cookie. A full question still takes a
// new voter's answer in place of the latest one of the address holding
// the most, as long as that address would still hold at least as many as
// the voter's (max-min, as places are shared): so a script cannot fill a
// question before the room answers, and a real follower is turned away
// only when its own address holds as many answers as any other.
const MaxVoters = 4 * MaxFollowers

// Polls keeps the lectures' polls: in memory on one server, in the shared
// Redis with replicas, so that an answer counted on one replica shows in
// the totals on every other.
type Polls interface {
	// Ask opens a new question at at with n options, forgetting any
	// earlier one of the lecture.
	Ask(ctx context.Context, fid string, at At, n int) (Poll, error)
	// Answer records voter's choice (an option's index) for question id,
	// replacing the voter's earlier choice; addr is the voter's client
	// address, which a full question's sharing goes by. ErrClosed when id
	// is not the lecture's open question, ErrVoters as said above.
	Answer(ctx context.Context, fid, id, voter, addr string, option int) error
	// Again asks open question id a second time, after the room
	// discussed it: a new question (Round 2) that remembers the first
	// round's counts (First), each follower voting once more. ErrClosed
	// when id is not the lecture's open first round.
	Again(ctx context.Context, fid, id string) (Poll, error)
	// Reveal closes question id: no answer changes its counts after.
	Reveal(ctx context.Context, fid, id string) (Poll, error)
	// Get is the lecture's poll, with ok false when it has none.
	Get(ctx context.Context, fid string) (Poll, bool, error)
	// Mine is voter's choice for question id, or -1.
	Mine(ctx context.Context, fid, id, voter string) (int, error)
	// Changed is closed at the next change of lecture fid's poll (a
	// question asked or revealed, an answer counted), on any replica.
	Changed(fid string) <-chan struct{}
}

// questionID names a question by its frame, the moment it was asked and a
// count of this process's questions, so asking the same frame again is a
// new question with counts of its own.
func questionID(at At, now time.Time) string {
	return at.Sc.ID + "." + demo.OnOff(at.On) + "." + strconv.Itoa(at.Step) + "." +
		strconv.FormatInt(now.UnixMilli(), 36) + strconv.FormatUint(questions.Add(1), 36)
}

var questions atomic.Uint64

// MemPolls keeps polls in memory, for a server on its own.
type MemPolls struct {
	changes
	mu    sync.Mutex
	polls *expirable.LRU[string, *memPoll]
	Clock func() time.Time
	// MaxVoters is one question's bound (MaxVoters); tests lower it.
	MaxVoters int
}

type memPoll struct {
	Poll
	votes  map[string]int
	byAddr *tally              // voters by address
	latest map[string][]string // by address, its voters in the order they first answered
}

// NewMemPolls keeps the polls of at most max lectures, each for idle after
// its last question.
func NewMemPolls(max int, idle time.Duration) *MemPolls {
	return &MemPolls{polls: expirable.NewLRU[string, *memPoll](max, nil, idle), Clock: time.Now, MaxVoters: MaxVoters}
}

func (m *MemPolls) Ask(_ context.Context, fid string, at At, n int) (Poll, error) {
	p := &memPoll{Poll: Poll{ID: questionID(at, m.Clock()), At: at, Open: true, Counts: make([]int64, n)},
		votes: map[string]int{}, byAddr: newTally(), latest: map[string][]string{}}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.polls.Add(fid, p)
	m.changed(fid)
	return p.copy(), nil
}

func (m *MemPolls) Answer(_ context.Context, fid, id, voter, addr string, option int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.polls.Peek(fid)
	if !ok || p.ID != id || !p.Open || option < 0 || option >= len(p.Counts) {
		return ErrClosed
	}
	old, had := p.votes[voter]
	switch {
	case had:
		p.Counts[old]--
	case len(p.votes) >= m.MaxVoters && !p.dropHeaviest(addr):
		return ErrVoters
	default:
		p.byAddr.add(addr, 1)
		p.latest[addr] = append(p.latest[addr], voter)
	}
	p.votes[voter] = option
	p.Counts[option]++
	m.changed(fid)
	return nil
}

// dropHeaviest forgets the latest answer of the address holding the most,
// if it holds at least two more than addr: a full question's room for
// addr's voter.
func (p *memPoll) dropHeaviest(addr string) bool {
	top, n := p.byAddr.heaviest(addr)
	if top == "" || n < p.byAddr.of(addr)+2 {
		return false
	}
	vs := p.latest[top]
	v := vs[len(vs)-1]
	p.latest[top] = vs[:len(vs)-1]
	p.byAddr.add(top, -1)
	p.Counts[p.votes[v]]--
	delete(p.votes, v)
	return true
}

func (m *MemPolls) Reveal(_ context.Context, fid, id string) (Poll, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.polls.Peek(fid)
	if !ok || p.ID != id {
		return Poll{}, ErrClosed
	}
	p.Open = false
	m.changed(fid)
	return p.copy(), nil
}

func (m *MemPolls) Get(_ context.Context, fid string) (Poll, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.polls.Peek(fid)
	if !ok {
		return Poll{}, false, nil
	}
	return p.copy(), true, nil
}

func (m *MemPolls) Mine(_ context.Context, fid, id, voter string) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.polls.Peek(fid)
	if !ok || p.ID != id {
		return -1, nil
	}
	if o, ok := p.votes[voter]; ok {
		return o, nil
	}
	return -1, nil
}

func (p *memPoll) copy() Poll {
	c := p.Poll
	c.Counts = append([]int64(nil), p.Counts...)
	return c
}

// RedisPolls keeps polls in the relay's Redis: per lecture a hash of the
// question (its id, whether it is open, how many options), a hash of the
// counts per option, counted with HINCRBY, and a hash of each voter's
// choice, so that a changed answer moves one count from one option to
// another. Each change is one script, so two replicas never count one
// answer twice.
type RedisPolls struct {
	changes
	r     *Redis
	Clock func() time.Time
	kept  *kept // the answers this replica took, to seed a Redis that lost them (pollkeep.go)
	// MaxVoters is one question's bound (MaxVoters); tests lower it.
	MaxVoters int
}

// Polls is the relay's Redis as the store of the lectures' polls. Each time
// the relay subscribes again (Redis came back), the answers this replica
// took are written back.
func (r *Redis) Polls() *RedisPolls {
	p := &RedisPolls{r: r, Clock: time.Now, kept: newKept(maxKept, r.ttl), MaxVoters: MaxVoters}
	r.onResubscribe(func(ctx context.Context) { p.reseedAll(ctx); p.changedAll() })
	changed := p.changed
	r.pollChanged.Store(&changed)
	return p
}

// keys are the question, the counts, each voter's choice and the moment
// (Redis's clock, in µs) of each voter's latest choice, which tells which
// of two replicas' copies of one voter is the newer; then, for sharing a
// full question between addresses, each voter's address, the voters per
// address, and per address a stack of its voters, the latest first (a
// hash of each address's latest, and one of each voter's predecessor).
func (p *RedisPolls) keys(fid string) []string {
	base := p.r.prefix + "poll:" + fid
	return []string{base, base + ":counts", base + ":votes", base + ":stamps",
		base + ":who", base + ":addrs", base + ":head", base + ":prev"}
}

// askScript opens question ARGV[1] at ARGV[2] with ARGV[3] options, and
// returns when (Redis's clock, µs), which orders the lecture's questions.
var askScript = redis.NewScript(`
local t = redis.call('TIME')
local asked = tonumber(t[1]) * 1000000 + tonumber(t[2])
redis.call('DEL', unpack(KEYS))
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'at', ARGV[2], 'n', ARGV[3], 'open', '1', 'asked', string.format('%d', asked))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PUBLISH', ARGV[5], ARGV[6])
return asked
`)

// answerScript counts voter ARGV[2]'s choice ARGV[3] for question ARGV[1]
// and returns its moment (µs): 0 when it is not the open question, -1 when
// it has ARGV[4] voters and the voter's address ARGV[8] holds as many as
// any other; else a full question drops the latest voter of the address
// holding the most.
var answerScript = redis.NewScript(pushVoter + `
if redis.call('HGET', KEYS[1], 'id') ~= ARGV[1] or redis.call('HGET', KEYS[1], 'open') ~= '1' then return 0 end
local o = tonumber(ARGV[3])
if o < 0 or o >= tonumber(redis.call('HGET', KEYS[1], 'n')) then return 0 end
local voter, addr = ARGV[2], ARGV[8]
local old = redis.call('HGET', KEYS[3], voter)
if not old then
  if redis.call('HLEN', KEYS[3]) >= tonumber(ARGV[4]) then
    local top = redis.call('ZREVRANGE', KEYS[6], 0, 0, 'WITHSCORES')
    local mine = tonumber(redis.call('ZSCORE', KEYS[6], addr)) or 0
    if not top[1] or top[1] == addr or tonumber(top[2]) < mine + 2 then return -1 end
    local v = redis.call('HGET', KEYS[7], top[1])
    local prev = redis.call('HGET', KEYS[8], v)
    if prev then redis.call('HSET', KEYS[7], top[1], prev) else redis.call('HDEL', KEYS[7], top[1]) end
    local vo = redis.call('HGET', KEYS[3], v)
    if vo then redis.call('HINCRBY', KEYS[2], vo, -1) end
    redis.call('HDEL', KEYS[3], v)
    redis.call('HDEL', KEYS[4], v)
    redis.call('HDEL', KEYS[5], v)
    redis.call('HDEL', KEYS[8], v)
    if tonumber(redis.call('ZINCRBY', KEYS[6], -1, top[1])) <= 0 then redis.call('ZREM', KEYS[6], top[1]) end
  end
  push(voter, addr)
end
local t = redis.call('TIME')
local stamp = tonumber(t[1]) * 1000000 + tonumber(t[2])
if old ~= ARGV[3] then
  if old then redis.call('HINCRBY', KEYS[2], old, -1) end
  redis.call('HSET', KEYS[3], voter, ARGV[3])
  redis.call('HINCRBY', KEYS[2], ARGV[3], 1)
end
redis.call('HSET', KEYS[4], voter, string.format('%d', stamp))
for i = 2, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[5]) end
redis.call('PUBLISH', ARGV[6], ARGV[7])
return stamp
`)

// pushVoter puts a new voter on its address's stack of voters (the latest
// first), and counts it among the address's: the keys are
// RedisPolls.keys.
const pushVoter = `
local function push(voter, addr)
  local head = redis.call('HGET', KEYS[7], addr)
  if head then redis.call('HSET', KEYS[8], voter, head) end
  redis.call('HSET', KEYS[7], addr, voter)
  redis.call('HSET', KEYS[5], voter, addr)
  redis.call('ZINCRBY', KEYS[6], 1, addr)
end
`

// revealScript closes question ARGV[1]: 0 when it is not the lecture's.
var revealScript = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'id') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'open', '0')
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1
`)

func (p *RedisPolls) Ask(ctx context.Context, fid string, at At, n int) (Poll, error) {
	id := questionID(at, p.Clock())
	where := at.Sc.ID + " " + demo.OnOff(at.On) + " " + strconv.Itoa(at.Step)
	asked, err := askScript.Run(ctx, p.r.client, p.keys(fid), id, where, n, p.r.ttl.Milliseconds(), p.r.pollChannel(), fid).Int64()
	if err != nil {
		return Poll{}, err
	}
	p.kept.ask(fid, keptQuestion{id: id, where: where, n: n, asked: asked, open: true})
	return Poll{ID: id, At: at, Open: true, Counts: make([]int64, n)}, nil
}

func (p *RedisPolls) Answer(ctx context.Context, fid, id, voter, addr string, option int) error {
	stamp, err := answerScript.Run(ctx, p.r.client, p.keys(fid), id, voter, option, p.MaxVoters, p.r.ttl.Milliseconds(), p.r.pollChannel(), fid, addr).Int64()
	switch {
	case err != nil:
		return err
	case stamp == 0:
		return ErrClosed
	case stamp < 0:
		return ErrVoters
	}
	if !p.kept.knows(fid, id) { // the question was asked on another replica: keep it too
		if _, _, err := p.get(ctx, fid); err != nil {
			return err
		}
	}
	p.kept.answer(fid, id, voter, addr, option, stamp)
	return nil
}

func (p *RedisPolls) Reveal(ctx context.Context, fid, id string) (Poll, error) {
	n, err := revealScript.Run(ctx, p.r.client, p.keys(fid), id, p.r.pollChannel(), fid).Int()
	if err != nil {
		return Poll{}, err
	}
	if n == 0 {
		return Poll{}, ErrClosed
	}
	p.kept.reveal(fid, id)
	poll, _, err := p.Get(ctx, fid)
	return poll, err
}

// Get is Polls.Get. A lecture whose question Redis has lost while this
// replica kept answers to it is seeded again first.
func (p *RedisPolls) Get(ctx context.Context, fid string) (Poll, bool, error) {
	poll, m, err := p.get(ctx, fid)
	if err != nil || m["id"] != "" || !p.kept.has(fid) {
		return poll, m["id"] != "", err
	}
	if err := p.reseed(ctx, fid); err != nil {
		return Poll{}, false, err
	}
	poll, m, err = p.get(ctx, fid)
	return poll, m["id"] != "", err
}

// get reads the lecture's question and counts, and notes the question as
// this replica's to keep; m is the question's hash as Redis holds it.
func (p *RedisPolls) get(ctx context.Context, fid string) (poll Poll, m map[string]string, err error) {
	k := p.keys(fid)
	pipe := p.r.client.Pipeline()
	q := pipe.HGetAll(ctx, k[0])
	counts := pipe.HGetAll(ctx, k[1])
	if _, err := pipe.Exec(ctx); err != nil {
		return Poll{}, nil, err
	}
	m = q.Val()
	if m["id"] == "" {
		return Poll{}, m, nil
	}
	f := strings.Fields(m["at"])
	n, err := strconv.Atoi(m["n"])
	if len(f) != 3 || err != nil || n < 0 || n > 16 {
		return Poll{}, nil, errors.New("follow redis: a poll " + strconv.Quote(m["at"]))
	}
	at, _, err := p.r.parse("0 " + m["at"])
	if err != nil {
		return Poll{}, nil, err
	}
	asked, _ := strconv.ParseInt(m["asked"], 10, 64)
	p.kept.note(fid, keptQuestion{id: m["id"], where: m["at"], n: n, asked: asked, open: m["open"] == "1"})
	poll = Poll{ID: m["id"], At: at, Open: m["open"] == "1", Counts: make([]int64, n)}
	for o, c := range counts.Val() {
		i, err1 := strconv.Atoi(o)
		v, err2 := strconv.ParseInt(c, 10, 64)
		if err1 == nil && err2 == nil && i >= 0 && i < n {
			poll.Counts[i] = v
		}
	}
	return poll, m, nil
}

func (p *RedisPolls) Mine(ctx context.Context, fid, id, voter string) (int, error) {
	k := p.keys(fid)
	pipe := p.r.client.Pipeline()
	q := pipe.HGet(ctx, k[0], "id")
	v := pipe.HGet(ctx, k[2], voter)
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return -1, err
	}
	if q.Val() != id || v.Val() == "" {
		return -1, nil
	}
	o, err := strconv.Atoi(v.Val())
	if err != nil {
		return -1, nil
	}
	return o, nil
}
