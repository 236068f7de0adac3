package views

// Messages of free play: taking over a scenario, the actions offered, the
// history in the address, saving it as a scenario, and the finder.
func init() {
	addWords(map[string][2]string{
		"free.takeover":      {"自分で操作する", "Take over"},
		"free.takeover.help": {"この手順から台本を離れ、自分で操作する", "Leave the script here and act yourself"},
		"free.script":        {"台本に戻る", "Back to the script"},
		"free.undo":          {"1 手取り消す", "Undo"},
		"free.mode":          {"自由操作", "Free play"},
		"free.index":         {"台本 %[1]d 手目 + 自分の %[2]d 手", "script step %[1]d + %[2]d of yours"},
		"free.offers":        {"今できる操作", "What can happen now"},
		"free.world":         {"世界 (時間・ノード・ネットワーク)", "The world (time, nodes, network)"},
		"free.world.short":   {"世界", "The world"},
		"free.nodes":         {"ノード", "Nodes"},
		// An action's group, for a cast too large for a group per client.
		"free.verb.call":     {"SET NX で取りに行く", "Call SET NX"},
		"free.verb.write":    {"書く", "Write"},
		"free.verb.pause":    {"停止", "Pause"},
		"free.verb.resume":   {"再開", "Resume"},
		"free.verb.crash":    {"クラッシュ", "Crash"},
		"free.client":        {"クライアント %s", "Client %s"},
		"free.count":         {"%[2]d 件中 %[1]d 件が今できる", "%[1]d of %[2]d possible now"},
		"free.none":          {"今できる操作はない。", "Nothing can happen now."},
		"free.unavailable":   {"今はできない", "not now"},
		"free.history":       {"自分の操作の履歴", "Your actions so far"},
		"free.history.none":  {"まだ何もしていない。上の操作から選ぶ。", "Nothing yet: choose an action above."},
		"free.save":          {"シナリオとして保存 (YAML)", "Save as a scenario (YAML)"},
		"free.save.title":    {"シナリオとして保存", "Save as a scenario"},
		"free.save.help":     {"この YAML を scenarios.yaml の scenarios: の下に貼り付けるか、このままファイルにして -scenarios で読み込む。教訓と題は元のシナリオのものなので、書き直してほしい。", "Paste this YAML under scenarios: in scenarios.yaml, or save it as a file of its own and start the server with -scenarios on it. The title and the lesson are the original scenario's: rewrite them for your script."},
		"free.save.download": {"ファイルとしてダウンロード", "Download as a file"},
		"free.save.back":     {"自由操作に戻る", "Back to free play"},
		"free.key":           {"自分で操作する / 台本に戻る", "Take over / back to the script"},
		"free.key.undo":      {"戻る (自由操作では 1 手取り消す)", "Back (in free play: undo)"},
		"err.play.code":      {"アドレスの play は、このサイトが書く操作履歴の形をしていない。", "The address's play is not a free-play history this site writes."},
		"err.play.action":    {"操作履歴の %[1]d 手目「%[2]s」はそこでは行えない: %[3]s。下のリンクは、その前の %[4]d 手までを残す。", "Action %[1]d of the free-play history, \"%[2]s\", cannot be played there: %[3]s. The link below keeps the %[4]d actions before it."},
		"err.play.unknown":   {"このシナリオのこの時点で選べる操作ではない", "it is not one of the actions this scenario offers at that point"},
		"err.play.long":      {"操作履歴は %[1]d 手までで、%[2]d 手は長すぎる。下のリンクは最初の %[1]d 手を残す。", "A free-play history holds at most %[1]d actions, and %[2]d is too many. The link below keeps the first %[1]d."},
		"err.play.none":      {"シナリオ %s はまだ自由操作に対応していない。台本どおりに進めてほしい。", "Scenario %s has no free play yet: it plays as its script only."},
		"err.play.act":       {"操作 %q は、この時点で選べるもののなかに無い。", "The action %q is not among those that can happen at this point."},
	})
}
