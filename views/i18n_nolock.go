package views

// Messages of the scenarios of the texts' pitfalls played on Redis and the
// lock service: a renewal that renews someone else's lock, a token counter
// that a failover rolls back, a lease too long to wait out, a Redlock node
// that forgets its keys.
var pitfallWords = map[string][2]string{
	"ev.incr":         {"%[1]s → %[2]s: カウンター %[3]s が %[4]d になった。これが %[1]s のトークン", "%[1]s → %[2]s: the counter %[3]s is now %[4]d, %[1]s's token"},
	"ev.incr.err":     {"%[1]s → %[2]s: %[3]s は数ではないので INCR はエラー", "%[1]s → %[2]s: %[3]s holds no number, so INCR is an error"},
	"restarted":       {"再起動", "restarted"},
	"ev.expire.other": {"%[1]s → %[2]s: %[3]s の期限を延長した。だがそれは %[4]s のロックだ", "%[1]s → %[2]s: renewed the TTL of %[3]s, which is %[4]s's lock"},
}
