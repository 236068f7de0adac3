package views

import (
	"fmt"
	"strconv"

	"github.com/distlock/fencing-demo/demo"
)

// A workshop room's pages: the form that opens one, the lecturer's board
// (made for a projector) and the learner's pages. Their words are in
// i18n_workshop.go.

// RoomOffer is one challenge the form offers: a break from a scenario's
// first frame in the position where the finder breaks it, or a lab's fix.
type RoomOffer struct {
	Value string // the form's value
	Sc    *demo.Scenario
	Kind  string // "break" or "fix"
	On    bool
	Par   int
}

// RoomOpen is the form that opens a room.
type RoomOpen struct {
	Page
	CSS    string
	Breaks []RoomOffer
	Fixes  []RoomOffer
	Error  string // what was wrong with the form sent, in the page's language
}

// RoomTask is one challenge as a page shows it.
type RoomTask struct {
	Index int
	Sc    *demo.Scenario
	Kind  string
	On    bool
	Moves int // a break's budget
	Par   int
}

// Title is the task's heading.
func (t RoomTask) Title(lang string) string { return t.Sc.Title.In(lang) }

// Goal says what the task asks, in lang.
func (t RoomTask) Goal(lang string) string {
	if t.Kind == "fix" {
		return t.Sc.Lab.Goal.In(lang)
	}
	prop, _ := t.Sc.Promise()
	return Tf(lang, "room.goal.break", t.Moves, prop.Says.In(lang))
}

// RoomBar is one bar of a histogram of moves.
type RoomBar struct {
	Moves, N int
	Pct      int // of the tallest bar, for its height
	Par      bool
}

// RoomRow is one challenge's line on the board.
type RoomRow struct {
	RoomTask
	Tried, Solved, AtPar, Submissions int
	Bars                              []RoomBar
}

// RoomShow is a solved submission the lecturer may put on the projector.
type RoomShow struct {
	ID     string
	Who    string // the nickname, or "" (then the page says "a learner")
	Task   string
	Moves  int
	Kind   string
	Solved bool
}

// RoomBoard is the lecturer's board: what the projector shows.
type RoomBoard struct {
	Page
	CSS         string
	Lead        string // the lecturer's base path (its secret in it)
	Learn       string // the learners' link, absolute when the origin is known
	QR          string
	Follow      string // the room's projector, as followers see it
	Events      string
	Joined      int
	Submissions int
	Rows        []RoomRow
	Shown       []RoomShow
}

// RoomLearner is a learner's page: the join form, or the room's tasks.
type RoomLearner struct {
	Page
	CSS    string
	Room   string // the room's path
	Joined bool
	Nick   string
	Tasks  []RoomTask
	Follow string
	Error  string
}

// RoomTry is a learner's page of one task: their own run in a frame, and
// the form that submits it.
type RoomTry struct {
	Page
	CSS    string
	Room   string
	Task   RoomTask
	Frame  string // the address of the run's start: the frame or the lab
	Key    string // the submission's idempotency key, drawn for this page
	Result *RoomResult
}

// RoomResult is the judge's answer on a learner's submission, or why it
// was refused.
type RoomResult struct {
	Solved  bool
	Kind    string
	Moves   int
	Par     int
	Replay  bool   // the submission had been counted before
	Refused string // why it was refused, in the page's language
}

// RoomTaskURL is the address of task n of room path.
func RoomTaskURL(room string, n int, lang string) string {
	return room + "/c/" + strconv.Itoa(n) + "?" + LangParam + "=" + lang
}

// Tf is T's words with args filled in.
func Tf(lang, key string, args ...any) string { return fmt.Sprintf(T(lang, key), args...) }

// Ofs is "n/total" for the board.
func Ofs(n, total int) string { return strconv.Itoa(n) + "/" + strconv.Itoa(total) }

// BarHeight is a bar's height as a class (h0 to h10): the CSP allows no
// inline style.
func BarHeight(pct int) string { return "h" + strconv.Itoa((pct+5)/10) }

// onOffKey is the words' key of a switch's position.
func onOffKey(on bool) string {
	if on {
		return "on"
	}
	return "off"
}
