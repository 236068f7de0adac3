package views

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views/guidedata"
)

// A prediction is asked on the frame before its move and marked on the frame
// the move leads to. The reader's pick travels in the address of that frame
// (GuessParam), so a marked frame is a link like any other: it works without
// JavaScript, in the iframe and in the static export, and the server keeps
// nothing of it.

// GuessParam names the reader's answer in a frame's address and in the step
// form.
const GuessParam = "guess"

// Question is the prediction asked on this frame, before the next move, in
// the words of the frame's switch position; nil when there is none.
func (d Demo) Question() *demo.Prediction {
	return d.Sc().Asked(d.Frame.Index).Posed(d.Frame.On)
}

// Marked is the reader's answer marked against the model, on the frame a
// question led to; false when the reader gave none.
func (d Demo) Marked() (demo.Result, bool) {
	if d.Guess == "" {
		return demo.Result{}, false
	}
	return demo.MarkGuess(&d.Frame, d.Guess)
}

// GuessURL is the address of the frame a move leads to (next), with the
// reader's answer: a page of the site or, in the static export, the file
// written for that answer.
func GuessURL(next Place, guess string) string {
	if next.View == StaticView {
		return StaticRoot + StaticGuessPath(next, guess)
	}
	return next.URL() + "&" + GuessParam + "=" + url.QueryEscape(guess)
}

// StaticGuessPath is the file of the static export that shows frame p with
// the reader's answer guess marked: beside the frame's own file.
func StaticGuessPath(p Place, guess string) string {
	return strings.TrimSuffix(StaticPath(p), ".html") + "-" + guess + ".html"
}

// ReadGuess reads the reader's answer from an address or a form: "" for
// none; a *BadPlace when the frame was led to by no question or the answer
// is none of its options. led is the frame the answer is about.
func ReadGuess(v url.Values, sc *demo.Scenario, led int) (string, error) {
	g := v.Get(GuessParam)
	if g == "" {
		return "", nil
	}
	p := sc.Predicted(led)
	if p == nil {
		return "", &BadPlace{Key: "err.guess.none", Args: []any{led}}
	}
	if _, ok := p.Option(g); !ok {
		return "", &BadPlace{Key: "err.guess", Args: []any{g}}
	}
	return g, nil
}

// Because is what shows the right answer, in sentences computed from the
// frame: the events that decided it, the verdict, or who believes they hold
// the lock.
func Because(lang string, f demo.Frame, res demo.Result) []string {
	var out []string
	switch res.Q.Kind {
	case demo.AskVerdict:
		out = append(out, Verdict(lang, f))
	case demo.AskHolders:
		var names []string
		for _, c := range f.Clients {
			if c.Holds {
				names = append(names, c.Name)
			}
		}
		if len(names) == 0 {
			out = append(out, T(lang, "predict.holders.none"))
		} else {
			out = append(out, fmt.Sprintf(T(lang, "predict.holders"), strings.Join(names, ", ")))
		}
	default:
		for _, e := range res.Because {
			out = append(out, Describe(lang, f, e))
		}
		if len(out) == 0 {
			out = append(out, T(lang, "predict.count.none"))
		}
	}
	return out
}

