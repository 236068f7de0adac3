package web

import (
	"net/http"
	"testing"

	"github.com/distlock/fencing-demo/internal/testkit"
)

// A link written before redlock-clock-jump's switch was renamed opens the
// same frame under the new name, for the page and the embed alike.
func TestRenamedSwitchRedirects(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	for _, tc := range []struct{ from, to string }{
		{"/scenarios/redlock-clock-jump?monotonic-clock=on&step=4&lang=ja", "/scenarios/redlock-clock-jump?lang=ja&slew-only=on&step=4"},
		{"/embed/redlock-clock-jump?monotonic-clock=off", "/embed/redlock-clock-jump?slew-only=off"},
	} {
		w := testkit.Get(t, s, tc.from)
		testkit.MustStatus(t, w, http.StatusMovedPermanently)
		if got := w.Header().Get("Location"); got != tc.to {
			t.Errorf("%s: Location=%q, want %q", tc.from, got, tc.to)
		}
		testkit.MustStatus(t, testkit.Get(t, s, tc.to), http.StatusOK)
	}
	// Other scenarios know no such name: it is an unknown part of the
	// address there, as before.
	if w := testkit.Get(t, s, "/scenarios/gc-pause?monotonic-clock=on"); w.Code == http.StatusMovedPermanently {
		t.Errorf("gc-pause redirected an old name it never had: %s", w.Header().Get("Location"))
	}
}
