package hall

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
	"github.com/distlock/fencing-demo/web/follow"
)

// Lecturer clicks through a scenario as its page does with htmx, every
// click checked to land on the frame it should: Step, and Reset at the
// last frame; Ask on a frame with a question.
type Lecturer struct {
	Base   string
	Sc     *demo.Scenario
	Client *http.Client
	Run    string      // the run key, from the first click
	Here   views.Place // the frame shown
	Moves  []Move      // every move of the lecture, in order
}

// Move is one of the lecturer's clicks: the frame it led to, when it was
// sent and when it was answered.
type Move struct {
	Frame        string
	Sent, Landed time.Time
}

// NewLecturer is a lecturer at base, clicking from address from, at sc's
// first frame.
func NewLecturer(base, from string, sc *demo.Scenario) *Lecturer {
	return &Lecturer{Base: base, Sc: sc, Client: Client(from, true),
		Here: views.Place{Place: demo.Place{Sc: sc, On: true, Step: 1}, Lang: "en"}}
}

// Shown is the frame the lecturer's screen shows, as a follower's reads it.
func (l *Lecturer) Shown() string { return fmt.Sprintf("%d / %d", l.Here.Step, l.Sc.Frames()) }

// Link is the lecture's follow link, once the first click has made the
// run key.
func (l *Lecturer) Link() string { return "/follow/" + follow.LectureID(l.Run) }

// Next is the lecturer's next move: Step, or Reset at the last frame. It
// returns how long the click took.
func (l *Lecturer) Next(ctx context.Context) (time.Duration, error) {
	action, next := "step", l.Here.Step+1
	if l.Here.Step == l.Sc.Frames() {
		action, next = "reset", 1
	}
	return l.Click(ctx, action, next)
}

// Click posts action on the frame shown and checks that its answer shows
// frame next.
func (l *Lecturer) Click(ctx context.Context, action string, next int) (time.Duration, error) {
	sent := time.Now()
	body, status, err := Post(ctx, l.Client, l.Base+l.Here.Action(action), l.Here.Form(l.Run))
	took := time.Since(sent)
	if err != nil || status != http.StatusOK {
		return took, fmt.Errorf("the lecturer's %s from frame %d: %d %v", action, l.Here.Step, status, err)
	}
	if action != "ask" {
		l.Here.Step = next
	}
	if got := views.StepShown(body); got != l.Shown() {
		return took, fmt.Errorf("the lecturer's %s showed %q, want %q", action, got, l.Shown())
	}
	if l.Run == "" {
		if l.Run = runIn(body); l.Run == "" {
			return took, fmt.Errorf("the lecturer's first click carried no run key")
		}
	}
	l.Moves = append(l.Moves, Move{Frame: l.Shown(), Sent: sent, Landed: sent.Add(took)})
	return took, nil
}

// Post posts form as htmx does, and reads the whole answer.
func Post(ctx context.Context, c *http.Client, target string, form url.Values) ([]byte, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	resp, err := c.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return b, resp.StatusCode, err
}

// To walks to frame k by Reset and Steps.
func (l *Lecturer) To(ctx context.Context, k int) error {
	if l.Here.Step > k {
		if _, err := l.Click(ctx, "reset", 1); err != nil {
			return err
		}
	}
	for l.Here.Step < k {
		if _, err := l.Click(ctx, "step", l.Here.Step+1); err != nil {
			return err
		}
	}
	return nil
}

// Ask puts the frame's question to the room.
func (l *Lecturer) Ask(ctx context.Context) error {
	_, err := l.Click(ctx, "ask", l.Here.Step)
	return err
}

var barCount = regexp.MustCompile(`data-testid="bar-([a-z0-9-]+)" data-count="(\d+)"`)

// Totals is the room's answers as the lecturer's screen reads them, by
// option.
func (l *Lecturer) Totals(ctx context.Context) (map[string]int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.Base+views.PollURL(l.Here), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Cookie", "run="+l.Run)
	req.Header.Set("HX-Request", "true")
	resp, err := l.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the totals: %d %v", resp.StatusCode, err)
	}
	got := map[string]int64{}
	for _, m := range barCount.FindAllStringSubmatch(html.UnescapeString(string(b)), -1) {
		got[m[1]], _ = strconv.ParseInt(m[2], 10, 64)
	}
	return got, nil
}

// runIn is the run key in a click's answer.
func runIn(body []byte) string {
	const mark = `name="run" value="`
	s := string(body)
	i := strings.Index(s, mark)
	if i < 0 || len(s) < i+len(mark)+views.RunIDLen {
		return ""
	}
	return s[i+len(mark) : i+len(mark)+views.RunIDLen]
}
