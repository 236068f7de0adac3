package views

// Messages of the scenarios of the texts' pitfalls played on Redis and the
// lock service: a renewal that renews someone else's lock, a token counter
// that a failover rolls back, a lease too long to wait out, a Redlock node
// that forgets its keys.
func init() {
	addWords(map[string][2]string{
		"ev.incr":                    {"%[1]s → %[2]s: カウンター %[3]s が %[4]d になった。これが %[1]s のトークン", "%[1]s → %[2]s: the counter %[3]s is now %[4]d, %[1]s's token"},
		"ev.incr.err":                {"%[1]s → %[2]s: %[3]s は数ではないので INCR はエラー", "%[1]s → %[2]s: %[3]s holds no number, so INCR is an error"},
		"verdict.token-reused":       {"同じトークン: %[1]s は %[2]s にトークン %[3]d でロックを取ったが、その番号は %[4]s がすでに受け取っていた。資源には 2 人の見分けがつかず、どちらの書き込みも受け取る。", "Token reused: %[1]s took the lock at %[2]s with token %[3]d, which %[4]s had been given already. The resource cannot tell the two apart and takes the writes of both."},
		"verdict.token-reused.short": {"同じトークン", "token reused"},
		"legend.token-reused":        {"同じフェンシングトークンが 2 つのクライアントに渡った。資源の検査では防げない。", "One fencing token was given to two clients; no check at the resource can tell them apart."},
		"verdict.dead-holder":        {"死んだ持ち主: %[1]s は %[2]s にロックを断られた。持ち主の %[3]s は %[4]s にクラッシュしていたが、そのリースは %[5]s まで続く。それまで誰もロックを取れない。", "Dead holder: %[1]s was turned away at %[2]s. Its holder %[3]s had crashed at %[4]s, but its lease runs to %[5]s, and until then nobody can take the lock."},
		"verdict.dead-holder.short":  {"死んだ持ち主", "dead holder"},
		"legend.dead-holder":         {"クラッシュした持ち主のリースが切れるまで、ほかのクライアントがロックを断られた。データは壊れないが、時間を失う。", "A client was refused the lock while its holder was dead, until the holder's lease ran out: no data is lost, only time."},
		"restarted":                  {"再起動", "restarted"},
		"ev.expire.other":            {"%[1]s → %[2]s: %[3]s の期限を延長した。だがそれは %[4]s のロックだ", "%[1]s → %[2]s: renewed the TTL of %[3]s, which is %[4]s's lock"},
	})
}
