// Package check is the check command, for a lecturer's own CI over their
// own scenarios file. It judges a scenarios file, so it lives beside the
// code that reads one (package script); main only wires it in. It does one
// of two things:
//
//	go run . check -scenarios mine.yaml [scenario]   # judge.go
//
// holds every scenario of the file (or one) to every expectation it states
// under expect: (without -scenarios, the built-in scenarios.yaml); it exits
// 1 when one does not hold, printing each difference with its file and
// line. And
//
//	go run . check gc-pause -switch off -depth 8
//
// runs the counterexample finder (package demo/find) on one scenario, and
// exits 1 when it finds a history that breaks the scenario's property, 0
// when it finds none (within the depth, or before the budget ran out, which
// it says). A scenario named without -scenarios, or with -switch or -depth,
// asks for the finder. Both exit 2 for a command line that is wrong or a
// file that does not load.
package check

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/demo/script"
)

// ErrFound is the finder's answer that a violation of the property was
// found: the command's exit status 1.
var ErrFound = errors.New("a history breaks the property")

// ErrDiffers is the judge's answer that an expectation does not hold: the
// command's exit status 1.
var ErrDiffers = errors.New("an expectation does not hold")

// UsageError is a command line that is wrong; the usage has been printed.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Guide is what the check needs of the guide's words: the places that link
// to a scenario (guidedata.Guide).
type Guide interface {
	LinksTo(id string) demo.GuideLinks
}

// Command runs check with args (after the word "check"). read reads a
// scenarios file as script.Read does, or the built-in one for ""; guide is the
// guide the scenarios' expect: guide is held to.
func Command(args []string, getenv func(string) string, read func(path string) (*demo.Catalog, []*script.LoadError, error), guide Guide, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("fencing-demo check", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: fencing-demo check [-scenarios file] [scenario]\n       fencing-demo check <scenario> [-switch on|off] [-depth d] [-states n] [-scenarios file]")
		fmt.Fprintln(stderr, "The first holds the file's scenarios (or one) to what each states under expect:; exit status 1 when something does not hold.")
		fmt.Fprintln(stderr, "The second looks for the shortest history that breaks the scenario's property; exit status 1 when it finds one.")
		fl.PrintDefaults()
	}
	pos := fl.String("switch", "", "the finder: the switch's position, on or off (default: the scenario's own)")
	depth := fl.Int("depth", find.DefaultDepth, "the finder: the longest history tried, in steps")
	states := fl.Int("states", 2_000_000, "the most distinct states one search explores")
	scenarios := fl.String("scenarios", getenv("SCENARIOS"), "read the scenarios from this file instead of the built-in scenarios.yaml (env SCENARIOS)")
	id, err := parseArgs(fl, args)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fl.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *depth < 1 || *depth > 20 || *states < 1 {
		fl.Usage()
		return &UsageError{errors.New("check: -depth takes 1 to 20, -states at least 1")}
	}
	catalog, differs, err := read(*scenarios)
	if err != nil {
		return err
	}
	var sc *demo.Scenario
	if id != "" {
		var ok bool
		if sc, ok = catalog.Get(id); !ok {
			fl.Usage()
			return &UsageError{fmt.Errorf("check: no scenario %q (known: %s)", id, strings.Join(catalog.IDs(), ", "))}
		}
	}
	if id == "" || set["scenarios"] && !set["switch"] && !set["depth"] {
		file := *scenarios
		if file == "" {
			file = "scenarios.yaml"
		}
		return judge(file, catalog, sc, differs, guide, *states, stdout)
	}
	on := sc.Default
	switch *pos {
	case "on", "off":
		on = *pos == "on"
	case "":
	default:
		fl.Usage()
		return &UsageError{fmt.Errorf("check: -switch takes on or off, not %q", *pos)}
	}
	return look(sc, on, find.Options{Depth: *depth, MaxStates: *states}, stdout)
}

// parseArgs reads the flags, before or after the one scenario id, if any.
func parseArgs(fl *flag.FlagSet, args []string) (string, error) {
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return "", err
		}
		return "", &UsageError{err}
	}
	rest := fl.Args()
	if len(rest) == 0 {
		return "", nil
	}
	id := rest[0]
	if err := fl.Parse(rest[1:]); err != nil {
		return "", &UsageError{err}
	}
	if len(fl.Args()) > 0 {
		fl.Usage()
		return "", &UsageError{fmt.Errorf("check: one scenario at a time, not %q too", fl.Arg(0))}
	}
	return id, nil
}

// look runs the finder on sc from its first frame and tells the answer.
func look(sc *demo.Scenario, on bool, opt find.Options, w io.Writer) error {
	if sc.Property == "" {
		return &UsageError{fmt.Errorf("check: scenario %s names no property to look for (property: in its scenarios file)", sc.ID)}
	}
	prop, _ := sc.Promise()
	start := time.Now() // the command, not the model, keeps time
	res, err := find.Find(demo.Place{Sc: sc, On: on, Step: 1}, prop, opt)
	if err != nil {
		return err
	}
	took := time.Since(start).Round(time.Millisecond)
	fmt.Fprintf(w, "%s, %s %s: %s (%s)\n", sc.ID, sc.Switch, demo.OnOff(on), prop.Name, prop.Says.EN)
	Report(w, sc, res)
	fmt.Fprintf(w, "explored %d states to depth %d in %s\n", res.States, res.Depth, took)
	if res.Found {
		return ErrFound
	}
	return nil
}

// Report writes what the finder found: the trace as a script's lines and
// the violation it ends in, or that it found none, and what else it met.
func Report(w io.Writer, sc *demo.Scenario, res find.Result) {
	switch {
	case res.Found:
		fmt.Fprintf(w, "violation in %d steps (%d actions):\n", res.Depth, len(res.Trace))
		for _, a := range res.Trace {
			fmt.Fprintf(w, "  - %s\n", demo.Longhand(sc, res.Start.On, a))
		}
		v := res.Violation
		fmt.Fprintf(w, "%s: %s at %s", v.Kind, v.Client, demo.Clock(sc, v.At))
		if v.Other != "" {
			fmt.Fprintf(w, " (other: %s)", v.Other)
		}
		fmt.Fprintln(w)
		if n := ScriptLength(sc, res.Start.On); len(res.Trace) < n {
			fmt.Fprintf(w, "shorter than the script, which plays %d actions\n", n)
		}
	case res.OutOfBudget:
		fmt.Fprintf(w, "none found: the budget ran out, every history of up to %d steps tried\n", res.Depth)
	default:
		fmt.Fprintf(w, "none up to depth %d\n", res.Depth)
	}
	for _, m := range res.Others {
		fmt.Fprintf(w, "also met, not breaking %s: %s (%s) in %d actions\n", res.Property.Name, m.Violation.Kind, m.Violation.Kind.Class(), len(m.Trace))
	}
}

// ScriptLength is how many actions the script plays in position on after
// its setup: what a trace's length is held against.
func ScriptLength(sc *demo.Scenario, on bool) int {
	n := 0
	for _, m := range sc.Moves {
		for _, a := range m.Do {
			if a.When == "" || a.When == "on" && on || a.When == "off" && !on {
				n++
			}
		}
	}
	return n
}
