package views

import (
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// A scenario whose commands a conformance suite replays against a real
// server says so on its page, in its language, naming that server; the lock
// service's (the chapter's own API) and Consul's (no Debian package to check
// against) say nothing of the kind.
func TestCheckedScenariosSaySo(t *testing.T) {
	want := map[demo.StoreKind]string{
		"redis":      "Redis 7.0 (7.0.15)",
		"replicated": "Redis 7.0 (7.0.15)",
		"redlock":    "Redis 7.0 (7.0.15)",
		"database":   "PostgreSQL 15",
		"zookeeper":  "ZooKeeper 3.8",
		"etcd":       "etcd 3.4",
	}
	seen := map[demo.StoreKind]bool{}
	for _, sc := range testkit.Catalog(t).Scenarios {
		server, checked := want[sc.Store]
		for _, lang := range []string{"ja", "en"} {
			doc, _ := frameDoc(t, sc.ID, true, 1, lang)
			line := doc.Find(`[data-testid="checked"]`)
			switch {
			case checked && !strings.Contains(line.Text(), server):
				t.Errorf("%s (%s, store %s): no line naming the %s it was checked against: %q", sc.ID, lang, sc.Store, server, line.Text())
			case !checked && line.Length() > 0:
				t.Errorf("%s (%s, store %s): claims a check against a real server: %q", sc.ID, lang, sc.Store, line.Text())
			}
			// The one thing the real server cannot be given here is a
			// stepped clock: the page says how the check plays it instead.
			if jumps := sc.ID == "redlock-clock-jump"; jumps != strings.Contains(line.Text(), "PEXPIREAT") {
				t.Errorf("%s (%s): the line should say the clock jump is played with PEXPIREAT exactly when the scenario jumps a clock: %q", sc.ID, lang, line.Text())
			}
			if checked && lang == "ja" && strings.Contains(line.Text(), "checked") {
				t.Errorf("%s: the Japanese page says it in English: %q", sc.ID, line.Text())
			}
		}
		if checked {
			seen[sc.Store] = true
		}
	}
	for kind := range want {
		if !seen[kind] {
			t.Errorf("no %s scenario in the catalog: nothing says it was checked", kind)
		}
	}
}
