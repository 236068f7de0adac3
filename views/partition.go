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
func init() {
	addWords(map[string][2]string{
		"part.resumed":               {"%s が再開: まだパーティションの担当のつもり", "%s resumed, still believing it owns the partition"},
		"part.partition":             {"パーティション 0", "Partition 0"},
		"part.owner":                 {"担当 (コーディネーターの記録)", "Owner (as the coordinator has it)"},
		"part.epoch":                 {"エポック", "epoch"},
		"part.given":                 {"受け取ったエポック", "given epoch"},
		"part.owns":                  {"担当", "owner"},
		"part.newest":                {"ストアが知る最新のエポック", "Newest epoch seen"},
		"part.checked":               {"検査する", "checked"},
		"part.unchecked":             {"検査しない", "not checked"},
		"part.modelled":              {"このパーティションはモデルで、実物のブローカーでは確かめていない。モデルにしたのは、割り当てのたびにエポックが増え、資源が古いエポックの書き込みを拒むこと (Kafka のプロデューサーエポックと同じ仕組み)。", "This partition is modelled, not checked against a real broker. It models an epoch that grows with every assignment and a store that refuses a write with an older one, as Kafka's producer epoch does."},
		"ev.partition-assigned":      {"リバランス: パーティション 0 が %[1]s に移る (エポック %[2]d)", "rebalance: partition 0 goes to %[1]s (epoch %[2]d)"},
		"ev.partition-write":         {"%[1]s が row-42 に %[2]q を書く (エポック %[3]d)", "%[1]s writes %[2]q to row-42 (epoch %[3]d)"},
		"ev.partition-fenced":        {"%[1]s の書き込み %[2]q は拒否された (エポック %[3]d < %[4]d)", "%[1]s's write %[2]q is turned away (epoch %[3]d < %[4]d)"},
		"verdict.stale-owner":        {"古い持ち主の書き込み: %[1]s の書き込み %[2]q が %[3]s に通った。エポックは %[4]d で、担当はすでにエポック %[6]d の %[5]s に移っていた。%[5]s の %[7]q が上書きされた。", "Stale owner: %[1]s's write %[2]q landed at %[3]s with epoch %[4]d, after the partition had moved to %[5]s at epoch %[6]d. %[5]s's %[7]q was overwritten."},
		"verdict.epoch-fenced":       {"エポックで拒否: 担当が %[5]s (エポック %[6]d) に移った後で、%[1]s が %[3]s にエポック %[4]d で書こうとした。資源はその書き込み %[2]q を拒否し、%[5]s の %[7]q が残った。", "Fenced by epoch: %[1]s wrote at %[3]s with epoch %[4]d after the partition had moved to %[5]s at epoch %[6]d. The store turned its write %[2]q away, and %[5]s's %[7]q stands."},
		"verdict.stale-owner.short":  {"古い持ち主の書き込み", "stale owner"},
		"verdict.epoch-fenced.short": {"エポックで拒否", "fenced by epoch"},
		"legend.stale-owner":         {"担当が移った後で古い持ち主の書き込みが通り、新しい持ち主のデータを上書きした。", "A write from an owner whose partition had moved landed, over the new owner's data."},
		"legend.epoch-fenced":        {"担当が移った後の古い持ち主の書き込みを、資源がエポックで拒んだ。", "The store turned away, by its epoch, a write from an owner whose partition had moved."},
	})
}
