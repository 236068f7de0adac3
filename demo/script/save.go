package script

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// SavedID is the id of a scenario saved from one of sc's places: the
// original's with a mark, so that it can stand beside the original in one
// file.
func SavedID(sc *demo.Scenario) string { return sc.ID + "-free" }

// Save is the scenario that plays place p as its script, so a lecturer
// authors a script by playing it: every field of p's scenario, its moves
// up to p's step, then one move per free-play action with the narration
// the model gave that frame, in both languages and both positions. Its
// switch starts in p's position. Where the other position cannot play the
// whole history, the actions from the first it refuses on are played only
// in p's, and the other position's narration says so.
//
// The saved scenario states what it shows (expect:): the verdict and the
// findings at its end in each position and the answers of the questions it
// keeps, as the plays that built it computed them, so that it loads only
// while it still shows them. It plays the history once in each position,
// so its cost is linear in the history, which demo.MaxPlay bounds.
func Save(p demo.Place) (*demo.Scenario, error) {
	sc := p.Sc
	p.Step = min(max(p.Step, 1), sc.Frames())
	history, err := p.History()
	if err != nil {
		return nil, err
	}
	here, err := playSaved(sc, p.On, p.Step, history)
	if err != nil {
		return nil, err
	}
	if here.refused != nil {
		return nil, here.refused
	}
	there, err := playSaved(sc, !p.On, p.Step, history)
	if err != nil {
		return nil, err
	}
	saved := *sc
	saved.ID, saved.Seed, saved.Default, saved.Horizon, saved.Guide = SavedID(sc), sc.RandomSeed(), p.On, 0, demo.GuideLinks{}
	saved.Title = demo.Text{JA: sc.Title.JA + " (自由操作から)", EN: sc.Title.EN + " (from free play)"}
	saved.Challenges = nil // the original's, whose ids are the file's own
	if len(history) == 0 {
		saved.Title = demo.Text{JA: fmt.Sprintf("%s (フレーム %d まで)", sc.Title.JA, p.Step), EN: fmt.Sprintf("%s (to frame %d)", sc.Title.EN, p.Step)}
	}
	saved.Moves = append(slices.Clone(sc.Moves[:p.Step-1]), freeMoves(p, history, here, there)...)
	whole := p.Step == sc.Frames() && len(history) == 0 // the script itself, whose finder's answers still hold
	for _, pl := range []played{here, there} {
		e := demo.Expected{Verdict: demo.Headline(pl.violations).Kind.String(), Answers: pl.answers}
		for _, v := range pl.violations {
			e.Findings = append(e.Findings, demo.Found(v))
		}
		if whole {
			e.Finder = sc.Expect[boolIndex(pl.on)].Finder
		}
		saved.Expect[boolIndex(pl.on)] = e
	}
	return &saved, nil
}

// SaveYAML is Save written as a scenarios file holding that one scenario,
// which -scenarios loads as it is and whose list item pastes under
// scenarios: in scenarios.yaml, after a comment that says where it came
// from.
func SaveYAML(p demo.Place) ([]byte, error) {
	saved, err := Save(p)
	if err != nil {
		return nil, err
	}
	out, err := Marshal(saved)
	if err != nil {
		return nil, err
	}
	step := min(max(p.Step, 1), p.Sc.Frames())
	free := len(saved.Moves) - (step - 1)
	var head string
	if free > 0 {
		head = fmt.Sprintf("Saved from free play in %q with %s %s: the first %d moves are the script's, the last %d the actions played.",
			p.Sc.ID, p.Sc.Switch, demo.OnOff(p.On), step-1, free)
	} else {
		head = fmt.Sprintf("Saved from %q with %s %s at frame %d: the script's first %d moves.", p.Sc.ID, p.Sc.Switch, demo.OnOff(p.On), step, step-1)
	}
	var b bytes.Buffer
	comment(&b, head+" The title, the summary and the lesson are the original's: rewrite them for this script before you show it. "+
		"expect: is what the model showed when it was saved; the loader holds the scenario to it.")
	b.Write(out)
	return b.Bytes(), nil
}

// comment writes text as YAML comment lines of at most 80 characters.
func comment(b *bytes.Buffer, text string) {
	line := "#"
	for _, w := range strings.Fields(text) {
		if len(line)+1+len(w) > 80 && line != "#" {
			b.WriteString(line + "\n")
			line = "#"
		}
		line += " " + w
	}
	b.WriteString(line + "\n")
}

// played is what one play of a saved place showed in one position: each
// free-play frame's narration, up to the first action the position
// refused (refused), the answers of the script's questions on the way,
// and the violations at its end.
type played struct {
	on         bool
	narrations []demo.Narration
	refused    error
	answers    []string
	violations []demo.Violation
}

