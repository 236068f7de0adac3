package views

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// findDoc renders the finder's answer from the first frame of id in lang.
func findDoc(t *testing.T, id string, on bool, lang string) (Find, string) {
	t.Helper()
	sc := testkit.Scenario(t, id)
	prop, _ := sc.Promise()
	here := Place{Place: demo.Place{Sc: sc, On: on, Step: 1}, Lang: lang}
	res, err := find.Find(here.Place, prop, find.Options{Depth: 8, MaxStates: 2_000_000})
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFind(here, res)
	if err != nil {
		t.Fatal(err)
	}
	return f, render(t, FindResult(f)).Find(`[data-testid="find-result"]`).Text()
}

// A trace with no pause says what it assumes: lease-length's holder works
// past its lease of 60 while it runs, as nobody renews here; naive-renewal's
// renewal thread keeps a running holder's lease, so its trace pauses, and
// says nothing of the kind.
func TestFinderSaysWhatATraceWithoutAPauseAssumes(t *testing.T) {
	for _, tt := range []struct {
		id, lang, want string
	}{
		{"lease-length", "en", "No pause in this history: A was running when its lease ran out at t=60. Nobody renews A's lease in this scenario"},
		{"lease-length", "ja", "この道に停止は無い。t=60 に A のリースが切れたとき、A は動いていた。"},
		{"naive-renewal", "en", ""},
		{"naive-renewal", "ja", ""},
	} {
		f, text := findDoc(t, tt.id, true, tt.lang)
		if !f.Result.Found {
			t.Fatalf("%s: nothing found", tt.id)
		}
		note := f.RunningNote(tt.lang)
		if !strings.HasPrefix(note, tt.want) || tt.want == "" && note != "" {
			t.Errorf("%s %s: the note is %q, want %q", tt.id, tt.lang, note, tt.want)
		}
		if note != "" && !strings.Contains(text, note) {
			t.Errorf("%s %s: the answer %q does not show the note", tt.id, tt.lang, text)
		}
	}
}

// The answer writes its count of states with its digits in threes, in
// both languages: gc-pause's fencing, proven to depth 8, explores tens of
// thousands.
func TestFinderGroupsTheStatesDigits(t *testing.T) {
	for _, lang := range []string{"en", "ja"} {
		f, text := findDoc(t, "gc-pause", true, lang)
		if f.Result.States < 10_000 {
			t.Fatalf("%d states: too few to group", f.Result.States)
		}
		n := strconv.Itoa(f.Result.States)
		want := n[:len(n)-3] + "," + n[len(n)-3:]
		if !strings.Contains(text, want) || strings.Contains(text, n) {
			t.Errorf("%s: the answer %q does not write %d as %s", lang, text, f.Result.States, want)
		}
	}
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 182597: "182,597", 1234567: "1,234,567"} {
		if got := fmt.Sprintf("%d", states(n)); got != want {
			t.Errorf("states(%d) is written %q, want %q", n, got, want)
		}
	}
}
