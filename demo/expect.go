package demo

import (
	"fmt"
	"slices"
	"strings"
)

// Expected is what a scenario says it shows with its switch in one
// position: its expect: in scenarios.yaml. The engine never reads it, and a
// frame never shows it; it is what the model is held to. The loader holds
// the verdict, the findings and the answers to the model as it loads the
// file, and the tests and the check command hold the finder's. A field
// left empty states nothing.
type Expected struct {
	// Verdict is the headline's kind at the last frame, by its name
	// (ViolationKind.String); Findings are, with it, every violation
	// there, in order: none when the file lists none.
	Verdict  string
	Findings []Finding
	// Answers are the right answers of the scenario's questions, in the
	// order of its moves.
	Answers []string
	// Finder is what the counterexample finder finds from the first frame.
	Finder *Expectation

	// The lines each is written on in the scenarios file, for a check's
	// message, as an Action's Line is; 0 where none is.
	VerdictLine, FindingsLine, AnswersLine, FinderLine int
}

// Stated reports whether e says anything at all.
func (e Expected) Stated() bool {
	return e.Verdict != "" || len(e.Answers) > 0 || e.Finder != nil
}

// Finding is one violation as a scenario states it: its kind by name, when
// (in the scenario's unit), and who, as the Violation's Client and Other.
type Finding struct {
	Kind          string
	At            int
	Client, Other string
}

// Found is v as a scenario states it.
func Found(v Violation) Finding {
	return Finding{Kind: v.Kind.String(), At: v.At, Client: v.Client, Other: v.Other}
}

func (f Finding) String() string {
	s := fmt.Sprintf("%s at %d", f.Kind, f.At)
	if f.Client != "" {
		s += " by " + f.Client
	}
	if f.Other != "" {
		s += " (other: " + f.Other + ")"
	}
	return s
}

// VerdictDiffers says how the verdict of a last frame whose violations are
// vs differs from what e states, and the line of e's field that it
// differs from; "" when it does not, or e states no verdict.
func (e Expected) VerdictDiffers(vs []Violation) (string, int) {
	if e.Verdict == "" {
		return "", 0
	}
	if got := Headline(vs).Kind.String(); got != e.Verdict {
		return fmt.Sprintf("the verdict at the last frame is %s, not %s", got, e.Verdict), e.VerdictLine
	}
	got := make([]Finding, len(vs))
	for i, v := range vs {
		got[i] = Found(v)
	}
	if !slices.Equal(got, e.Findings) {
		line := e.FindingsLine
		if line == 0 {
			line = e.VerdictLine
		}
		return fmt.Sprintf("the findings at the last frame are %s, not %s", findings(got), findings(e.Findings)), line
	}
	return "", 0
}

func findings(fs []Finding) string {
	if len(fs) == 0 {
		return "none"
	}
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = f.String()
	}
	return "[" + strings.Join(s, "; ") + "]"
}

// GuideLinks names the places of the guide (guide.yaml) that must link to a
// scenario, at least: leaves of the decision tree by their id, and the
// quiz's questions by their number, from 1.
type GuideLinks struct {
	Tree []string
	Quiz []int
	Line int // where the file states them; 0 for none
}
