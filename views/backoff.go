package views

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/backoff"
)

// describeBackoff puts a slot's calls in a sentence.
func describeBackoff(lang string, f demo.Frame, e demo.Event) (string, bool) {
	b, ok := e.(backoff.Burst)
	if !ok {
		return "", false
	}
	won := T(lang, "bo.nobody")
	if len(b.Won) > 0 {
		won = fmt.Sprintf(T(lang, "bo.won"), strings.Join(b.Won, ", "))
	}
	slot := Clock(f.Scenario, b.Slot) // t=3.7s, as the verdict writes a time
	if b.Calls == 1 {
		key := "ev.backoff-calls.first"
		if b.Retries == 1 {
			key = "ev.backoff-calls.retry"
		}
		return fmt.Sprintf(T(lang, key), slot, won, b.Waiting), true
	}
	key := "ev.backoff-calls"
	if b.Retries == 1 {
		key = "ev.backoff-calls.one-retry"
	}
	return fmt.Sprintf(T(lang, key), slot, b.Calls, b.Retries, won, b.Waiting), true
}

// The bar chart's frame, in its own units: the plot stands right of the
// count labels and above the time labels.
const (
	chartWidth  = 640
	chartHeight = 220
	chartLeft   = 44
	chartRight  = 12
	chartTop    = 26
	chartBottom = 40
)

// Chart is the bar chart of calls per slot, laid out for a frame: one axis
// for every frame of a position, fitted to its calls (a jittered crowd done
// in 400 ms is not drawn on the 3.7 s its herd needs).
type Chart struct {
	Width, Height int
	Bars          []ChartBar
	Grid          []ChartTick // counts, up the left
	Ticks         []ChartTick // times, along the bottom
	NowX          string
	Top, Bottom   int // the plot's top and its baseline
	Left, Right   int
	Peak          ChartTick // the busiest slot's count, over its bar
}

// ChartBar is one slot with calls. Herd: half of the clients or more
// retried in it; Fresh: the frame's move made calls in it.
type ChartBar struct {
	X, Y, W, H  string
	Herd, Fresh bool
}

