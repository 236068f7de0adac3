package views

import (
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/demotest"
)

// A Redis scenario's page says, in its language, that its commands were
// checked against real Redis and which version; the lock service's, whose
// calls are the chapter's own API, says nothing of the kind.
func TestRedisScenariosSayTheyAreChecked(t *testing.T) {
	redis := 0
	for _, sc := range demotest.Catalog(t).Scenarios {
		for _, lang := range []string{"ja", "en"} {
			doc, _ := frameDoc(t, sc.ID, true, 1, lang)
			line := doc.Find(`[data-testid="checked"]`)
			onRedis := sc.Store != demo.LockServiceStore
			switch {
			case onRedis && !strings.Contains(line.Text(), "Redis 7.0 (7.0.15)"):
				t.Errorf("%s (%s, store %s): no line naming the Redis it was checked against: %q", sc.ID, lang, sc.Store, line.Text())
			case !onRedis && line.Length() > 0:
				t.Errorf("%s (%s, store %s): claims a check against Redis: %q", sc.ID, lang, sc.Store, line.Text())
			}
			if onRedis && lang == "ja" && strings.Contains(line.Text(), "checked") {
				t.Errorf("%s: the Japanese page says it in English: %q", sc.ID, line.Text())
			}
		}
		if sc.Store != demo.LockServiceStore {
			redis++
		}
	}
	if redis == 0 {
		t.Error("no Redis scenario in the catalog: nothing was checked")
	}
}
