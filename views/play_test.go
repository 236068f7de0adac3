package views_test

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// longestWalk plays up to n free-play actions from p, each time the longest
// of the actions on offer that plays (the longest SQL statement, say): the
// history that makes the longest address.
func longestWalk(tb testing.TB, p demo.Place, n int) demo.Place {
	tb.Helper()
	for range n {
		offers, err := p.Offers()
		if err != nil {
			tb.Fatalf("%s: offers: %v", p.Sc.ID, err)
		}
		slices.SortStableFunc(offers, func(a, b demo.Offer) int { return len(b.Action.Source) - len(a.Action.Source) })
		next := p
		for _, o := range offers {
			if o.Enabled() {
				if _, err := p.Then(o.Action).Run(); err == nil {
					next = p.Then(o.Action)
					break
				}
			}
		}
		if next == p {
			break
		}
		p = next
	}
	return p
}

// A free-play history of 40 actions, of the longest actions on offer at
// every point, keeps the address of every scenario under 2,000 characters,
// and reads back as the same place, from the address and from a form.
func TestPlayAddressIsShort(t *testing.T) {
	longest, where := 0, ""
	for _, sc := range testkit.Catalog(t).Scenarios {
		for _, on := range []bool{true, false} {
			start := demo.Place{Sc: sc, On: on, Step: 1}
			walked := longestWalk(t, start, 40)
			p := views.Place{Place: walked, Lang: "ja", View: views.EmbedView, Present: true, FreePlay: true}
			u := p.URL()
			if len(u) > longest {
				longest, where = len(u), testkit.Name(sc, on)
			}
			if n := len(views.PlayLines(walked.Play)); n < 40 && testing.Verbose() {
				t.Logf("%s: only %d actions could be played", testkit.Name(sc, on), n)
			}
			if len(u) >= 2000 {
				t.Errorf("%s: %d actions make an address of %d characters, want < 2000", testkit.Name(sc, on), len(views.PlayLines(walked.Play)), len(u))
			}
			parsed, err := url.Parse(u)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := views.ReadPlace(sc, parsed.Query(), views.InURL, views.EmbedView, ""); err != nil || got != p {
				t.Fatalf("%s: read back %+v, %v; want %+v", u, got.Place, err, p.Place)
			}
			if got, err := views.ReadPlace(sc, p.Form(""), views.InForm, views.EmbedView, ""); err != nil || got != p {
				t.Fatalf("%s: the form read back %+v, %v", testkit.Name(sc, on), got.Place, err)
			}
		}
	}
	t.Logf("longest address with 40 actions played: %d characters (%s)", longest, where)
}

// Even forty different lines, the longest every script of the catalogue
// holds (SQL statements of a hundred characters and more), make an address
// under 2,000 characters: the codec alone, whether or not they play.
func TestPlayCodecFortyLongestLines(t *testing.T) {
	var all []string
	for _, sc := range testkit.Catalog(t).Scenarios {
		for _, m := range sc.Moves {
			for _, a := range m.Do {
				if !slices.Contains(all, a.Source) {
					all = append(all, a.Source)
				}
			}
		}
	}
	slices.SortStableFunc(all, func(a, b string) int { return len(b) - len(a) })
	play := strings.Join(all[:40], "\n")
	sc := testkit.Scenario(t, "lost-update")
	u := views.Place{Place: demo.Place{Sc: sc, Step: 1, Play: play}, Lang: "ja", View: views.EmbedView, Present: true, FreePlay: true}.URL()
	if len(u) >= 2000 {
		t.Fatalf("forty lines of %d to %d bytes (%d in all) make an address of %d characters, want < 2000", len(all[39]), len(all[0]), len(play), len(u))
	}
	if got, err := views.DecodePlay(views.EncodePlay(play)); err != nil || got != play {
		t.Fatalf("the forty lines do not read back: %v", err)
	}
	t.Logf("forty lines of %d to %d bytes, %d in all: an address of %d characters", len(all[39]), len(all[0]), len(play), len(u))
}

// Taking over with no action yet is free play already: the address says
// so (play=), and reads back so.
func TestPlayEmptyHistory(t *testing.T) {
	sc := testkit.Scenario(t, "gc-pause")
	p := views.Place{Place: demo.Place{Sc: sc, On: false, Step: 3}, Lang: "en"}.TakeOver()
	if got, want := p.URL(), "/scenarios/gc-pause?fencing=off&step=3&lang=en&play="; got != want {
		t.Fatalf("URL %q, want %q", got, want)
	}
	u, _ := url.Parse(p.URL())
	if got, err := views.ReadPlace(sc, u.Query(), views.InURL, views.PageView, ""); err != nil || got != p {
		t.Fatalf("read back %+v, %v; want %+v", got, err, p)
	}
	if got := p.Scripted(); got.FreePlay || got.URL() != "/scenarios/gc-pause?fencing=off&step=3&lang=en" {
		t.Fatalf("back to the script: %q", got.URL())
	}
}

// A history that is no code of ours, or one with an action that cannot be
// played where it stands, is a *BadPlace; the place returned keeps the
// actions before the bad one, for the error page's way back.
func TestPlayBadHistory(t *testing.T) {
	sc := testkit.Scenario(t, "gc-pause")
	good := "A acquire 10\ntick 2"
	for _, tc := range []struct {
		name, raw, key, keep string
	}{
		{"not base64", "!!!", "err.play.code", ""},
		{"not deflate", "AAAA", "err.play.code", ""},
		{"an empty line", views.EncodePlay("A pause\n\ntick 1"), "err.play.code", ""},
		{"no such verb", views.EncodePlay(good + "\nA fly"), "err.play.action", good},
		{"no such client", views.EncodePlay(good + "\nZ pause"), "err.play.action", good},
		{"a paused client writes", views.EncodePlay(good + "\nA pause\nA write A\ntick 1"), "err.play.action", good + "\nA pause"},
		{"too many", views.EncodePlay(strings.Repeat("tick 1\n", views.MaxPlayActions) + "tick 1"), "err.play.long", strings.TrimSuffix(strings.Repeat("tick 1\n", views.MaxPlayActions), "\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := url.Values{"fencing": {"on"}, "step": {"1"}, "lang": {"en"}, views.PlayParam: {tc.raw}}
			p, err := views.ReadPlace(sc, q, views.InURL, views.PageView, "")
			var bad *views.BadPlace
			if !errors.As(err, &bad) || bad.Key != tc.key {
				t.Fatalf("error %v, want %s", err, tc.key)
			}
			if !p.FreePlay || p.Play != tc.keep || !p.On || p.Lang != "en" {
				t.Fatalf("kept %+v free=%v, want the history %q and the rest of the place", p.Place, p.FreePlay, tc.keep)
			}
			if _, err := p.Frame(); err != nil {
				t.Fatalf("the valid prefix does not play: %v", err)
			}
		})
	}
}

// Any text survives the codec; any text that is not its output is refused.
func FuzzPlayCodec(f *testing.F) {
	f.Add("A acquire 10\ntick 3", "")
	f.Add("B sql UPDATE t SET v = 'x' WHERE id = 1", "Qgk5")
	f.Fuzz(func(t *testing.T, play, raw string) {
		if got, err := views.DecodePlay(views.EncodePlay(play)); err == nil && got != play {
			t.Fatalf("round trip of %q gave %q", play, got)
		}
		if got, err := views.DecodePlay(raw); err == nil && (len(got) > views.MaxPlayBytes || strings.Contains(got, "\n\n")) {
			t.Fatalf("%q decoded to %q, which no history is", raw, got)
		}
	})
}
