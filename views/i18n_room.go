package views

// The words of the room's fair limits (web's answers, finder, saves and
// per-address bounds): what a visitor reads when a limit turns a request
// away, with how long to wait.
var roomWords = map[string][2]string{
	"err.answer.ticket":  {"答えは数えられなかった。答えは講義のページから、ページを開いた人 1 人につき 1 つ受け付ける。ページを再読み込みして、そこで答えてほしい。", "Your answer was not counted: answers are taken from the lecture's page, one per visitor. Reload the page and answer there."},
	"err.busy.title":     {"混み合っている", "Busy"},
	"err.find.busy.wait": {"探索が混み合っていて、あなたの探索は始められなかった。%d 秒ほどしてからもう一度試してほしい。この場面で一度済んだ探索なら、すぐに答えが出る。", "Too many searches are running or waiting, so yours was not started. Try again in %d s; a search already made from this frame is answered at once."},
	"err.save.busy":      {"シナリオの保存が混み合っている。%d 秒ほどしてからもう一度試してほしい。今いた手順はそのまま残っている。", "Too many scenarios are being saved at once. Try again in %d s: your place is kept."},
	"err.busy.addr":      {"このアドレスから同時に届いているリクエストが多すぎる。1 秒ほどしてからもう一度試してほしい。今いた手順はそのまま残っている。", "Too many requests from your address at once. Try again in a second: your place is kept."},
}