// playSaved plays sc's script to step, then the history as free play, in
// one run.
func playSaved(sc *demo.Scenario, on bool, step int, history []demo.Action) (played, error) {
	pl := played{on: on}
	r := demo.NewRun(sc, on)
	for r.Index() < step && r.Step() {
		if q := sc.Moves[r.Index()-2].Predict; q != nil {
			f := r.Frame()
			v, _, _ := q.Answer(&f)
			pl.answers = append(pl.answers, v)
		}
	}
	if err := r.Err(); err != nil {
		return pl, err
	}
	for i, a := range history {
		if err := r.Free(a); err != nil {
			pl.refused = &demo.HistoryError{Index: i + 1, Line: a.Source, Err: err}
			break
		}
		pl.narrations = append(pl.narrations, r.Narration())
	}
	pl.violations = slices.Clone(r.Violations())
	return pl, nil
}

// freeMoves is one move per free-play action of p. Each position's
// narration is its own frame's, as the model tells it; a position that
// cannot play an action from some point on plays nothing from there, and
// says that the move was played with the switch in the other position.
func freeMoves(p demo.Place, history []demo.Action, here, there played) []demo.Move {
	var out []demo.Move
	for i, a := range history {
		written := a
		written.Source = demo.Longhand(p.Sc, p.On, a) // a statement's words, not its step's number
		do := []demo.Action{written}
		other := demo.Narration{
			Title: note(p.Sc, !p.On, "%s%sでは何も起きない", "Nothing happens with %s %s"),
			Text:  note(p.Sc, p.On, "この手は%s%sで遊んだもの。このスイッチ位置では何も起きない。", "This move was played with %s %s; in this position nothing happens."),
		}
		if i < len(there.narrations) {
			other = there.narrations[i]
			if spelled := demo.Longhand(p.Sc, !p.On, a); spelled != written.Source {
				// The same step of the client's program, which the other
				// position spells its own way.
				there := a
				there.Source, there.When = spelled, demo.OnOff(!p.On)
				written.When = demo.OnOff(p.On)
				do = []demo.Action{written, there}
			}
		} else {
			written.When = demo.OnOff(p.On)
			do = []demo.Action{written}
		}
		m := demo.Move{Narration: here.narrations[i], Do: do}
		if other != m.Narration {
			on, off := m.Narration, other
			if !p.On {
				on, off = other, m.Narration
			}
			m.TitleOn, m.TitleOff, m.TextOn, m.TextOff = &on.Title, &off.Title, &on.Text, &off.Text
		}
		out = append(out, m)
	}
	return out
}

// note is a sentence in both languages about sc's switch in position on:
// ja and en take its label and its position.
func note(sc *demo.Scenario, on bool, ja, en string) demo.Text {
	pos := map[bool][2]string{true: {"有", "on"}, false: {"無", "off"}}[on]
	return demo.Text{
		JA: fmt.Sprintf(ja, sc.SwitchLabel.JA, pos[0]),
		EN: fmt.Sprintf(en, sc.SwitchLabel.EN, pos[1]),
	}
}

// SavedBuildID is the id of a learner's build of lab scenario sc saved as
// a scenario: the lab's with a mark, so that it can stand beside the lab
// in one file.
func SavedBuildID(sc *demo.Scenario) string { return sc.ID + "-build" }

// SaveBuiltYAML is a built scenario (demo.Apply: a learner's build of a
// lab) written whole as a scenarios file holding that one scenario: its
// programs and the world's moves, its sometimes promise and its bound on
// time, so that the check command judges it as the lab's judge does. It
// keeps the lab's seed, so that it plays the same under its own id.
func SaveBuiltYAML(sc *demo.Scenario) ([]byte, error) {
	saved := *sc
	saved.ID, saved.Seed, saved.Horizon = SavedBuildID(sc), sc.RandomSeed(), 0
	saved.Title = demo.Text{JA: sc.Title.JA + " (学習者の組み立て)", EN: sc.Title.EN + " (a learner's build)"}
	out, err := Marshal(&saved)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	comment(&b, fmt.Sprintf("A learner's build for the lab %q, saved from its page: each client's program, then the world's moves. "+
		"`go run . check -scenarios FILE` judges it as the lab's judge does (exit 0 when it holds, 1 when a history breaks it "+
		"or the work never gets done). The build:", sc.ID))
	for _, line := range strings.Split(strings.TrimRight(sc.Built, "\n"), "\n") {
		b.WriteString("#   " + line + "\n")
	}
	b.Write(out)
	return b.Bytes(), nil
}
