package demo

import (
	"errors"
	"fmt"
	"strings"
)

// The grammar of one action, as scenarios.yaml writes it: "tick N", or
// "WHO VERB ARGS...". The engine's verbs are read here; every other verb is
// read by its family's table (VerbSpec), which gives its form. The loader
// and free play read actions alike, so a history in an address means what
// the same lines mean in a script.

// ParseAction reads one action from its one-line form, with the verbs of
// family fam for a store of kind k. It knows the words, not the cast:
// whether the client or node exists is the scenario's check (or, in free
// play, the run's). A verb fam does not take is an *UnknownVerbError,
// wrapped with the action.
func ParseAction(fam *Family, k StoreKind, s string) (Action, error) {
	f := strings.Fields(s)
	a := Action{Source: strings.Join(f, " ")}
	wrap := func(err error) (Action, error) { return a, fmt.Errorf("%q: %w", a.Source, err) }
	if len(f) == 0 {
		return a, errors.New("empty action")
	}
	if f[0] == string(Tick) {
		if len(f) != 2 {
			return wrap(errors.New(`want "tick N"`))
		}
		n, err := Number(f[1], "tick")
		if err != nil {
			return wrap(err)
		}
		a.Verb, a.Args = Tick, TickArgs{Forward: n}
		return a, nil
	}
	if len(f) < 2 {
		return wrap(errors.New(`want "WHO VERB ..." or "tick N"`))
	}
	a.Who, a.Verb = f[0], Verb(strings.ToLower(f[1]))
	args, err := parseArgs(fam, k, a, f[2:])
	if err != nil {
		return wrap(err)
	}
	a.Args = args
	return a, nil
}

// UnknownVerbError is a verb that the family does not take for the kind:
// the loader looks it up among the other families to say which is wrong.
type UnknownVerbError struct {
	Verb  Verb
	Known []string // the verbs the kind takes, engine's first
}

func (e *UnknownVerbError) Error() string {
	return fmt.Sprintf("unknown action %q (known: %s)", e.Verb, strings.Join(e.Known, ", "))
}

// parseArgs reads the words after the verb: the engine's verbs here, the
// others by their family's parser.
func parseArgs(fam *Family, k StoreKind, a Action, words []string) (any, error) {
	switch a.Verb {
	case Write:
		if len(words) != 1 {
			return nil, fmt.Errorf("want %q", a.Who+" write VALUE (one word)")
		}
		return WriteArgs{Value: words[0]}, nil
	case Check:
		if len(words) != 1 {
			return nil, fmt.Errorf("want %q", a.Who+" check N")
		}
		n, err := Number(words[0], "lease left")
		return CheckArgs{Margin: n}, err
	case Pause, Resume, Crash:
		if len(words) != 0 {
			return nil, fmt.Errorf("%s takes no arguments", a.Verb)
		}
		return nil, nil
	}
	spec, ok := fam.Verb(k, a.Verb)
	if !ok {
		return nil, &UnknownVerbError{Verb: a.Verb, Known: knownVerbs(fam, k)}
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

// knownVerbs lists the verbs a store of kind k takes, for a message.
func knownVerbs(fam *Family, k StoreKind) []string {
	var names []string
	for _, v := range EngineVerbs {
		names = append(names, string(v))
	}
	for _, s := range fam.Verbs {
		if _, ok := fam.Verb(k, s.Verb); ok {
			names = append(names, string(s.Verb))
		}
	}
	return names
}
