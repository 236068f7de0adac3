package views_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// labTries is every lab's scenario with each of its tries built.
func labTries(t *testing.T) (out []struct {
	lab   *demo.Scenario
	try   demo.Try
	built *demo.Scenario
}) {
	t.Helper()
	for _, sc := range testkit.Catalog(t).Scenarios {
		if sc.Lab == nil {
			continue
		}
		for _, try := range sc.Lab.Tries {
			built, err := views.Built(sc, try.Build.String())
			if err != nil {
				t.Fatalf("%s, try %s: %v", sc.ID, try.Name, err)
			}
			out = append(out, struct {
				lab   *demo.Scenario
				try   demo.Try
				built *demo.Scenario
			}{sc, try, built})
		}
	}
	if len(out) == 0 {
		t.Fatal("scenarios.yaml has no lab")
	}
	return out
}

// A place of a learner's build written as a URL or a click's form reads
// back as the same place, the built scenario (the same one, from the
// cache) and the switch its build fixed included: the build rides in
// every address the page writes.
func TestBuiltPlaceRoundTrip(t *testing.T) {
	for _, lt := range labTries(t) {
		b := lt.built
		for _, lang := range []string{"ja", "en"} {
			for k := 1; k <= b.Frames(); k++ {
				p := views.Place{Place: demo.Place{Sc: b, On: b.Default, Step: k}, Lang: lang}
				u, err := url.Parse(p.URL())
				if err != nil {
					t.Fatal(err)
				}
				if !u.Query().Has(views.BuildParam) {
					t.Fatalf("%s: the address has no build", p.URL())
				}
				if got, err := views.ReadPlace(lt.lab, u.Query(), views.InURL, views.PageView, ""); err != nil || got != p {
					t.Fatalf("%s: read back %+v, %v; want %+v", p.URL(), got, err, p)
				}
				if got, err := views.ReadPlace(lt.lab, p.Form(""), views.InForm, views.PageView, ""); err != nil || got != p {
					t.Fatalf("form %v: read back %+v, %v; want %+v", p.Form(""), got, err, p)
				}
			}
		}
	}
}

// A build that cannot be played is a 400's reason in both languages,
// naming the part and the line, and the way back is the lab with the
// learner's own text; an address that is no build of ours, one whose
// switch the build contradicts, or a build for a scenario with no lab, is
// told as such.
func TestBadBuildInAddress(t *testing.T) {
	gc := testkit.Scenario(t, "gc-pause")
	read := func(sc *demo.Scenario, q string) (views.Place, *views.BadPlace) {
		t.Helper()
		v, err := url.ParseQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		p, err := views.ReadPlace(sc, v, views.InURL, views.PageView, "")
		var bp *views.BadPlace
		if err != nil && !errors.As(err, &bp) {
			t.Fatalf("%s: %v", q, err)
		}
		return p, bp
	}
	wrong := "A: acquire 10\nA: fly\nB:\n"
	p, bp := read(gc, "lang=ja&step=2&build="+views.EncodeBuild(wrong))
	if bp == nil || bp.Key != "err.build" {
		t.Fatalf("a build with a line no client can play: %+v", bp)
	}
	why := bp.Args[0].(demo.Text)
	if !strings.Contains(why.EN, "program A, line 2") || !strings.Contains(why.JA, "A のプログラム の 2 行目") {
		t.Errorf("the reason %+v does not name program A's line 2 in both languages", why)
	}
	if want := views.LabURL("gc-pause", wrong, "ja", false); bp.Cont != want {
		t.Errorf("the way back is %q, want the lab with the learner's text %q", bp.Cont, want)
	}
	if p.Sc != gc || p.Step != 2 || p.Lang != "ja" {
		t.Errorf("the place keeps %+v, want the lab's own scenario at step 2 in ja", p)
	}

	if _, bp := read(gc, "build=notours"); bp == nil || bp.Key != "err.build.code" || bp.Cont != views.LabURL("gc-pause", "", "en", false) {
		t.Errorf("a code that is not ours: %+v", bp)
	}
	long := views.EncodeBuild(strings.Repeat("A: acquire 10\n", demo.MaxBuild/14+1))
	if _, bp := read(gc, "build="+long); bp == nil || bp.Key != "err.build.code" {
		t.Errorf("a build longer than %d bytes: %+v", demo.MaxBuild, bp)
	}
	on := "A: acquire 10\nA: write $me\nB:\nset fencing on\n"
	if p, bp := read(gc, "fencing=off&build="+views.EncodeBuild(on)); bp == nil || bp.Key != "err.build.switch" || !p.On || p.Sc.Built != on {
		t.Errorf("an address whose switch the build contradicts: %+v, place %+v", bp, p)
	}
	if _, bp := read(gc, "build="+views.EncodeBuild("set lease 3\n")); bp == nil || !strings.Contains(bp.Args[0].(demo.Text).EN, "setting lease: this lab has no such setting") {
		t.Errorf("an unknown setting: %+v", bp)
	}
	noLab := testkit.Scenario(t, "redis-failover")
	if _, bp := read(noLab, "build="+views.EncodeBuild(on)); bp == nil || bp.Key != "err.build.nolab" {
		t.Errorf("a build for a scenario with no lab: %+v", bp)
	}
}

// The lab's form reads back as the build a learner made: blank lines and
// stray spaces dropped, a script's text as it was typed, and a setting,
// client or script the lab does not have kept, for Apply to name.
func TestReadBuildForm(t *testing.T) {
	form := url.Values{
		"program-A":      {"acquire 10\r\n\r\n  write   $me  \r\n"},
		"program-B":      {""},
		"set-fencing":    {" on "},
		"set-lease":      {"3"},
		"script-release": {"return redis.call('DEL', KEYS[1])\r\n"},
		"lang":           {"en"},
	}
	b := views.ReadBuildForm(form)
	want := "A: acquire 10\nA: write $me\nB:\nset fencing on\nset lease 3\nscript release\n| return redis.call('DEL', KEYS[1])\n"
	if got := b.String(); got != want {
		t.Errorf("the form reads as\n%s\nwant\n%s", got, want)
	}
	back, err := demo.ParseBuild(b.String())
	if err != nil || back.String() != want {
		t.Errorf("written out and read back: %q, %v", back.String(), err)
	}
}
