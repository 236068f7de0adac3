package lua_test

import (
	"testing"

	"github.com/distlock/fencing-demo/demo/redis/lua"
)

// BenchmarkCompareAndDelete is one call of the compare-and-delete script
// on a VM reused from call to call, as a run or a search reuses one:
// KEYS and ARGV made, the script run, GET and DEL through the Backend,
// the reply converted. It reports the VM instructions a call runs.
func BenchmarkCompareAndDelete(b *testing.B) {
	s, err := lua.Compile("release-checked", `if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0`)
	if err != nil {
		b.Fatal(err)
	}
	vm := lua.NewVMWithin(1 << 62)
	k := keys{}
	keys, argv := []string{"lock:row-42"}, []string{"67fe0153"}
	b.ReportAllocs()
	for b.Loop() {
		k["lock:row-42"] = "67fe0153"
		if r, err := vm.Run(s, keys, argv, k); err != nil || r.Int != 1 {
			b.Fatalf("%v %v", r, err)
		}
	}
	b.ReportMetric(float64(vm.Instructions())/float64(b.N), "instr/op")
}

// BenchmarkFirstCall is a VM's first call, which makes its Lua state: what
// a run that sends a script pays once (a page's replay, say), and a search
// once for all its states.
func BenchmarkFirstCall(b *testing.B) {
	s, err := lua.Compile("one", "return 1")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := lua.NewVM().Run(s, nil, nil, keys{}); err != nil {
			b.Fatal(err)
		}
	}
}
