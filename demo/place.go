package demo

import (
	"errors"
	"strings"
)

// Place is where a frame is: the scenario, the switch's position, the step
// and, in free play, the actions a visitor played after it. A frame is a
// pure function of its place (the model is deterministic), so a place is
// all that an address, a form, the run cache, the answer cache, the
// follow-along and the static export need to keep: Frame plays it again
// whenever it is asked. A Place is comparable, and so serves as a map key as
// it is.
type Place struct {
	Sc   *Scenario
	On   bool
	Step int // the scripted frame, from 1
	// Play is the free-play history after Step, one action a line in its
	// canonical form ("A acquire 10\ntick 3"); "" for a scripted place.
	Play string
}

// Frame plays the scenario to the place's step (clamped to its frames),
// then each free-play action as a frame of its own.
func (p Place) Frame() (Frame, error) {
	r, err := p.Run()
	if err != nil {
		return Frame{}, err
	}
	return r.Frame(), nil
}

// Run plays the place and returns the run standing there, for a caller that
// wants more than the frame (the offers, the finder).
func (p Place) Run() (*Run, error) {
	r, err := Replay(p.Sc, p.On, p.Step)
	if err != nil || p.Play == "" {
		return r, err
	}
	for i, line := range strings.Split(p.Play, "\n") {
		a, err := ParseFree(p.Sc, line)
		if err == nil {
			err = r.Free(a)
		}
		if err != nil {
			return r, &HistoryError{Index: i + 1, Line: line, Err: err}
		}
	}
	return r, nil
}

// At returns the same scripted place at step k: a step of the script
// leaves free play.
func (p Place) At(k int) Place { p.Step, p.Play = k, ""; return p }

// Switched returns the same place with the switch flipped. Free play keeps
// its history: the same moves with the other code may not all play, which
// the frame's error then says.
func (p Place) Switched() Place { p.On = !p.On; return p }

// Free reports whether the place is in free play.
func (p Place) Free() bool { return p.Play != "" }

// Then returns the place after one more free-play action, written in its
// canonical form. The step is clamped first, so that free-play frames are
// numbered from where the script really stood.
func (p Place) Then(a Action) Place {
	p.Step = min(max(p.Step, 1), p.Sc.Frames())
	line := Canonical(p.Sc, a)
	if p.Play == "" {
		p.Play = line
	} else {
		p.Play += "\n" + line
	}
	return p
}

// Back returns the place one free-play action earlier; with no history it
// is the scripted place itself.
func (p Place) Back() Place {
	if i := strings.LastIndexByte(p.Play, '\n'); i >= 0 {
		p.Play = p.Play[:i]
	} else {
		p.Play = ""
	}
	return p
}

// History returns the free-play actions, one for each line of Play, read
// but not played.
func (p Place) History() ([]Action, error) {
	if p.Play == "" {
		return nil, nil
	}
	var as []Action
	for i, line := range strings.Split(p.Play, "\n") {
		a, err := ParseFree(p.Sc, line)
		if err != nil {
			return as, &HistoryError{Index: i + 1, Line: line, Err: err}
		}
		as = append(as, a)
	}
	return as, nil
}

// Offers returns the actions that make sense at the place, each client's
// and the world's, those that cannot be played now with the reason.
func (p Place) Offers() ([]Offer, error) {
	r, err := p.Run()
	if err != nil {
		return nil, err
	}
	offers, err := r.Offers()
	if err != nil {
		return nil, err
	}
	refused(p, r, offers)
	return offers, nil
}

// refused tries each offer that looks playable, on a copy of r or, for a
// store that cannot copy itself, by playing p with it, and disables the
// ones the store turns away (a ZooKeeper client already queued asking
// again, a client closing a connection it does not have), with the store's
// own reason: a page never offers a button that can only answer an error.
func refused(p Place, r *Run, offers []Offer) {
	for i := range offers {
		if !offers[i].Enabled() {
			continue
		}
		var err error
		if c, ok := r.Clone(); ok {
			err = c.Free(offers[i].Action)
		} else {
			_, err = p.Then(offers[i].Action).Run()
		}
		if err == nil {
			continue
		}
		why := Text{EN: err.Error(), JA: "いまのモデルの状態では受け付けられない"}
		var ae *ActionError
		if errors.As(err, &ae) {
			why.EN = ae.Msg
			if ae.JA != "" {
				why.JA = ae.JA
			}
		}
		offers[i].Why = why
	}
}
