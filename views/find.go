package views

import (
	"fmt"
	"net/url"
	"strconv"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
)

// Find is the view model of what the counterexample finder found from a
// frame: the answer's box, or a page of its own without JavaScript.
type Find struct {
	Page
	Here   Place
	Result find.Result
	// Broken is the start with the trace played, as free play: the link
	// that shows the way to break it frame by frame.
	Broken Place
	// End is the frame the trace leads to, and Ends the frames the
	// other violations' histories lead to: a finding is told as it stands
	// in its own frame (Finding).
	End  demo.Frame
	Ends []demo.Frame
	// Partial: the switch is on, the fix, and the finder found the way
	// around it, which the scenario expects: the lesson is that the fix
	// is only partial.
	Partial bool
	// Running: the trace needs no pause, as the client that broke the
	// promise was running when its lease ran out; the answer says what the
	// trace assumes of its renewal.
	Running find.Running
}

// NewFind is the view model of r, found from here; an error is a trace
// that does not play, which the finder never gives.
func NewFind(here Place, r find.Result) (Find, error) {
	f := Find{Here: here, Result: r}
	var err error
	if r.Found {
		// The history found, as free play: the way to break the promise,
		// or to reach what a sometimes promise says can happen.
		f.Broken = here
		f.Broken.Place = r.Place()
		f.Broken.FreePlay = true
		f.Broken.Present = false
		if f.End, err = f.Broken.Frame(); err != nil {
			return f, err
		}
		e := here.Sc.Expect[1].Finder
		f.Partial = !r.Property.Sometimes() && here.On && e != nil && e.Found
		f.Running = r.Running(f.End)
	}
	for _, m := range r.Others {
		p := r.Start
		for _, a := range m.Trace {
			p = p.Then(a)
		}
		end, err := p.Frame()
		if err != nil {
			return f, err
		}
		f.Ends = append(f.Ends, end)
	}
	return f, nil
}

// Sc is the scenario searched.
func (f Find) Sc() *demo.Scenario { return f.Here.Sc }

// Trace is the history found, as script lines.
func (f Find) Trace() []string {
	var out []string
	for _, a := range f.Result.Trace {
		out = append(out, ScriptLine(f.Here.Sc, f.Here.On, demo.Canonical(f.Here.Sc, a)))
	}
	return out
}

// CanFind reports whether the finder can look for a way to break sc: its
// switch names a property and its store has free play.
func CanFind(sc *demo.Scenario) bool {
	_, ok := sc.Promise()
	return ok && sc.Family.Offers != nil
}

// FindURL is the address of the finder's answer from the place.
func (p Place) FindURL() string {
	p.Present = false
	u, _ := url.Parse(p.URL())
	u.Path += "/find"
	return u.String()
}

// RunningNote says what a trace with no pause assumes, in lang: that the
// holder did not renew its lease in time; "" for a trace that needs none.
func (f Find) RunningNote(lang string) string {
	r := f.Running
	switch {
	case r.Client == "":
		return ""
	case r.Renews:
		return fmt.Sprintf(T(lang, "find.running.renews"), r.Client, Clock(f.Sc(), r.At))
	}
	return fmt.Sprintf(T(lang, "find.running"), r.Client, Clock(f.Sc(), r.At))
}

// propertyOf is the promise sc's switch is about.
func propertyOf(sc *demo.Scenario) (demo.Property, bool) { return sc.Promise() }

