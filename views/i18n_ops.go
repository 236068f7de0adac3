package views

// Messages for the server's own limits, kept apart from the screen's strings.
func init() {
	for k, v := range map[string][2]string{
		"err.toomany": {"リクエストが多すぎる", "Too many requests"},
		"err.rate":    {"このアドレスから新しい実行が短い間に多く作られた。%d 秒ほど待ってから続けてほしい。今いた手順はそのまま残っている。", "Too many new runs were started from your address just now. Please wait about %d seconds and carry on: your place is kept."},
	} {
		messages[k] = v
	}
}
