package script

import (
	"errors"
	"fmt"
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// The grammar of one action, as scenarios.yaml writes it: "tick N", or
// "WHO VERB ARGS...". The engine's verbs are read here; every other verb is
// read by its family's table (demo.VerbSpec), which gives its form.

// ParseAction reads one action from its one-line form, with the verbs of
// family fam for a store of kind k. It knows the words, not the cast:
// whether the client or node exists is the scenario's check.
func ParseAction(reg *demo.Registry, fam *demo.Family, k demo.StoreKind, s string) (demo.Action, error) {
	f := strings.Fields(s)
	a := demo.Action{Source: strings.Join(f, " ")}
	wrap := func(err error) (demo.Action, error) { return a, fmt.Errorf("%q: %w", a.Source, err) }
	if len(f) == 0 {
		return a, errors.New("empty action")
	}
	if f[0] == string(demo.Tick) {
		if len(f) != 2 {
			return wrap(errors.New(`want "tick N"`))
		}
		n, err := demo.Number(f[1], "tick")
		if err != nil {
			return wrap(err)
		}
		a.Verb, a.Args = demo.Tick, demo.TickArgs{Forward: n}
		return a, nil
	}
	if len(f) < 2 {
		return wrap(errors.New(`want "WHO VERB ..." or "tick N"`))
	}
	a.Who, a.Verb = f[0], demo.Verb(strings.ToLower(f[1]))
	args, err := parseArgs(reg, fam, k, a, f[2:])
	if err != nil {
		return wrap(err)
	}
	a.Args = args
	return a, nil
}

// parseArgs reads the words after the verb: the engine's verbs here, the
// others by their family's parser.
func parseArgs(reg *demo.Registry, fam *demo.Family, k demo.StoreKind, a demo.Action, words []string) (any, error) {
	switch a.Verb {
	case demo.Write:
		if len(words) != 1 {
			return nil, fmt.Errorf("want %q", a.Who+" write VALUE (one word)")
		}
		return demo.WriteArgs{Value: words[0]}, nil
	case demo.Pause, demo.Resume, demo.Crash:
		if len(words) != 0 {
			return nil, fmt.Errorf("%s takes no arguments", a.Verb)
		}
		return nil, nil
	}
	spec, ok := fam.Verb(k, a.Verb)
	if !ok {
		for _, other := range reg.Families() {
			if s, elsewhere := findVerb(other, a.Verb); elsewhere {
				return nil, &foreignVerb{spec: s, store: k}
			}
		}
		return nil, fmt.Errorf("unknown action %q (known: %s)", a.Verb, strings.Join(known(fam, k), ", "))
	}
	if spec.Parse == nil {
		if len(words) != 0 {
			return nil, fmt.Errorf("%s takes no arguments", a.Verb)
		}
		return nil, nil
	}
	args, err := spec.Parse(words)
	if err != nil && strings.HasPrefix(err.Error(), "want ") && spec.Form != "" {
		// The family's parser says what shape it wants; say it whole.
		return nil, fmt.Errorf("want %q", a.Who+" "+string(a.Verb)+" "+spec.Form)
	}
	return args, err
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

// known lists the verbs a store of kind k takes, for a message.
func known(fam *demo.Family, k demo.StoreKind) []string {
	var names []string
	for _, v := range demo.EngineVerbs {
		names = append(names, string(v))
	}
	for _, s := range fam.Verbs {
		if _, ok := fam.Verb(k, s.Verb); ok {
			names = append(names, string(s.Verb))
		}
	}
	return names
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
