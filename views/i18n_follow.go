package views

// Messages for following a lecture live: the lecturer's share box, the
// follower's page and its errors.
func init() {
	for k, v := range map[string][2]string{
		"follow.share":          {"受講者用のライブ画面を開く (講師の手順を追う)", "Open the live view for students (follow along)"},
		"follow.share.hint":     {"このリンクを開いた人には、手順を進めるたびにこの画面がそのまま映る。見るだけで、この実行を操作することはできない。", "Whoever opens this link sees this screen change as you step. They can only watch: they cannot drive your run."},
		"follow.qr":             {"スマートフォンで読み取ると、この画面をライブで追える。", "Scan to follow this screen live on your phone."},
		"follow.qr.alt":         {"ライブ画面へのリンクの QR コード", "QR code of the link to the live view"},
		"follow.live":           {"ライブ", "Live"},
		"follow.controls":       {"講師の画面を表示中", "Following the lecturer"},
		"follow.try":            {"ここから自分で試す", "Try it myself from here"},
		"follow.reload":         {"再読み込みして最新の手順を見る", "Reload for the latest step"},
		"follow.status.nojs":    {"講師の画面を表示している。JavaScript が無いと自動では更新されない。", "This is the lecturer's screen. Without JavaScript it does not update by itself."},
		"follow.status.live":    {"講師が手順を進めると、この画面も変わる。", "This screen changes as the lecturer steps."},
		"follow.status.lost":    {"接続が切れた。つなぎ直している…", "Connection lost. Reconnecting…"},
		"follow.status.ended":   {"この講義はもうライブではない。最後に映った手順を表示している。", "This lecture is no longer live. The last step shown stays on screen."},
		"follow.status.stopped": {"ライブ更新が止まった。再読み込みすると最新の手順が見られる。", "Live updates have stopped. Reload to see the latest step."},
		"err.follow.gone":       {"この講義はもうライブではない。講師の実行が終わったか、サーバーが再起動した。講師に新しいリンクをもらうか、下のシナリオを自分で開いてほしい。", "This lecture is no longer live: the lecturer's run has ended, or the server has restarted. Ask the lecturer for a new link, or open a scenario yourself below."},
		"err.follow.full":       {"この講義を見ている人が多すぎて、これ以上ライブでつなげない。再読み込みすると最新の手順が見られる。", "Too many people are following this lecture to take one more live connection. Reload the page to see the latest step."},
	} {
		messages[k] = v
	}
}
