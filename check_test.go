package main

import (
	"bytes"
	"strings"
	"testing"
)

// The check command answers with its exit status: 1 for a history that
// breaks the property (printed as a script's lines), 0 for none, 2 for a
// command line that is wrong.
func TestCheckCommand(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		status int
		says   string
	}{
		{[]string{"check", "gc-pause", "-switch", "off"}, 1, "  - A write A\n"},
		{[]string{"check", "-switch", "on", "-depth", "4", "gc-pause"}, 0, "none up to depth 4"},
		{[]string{"check", "lost-update", "-switch", "off"}, 1, "  - B sql COMMIT\n"},
		{[]string{"check", "nope"}, 2, `no scenario "nope"`},
		{[]string{"check", "gc-pause", "-switch", "maybe"}, 2, "-switch takes on or off"},
		{[]string{"check", "gc-pause", "-depth", "0"}, 2, "-depth takes 1 to 20"},
		{[]string{"check"}, 2, "name one scenario"},
	} {
		var out, errs bytes.Buffer
		err := checkCommandTo(tc.args[1:], func(string) string { return "" }, &out, &errs)
		if got := exitCode(err); got != tc.status {
			t.Errorf("%v: exit %d, want %d (%v)", tc.args, got, tc.status, err)
		}
		if all := out.String() + errs.String() + errString(err); !strings.Contains(all, tc.says) {
			t.Errorf("%v: output %q does not say %q", tc.args, all, tc.says)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
