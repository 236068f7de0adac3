package find

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/distlock/fencing-demo/demo"
)

// Judgement is the judge's answer on a scenario from its first frame, as a
// lab's fix is judged: the search for the shortest history that breaks its
// property, and, when none does, the search for what its Sometimes says can
// happen, so that a fix that merely stops everyone is told from a fix.
type Judgement struct {
	Start     demo.Place
	Always    Result
	Sometimes *Result // nil when the scenario names no sometimes property, or Always found a break
	Opt       Options
}

// JudgeDepth is the judge's bound on depth: far past any lab's programs, so
// that within the time bound the search runs out of new states first.
const JudgeDepth = 40

// Judge searches start's scenario within its bounds: each client's program
// once, a pause at most once per client, a holder's crash, time moved by
// what the family offers up to the scenario's TimeBound, and opt's budget of
// states (opt's depth, when set, bounds it as well).
func Judge(start demo.Place, opt Options) (Judgement, error) {
	sc := start.Sc
	always, ok := sc.Promise()
	if !ok {
		return Judgement{}, fmt.Errorf("scenario %s names no property for the judge to hold it to", sc.ID)
	}
	if opt.Depth == 0 {
		opt.Depth = JudgeDepth
	}
	if opt.MaxTime == 0 {
		opt.MaxTime = sc.TimeBound
	}
	j := Judgement{Start: start, Opt: opt}
	var goal *demo.Property
	if sc.Sometimes != "" {
		p, ok := demo.PropertyOf(sc.Family, sc.Sometimes)
		if !ok || !p.Sometimes() {
			return j, fmt.Errorf("scenario %s: %q is not a sometimes property", sc.ID, sc.Sometimes)
		}
		goal = &p
	}
	// One search for both: each state is judged against the property and
	// looked at for the good thing, as Stateright checks every property
	// in one pass.
	s, err := newSearch(start, always, opt)
	if err != nil {
		return j, err
	}
	s.goal = goal
	if j.Always, err = s.explore(); err != nil || j.Always.Found || goal == nil {
		return j, err
	}
	j.Sometimes = &s.goalRes
	return j, nil
}

// Verdict is the answer in the words a lab's tries state it in: "broken in
// N" (the shortest break has N actions), "holds" (no history within the
// bounds breaks it, every one tried, and the good thing can happen),
// "holds to D" (none up to depth D, where the budget ran out first),
// "never" (nothing breaks it, and the good thing never happens within the
// bounds), "never to D".
func (j Judgement) Verdict() string {
	switch {
	case j.Always.Found:
		return "broken in " + strconv.Itoa(len(j.Always.Trace))
	case j.Sometimes != nil && !j.Sometimes.Found:
		if j.Sometimes.Exhausted {
			return "never"
		}
		return "never to " + strconv.Itoa(j.Sometimes.Depth)
	case j.Always.Exhausted:
		return "holds"
	}
	return "holds to " + strconv.Itoa(j.Always.Depth)
}

// Bounds are the judge's bounds in words, for its answer: what "every
// history" means.
func (j Judgement) Bounds() demo.Text {
	sc := j.Start.Sc
	r, offers := j.world()
	var steps []string
	for _, d := range j.steps(offers) {
		steps = append(steps, strconv.Itoa(d))
	}
	ja, en := strings.Join(steps, "、"), strings.Join(steps, ", ")
	unit := demo.Text{JA: " ティック", EN: " ticks"}
	if sc.Unit() == "ms" {
		unit = demo.Text{JA: " ms", EN: " ms"}
	}
	t := demo.Says("各クライアントは自分のプログラムを 1 回走らせ、どこででも最大 1 回止まり、ロックを持つクライアントはクラッシュしうる。時間は %[1]s%[3]s ずつ進み",
		"Each client runs its program once, may pause once at any point, and a holder may crash; time moves by %[2]s%[4]s at a time",
		ja, en, unit.JA, unit.EN)
	if j.Opt.MaxTime > 0 {
		t = t.Join(demo.Says("、合わせて %[1]d%[2]s まで。", ", up to %[3]d%[4]s in all.", j.Opt.MaxTime, unit.JA, j.Opt.MaxTime, unit.EN))
	} else {
		t = t.Join(demo.Text{JA: "る。", EN: "."})
	}
	return t.Join(worldWords(r, offers))
}

// world is the judge's start played, and the offers its space takes from
// it (worldOffers); nil for a start that does not play.
func (j Judgement) world() (*demo.Run, []demo.Offer) {
	r, err := j.Start.Run()
	if err != nil {
		return nil, nil
	}
	offers, _ := r.Offers()
	return r, worldOffers(j.Start.Sc, offers)
}

// worldWords name what the world does to the nodes in the judge's space,
// as the program text writes it, and say so when a node that goes down
// never comes back (its coming back is offered by hand, not searched).
func worldWords(r *demo.Run, offers []demo.Offer) demo.Text {
	var does []string
	down, up := false, false
	for _, o := range offers {
		if o.Beyond || o.Action.Verb == demo.Tick || r.Client(o.Action.Who) != nil {
			continue
		}
		does = append(does, o.Action.Source)
		down = down || o.Action.Verb == "down"
		up = up || o.Action.Verb == "up"
	}
	if len(does) == 0 {
		return demo.Text{}
	}
	t := demo.Says("世界はどこででも %[1]s を起こしうる。", " The world may also, at any point: %[2]s.",
		strings.Join(does, "、"), strings.Join(does, ", "))
	if down && !up {
		t = t.Join(demo.Text{JA: "落ちたノードは戻らない。", EN: " A node that goes down does not come back."})
	}
	return t
}

// Steps are the amounts time moves by at a time in the judge's space,
// smallest first: those the family offers (or the scenario's TimeSteps),
// less any longer than the time bound, which no history can take.
func (j Judgement) Steps() []int {
	_, offers := j.world()
	return j.steps(offers)
}

func (j Judgement) steps(offers []demo.Offer) []int {
	var ds []int
	for _, o := range offers {
		if o.Action.Verb != demo.Tick {
			continue
		}
		if d := o.Action.Args.(demo.TickArgs).Forward; j.Opt.MaxTime <= 0 || d <= j.Opt.MaxTime {
			ds = append(ds, d)
		}
	}
	slices.Sort(ds)
	return slices.Compact(ds)
}
