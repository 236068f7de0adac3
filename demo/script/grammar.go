package script

import (
	"errors"
	"fmt"

	"github.com/distlock/fencing-demo/demo"
)

// ParseAction reads one action from its one-line form, with the verbs of
// family fam for a store of kind k (demo.ParseAction). A verb of another
// family's, or of another kind of this family's, says so, so that the check
// can tell which is wrong: who does it or the verb.
func ParseAction(reg *demo.Registry, fam *demo.Family, k demo.StoreKind, s string) (demo.Action, error) {
	a, err := demo.ParseAction(fam, k, s)
	var unknown *demo.UnknownVerbError
	if !errors.As(err, &unknown) {
		return a, err
	}
	for _, other := range reg.Families() {
		if spec, elsewhere := findVerb(other, unknown.Verb); elsewhere {
			return a, fmt.Errorf("%q: %w", a.Source, &foreignVerb{spec: spec, store: k})
		}
	}
	return a, err
}

// findVerb looks v up among every kind of fam.
func findVerb(fam *demo.Family, v demo.Verb) (demo.VerbSpec, bool) {
	for _, s := range fam.Verbs {
		if s.Verb == v {
			return s, true
		}
	}
	return demo.VerbSpec{}, false
}

// foreignVerb is a verb of another family's, or of another kind of this
// family's: the check says which is wrong, who does it or the verb.
type foreignVerb struct {
	spec  demo.VerbSpec
	store demo.StoreKind
}

func (e *foreignVerb) Error() string {
	return fmt.Sprintf("%s does not apply to the %s store", e.spec.Verb, e.store)
}
