package views_test

import (
	"errors"
	"net/url"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// A Place written as a URL or as a click's form reads back as the same Place:
// the one type owns the address both ways.
func TestPlaceRoundTrip(t *testing.T) {
	for _, sc := range testkit.Catalog(t).Scenarios {
		for _, on := range []bool{true, false} {
			for _, lang := range []string{"ja", "en"} {
				for _, view := range []views.View{views.PageView, views.EmbedView} {
					for _, present := range []bool{false, true} {
						for k := 1; k <= sc.Frames(); k++ {
							p := views.Place{Place: demo.Place{Sc: sc, On: on, Step: k}, Lang: lang, View: view, Present: present}
							u, err := url.Parse(p.URL())
							if err != nil {
								t.Fatal(err)
							}
							if got, err := views.ReadPlace(sc, u.Query(), views.InURL, view, ""); err != nil || got != p {
								t.Fatalf("%s: read back %+v, %v; want %+v", p.URL(), got, err, p)
							}
							form := p.Form("")
							if got, err := views.ReadPlace(sc, form, views.InForm, view, ""); err != nil || got != p {
								t.Fatalf("form %v: read back %+v, %v; want %+v", form, got, err, p)
							}
							if got, want := form.Get(views.FromField), form.Get("from"); got != want || form.Has(views.StepParam) {
								t.Fatalf("form %v: the frame goes by from=, never step=", form)
							}
						}
					}
				}
			}
		}
	}
}

// The address's spelling is pinned here, written out: URLs must not change.
func TestPlaceURL(t *testing.T) {
	sc := testkit.Scenario(t, "gc-pause")
	p := views.Place{Place: demo.Place{Sc: sc, On: true, Step: 3}, Lang: "ja"}
	for _, tc := range []struct{ got, want string }{
		{p.URL(), "/scenarios/gc-pause?fencing=on&step=3&lang=ja"},
		{views.Place{Place: demo.Place{Sc: sc, On: false, Step: 2}, Lang: "en", View: views.EmbedView, Present: true}.URL(), "/embed/gc-pause?fencing=off&step=2&lang=en&present=1"},
		{views.Place{Place: demo.Place{Sc: sc, Step: 2}, Lang: "en", View: views.EmbedView, Present: true}.PageURL(), "/scenarios/gc-pause?fencing=off&step=2&lang=en"},
		{views.Place{Place: demo.Place{Sc: sc, Step: 2}, Lang: "en", View: views.EmbedView}.Action("step"), "/embed/gc-pause/step"},
		{p.Action("switch"), "/scenarios/gc-pause/switch"},
		{p.QRURL(), "/qr.svg?path=%2Fscenarios%2Fgc-pause%3Ffencing%3Don%26step%3D3%26lang%3Dja"},
		{views.Place{Place: demo.Place{Sc: sc, On: true, Step: 3}, Lang: "ja", View: views.StaticView}.URL(), "../../../ja/gc-pause/on/3.html"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// A wrong part of an address is named, and the Place returned keeps the
// others, so the error page's way back keeps the visitor's place.
func TestReadPlaceBad(t *testing.T) {
	sc := testkit.Scenario(t, "gc-pause")
	for _, tc := range []struct {
		query string
		src   views.Source
		key   string
		on    bool
		step  int
		lang  string
	}{
		{"fencing=maybe&step=3&lang=ja", views.InURL, "err.switch", sc.Default, 3, "ja"},
		{"fencing=on&step=99&lang=ja", views.InURL, "err.step", true, sc.Frames(), "ja"},
		{"fencing=on&step=x&lang=ja", views.InURL, "err.step", true, 1, "ja"},
		{"fencing=on&from=0&lang=en", views.InForm, "err.step", true, 1, "en"},
		{"fencing=on&step=2&lang=fr", views.InURL, "err.lang", true, 2, "ja"}, // the browser's
	} {
		v, err := url.ParseQuery(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		p, err := views.ReadPlace(sc, v, tc.src, views.PageView, "ja,en;q=0.5")
		var bad *views.BadPlace
		if !errors.As(err, &bad) || bad.Key != tc.key {
			t.Errorf("%s: err=%v, want %s", tc.query, err, tc.key)
			continue
		}
		if p.On != tc.on || p.Step != tc.step || p.Lang != tc.lang {
			t.Errorf("%s: kept %+v, want on=%v step=%d lang=%s", tc.query, p, tc.on, tc.step, tc.lang)
		}
	}
}

// The language: the explicit choice, else the browser's, else English.
func TestReadLang(t *testing.T) {
	for _, tc := range []struct {
		explicit, accept, want string
		bad                    bool
	}{
		{"ja", "en", "ja", false},
		{"", "ja-JP,ja;q=0.9", "ja", false},
		{"", "fr", "en", false},
		{"", "", "en", false},
		{"xx", "ja", "ja", true},
	} {
		got, err := views.ReadLang(tc.explicit, tc.accept)
		if got != tc.want || (err != nil) != tc.bad {
			t.Errorf("ReadLang(%q, %q)=%q, %v; want %q, bad=%v", tc.explicit, tc.accept, got, err, tc.want, tc.bad)
		}
	}
}
