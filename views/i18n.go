package views

// messages holds every fixed string of the screen in both languages, keyed by
// a short name. The narration lives in scenarios.yaml; this is the rest.
var messages = map[string][2]string{ // key -> {ja, en}
	"site":           {"分散ロックとフェンシングトークン", "Distributed locks and fencing tokens"},
	"site.desc":      {"リースとフェンシングトークンがなぜ要るかを 1 手ずつ確かめる対話型デモ。", "An interactive, step-by-step demo of why a distributed lock needs a lease and a fencing token."},
	"demo":           {"デモ", "Demo"},
	"scenarios":      {"シナリオ一覧", "All scenarios"},
	"lang.switch":    {"English", "日本語"},
	"lang.label":     {"言語", "Language"},
	"step":           {"1手すすめる", "Step"},
	"back":           {"戻る", "Back"},
	"reset":          {"リセット", "Reset"},
	"on":             {"有", "on"},
	"off":            {"無", "off"},
	"switch.fencing": {"フェンシング", "Fencing"},
	"controls":       {"操作", "Controls"},
	"frame":          {"手順", "Step"},
	"lockservice":    {"ロックサービス", "Lock service"},
	"holder":         {"持ち主", "Holder"},
	"free":           {"空き", "free"},
	"token":          {"発行トークン", "Issued token"},
	"lease":          {"リース失効", "Lease expiry"},
	"now":            {"現在", "now"},
	"resource":       {"資源", "Resource"},
	"fenced":         {"フェンシング有", "fencing on"},
	"unfenced":       {"フェンシング無", "fencing off"},
	"value":          {"値", "Value"},
	"empty":          {"(空)", "(empty)"},
	"maxtoken":       {"maxToken", "maxToken"},
	"rejected":       {"拒否した書き込み", "Rejected writes"},
	"clients":        {"クライアント", "Clients"},
	"running":        {"実行中", "running"},
	"paused":         {"GC 停止中", "paused (GC)"},
	"believes":       {"token %d を持っているつもり", "believes it holds token %d"},
	"nolock":         {"ロックを持っていない", "holds no lock"},
	"narration":      {"解説", "Narration"},
	"happened":       {"この手で起きたこと", "What this move did"},
	"lesson":         {"教訓", "The lesson"},
	"timeline":       {"時空図", "Space-time diagram"},
	"timeline.desc":  {"A、B、ロックサービス、資源の各レーンに、リース、GC 停止、書き込みの結果を時刻順に描く。", "Lanes for A, B, the lock service and the resource, showing leases, the GC pause and each write's outcome over time."},
	"log":            {"出来事の記録", "Event log"},
	"log.none":       {"まだ何も起きていない。", "Nothing has happened yet."},
	"expired":        {"失効", "expired"},
	"gc":             {"GC 停止", "GC pause"},
	"time":           {"時刻", "time"},

	"ev.acquired":        {"%s がロックを取得: token %d、リース失効 t=%d", "%s took the lock: token %d, lease until t=%d"},
	"ev.acquire-denied":  {"%s はロックを取れなかった (他が保持中)", "%s could not take the lock: someone holds it"},
	"ev.renewed":         {"%s がリースを延長: 失効 t=%d (token %d のまま)", "%s renewed its lease until t=%d (still token %d)"},
	"ev.renew-denied":    {"%s の延長は拒否: もう持ち主ではない", "%s could not renew: it is no longer the holder"},
	"ev.released":        {"%s がロックを解放", "%s released the lock"},
	"ev.release-ignored": {"%s の解放は無視された: 持ち主ではない", "%s tried to release a lock it does not hold: ignored"},
	"ev.expired":         {"%s のリースが t=%d で失効 (token %d)。ロックは空きに", "%s's lease ran out at t=%d (token %d); the lock is free"},
	"ev.accepted":        {"%[1]s が token %[3]d で %[2]q を書き込み: 受理 ✓", "%s wrote %q with token %d: accepted ✓"},
	"ev.rejected":        {"%[1]s が token %[3]d で %[2]q を書き込み: 拒否 ✗ (%[4]d < maxToken %[5]d)", "%s wrote %q with token %d: rejected ✗ (%d < maxToken %d)"},
	"ev.overwrote":       {"古い token %d の書き込みが新しい値 %q を上書きした: データ破壊", "a write with the old token %d overwrote the newer value %q: data destroyed"},
	"ev.paused":          {"%s が停止 (GC)", "%s stopped (GC pause)"},
	"ev.resumed":         {"%s が再開: まだロックを持っているつもり", "%s resumed, still believing it holds the lock"},

	"err.title":        {"エラー", "Error"},
	"err.continue":     {"デモに戻る", "Back to the demo"},
	"err.known":        {"あるシナリオ:", "Known scenarios:"},
	"err.notfound":     {"ページが見つからない", "Page not found"},
	"err.badrequest":   {"リクエストが正しくない", "Bad request"},
	"err.method":       {"このメソッドは使えない", "Method not allowed"},
	"err.toolarge":     {"リクエストが大きすぎる", "Request too large"},
	"err.internal":     {"サーバー内部のエラー", "Internal error"},
	"err.internal.msg": {"予期しないエラーが起きた。記録は残したので、もう一度試してほしい。", "Something unexpected went wrong. It has been logged; please try again."},
	"err.generic":      {"リクエストを処理できなかった", "The request could not be handled"},
}

// T returns the fixed string key in lang; an unknown key comes back as itself,
// which a test catches.
func T(lang, key string) string {
	m, ok := messages[key]
	if !ok {
		return key
	}
	if lang == "ja" {
		return m[0]
	}
	return m[1]
}

// Messages for bad input. Each is a format; the handler fills in the details.
func init() {
	for k, v := range map[string][2]string{
		"err.scenario":  {"シナリオ %q は無い。", "There is no scenario %q."},
		"err.page":      {"%s というページは無い。", "There is no page at %s."},
		"err.step":      {"step は 1 から %d までの整数で指定する。%q は使えない。", "step must be a whole number from 1 to %d; %q is not."},
		"err.switch":    {"%s は on か off で指定する。%q は使えない。", "%s must be on or off; %q is not."},
		"err.lang":      {"lang は ja か en で指定する。%q は使えない。", "lang must be ja or en; %q is not."},
		"err.run":       {"run %q は実行 ID の形をしていない (16 進 32 文字)。", "run %q is not a run id (32 hexadecimal characters)."},
		"err.action":    {"%q という操作は無い。使えるのは step、back、reset、switch。", "There is no action %q; the actions are step, back, reset and switch."},
		"err.form":      {"フォームを読めなかった。", "The form could not be read."},
		"err.methodmsg": {"%s %s は使えない。デモの操作はボタンから行う。", "%s is not allowed on %s; use the demo's buttons."},
		"err.body":      {"リクエストの本文が大きすぎる。", "The request body is too large."},
	} {
		messages[k] = v
	}
}