// findWords are the finder's words.
var findWords = map[string][2]string{
	"find.title":          {"壊し方を探す", "Find a way to break this"},
	"find.button":         {"壊し方を探す", "Find a way to break this"},
	"find.promise":        {"約束: %s", "The promise: %s"},
	"find.reached":        {"%[1]d 手で「%[2]s」に届く道が見つかった。", "\"%[2]s\" can happen: here in %[1]d actions."},
	"find.never":          {"深さ %[1]d まで届かない: %[1]d 手までのどの履歴でも「%[2]s」は起きない。誰も仕事を終えられない対策は、対策ではない。", "Never within depth %[1]d: no history of up to %[1]d steps gets to \"%[2]s\". A fix that stops everyone is no fix."},
	"find.budget.never":   {"探索の予算が %[1]d 状態で尽きた。%[2]d 手までの履歴はすべて試し、「%[3]s」に届くものは無かった。", "The search's budget ran out after %[1]d distinct states: every history of up to %[2]d steps was tried, and none gets to \"%[3]s\"."},
	"find.found":          {"%[1]d 手で約束「%[2]s」を破る道が見つかった。", "A way to break the promise \"%[2]s\" in %[1]d actions."},
	"find.explored":       {"(調べた異なる状態: %d)", "(%d distinct states explored)"},
	"find.play":           {"この道をコマ送りで見る", "Play it as frames"},
	"find.running":        {"この道に停止は無い。%[2]s に %[1]s のリースが切れたとき、%[1]s は動いていた。このシナリオでは誰も %[1]s のリースを延長しないので、仕事がリースより長引いただけだ。この道は、リースより遅い持ち主を仮定している (更新スレッドが止まったのと同じこと)。", "No pause in this history: %[1]s was running when its lease ran out at %[2]s. Nobody renews %[1]s's lease in this scenario, so its work simply outlasted it: the history assumes a holder slower than its lease, as a stalled renewal thread would leave it."},
	"find.running.renews": {"この道に停止は無い。%[2]s に %[1]s のリースが切れたとき、%[1]s は動いていたが、更新が間に合わなかった。この道は、止まった更新スレッドを仮定している。", "No pause in this history: %[1]s was running when its lease ran out at %[2]s, and its renewal did not run in time: the history assumes a stalled renewal thread."},
	"find.partial":        {"この対策は部分的でしかない。探索はそれをかいくぐる道を見つけた。それがこのシナリオの教訓だ。", "This fix is only partial: the finder found the way around it, and that is this scenario's lesson."},
	"find.budget":         {"探索の予算が %[1]d 状態で尽きた。%[2]d 手までの履歴はすべて試し、約束「%[3]s」を破るものは無かった。", "The search's budget ran out after %[1]d distinct states: every history of up to %[2]d steps was tried, and none breaks the promise \"%[3]s\"."},
	"find.none":           {"深さ %[1]d まで違反なし: %[1]d 手までのどの履歴も約束「%[2]s」を破らない。", "No violation up to depth %[1]d: no history of up to %[1]d steps breaks the promise \"%[2]s\"."},
	"find.others":         {"途中で出会った、この約束を破らない違反 (封じ込められたもの、または別の問題):", "Also met on the way, not breaking this promise (contained, or another matter):"},
	"find.after":          {"%d 手で", "after %d actions"},
	"find.back":           {"元の手順に戻る", "Back to the frame"},
	"err.find.busy.title": {"探索が混み合っている", "Too many searches"},
	"err.find.busy":       {"同時に走る探索が多すぎるか、あなたの探索がまだ走っている。1 秒ほどしてからもう一度試してほしい。", "Too many searches are running at once, or one of yours still is. Try again in a second."},
	"err.find.none":       {"シナリオ %s には、探索が破ろうとする約束が無い。", "Scenario %s names no promise for the finder to break."},
}

// states is a number of distinct states as a sentence writes it with %d:
// its digits in threes ("182,597"), as both languages write a number that
// large, where a search's six figures ran together.
type states int

func (n states) Format(f fmt.State, verb rune) {
	s := strconv.Itoa(int(n))
	if verb != 'd' || n < 0 {
		fmt.Fprintf(f, "%d", int(n))
		return
	}
	for i := len(s) % 3; i < len(s); i += 3 {
		if i > 0 {
			s = s[:i] + "," + s[i:]
			i++
		}
	}
	fmt.Fprint(f, s)
}
