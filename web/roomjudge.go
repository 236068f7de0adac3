package web

import (
	"context"
	"net/url"
	"strings"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/room"
)

// modelJudge is the room's judge (room.Judge) over the model: a break is a
// free-play history from the challenge's frame, played again here and held
// to the scenario's property; a fix is a lab's build, judged by the lab's
// judge (judge.go). Both go through the gate of expensive answers, shared
// fairly between addresses. What a learner sends is the address of their
// frames, as their own page shows it: nothing in it is believed but what
// the model computes from it.
//
// When challenges are kept in the scenarios file, a judge over them takes
// this one's place in New (s.roomJudge) with the same method.
type modelJudge struct{ s *Server }

// maxSubmitted bounds the address a learner submits: a history or a
// build as long as an address of ours gets.
const maxSubmitted = 4096

func (j modelJudge) Submit(ctx context.Context, ch room.Challenge, addr, body string) (room.Result, error) {
	if len(body) > maxSubmitted {
		return room.Result{}, &room.Refusal{Key: "room.err.long", Args: []any{maxSubmitted}}
	}
	u, err := url.Parse(strings.TrimSpace(body))
	if err != nil {
		return room.Result{}, &room.Refusal{Key: "room.err.address"}
	}
	id, rest, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(u.Path, "/scenarios/"), "/embed/"), "/")
	if id != ch.Scenario || (rest != "" && rest != "lab") || !strings.HasPrefix(u.Path, "/scenarios/") && !strings.HasPrefix(u.Path, "/embed/") {
		return room.Result{}, &room.Refusal{Key: "room.err.other"}
	}
	sc, ok := j.s.catalog.Get(id)
	if !ok {
		return room.Result{}, &room.Refusal{Key: "room.err.other"}
	}
	if ch.Kind == room.Fix {
		return j.fix(ctx, ch, sc, addr, u.Query())
	}
	return j.breaks(ctx, ch, sc, addr, u.Query())
}

// breaks judges a history: it must start at the challenge's frame, stay
// within its moves and end with the property broken.
func (j modelJudge) breaks(ctx context.Context, ch room.Challenge, sc *demo.Scenario, addr string, q url.Values) (room.Result, error) {
	if q.Has(views.BuildParam) {
		return room.Result{}, &room.Refusal{Key: "room.err.start"}
	}
	here, err := views.ReadPlace(sc, q, views.InURL, views.PageView, "")
	if err != nil {
		return room.Result{}, &room.Refusal{Key: "room.err.address"}
	}
	if here.On != ch.On || here.Step != ch.Step {
		return room.Result{}, &room.Refusal{Key: "room.err.start"}
	}
	moves := len(views.PlayLines(here.Play))
	switch {
	case moves == 0:
		return room.Result{}, &room.Refusal{Key: "room.err.nomoves"}
	case moves > ch.Moves:
		return room.Result{}, &room.Refusal{Key: "room.err.budget", Args: []any{moves, ch.Moves}}
	}
	leave, retry, ok := j.s.expensive.enter(ctx, addr)
	if !ok {
		return room.Result{}, busyError{retry}
	}
	defer leave()
	var f demo.Frame
	lowPriority(func() { f, err = here.Place.Frame() })
	if err != nil {
		return room.Result{}, &room.Refusal{Key: "room.err.address"}
	}
	prop, _ := sc.Promise()
	for _, v := range f.Violations {
		if prop.Breaks(v, f.Holdings) {
			here.Lang, here.FreePlay = "", true
			return room.Result{Solved: true, Moves: moves, Par: ch.Par, Kind: room.Break, Place: here.PageURL()}, nil
		}
	}
	return room.Result{}, &room.Refusal{Key: "room.err.holds"}
}

// fix judges a build of the challenge's lab: one that does not read is
// refused; one that reads is judged, and counts as fixed when the judge
// finds no break and the work can get done.
func (j modelJudge) fix(ctx context.Context, ch room.Challenge, sc *demo.Scenario, addr string, q url.Values) (room.Result, error) {
	if sc.Lab == nil || !q.Has(views.BuildParam) {
		return room.Result{}, &room.Refusal{Key: "room.err.nobuild"}
	}
	text, err := views.DecodeBuild(q.Get(views.BuildParam))
	if err != nil {
		return room.Result{}, &room.Refusal{Key: "room.err.build"}
	}
	built, err := views.Built(sc, text)
	if err != nil {
		return room.Result{}, &room.Refusal{Key: "room.err.build"}
	}
	jd, cut, err := j.s.judge(ctx, addr, sc, built)
	if err != nil {
		return room.Result{}, err
	}
	if cut {
		return room.Result{}, busyError{retry: j.s.cfg.JudgeTime}
	}
	solved := !jd.Always.Found && (jd.Sometimes == nil || jd.Sometimes.Found)
	place := views.Place{Place: demo.Place{Sc: built, On: built.Default, Step: 1}}
	return room.Result{Solved: solved, Kind: room.Fix, Place: place.PageURL()}, nil
}
