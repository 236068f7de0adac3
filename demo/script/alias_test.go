package script_test

import (
	"reflect"
	"testing"

	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// A switch's former names are data: read from switch-aliases, and each must
// be a name an address can carry, other than the switch's own.
func TestSwitchAliases(t *testing.T) {
	src := testkit.File(testkit.Replace(t, testkit.YAML("s", "tick 1"), "    switch: fencing\n", "    switch: fencing\n    switch-aliases: [token-check, old-fence]\n"))
	c, err := script.Load("test.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Scenarios[0].SwitchAliases, []string{"token-check", "old-fence"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("SwitchAliases=%q, want %q", got, want)
	}
	for _, bad := range []string{"[fencing]", "[Old_Name]"} {
		src := testkit.File(testkit.Replace(t, testkit.YAML("s", "tick 1"), "    switch: fencing\n", "    switch: fencing\n    switch-aliases: "+bad+"\n"))
		wantLoadError(t, src, "", "switch-aliases")
	}
	if sc, _ := testkit.Catalog(t).Get("redlock-clock-jump"); !reflect.DeepEqual(sc.SwitchAliases, []string{"monotonic-clock"}) {
		t.Fatalf("redlock-clock-jump's switch-aliases=%q, want its old name monotonic-clock", sc.SwitchAliases)
	}
}
