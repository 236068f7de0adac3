package web

import (
	"context"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
)

// answers keeps the answers of an expensive question by its key (a search
// by its place, a judgement by its build): an answer kept is given at
// once, and the askers of a question under way share its one answer, so
// a room asking the same at once costs one search. An answer cut short
// (the time ran out) is shared with those waiting but not kept: another
// moment may get further.
type answers[K comparable, V any] struct {
	kept *lru.Cache[K, V]

	mu      sync.Mutex
	running map[K]*answering[V]
}

// answering is one question under way.
type answering[V any] struct {
	done chan struct{}
	v    V
	err  error
}

func newAnswers[K comparable, V any](size int) *answers[K, V] {
	c, _ := lru.New[K, V](size) // a size above 0 never fails
	return &answers[K, V]{kept: c, running: map[K]*answering[V]{}}
}

// get answers k: kept, shared with an asker under way, or by work, whose
// answer is kept when it says so and it did not fail.
func (a *answers[K, V]) get(ctx context.Context, k K, work func() (v V, keep bool, err error)) (V, error) {
	if v, ok := a.kept.Get(k); ok {
		return v, nil
	}
	a.mu.Lock()
	if w := a.running[k]; w != nil {
		a.mu.Unlock()
		select {
		case <-w.done:
			return w.v, w.err
		case <-ctx.Done():
			var zero V
			return zero, ctx.Err()
		}
	}
	w := &answering[V]{done: make(chan struct{})}
	a.running[k] = w
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.running, k)
		a.mu.Unlock()
		close(w.done)
	}()
	var keep bool
	w.v, keep, w.err = work()
	if w.err == nil && keep {
		a.kept.Add(k, w.v)
	}
	return w.v, w.err
}
