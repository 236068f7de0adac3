package views

import (
	"encoding/json"
	"net/url"

	"github.com/a-h/templ"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
)

// A challenge alone, for a reader of the textbook: the list, a challenge's
// page (its task, the way to work on it, the form that submits), and the
// model's answer on a submission.

// ChallengesURL is the list of challenges.
func ChallengesURL(lang string) string { return "/challenges?" + LangParam + "=" + lang }

// ChallengeURL is a challenge's page.
func ChallengeURL(id, lang string) string { return "/challenges/" + id + "?" + LangParam + "=" + lang }

// ChallengeSubmitURL is where a submission to a challenge posts; with a
// free-play place's or a lab's query, the answer's own address.
func ChallengeSubmitURL(id string) string { return "/challenges/" + id + "/submit" }

// AddressField is the challenge page's field where a learner pastes the
// address of their free-play page or lab.
const AddressField = "address"

// Challenges is the view model of the list.
type Challenges struct {
	Page
	Entries []*demo.Challenge
}

// Challenge is the view model of one challenge's page.
type Challenge struct {
	Page
	Ch      *demo.Challenge
	Address string // what the address field held, on a page that says what was wrong with it
}

// WorkURL is where the learner works on ch: free play at its start, or
// its scenario's lab.
func WorkURL(ch *demo.Challenge, lang string) string {
	if ch.Kind == demo.FixIt {
		return LabURL(ch.Sc.ID, "", lang, false)
	}
	p := Place{Place: ch.Start(), Lang: lang}
	return p.TakeOver().URL()
}

// ChallengesAt are the break challenges whose start is p's, for free
// play's "Submit to the challenge".
func ChallengesAt(p Place) []*demo.Challenge {
	var out []*demo.Challenge
	if !p.FreePlay || p.Sc.Built != "" {
		return nil
	}
	for i := range p.Sc.Challenges {
		ch := &p.Sc.Challenges[i]
		if ch.Kind == demo.BreakIt && ch.On == p.On && ch.From == p.Step {
			out = append(out, ch)
		}
	}
	return out
}

// FixChallenges are the fix challenges of lab sc, for the lab's "Submit to
// the challenge".
func FixChallenges(sc *demo.Scenario) []*demo.Challenge {
	var out []*demo.Challenge
	for i := range sc.Challenges {
		if sc.Challenges[i].Kind == demo.FixIt {
			out = append(out, &sc.Challenges[i])
		}
	}
	return out
}

// ChallengeResult is the model's answer on a submission: for a break, the
// learner's history judged action by action, and once it is done the par
// with the finder's shortest history; for a fix, the judge's answer.
type ChallengeResult struct {
	Page
	Ch *demo.Challenge
	// A break: the attempt, the frame it ends on, the history as frames.
	Attempt demo.Attempt
	End     demo.Frame
	Mine    Place
	// Par is the finder's shortest break from the start, in actions (0
	// when the finder could not answer now); Shortest its history, to play
	// as frames.
	Par      int
	Shortest Place
	Lines    []string
	// A fix: the judge's answer on the build.
	Judge *Judge
}

// Done reports whether the submission does what the challenge asks.
func (r ChallengeResult) Done() bool {
	if r.Ch.Kind == demo.FixIt {
		return r.Judge != nil && demo.Fixed(r.Judge.Verdict())
	}
	return r.Attempt.InTime(r.Ch)
}

// AtPar reports whether a break took no more moves than the finder's
// shortest.
func (r ChallengeResult) AtPar() bool { return r.Done() && r.Par > 0 && r.Attempt.Moves <= r.Par }

// Outcome is the answer in a word, for a test and a page's data: broken,
// broken-at-par, too-long, not-broken, fixed, not-fixed.
func (r ChallengeResult) Outcome() string {
	switch {
	case r.Ch.Kind == demo.FixIt && r.Done():
		return "fixed"
	case r.Ch.Kind == demo.FixIt:
		return "not-fixed"
	case r.AtPar():
		return "broken-at-par"
	case r.Done():
		return "broken"
	case r.Attempt.Broken:
		return "too-long"
	}
	return "not-broken"
}

// WorkURL is where the learner goes on working: their own history or
// build, to change it.
func (r ChallengeResult) WorkURL() string {
	if r.Ch.Kind == demo.FixIt && r.Judge != nil {
		return r.Judge.LabURL()
	}
	if r.Ch.Kind == demo.FixIt {
		return WorkURL(r.Ch, r.Lang)
	}
	return r.Mine.URL()
}

