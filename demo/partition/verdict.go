package partition

import "github.com/distlock/fencing-demo/demo"

// What a partition's owners let happen. Both carry the late write: Client
// the former owner, Value what it wrote, Before what the owner had, Token
// the writer's epoch and Max the owner's.
var (
	// StaleOwner: a worker wrote after its partition had moved to another
	// owner, and the store took it: the new owner's data was overwritten.
	StaleOwner = demo.NewKind(demo.KindSpec{Name: "stale-owner", Class: demo.Broken, Words: demo.Words{
		Short:  demo.Text{JA: "古い持ち主の書き込み", EN: "stale owner"},
		Legend: demo.Text{JA: "担当が移った後で古い持ち主の書き込みが通り、新しい持ち主のデータを上書きした。", EN: "A write from an owner whose partition had moved landed, over the new owner's data."},
		Say: func(f *demo.Frame, v demo.Violation) demo.Text {
			return demo.Says("古い持ち主の書き込み: %[1]s の書き込み %[2]q が %[3]s に通った。エポックは %[4]d で、担当はすでにエポック %[6]d の %[5]s に移っていた。%[5]s の %[7]q が上書きされた。",
				"Stale owner: %[1]s's write %[2]q landed at %[3]s with epoch %[4]d, after the partition had moved to %[5]s at epoch %[6]d. %[5]s's %[7]q was overwritten.",
				v.Client, v.Value, demo.ShowTime(f.Scenario, v.At), v.Token, v.Other, v.Max, v.Before)
		},
	}})
	// EpochFenced: the same late write, turned away by its old epoch.
	EpochFenced = demo.NewKind(demo.KindSpec{Name: "epoch-fenced", Class: demo.ContainedByResource, Words: demo.Words{
		Short:  demo.Text{JA: "エポックで拒否", EN: "fenced by epoch"},
		Legend: demo.Text{JA: "担当が移った後の古い持ち主の書き込みを、資源がエポックで拒んだ。", EN: "The store turned away, by its epoch, a write from an owner whose partition had moved."},
		Say: func(f *demo.Frame, v demo.Violation) demo.Text {
			return demo.Says("エポックで拒否: 担当が %[5]s (エポック %[6]d) に移った後で、%[1]s が %[3]s にエポック %[4]d で書こうとした。資源はその書き込み %[2]q を拒否し、%[5]s の %[7]q が残った。",
				"Fenced by epoch: %[1]s wrote at %[3]s with epoch %[4]d after the partition had moved to %[5]s at epoch %[6]d. The store turned its write %[2]q away, and %[5]s's %[7]q stands.",
				v.Client, v.Value, demo.ShowTime(f.Scenario, v.At), v.Token, v.Other, v.Max, v.Before)
		},
	}})
)

var properties = []demo.Property{
	{Name: "no-stale-owner", Kind: StaleOwner,
		Says: demo.Text{EN: "no write from a partition's former owner lands", JA: "パーティションの元の持ち主の書き込みが通らない"}},
}
