package views

import (
	"fmt"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/partition"
)

// describePartition puts an event of the modelled partition in a sentence.
func describePartition(lang string, f demo.Frame, e demo.Event) (string, bool) {
	key := "ev." + e.Kind().String()
	switch e := e.(type) {
	case partition.Assigned:
		return fmt.Sprintf(T(lang, key), e.Worker, e.Epoch), true
	case partition.Produced:
		return fmt.Sprintf(T(lang, key), e.Client, e.Value, e.Epoch, e.Max), true
	case demo.ClientChange:
		// A worker holds no lock: what it still believes is that it owns
		// the partition.
		if e.What == demo.Resumed {
			return fmt.Sprintf(T(lang, "part.resumed"), e.Client), true
		}
	}
	return "", false
}

// The modelled partition's words.
var partitionWords = map[string][2]string{
	"part.resumed":          {"%s が再開: まだパーティションの担当のつもり", "%s resumed, still believing it owns the partition"},
	"part.partition":        {"パーティション 0", "Partition 0"},
	"part.owner":            {"担当 (コーディネーターの記録)", "Owner (as the coordinator has it)"},
	"part.epoch":            {"エポック", "epoch"},
	"part.given":            {"受け取ったエポック", "given epoch"},
	"part.owns":             {"担当", "owner"},
	"part.newest":           {"ストアが知る最新のエポック", "Newest epoch seen"},
	"part.checked":          {"検査する", "checked"},
	"part.unchecked":        {"検査しない", "not checked"},
	"part.modelled":         {"このパーティションはモデルで、実物のブローカーでは確かめていない。モデルにしたのは、割り当てのたびにエポックが増え、資源が古いエポックの書き込みを拒むこと (Kafka のプロデューサーエポックと同じ仕組み)。", "This partition is modelled, not checked against a real broker. It models an epoch that grows with every assignment and a store that refuses a write with an older one, as Kafka's producer epoch does."},
	"ev.partition-assigned": {"リバランス: パーティション 0 が %[1]s に移る (エポック %[2]d)", "rebalance: partition 0 goes to %[1]s (epoch %[2]d)"},
	"ev.partition-write":    {"%[1]s が row-42 に %[2]q を書く (エポック %[3]d)", "%[1]s writes %[2]q to row-42 (epoch %[3]d)"},
	"ev.partition-fenced":   {"%[1]s の書き込み %[2]q は拒否された (エポック %[3]d < %[4]d)", "%[1]s's write %[2]q is turned away (epoch %[3]d < %[4]d)"},
}
