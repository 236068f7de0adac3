package views

import (
	"fmt"
	"strconv"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/eventlog"
)

// describeLog puts an event of the modelled log in a sentence.
func describeLog(lang string, f demo.Frame, e demo.Event) (string, bool) {
	key := "ev." + e.Kind().String()
	switch e := e.(type) {
	case eventlog.ReadBalance:
		return fmt.Sprintf(T(lang, key), e.Client, e.Balance), true
	case eventlog.PutBalance:
		return fmt.Sprintf(T(lang, key), e.Client, e.Balance), true
	case eventlog.Appended:
		return fmt.Sprintf(T(lang, key), e.Client, e.Entry.Change.Name(), strconv.Itoa(e.Entry.Offset)), true
	case eventlog.AppliedEvent:
		return fmt.Sprintf(T(lang, key), e.Entry.Change.Name(), e.Entry.Client, strconv.Itoa(e.Entry.Offset), e.Balance), true
	}
	return "", false
}

// The modelled log's words.
var eventLogWords = map[string][2]string{
	"log.account":    {"口座 1", "Account 1"},
	"log.balance":    {"残高", "Balance"},
	"log.replay":     {"ログの再生", "Replay of the log"},
	"log.modelled":   {"このログはモデルで、実物のサーバーでは確かめていない。モデルにしたのは、1 本のログ (Kafka の 1 パーティションやアクターのメールボックス) に追記された順で、1 人の消費者が 1 つずつ適用すること。", "This log is modelled, not checked against a real server. It models one log (a Kafka partition, or an actor's mailbox) whose events one consumer applies one at a time, in the order they were appended."},
	"log.log":        {"口座 1 のログ", "Account 1's log"},
	"log.offset":     {"オフセット", "Offset"},
	"log.event":      {"イベント", "Event"},
	"log.from":       {"追記した人", "Appended by"},
	"log.applied":    {"適用済み", "Applied"},
	"ev.log-read":    {"%[1]s が残高 %[2]d を読む", "%[1]s reads the balance: %[2]d"},
	"ev.log-put":     {"%[1]s が残高 %[2]d を書き戻す", "%[1]s writes the balance back: %[2]d"},
	"ev.log-append":  {"%[1]s が %[2]s をログに追記する (オフセット %[3]s)", "%[1]s appends %[2]s to the log (offset %[3]s)"},
	"ev.log-applied": {"消費者が %[2]s の %[1]s (オフセット %[3]s) を適用する。残高 %[4]d", "the consumer applies %[2]s's %[1]s (offset %[3]s): balance %[4]d"},
}
