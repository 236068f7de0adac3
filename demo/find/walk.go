package find

import (
	"math"

	"github.com/distlock/fencing-demo/demo"
)

// Walk visits every distinct state the finder reaches from start within
// opt's bounds, level by level, each once with the shortest history that
// reaches it (the empty one for start itself): every frame a learner can
// reach by the same moves, which a test holds the page's sentences to.
// visit returning false ends the walk. It reports the states visited.
func Walk(start demo.Place, opt Options, visit func(trace []demo.Action) bool) (int, error) {
	never := demo.Property{Name: "walk", Kind: demo.ViolationKind(math.MaxUint16)}
	s, err := newSearch(start, never, opt)
	if err != nil {
		return 0, err
	}
	if !visit(nil) {
		return 1, nil
	}
	s.visit = visit
	res, err := s.explore()
	return res.States, err
}
