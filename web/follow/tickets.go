package follow

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// A ticket is what the follow page hands its visitor (web's followPage, in
// a cookie for that lecture's pages alone): a random id and a signature
// that binds it to the lecture, made with a secret the replicas share
// through Redis, so that any replica checks a ticket without asking Redis.
// It is its holder's one answer to each of the lecture's questions (the
// poll's voter) and its claim to a seat (places.go). How many tickets an
// address is handed is web's to bound, from the address's allowance: so
// the answers one address can give are bounded by the places it may hold,
// not by how many cookies a script can throw away.

// Tickets signs and checks tickets.
type Tickets struct {
	mu sync.RWMutex
	// signing signs; every one of secrets checks.
	signing []byte
	secrets [][]byte
	used    map[string]bool // the secrets this server has signed with
}

// The parts of a ticket, in base64url: a 12-byte id, a 12-byte signature.
const (
	ticketIDLen  = 16
	ticketSigLen = 16
	maxSecrets   = 8
)

// NewTickets signs with a secret of its own until Redis hands it the
// replicas' (ShareTickets).
func NewTickets() *Tickets {
	s := make([]byte, 32)
	_, _ = rand.Read(s) // crypto/rand never fails on Linux
	return &Tickets{signing: s, secrets: [][]byte{s}, used: map[string]bool{}}
}

// Issue is a new ticket for lecture fid.
func (t *Tickets) Issue(fid string) string {
	var raw [12]byte
	_, _ = rand.Read(raw[:])
	id := base64.RawURLEncoding.EncodeToString(raw[:])
	t.mu.Lock()
	defer t.mu.Unlock()
	t.used[string(t.signing)] = true
	return id + "." + sign(t.signing, fid, id)
}

// Check returns the id of ticket when it is one of lecture fid's.
func (t *Tickets) Check(fid, ticket string) (id string, ok bool) {
	id, sig, found := strings.Cut(ticket, ".")
	if !found || len(id) != ticketIDLen || len(sig) != ticketSigLen {
		return "", false
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	for _, s := range t.secrets {
		if hmac.Equal([]byte(sig), []byte(sign(s, fid, id))) {
			return id, true
		}
	}
	return "", false
}

func sign(secret []byte, fid, id string) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte("fencing-demo ticket\x00" + fid + "\x00" + id))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:12])
}

// toShare is what this server tells Redis: the secret it signs with (for a
// Redis that holds none), then every one it has signed tickets with.
func (t *Tickets) toShare() []any {
	t.mu.RLock()
	defer t.mu.RUnlock()
	args := []any{string(t.signing)}
	for s := range t.used {
		args = append(args, s)
	}
	return args
}

// adopt takes the replicas' secrets: each checks, and the least signs, so
// that every replica signs with the same one. Its own go last, and the
// oldest of them first when there are too many.
func (t *Tickets) adopt(shared []string) {
	if len(shared) == 0 {
		return
	}
	slices.Sort(shared)
	t.mu.Lock()
	defer t.mu.Unlock()
	keep := make([][]byte, 0, len(shared)+len(t.secrets))
	for _, s := range shared {
		keep = append(keep, []byte(s))
	}
	for _, s := range t.secrets {
		if !slices.Contains(shared, string(s)) {
			keep = append(keep, s)
		}
	}
	t.signing, t.secrets = keep[0], keep[:min(len(keep), maxSecrets)]
}

// shareScript adds the secrets this replica signed with (ARGV[2...]) to the
// replicas' set KEYS[1], and the one it signs with (ARGV[1]) when the set
// is empty; the last argument is the set's expiry (ms). It returns the set.
var shareScript = redis.NewScript(`
local ttl = table.remove(ARGV)
if redis.call('SCARD', KEYS[1]) == 0 then redis.call('SADD', KEYS[1], ARGV[1]) end
for i = 2, #ARGV do redis.call('SADD', KEYS[1], ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ttl)
return redis.call('SMEMBERS', KEYS[1])
`)

// shareEvery is how often a replica reads the replicas' secrets again.
const shareEvery = 5 * time.Second

// ShareTickets makes every replica check every other's tickets, through a
// set of secrets kept in Redis: each replica adds those it has signed
// with, reads them all, and signs with the least, so that all sign with
// one. It shares at once, each time the relay subscribes again (Redis may
// have come back empty: it keeps nothing on disk) and every shareEvery
// until ctx ends, so that a replica started while Redis was away learns
// the secrets of the tickets the room holds within seconds.
func (r *Redis) ShareTickets(ctx context.Context, t *Tickets) {
	share := func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		args := append(t.toShare(), r.ttl.Milliseconds())
		if s, err := shareScript.Run(ctx, r.client, []string{r.prefix + "ticket-secrets"}, args...).StringSlice(); err == nil {
			t.adopt(s)
		}
	}
	r.onResubscribe(share)
	share(ctx)
	go func() {
		tick := time.NewTicker(shareEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				share(ctx)
			}
		}
	}()
}