// predictWords are a prediction's words.
var predictWords = map[string][2]string{
	"predict":              {"❓ 予想してから進む", "❓ Predict, then step"},
	"predict.hint":         {"答えを選ぶと、次の一手が進み、答え合わせをする。", "Pick an answer: the next move then plays and your answer is checked."},
	"predict.options":      {"答え", "Answers"},
	"predict.result":       {"予想の答え合わせ", "Your prediction"},
	"predict.right":        {"正解 ✓", "Right ✓"},
	"predict.wrong":        {"不正解 ✗", "Wrong ✗"},
	"predict.picked":       {"あなたの答え: %s", "You said: %s"},
	"predict.answer":       {"モデルの答え: %s", "The model's answer: %s"},
	"predict.tempting":     {"そう思えた理由: %s", "Why it was tempting: %s"},
	"predict.holders":      {"持っていると信じているのは %s。", "Believing they hold the lock: %s."},
	"predict.holders.none": {"ロックを持っていると信じているクライアントはいない。", "No client believes it holds the lock."},
	"predict.count.none":   {"この一手にそのような出来事はない。", "The move has no such event."},
	"predict.quiz":         {"デモで予想する: %s", "Predict it in the demo: %s"},
	"predict.quiz.ahead":   {"問いの場面を先に見る", "See the frame the question is asked on"},
	"err.guess":            {"答え %q はこの問いの選択肢にない。", "The answer %q is not one of this question's options."},
	"err.guess.none":       {"%d 番目の場面の前には問いがないので、答えは付けられない。", "No question leads to frame %d, so it takes no answer."},
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// QuizPredict is a quiz question's own prediction: the question one of its
// demos asks before its crucial move, with each answer a link that plays the
// move with that answer marked. So the quiz's questions are asked the way
// the demo asks them, and answered by the model, not by the page.
type QuizPredict struct {
	Ask     string
	Where   string // the scenario and its switch, in words
	Ahead   string // the question's frame, to look at before answering
	Options []QuizOption
}

// QuizOption is one answer of a QuizPredict.
type QuizOption struct {
	Label, URL, Value string
}

// Predict is the prediction of the first of ls whose scenario asks one;
// false when none does.
func (g Guide) Predict(ls []guidedata.DemoLink) (QuizPredict, bool) {
	for _, l := range ls {
		sc, ok := g.Catalog.Get(l.ID)
		if !ok {
			continue
		}
		for k := 1; k < sc.Frames(); k++ {
			q := sc.Asked(k).Posed(l.On)
			if q == nil {
				continue
			}
			ask := Place{Place: demo.Place{Sc: sc, On: l.On, Step: k}, Lang: g.Lang}
			p := QuizPredict{
				Ask:   q.Ask.In(g.Lang),
				Where: sc.Title.In(g.Lang) + " (" + sc.SwitchLabel.In(g.Lang) + " " + T(g.Lang, demo.OnOff(l.On)) + ")",
				Ahead: ask.URL(),
			}
			for _, o := range q.Options {
				p.Options = append(p.Options, QuizOption{Label: o.Label.In(g.Lang), URL: GuessURL(ask.At(k+1), o.Value), Value: o.Value})
			}
			return p, true
		}
	}
	return QuizPredict{}, false
}

// RoomPoll is a lecture's question as a page shows it: to a follower, the
// question with its answers to press while it is open; to the lecturer, how
// many answered, as a bar per option; to both, after the reveal, the
// model's answer and the share of the room that chose each option. Only
// counts: nothing on it says who chose what.
type RoomPoll struct {
	ID     string
	Q      *demo.Prediction
	Open   bool
	Counts []int64
	Total  int64
	// Result is the model's answer, on the frame the question led to,
	// once the lecturer revealed it; nil before.
	Result *demo.Result
	Action string // where a follower's answer goes
	Mine   string // the follower's own answer, where the page knows it
	// First is, in a second vote (after "discuss with your neighbour"),
	// the first vote's counts per option; nil in the first.
	First []int64
}

// AgainParam names, in the lecturer's Ask, the open question to ask
// again: the second vote of peer instruction.
const AgainParam = "again"

// FirstTotal is how many answered the first vote.
func (p RoomPoll) FirstTotal() int64 {
	var n int64
	for _, c := range p.First {
		n += c
	}
	return n
}

// FirstCount is how many chose option i in the first vote.
func (p RoomPoll) FirstCount(i int) int64 {
	if i >= len(p.First) {
		return 0
	}
	return p.First[i]
}

// FirstShare is the part of the first vote that chose option i, in whole
// percent.
func (p RoomPoll) FirstShare(i int) int {
	t := p.FirstTotal()
	if t == 0 {
		return 0
	}
	return int((p.FirstCount(i)*100 + t/2) / t)
}

// Share is the part of the room that chose option i, in whole percent.
func (p RoomPoll) Share(i int) int {
	if p.Total == 0 || i >= len(p.Counts) {
		return 0
	}
	return int((p.Counts[i]*100 + p.Total/2) / p.Total)
}

// Count is how many chose option i.
func (p RoomPoll) Count(i int) int64 {
	if i >= len(p.Counts) {
		return 0
	}
	return p.Counts[i]
}

// PollURL is where the lecturer's page reads its question's totals.
func PollURL(p Place) string {
	return "/scenarios/" + p.Sc.ID + "/poll?" + url.QueryEscape(p.Sc.Switch) + "=" + demo.OnOff(p.On) +
		"&" + StepParam + "=" + fmt.Sprint(p.Step) + "&" + LangParam + "=" + p.Lang + presentParam(p)
}

// SeenParam names the totals the lecturer's screen shows (RoomPoll.Stamp),
// so that its next reading is held until they change.
const SeenParam = "seen"

// PollSeenURL is the lecturer's next reading of the totals, after those
// stamped seen.
func PollSeenURL(p Place, seen string) string {
	return PollURL(p) + "&" + SeenParam + "=" + url.QueryEscape(seen)
}

// PollNext is the lecturer's page's next reading of the totals: at once,
// held by the server until they change, or a little later (Later) while
// this server drains.
type PollNext struct {
	URL   string
	Later bool
}

// Trigger is when htmx sends the next reading.
func (n PollNext) Trigger() string {
	if n.Later {
		return "load delay:2s"
	}
	return "load"
}

// Stamp names what the lecturer's screen shows of a poll: the question,
// whether it is open, and its counts; "-" for no question. Only the
// counts, as the screen shows them, never who answered.
func (p *RoomPoll) Stamp() string {
	if p == nil {
		return "-"
	}
	var b strings.Builder
	b.WriteString(p.ID)
	if p.Result != nil {
		b.WriteString(".r")
	} else if p.Open {
		b.WriteString(".o")
	}
	for _, c := range p.Counts {
		b.WriteString("." + strconv.FormatInt(c, 10))
	}
	return b.String()
}

func presentParam(p Place) string {
	if p.Present {
		return "&" + PresentParam + "=1"
	}
	return ""
}

// FollowAnswerURL is where a follower's answer goes.
func FollowAnswerURL(fid string) string { return FollowURL(fid) + "/answer" }

// Polled says whether the lecturer's page of this frame shows the room's
// answers: a frame with a question, or the frame it led to, of a run.
func (d Demo) Polled() bool {
	return d.Run != "" && d.Here.View == PageView && (d.Question() != nil || d.Sc().Predicted(d.Frame.Index) != nil)
}

// pollWords are the words of asking the room.
var pollWords = map[string][2]string{
	"poll.ask":          {"会場に問う", "Ask the room"},
	"poll.ask.hint":     {"問いを受講者の画面に出す (キー A)。次の「1手すすめる」で答えを明かす。", "Puts the question on the followers' screens (key A). The next Step reveals the answer."},
	"poll.room":         {"会場の答え", "The room's answers"},
	"poll.count":        {"%d 人が回答", "%d answered"},
	"poll.open":         {"受付中", "open"},
	"poll.revealed":     {"締切", "closed"},
	"poll.reveal":       {"答えを明かす (1手すすめる)", "Reveal (Step)"},
	"poll.share":        {"%[1]d 人 (%[2]d%%)", "%[1]d (%[2]d%%)"},
	"poll.right":        {"正解", "right"},
	"poll.question":     {"講師からの問い", "The lecturer asks"},
	"poll.waiting":      {"講師からの問い: 下で答える", "The lecturer asks: answer below"},
	"poll.answer":       {"答える", "Your answer"},
	"poll.mine":         {"あなたの答え: %s (答えが明かされるまで変えられる)", "Your answer: %s (you may change it until the reveal)"},
	"poll.change":       {"答えが明かされるまで、何度でも選び直せる。", "You may change your answer until the lecturer reveals it."},
	"poll.result":       {"答え合わせ", "The answer"},
	"err.ask.run":       {"問いを出せるのは講師だけ: 自分の実行 (最初のクリックで始まる) から問う。", "Only the lecturer asks: ask from your own run (your first click starts one)."},
	"err.ask.none":      {"この場面には問いがない。", "This frame asks no question."},
	"err.poll.store":    {"答えを数える場所に今つながらない。少し待ってもう一度。", "The answers cannot be counted just now. Try again in a moment."},
	"err.answer":        {"その答えはこの問いの選択肢にない。", "That answer is not one of this question's options."},
	"err.answer.closed": {"この問いはもう締め切られたか、まだ出ていない。", "This question is closed, or has not been asked."},
	"err.answer.full":   {"この問いには、もう答えを受け付けられない。", "This question takes no more answers."},
}