// ChartTick is one label and where it stands.
type ChartTick struct {
	X, Y  string
	Label string
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// NewChart lays out frame f's calls per slot. The time axis runs to the
// last call of the script in this position and a little more (or, in free
// play, of f if it calls later), the same in every frame of the position,
// so the calls fill the chart and a step moves nothing; the count axis to a
// quarter more than the clients, so that the first rush and a retry in the
// same slot still fit.
func NewChart(f demo.Frame) Chart {
	s, _ := backoff.Of(f)
	c := Chart{Width: chartWidth, Height: chartHeight, Top: chartTop, Bottom: chartHeight - chartBottom, Left: chartLeft, Right: chartWidth - chartRight}
	end := chartEnd(f)
	horizon := float64(max(end+end/20, 1))
	plotW, plotH := float64(c.Right-c.Left), float64(c.Bottom-c.Top)
	yMax := (s.Clients*5/4 + 4) / 5 * 5
	yMax = max(yMax, 5)
	x := func(t int) float64 { return float64(c.Left) + float64(t)/horizon*plotW }
	y := func(n int) float64 { return float64(c.Bottom) - float64(min(n, yMax))/float64(yMax)*plotH }
	w := max(float64(s.Hold)/horizon*plotW, 2.5)
	for _, sl := range s.Slots {
		if sl.Calls == 0 {
			continue
		}
		c.Bars = append(c.Bars, ChartBar{
			X: f1(x(sl.At)), Y: f1(y(sl.Calls)), W: f1(w), H: f1(float64(c.Bottom) - y(sl.Calls)),
			Herd: backoff.Herd(sl.Retries, s.Clients), Fresh: sl.At+s.Hold > f.Was && f.Index > 1,
		})
	}
	if b := s.Busiest; b.Retries > 0 {
		c.Peak = ChartTick{X: f1(x(b.At) + w/2), Y: f1(y(b.Calls) - 6), Label: strconv.Itoa(b.Calls)}
	}
	for n := 0; n <= yMax; n += 5 {
		c.Grid = append(c.Grid, ChartTick{X: strconv.Itoa(c.Left - 6), Y: f1(y(n)), Label: strconv.Itoa(n)})
	}
	step := tickStep(horizon)
	for t := 0; float64(t) <= horizon; t += step {
		label := strconv.Itoa(t)
		if t+step > int(horizon) {
			label += " ms"
		}
		c.Ticks = append(c.Ticks, ChartTick{X: f1(x(t)), Y: strconv.Itoa(c.Bottom + 20), Label: label})
	}
	if float64(f.Now) <= horizon {
		c.NowX = f1(x(f.Now))
	}
	return c
}

// chartEnd is when the last call of f's position ends: in the script's
// last frame, or in f itself if it goes further (free play); the
// scenario's horizon if the script cannot be played.
func chartEnd(f demo.Frame) int {
	end := callsEnd(f)
	if r, err := demo.Replay(f.Scenario, f.On, f.Scenario.Frames()); err == nil {
		end = max(end, callsEnd(r.Frame()))
	} else {
		end = max(end, f.Scenario.Horizon)
	}
	return end
}

// callsEnd is when the last call in f ends (its slot and the hold after
// it), 0 with none.
func callsEnd(f demo.Frame) int {
	s, _ := backoff.Of(f)
	end := 0
	for _, sl := range s.Slots {
		if sl.Calls > 0 {
			end = max(end, sl.At+s.Hold)
		}
	}
	return end
}

// tickStep is the time axis's step for an axis of horizon ms: a round
// number that puts at most eight ticks on it.
func tickStep(horizon float64) int {
	for _, step := range []int{10, 20, 50, 100, 200, 250, 500, 1000, 2000, 5000} {
		if horizon/float64(step) <= 8 {
			return step
		}
	}
	return 10000
}

// backoffWait is the policy's wait in words, as the switch sets it.
func backoffWait(lang string, s backoff.State) string {
	key := "bo.wait.exact"
	switch {
	case s.Jitter && s.Plus > 0:
		key = "bo.wait.additive"
	case s.Jitter:
		key = "bo.wait.jitter"
	}
	return fmt.Sprintf(T(lang, key), s.Cap, s.Base, s.Plus)
}

// backoffFinish is when the last client got the lock, or how many wait.
func backoffFinish(lang string, sc *demo.Scenario, s backoff.State) string {
	if s.Finish < 0 {
		return fmt.Sprintf(T(lang, "bo.still"), s.Waiting)
	}
	return Clock(sc, s.Finish)
}

// chartSummary is the chart in a sentence, for a screen reader.
func chartSummary(lang string, sc *demo.Scenario, s backoff.State) string {
	return fmt.Sprintf(T(lang, "bo.chart.desc"), s.Hold, nCalls(lang, s.Calls), Clock(sc, s.Busiest.At), nCalls(lang, s.Busiest.Calls))
}

// nCalls is n calls in lang: "1 call", "3 calls", 「3 回」.
func nCalls(lang string, n int) string {
	if n == 1 {
		return T(lang, "bo.one-call")
	}
	return fmt.Sprintf(T(lang, "bo.n-calls"), n)
}

// The modelled crowd's words.
var backoffWords = map[string][2]string{
	"bo.title":                   {"ロックとリトライ", "The lock and the retries"},
	"bo.wait":                    {"断られた後の待ち", "Wait after a refusal"},
	"bo.wait.exact":              {"ちょうど min(%[1]d ms, %[2]d ms × 2^試行回数)", "exactly min(%[1]d ms, %[2]d ms × 2^attempt)"},
	"bo.wait.jitter":             {"0 から min(%[1]d ms, %[2]d ms × 2^試行回数) 未満のランダム (full jitter)", "random in [0, min(%[1]d ms, %[2]d ms × 2^attempt)) (full jitter)"},
	"bo.wait.additive":           {"min(%[1]d ms, %[2]d ms × 2^試行回数) に、0 から %[3]d ms 未満のランダムを足す (足し算のジッター)", "min(%[1]d ms, %[2]d ms × 2^attempt) plus a random time in [0, %[3]d ms) (additive jitter)"},
	"bo.calls":                   {"呼び出し", "Calls"},
	"bo.calls.n":                 {"%d 回 (断られたのは %d 回)", "%d (%d refused)"},
	"bo.done":                    {"ロックを取れた", "Have had the lock"},
	"bo.last":                    {"最後の 1 人が取れた時刻", "The last got it at"},
	"bo.still":                   {"まだ (%d が待っている)", "not yet (%d still waiting)"},
	"bo.seed":                    {"乱数のシード", "Seed of the jitter"},
	"bo.modelled":                {"モデルで、実物の Redis では確かめていない: SET NX が保持中のロックを断ること、各クライアントのタイマー、シナリオのシードで始まる PCG 乱数のジッター。", "Modelled, not checked against a real Redis: SET NX refusing a held lock, each client's own retry timer, and jitter from a PCG seeded by the scenario."},
	"bo.chart":                   {"時間枠ごとの呼び出し回数", "Calls per time slot"},
	"bo.chart.desc":              {"%[1]d ms の時間枠ごとの呼び出し回数の棒グラフ。ここまでの呼び出しは %[2]s。取り直しが最も多かった枠は %[3]s で、%[4]s。", "A bar chart of the calls in each %[1]d ms slot. %[2]s so far; the slot with the most retries is at %[3]s, with %[4]s."},
	"bo.n-calls":                 {"%d 回", "%d calls"},
	"bo.one-call":                {"1 回", "1 call"},
	"bo.chart.herd":              {"半数以上が同じ枠で取り直した", "half of the clients or more retried in the slot"},
	"bo.nobody":                  {"誰も取れない", "nobody gets the lock"},
	"bo.won":                     {"%s が取る", "%s gets the lock"},
	"ev.backoff-calls":           {"%[1]s の枠: 呼び出し %[2]d 回 (うち取り直し %[3]d)。%[4]s。待っているのは %[5]d", "slot at %[1]s: %[2]d calls (%[3]d retries); %[4]s; %[5]d waiting"},
	"ev.backoff-calls.one-retry": {"%[1]s の枠: 呼び出し %[2]d 回 (うち取り直し %[3]d)。%[4]s。待っているのは %[5]d", "slot at %[1]s: %[2]d calls (%[3]d retry); %[4]s; %[5]d waiting"},
	"ev.backoff-calls.retry":     {"%[1]s の枠: 取り直しの呼び出し 1 回。%[2]s。待っているのは %[3]d", "slot at %[1]s: 1 call, a retry; %[2]s; %[3]d waiting"},
	"ev.backoff-calls.first":     {"%[1]s の枠: 最初の呼び出し 1 回。%[2]s。待っているのは %[3]d", "slot at %[1]s: 1 call, a first; %[2]s; %[3]d waiting"},
}

// fmtCalls is the calls so far and how many were refused.
func fmtCalls(lang string, s backoff.State) string {
	return fmt.Sprintf(T(lang, "bo.calls.n"), s.Calls, s.Refused())
}
