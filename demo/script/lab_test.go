package script_test

import (
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/internal/testkit"
)

const labItem = `    lab:
      goal: {ja: 課題, en: The task}
      clients: [A, B]
      palette:
        - line: acquire $lease
          label: {ja: 取る, en: take the lock}
        - line: write $me
          label: {ja: 書く, en: write}
      settings:
        - name: lease
          label: {ja: リース, en: the lease}
          values: ["10", "5"]
      sometimes: every-client-writes
      time: 30
      starter:
        A: [acquire $lease, write $me]
        B: [acquire $lease, write $me]
`

// A lab loads, with a setting that a line names as $NAME; one that is
// wrong is an error naming what is wrong: a setting that is neither the
// switch, nor named by a line, nor the family's own configuration; a
// property of the lab's that is not an always property.
func TestLabLoadErrors(t *testing.T) {
	if _, err := script.Load("test.yaml", []byte(withEntry(t, labItem))); err != nil {
		t.Fatalf("a lab with a $lease setting: %v", err)
	}
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"unknown setting", "name: lease", "name: appendfsync", "lab setting appendfsync is not the switch, no line names $appendfsync, and the lockservice family takes no such setting"},
		{"sometimes as property", "sometimes: every-client-writes", "sometimes: every-client-writes\n      property: every-client-writes", `lab: property "every-client-writes" is not an always property`},
		{"unknown property", "sometimes: every-client-writes", "sometimes: every-client-writes\n      property: no-such-thing", `lab: property "no-such-thing" is not an always property`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			le := loadError(t, withEntry(t, testkit.Replace(t, labItem, tc.old, tc.new)))
			if !strings.Contains(le.Msg, tc.want) {
				t.Fatalf("error %q, want it to say %q", le.Msg, tc.want)
			}
		})
	}
}
