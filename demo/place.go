package demo

// Place is where a frame is: the scenario, the switch's position and the
// step. A frame is a pure function of its place (the model is
// deterministic), so a place is all that an address, a form, the run cache,
// the answer cache, the follow-along and the static export need to keep:
// Frame plays it again whenever it is asked. A Place is comparable, and so
// serves as a map key as it is.
type Place struct {
	Sc   *Scenario
	On   bool
	Step int // the frame, from 1
}

// Frame plays the scenario to the place's step (clamped to its frames).
func (p Place) Frame() (Frame, error) {
	r, err := Replay(p.Sc, p.On, p.Step)
	if err != nil {
		return Frame{}, err
	}
	return r.Frame(), nil
}

// At returns the same place at step k.
func (p Place) At(k int) Place { p.Step = k; return p }

// Switched returns the same place with the switch flipped.
func (p Place) Switched() Place { p.On = !p.On; return p }
