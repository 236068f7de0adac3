package follow

import (
	"context"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Peer instruction's second vote: the lecturer asks, the room answers, the
// lecturer shows the bars and says "discuss with your neighbour", then asks
// the same question again. The second round is a question of its own (a
// new id, so each follower's ticket votes once more, and the first round's
// voters are forgotten), whose id carries the first round's counts: every
// replica, and a Redis written back after a restart (pollkeep.go), then
// knows both rounds from the id alone.

// roundMark separates a second round's id from the first's and its counts:
// "<first id>~2~<count>,<count>,...".
const roundMark = "~2~"

// Round is which vote the question is: 1, or 2 after Again.
func (p Poll) Round() int {
	if strings.Contains(p.ID, roundMark) {
		return 2
	}
	return 1
}

// First is the first round's counts, per option, in a second round; nil
// in the first.
func (p Poll) First() []int64 {
	_, counts, ok := strings.Cut(p.ID, roundMark)
	if !ok {
		return nil
	}
	var first []int64
	for _, c := range strings.Split(counts, ",") {
		n, _ := strconv.ParseInt(c, 10, 64)
		first = append(first, n)
	}
	return first
}

// againID is the id of the second round of question id with its counts.
func againID(id string, counts []int64) string {
	cs := make([]string, len(counts))
	for i, c := range counts {
		cs[i] = strconv.FormatInt(c, 10)
	}
	return id + roundMark + strings.Join(cs, ",")
}

// Again asks open question id a second time (Polls.Again).
func (m *MemPolls) Again(ctx context.Context, fid, id string) (Poll, error) {
	m.mu.Lock()
	p, ok := m.polls.Peek(fid)
	if !ok || p.ID != id || !p.Open || p.Round() != 1 {
		m.mu.Unlock()
		return Poll{}, ErrClosed
	}
	next := &memPoll{Poll: Poll{ID: againID(id, p.Counts), At: p.At, Open: true, Counts: make([]int64, len(p.Counts))},
		votes: map[string]int{}, byAddr: newTally(), latest: map[string][]string{}}
	m.polls.Add(fid, next)
	m.changed(fid)
	m.mu.Unlock()
	return next.copy(), nil
}

// againScript replaces open first-round question ARGV[1] by its second
// round, in one step so no answer of the first round is lost between
// reading its counts and opening the second: it returns the new id, or
// false when ARGV[1] is not the open question.
var againScript = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'id') ~= ARGV[1] or redis.call('HGET', KEYS[1], 'open') ~= '1' then return false end
if string.find(ARGV[1], ARGV[5], 1, true) then return false end
local n = tonumber(redis.call('HGET', KEYS[1], 'n'))
local first = {}
for i = 0, n - 1 do first[#first + 1] = redis.call('HGET', KEYS[2], tostring(i)) or '0' end
local id = ARGV[1] .. ARGV[5] .. table.concat(first, ',')
local t = redis.call('TIME')
local asked = tonumber(t[1]) * 1000000 + tonumber(t[2])
for i = 2, #KEYS do redis.call('DEL', KEYS[i]) end
redis.call('HSET', KEYS[1], 'id', id, 'open', '1', 'asked', string.format('%d', asked))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return {id, string.format('%d', asked)}
`)

// Again asks open question id a second time (Polls.Again).
func (p *RedisPolls) Again(ctx context.Context, fid, id string) (Poll, error) {
	v, err := againScript.Run(ctx, p.r.client, p.keys(fid), id, p.r.ttl.Milliseconds(), p.r.pollChannel(), fid, roundMark).StringSlice()
	if err == redis.Nil {
		return Poll{}, ErrClosed
	}
	if err != nil {
		return Poll{}, err
	}
	poll, m, err := p.get(ctx, fid) // notes the new round as this replica's to keep
	if err != nil {
		return Poll{}, err
	}
	if m["id"] != v[0] {
		return Poll{}, ErrClosed
	}
	return poll, nil
}
