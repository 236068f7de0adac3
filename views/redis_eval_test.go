package views_test

import (
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/redis"
	"github.com/distlock/fencing-demo/demo/redis/redistest"
	"github.com/distlock/fencing-demo/demo/truth"
	"github.com/distlock/fencing-demo/views"
)

// A script's sentence says, in both languages, which script ran, what it
// did to each key and whose it was, and what its client made of the
// answer, or the line its error left from; and what it claims of the
// frame holds there.
func TestEvalSentences(t *testing.T) {
	for _, tc := range []struct {
		lab, try string
		en, ja   []string // in the sentence of the try's first EVAL that changed a key, or its first
	}{
		{"release-other", "bare-del", []string{"script bare-del: deleted lock:row-42 (B's lock); A lets go of the lock"},
			[]string{"スクリプト bare-del: lock:row-42 (B のロック) を削除。A はロックを手放す"}},
		{"release-other", "compare-and-delete", []string{"script compare-and-delete: changed no key; A lets go of the lock"},
			[]string{"キーを変えなかった。A はロックを手放す"}},
		{"naive-renewal", "pexpire-bare", []string{"set the TTL of lock:row-42 (A's lock) to 10s", "A counts on its lease until t=13s"},
			[]string{"lock:row-42 (A のロック) の TTL を 10s にした", "t=13s まで延びたと思う"}},
		{"incr-token", "incr", []string{"set lock:row-42:token to 1", "A's token is 1"}, []string{"lock:row-42:token を 1 にした", "A のトークンは 1"}},
		{"release-other", "global-owner", []string{"failed at line 1; A lets go of the lock"}, []string{"1 行目でエラー"}},
	} {
		t.Run(tc.lab+"/"+tc.try, func(t *testing.T) {
			l, try := labTry(t, tc.lab, tc.try)
			r := demo.NewRun(l.With(t, try), l.On())
			seen := false
			for r.Step() {
				f := r.Frame()
				for _, e := range f.Latest() {
					ev, ok := e.(redis.EvalCommand)
					if !ok {
						continue
					}
					for _, c := range views.EventClaims(f, e) {
						if err := truth.Check(&f, c); err != nil {
							t.Errorf("frame %d: %q claims what is false: %v", f.Index, views.Describe("en", f, e), err)
						}
					}
					if seen || len(ev.Changes) == 0 && tc.try != "compare-and-delete" && tc.try != "global-owner" {
						continue
					}
					seen = true
					for lang, want := range map[string][]string{"en": tc.en, "ja": tc.ja} {
						got := views.Describe(lang, f, e)
						for _, w := range want {
							if !strings.Contains(got, w) {
								t.Errorf("%s: %q does not say %q", lang, got, w)
							}
						}
					}
				}
			}
			if !seen {
				t.Error("no EVAL to describe")
			}
		})
	}
}

func labTry(t *testing.T, lab, name string) (redistest.Lab, redistest.Try) {
	t.Helper()
	for _, l := range redistest.Labs(t) {
		for _, try := range l.Tries {
			if l.Scenario == lab && try.Name == name {
				return l, try
			}
		}
	}
	t.Fatalf("no try %s/%s", lab, name)
	return redistest.Lab{}, redistest.Try{}
}

// A scenario whose moves run scripts does not say it was checked against
// real Redis: the scripts may be a learner's own.
func TestEvalScenarioClaimsNoCheck(t *testing.T) {
	l, try := labTry(t, "release-other", "compare-and-delete")
	if key := views.CheckedKey(l.With(t, try)); key != "" {
		t.Errorf("CheckedKey = %q for a scenario that runs a script, want none", key)
	}
}
