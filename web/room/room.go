// Package room is a workshop room: a lecturer opens one with a few
// challenges, learners join by a link (no account, an optional nickname
// shown only to the room), each works on their own run, and what they
// submit is judged by the model and counted on the lecturer's board.
//
// The package holds the room's records and its counting: which challenges
// it sets, who joined, which submissions were counted (each once, by the
// idempotency key its learner's page drew), and the board those make. It
// judges nothing itself: a Judge does (web's adapter over the finder and
// the lab's judge), and what the board counts is only what the judge said.
// A Store keeps rooms in memory on one server (Mem) or in the replicas'
// Redis (Redis), where a room outlives a restart and every replica counts
// the same submissions; both forget a room, learners and all, when it is
// closed or has been idle for its limit.
package room

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/distlock/fencing-demo/web/follow"
)

// The kinds of challenge.
const (
	Break = "break" // reach a violation of the scenario's property from a frame, within a budget of moves
	Fix   = "fix"   // build a lab's fix that the judge says holds
)

// Challenge is one task a room sets. A break challenge starts from a frame
// (Scenario, On, Step) and allows Moves free-play moves, Par being the
// finder's shortest; a fix challenge is a lab (Scenario).
type Challenge struct {
	Kind     string `json:"kind"`
	Scenario string `json:"scenario"`
	On       bool   `json:"on"`
	Step     int    `json:"step"`
	Moves    int    `json:"moves,omitempty"`
	Par      int    `json:"par,omitempty"`
}

// Room is a room's settings as opened: none of it changes after.
type Room struct {
	ID         string      `json:"id"`
	Secret     string      `json:"secret"` // the lecturer's: in their link only
	Run        string      `json:"run"`    // the run key of the room's projector (a lecture)
	Challenges []Challenge `json:"challenges"`
	Opened     time.Time   `json:"opened"`
}

// Lead reports whether secret is the room's lecturer's.
func (r Room) Lead(secret string) bool {
	return secret != "" && hmac.Equal([]byte(secret), []byte(r.Secret))
}

// Token is learner's token for this room: the learner's id and a MAC by
// the room's secret, so a token is good in its own room only and nobody
// but the server can make one.
func (r Room) Token(learner string) string { return learner + "." + r.mac(learner) }

// LearnerOf is the learner a token names, if it is this room's.
func (r Room) LearnerOf(token string) (string, bool) {
	id, mac, ok := strings.Cut(token, ".")
	if !ok || !ValidID(id) || !hmac.Equal([]byte(mac), []byte(r.mac(id))) {
		return "", false
	}
	return id, true
}

func (r Room) mac(learner string) string {
	m := hmac.New(sha256.New, []byte(r.Secret))
	m.Write([]byte("learner\x00" + r.ID + "\x00" + learner))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// Submission is one learner's attempt at a challenge, as judged.
type Submission struct {
	ID        string `json:"id"` // the room's name for it: the projector's link names it
	Key       string `json:"-"`  // the idempotency key the learner's page drew
	Learner   string `json:"learner"`
	Nick      string `json:"nick,omitempty"`
	Challenge int    `json:"challenge"`
	Kind      string `json:"kind"`
	Place     string `json:"place"` // the frames' address: a history, or a build
	Solved    bool   `json:"solved"`
	Moves     int    `json:"moves"`
	AtPar     bool   `json:"par,omitempty"`
}

// Tally is one challenge's line on the board.
type Tally struct {
	Tried, Broke, AtPar, Fixed int
	Submissions                int
	Moves                      map[int]int // a histogram of the moves of the breaks
}

// solved counts n learners who solved a challenge of kind.
func (t *Tally) solved(kind string, n int) {
	if kind == Break {
		t.Broke = n
	} else {
		t.Fixed = n
	}
}

// Board is the room's progress: what the lecturer's screen shows.
type Board struct {
	Joined      int
	Submissions int
	Challenges  []Tally
	Shown       []Submission // the latest submissions, the newest first, to put on the projector
}

// Limits bound the rooms: in all, learners per room and per address in a
// room.
type Limits struct {
	Rooms, Learners, PerAddr int
	Idle                     time.Duration
}

// Store keeps rooms.
type Store interface {
	// Open keeps a new room; ErrRooms when there are Limits.Rooms already.
	Open(ctx context.Context, r Room) error
	// Get is room id, ErrGone when it is closed, forgotten or never was.
	// It counts as a sign of life: the idle limit starts again.
	Get(ctx context.Context, id string) (Room, error)
	// Join counts learner (from addr) in room id, once however often it
	// is called; ErrFull or ErrAddr past the limits.
	Join(ctx context.Context, id, learner, nick, addr string) error
	// Nick is learner's nickname in room id, and whether they joined.
	Nick(ctx context.Context, id, learner string) (string, bool, error)
	// Try counts learner among those who tried challenge c of room id.
	Try(ctx context.Context, id, learner string, c int) error
	// Submit counts s in room id unless its key was counted before:
	// counted false then, and the submission counted under the key.
	Submit(ctx context.Context, id string, s Submission) (Submission, bool, error)
	// Submission is the counted submission sid of room id.
	Submission(ctx context.Context, id, sid string) (Submission, error)
	// Board is room rm's board.
	Board(ctx context.Context, rm Room) (Board, error)
	// Close forgets room id and everything in it.
	Close(ctx context.Context, id string) error
	// Changed is closed at the next change of room id's board, on any
	// replica.
	Changed(id string) <-chan struct{}
}

// The ways a room refuses.
var (
	ErrGone  = errors.New("room: no such room, or it is closed")
	ErrRooms = errors.New("room: as many rooms are open as the server takes")
	ErrFull  = errors.New("room: the room has all the learners it takes")
	ErrAddr  = errors.New("room: this address has joined as many learners as it may")
)

// shownKept is how many submissions the board offers for the projector.
const shownKept = 24

// NewID is a random id: a room's, a learner's, a secret.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// ValidID reports whether id could be one NewID made: the shape of a
// follow id.
func ValidID(id string) bool { return follow.ValidID(id) }

// ValidKey reports whether k can be an idempotency key: 16 to 64 letters,
// digits, '-' or '_' (what a page draws: NewID, or crypto.randomUUID).
func ValidKey(k string) bool {
	if len(k) < 16 || len(k) > 64 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// MaxNick bounds a nickname, in bytes.
const MaxNick = 40

// CleanNick is a nickname as the room shows it: trimmed, control
// characters dropped, at most MaxNick bytes of whole characters.
func CleanNick(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return -1
		}
		return r
	}, strings.TrimSpace(s))
	for len(s) > MaxNick {
		rs := []rune(s)
		s = string(rs[:len(rs)-1])
	}
	return strings.TrimSpace(s)
}
