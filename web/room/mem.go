package room

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Mem keeps rooms in this process, for a server on its own: a restart
// forgets them.
type Mem struct {
	changes
	limits Limits
	clock  func() time.Time

	mu    sync.Mutex
	rooms map[string]*memRoom
}

type memRoom struct {
	Room
	seen     time.Time
	learners map[string]string // id -> nickname
	byAddr   map[string]int
	keys     map[string]string // learner+key -> submission id
	subs     []Submission
	tallies  []Tally
	tried    []map[string]bool // per challenge, the learners who tried
	solved   []map[string]bool
	atPar    []map[string]bool
}

// NewMem keeps at most limits.Rooms rooms, each until it is closed or idle
// for limits.Idle.
func NewMem(limits Limits) *Mem {
	return &Mem{limits: limits, clock: time.Now, rooms: map[string]*memRoom{}}
}

// room is room id if it is open, forgetting those idle past the limit.
// m.mu is held.
func (m *Mem) room(id string) (*memRoom, error) {
	now := m.clock()
	for k, r := range m.rooms {
		if now.Sub(r.seen) > m.limits.Idle {
			delete(m.rooms, k)
		}
	}
	r, ok := m.rooms[id]
	if !ok {
		return nil, ErrGone
	}
	r.seen = now
	return r, nil
}

func (m *Mem) Open(_ context.Context, r Room) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, _ = m.room("")
	if len(m.rooms) >= m.limits.Rooms {
		return ErrRooms
	}
	n := len(r.Challenges)
	mr := &memRoom{Room: r, seen: m.clock(), learners: map[string]string{}, byAddr: map[string]int{},
		keys: map[string]string{}, tallies: make([]Tally, n)}
	for i := range n {
		mr.tallies[i].Moves = map[int]int{}
		mr.tried = append(mr.tried, map[string]bool{})
		mr.solved = append(mr.solved, map[string]bool{})
		mr.atPar = append(mr.atPar, map[string]bool{})
	}
	m.rooms[r.ID] = mr
	return nil
}

func (m *Mem) Get(_ context.Context, id string) (Room, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.room(id)
	if err != nil {
		return Room{}, err
	}
	return r.Room, nil
}

func (m *Mem) Join(_ context.Context, id, learner, nick, addr string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.room(id)
	if err != nil {
		return err
	}
	if _, ok := r.learners[learner]; ok {
		r.learners[learner] = nick
		return nil
	}
	switch {
	case len(r.learners) >= m.limits.Learners:
		return ErrFull
	case r.byAddr[addr] >= m.limits.PerAddr:
		return ErrAddr
	}
	r.learners[learner] = nick
	r.byAddr[addr]++
	m.changed(id)
	return nil
}

func (m *Mem) Nick(_ context.Context, id, learner string) (string, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.room(id)
	if err != nil {
		return "", false, err
	}
	nick, ok := r.learners[learner]
	return nick, ok, nil
}

func (m *Mem) Try(_ context.Context, id, learner string, c int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.room(id)
	if err != nil {
		return err
	}
	if c >= 0 && c < len(r.tried) && !r.tried[c][learner] {
		r.tried[c][learner] = true
		m.changed(id)
	}
	return nil
}

func (m *Mem) Submit(_ context.Context, id string, s Submission) (Submission, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.room(id)
	if err != nil {
		return s, false, err
	}
	if sid, ok := r.keys[s.Learner+"."+s.Key]; ok {
		i, _ := strconv.Atoi(sid)
		return r.subs[i], false, nil
	}
	c := s.Challenge
	if c < 0 || c >= len(r.tallies) {
		return s, false, ErrGone
	}
	s.ID = strconv.Itoa(len(r.subs))
	r.keys[s.Learner+"."+s.Key] = s.ID
	r.subs = append(r.subs, s)
	t := &r.tallies[c]
	t.Submissions++
	r.tried[c][s.Learner] = true
	if s.Solved {
		r.solved[c][s.Learner] = true
		if s.Kind == Break {
			t.Moves[s.Moves]++
		}
	}
	if s.AtPar {
		r.atPar[c][s.Learner] = true
	}
	m.changed(id)
	return s, true, nil
}

func (m *Mem) Submission(_ context.Context, id, sid string) (Submission, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.room(id)
	if err != nil {
		return Submission{}, err
	}
	i, err := strconv.Atoi(sid)
	if err != nil || i < 0 || i >= len(r.subs) {
		return Submission{}, ErrGone
	}
	return r.subs[i], nil
}

func (m *Mem) Board(_ context.Context, rm Room) (Board, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.room(rm.ID)
	if err != nil {
		return Board{}, err
	}
	b := Board{Joined: len(r.learners), Submissions: len(r.subs)}
	for i, t := range r.tallies {
		t.Tried, t.AtPar = len(r.tried[i]), len(r.atPar[i])
		t.solved(r.Challenges[i].Kind, len(r.solved[i]))
		t.Moves = maps.Clone(t.Moves)
		b.Challenges = append(b.Challenges, t)
	}
	for i := len(r.subs) - 1; i >= 0 && len(b.Shown) < shownKept; i-- {
		b.Shown = append(b.Shown, r.subs[i])
	}
	return b, nil
}

func (m *Mem) Close(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.rooms, id)
	m.changed(id)
	return nil
}

// changes hands out, per room, a channel closed at its board's next change.
type changes struct {
	cmu   sync.Mutex
	waits map[string]chan struct{}
}

// Changed is closed at room id's next change. Ask before reading the
// board, so a change during the read is not missed.
func (c *changes) Changed(id string) <-chan struct{} {
	c.cmu.Lock()
	defer c.cmu.Unlock()
	if c.waits == nil {
		c.waits = map[string]chan struct{}{}
	}
	ch, ok := c.waits[id]
	if !ok {
		ch = make(chan struct{})
		c.waits[id] = ch
	}
	return ch
}

func (c *changes) changed(id string) {
	c.cmu.Lock()
	defer c.cmu.Unlock()
	if ch, ok := c.waits[id]; ok {
		close(ch)
		delete(c.waits, id)
	}
}

// Bins is a histogram's moves in order.
func Bins(h map[int]int) []int {
	ks := make([]int, 0, len(h))
	for k := range h {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
