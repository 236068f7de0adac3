package room

import "context"

// Judge judges a learner's submission for one of a room's challenges: body
// is what the learner's page sent (the address of their frames: a
// free-play history for a break, a build for a fix), addr their client
// address, which the judge's fair gate shares its work by. An error is
// either a *Refusal (the submission is wrong: it says what, and it is
// counted nowhere) or the judge's own trouble (busy, Redis away).
//
// web implements it over the model (web/roomjudge.go); a challenge kept in
// the scenarios file (demo.Challenge) can take its place by implementing
// the same method.
type Judge interface {
	Submit(ctx context.Context, ch Challenge, addr, body string) (Result, error)
}

// Result is the judge's answer on one submission.
type Result struct {
	Solved bool
	Moves  int    // a break's free-play moves
	Par    int    // the finder's shortest break from the challenge's frame
	Kind   string // Break or Fix
	Place  string // the frames' canonical address, to show on the projector
}

// Refusal is a submission the judge refuses: Key names the words that say
// why (views' i18n), Args fill them.
type Refusal struct {
	Key  string
	Args []any
}

func (r *Refusal) Error() string { return "room: submission refused: " + r.Key }