// ShortestTrace plays the finder's trace from the challenge's start as
// free play, and its lines as a script writes them.
func ShortestTrace(ch *demo.Challenge, res find.Result, lang string) (Place, []string) {
	p := Place{Place: ch.Start(), Lang: lang, FreePlay: true}
	var lines []string
	for _, a := range res.Trace {
		p.Place = p.Place.Then(a)
		lines = append(lines, ScriptLine(ch.Sc, ch.On, demo.Canonical(ch.Sc, a)))
	}
	return p, lines
}

// XAPI is what the page tells an embedding host the learner did, as an
// xAPI statement without an actor (the demo does not know who the learner
// is): completed or attempted the challenge, with the moves and the par.
// app.js posts it to the parent page when the page is in a frame.
func (r ChallengeResult) XAPI() string {
	verb := map[string]any{"id": "http://adlnet.gov/expapi/verbs/attempted", "display": map[string]string{"en-US": "attempted"}}
	if r.Done() {
		verb = map[string]any{"id": "http://adlnet.gov/expapi/verbs/completed", "display": map[string]string{"en-US": "completed"}}
	}
	ext := map[string]any{xapiExt + "kind": string(r.Ch.Kind), xapiExt + "outcome": r.Outcome()}
	result := map[string]any{"success": r.Done(), "extensions": ext}
	if r.Ch.Kind == demo.BreakIt {
		ext[xapiExt+"moves"] = r.Attempt.Moves
		if r.Par > 0 {
			ext[xapiExt+"par"], ext[xapiExt+"at-par"] = r.Par, r.AtPar()
		}
		if r.Done() && r.Par > 0 {
			result["score"] = map[string]any{"raw": r.Attempt.Moves, "min": r.Par, "max": r.Ch.Moves, "scaled": float64(r.Par) / float64(r.Attempt.Moves)}
		}
	} else if r.Judge != nil {
		ext[xapiExt+"verdict"] = r.Judge.Verdict()
	}
	return statement(verb, "/challenges/"+url.PathEscape(r.Ch.ID), r.Ch.Title, result)
}

// xapiExt names the extensions of the demo's statements.
const xapiExt = "https://fencing-demo.example/xapi/"

// statement is an xAPI statement's JSON with the object's id (a path,
// which app.js makes absolute against the page) and name in both
// languages.
func statement(verb map[string]any, object string, name demo.Text, result map[string]any) string {
	s := map[string]any{
		"verb": verb,
		"object": map[string]any{"id": object, "definition": map[string]any{
			"name": map[string]string{"en-US": name.EN, "ja-JP": name.JA}}},
		"result": result,
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// predictXAPI is PredictXAPI as the attribute data-xapi, on a page that
// can tell a host: the static export's pages have none, as they name no
// address of a server.
func predictXAPI(d Demo, res demo.Result) templ.Attributes {
	if d.Here.View == StaticView {
		return templ.Attributes{}
	}
	return templ.Attributes{"data-xapi": PredictXAPI(d, res)}
}

// PredictXAPI is the statement of a prediction answered, for an embedding
// host: answered, right or not, with the option picked. Its object is the
// frame the question was asked on.
func PredictXAPI(d Demo, res demo.Result) string {
	verb := map[string]any{"id": "http://adlnet.gov/expapi/verbs/answered", "display": map[string]string{"en-US": "answered"}}
	asked := d.Here
	asked.Place = asked.Place.At(max(d.Here.Step-1, 1))
	result := map[string]any{"success": res.OK, "response": res.Picked.Value,
		"extensions": map[string]any{xapiExt + "scenario": d.Sc().ID, xapiExt + "right": res.Right.Value}}
	return statement(verb, asked.PageURL(), res.Q.Ask, result)
}

// judgeXAPI is the statement of a lab's build judged, as the attribute
// data-xapi of the judge's answer: completed when the fix holds (a lab
// fixed), attempted otherwise, with the judge's verdict. Each judgement is
// told, as each is a try of the learner's.
func judgeXAPI(v Judge) templ.Attributes {
	verb := map[string]any{"id": "http://adlnet.gov/expapi/verbs/attempted", "display": map[string]string{"en-US": "attempted"}}
	if demo.Fixed(v.Verdict()) {
		verb = map[string]any{"id": "http://adlnet.gov/expapi/verbs/completed", "display": map[string]string{"en-US": "completed"}}
	}
	result := map[string]any{"success": demo.Fixed(v.Verdict()), "extensions": map[string]any{xapiExt + "verdict": v.Verdict()}}
	lab := LabAction(v.Sc().ID)
	return templ.Attributes{"data-xapi": statement(verb, lab, v.Sc().Title, result)}
}
