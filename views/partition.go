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
	"part.owner":            {"担当 (グループコーディネーター)", "Owner (group coordinator)"},
	"part.epoch":            {"プロデューサーエポック", "producer epoch"},
	"part.given":            {"プロデューサーのエポック", "its producer's epoch"},
	"part.owns":             {"担当", "owner"},
	"part.newest":           {"ストアが知る最新のプロデューサーエポック", "Newest producer epoch the store has seen"},
	"part.checked":          {"検査する", "checked"},
	"part.unchecked":        {"検査しない", "not checked"},
	"part.modelled.short":   {"モデルのみ: 実物のブローカーでは確かめていない", "Modelled, not checked against a real broker"},
	"part.modelled":         {"このパーティションはモデルで、実物のブローカーでは確かめていない。モデルにしたのは Kafka のプロデューサーエポック: 新しい担当がパーティションの transactional.id でプロデューサーを始めるとエポックが上がり、エポックを検査するストアは古いエポックの書き込みを拒む。", "This partition is modelled, not checked against a real broker. It models Kafka's producer epoch: the new owner starts its producer with the partition's transactional.id, which bumps the epoch, and a store that checks it refuses a write with an older one."},
	"ev.partition-assigned": {"リバランス: パーティション 0 が %[1]s に移り、%[1]s のプロデューサーが transactional.id を引き継ぐ (プロデューサーエポック %[2]d)", "rebalance: partition 0 goes to %[1]s, whose producer takes over the transactional.id (producer epoch %[2]d)"},
	"ev.partition-write":    {"%[1]s が row-42 に %[2]q を書く (プロデューサーエポック %[3]d)", "%[1]s writes %[2]q to row-42 (producer epoch %[3]d)"},
	"ev.partition-fenced":   {"%[1]s の書き込み %[2]q は拒否された (プロデューサーエポック %[3]d < %[4]d)", "%[1]s's write %[2]q is turned away (producer epoch %[3]d < %[4]d)"},
}
