package follow

import "sync"

// The lecturer's screen holds its reading of the totals until they change
// (web's pollView), so a change must wake it: on one server each change of
// a poll, with replicas each change as Redis announces it on the poll
// channel (pollChannel), whichever replica counted it.

// changes hands out, per lecture, a channel closed at the poll's next change.
type changes struct {
	mu    sync.Mutex
	waits map[string]chan struct{}
}

// Changed is closed at lecture fid's next change. Ask for it before reading
// the poll, so a change between the read and the wait is not missed.
func (c *changes) Changed(fid string) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.waits == nil {
		c.waits = map[string]chan struct{}{}
	}
	ch, ok := c.waits[fid]
	if !ok {
		ch = make(chan struct{})
		c.waits[fid] = ch
	}
	return ch
}

// changed wakes whoever waits on lecture fid. A lecture nobody waits on
// costs nothing.
func (c *changes) changed(fid string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch, ok := c.waits[fid]; ok {
		close(ch)
		delete(c.waits, fid)
	}
}

// changedAll wakes every waiter: Redis came back, and any poll may read
// differently.
func (c *changes) changedAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for fid, ch := range c.waits {
		close(ch)
		delete(c.waits, fid)
	}
}
