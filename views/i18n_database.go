package views

// Messages of the database scenarios: the connections and rows panel, the
// wait-for graph, the statements' sentences and the verdicts.
func init() {
	for k, v := range map[string][2]string{
		"checked.postgres.leases":                {"このシナリオの SQL と応答 (コマンドタグ、返る行、最後の行の値) は、両方のスイッチ位置で実物の PostgreSQL 15 に送って確かめてある。ロックサービスは章のコードそのもの。", "This scenario's SQL and replies (command tags, rows, the row's final values) are checked against real PostgreSQL 15, in both switch positions. The lock service is the chapter's own code."},
		"topology.database":                      {"データベースのロック (PostgreSQL)", "locks in the database (PostgreSQL)"},
		"db.connections":                         {"接続 (pg_stat_activity / pg_locks)", "Connections (pg_stat_activity / pg_locks)"},
		"db.conn":                                {"接続", "Connection"},
		"db.client":                              {"クライアント", "Client"},
		"db.state":                               {"状態", "State"},
		"db.holds":                               {"持っているロック", "Holds"},
		"db.waits":                               {"待っているロック", "Waiting for"},
		"db.next":                                {"返ってきたら送る文", "Sends next, once answered"},
		"db.pooled":                              {"(プール内)", "(in the pool)"},
		"db.graph":                               {"待ちグラフ (誰が誰を待つか)", "Wait-for graph (who waits for whom)"},
		"db.graph.desc":                          {"矢印は、その接続が相手の持つロックを待っていることを表す。矢印が輪になればデッドロック。", "An arrow means the connection waits for a lock the other one holds. A cycle of arrows is a deadlock."},
		"db.graph.none":                          {"誰も待っていない。", "Nobody is waiting."},
		"db.advisory":                            {"アドバイザリロック", "Advisory locks"},
		"db.advisory.free":                       {"空き", "free"},
		"db.advisory.held":                       {"%[1]s が保持 (セッション %[2]d 回、トランザクション %[3]d 回)", "held by %[1]s (session %[2]d, transaction %[3]d)"},
		"db.rows":                                {"テーブル", "Tables"},
		"db.rowversion":                          {"行の版", "row version"},
		"db.lockedby":                            {"行ロック", "row lock"},
		"db.uncommitted":                         {"未コミット", "uncommitted"},
		"db.waiting":                             {"ロック待ち", "waiting"},
		"db.via":                                 {" (%s 経由)", " (on %s)"},
		"db.waited":                              {" (%s 待った後)", " (after waiting %s)"},
		"db.state.idle":                          {"idle (待機中)", "idle"},
		"db.state.idle in transaction":           {"idle in transaction (トランザクション中)", "idle in transaction"},
		"db.state.active":                        {"active (ロック待ち)", "active (waiting for a lock)"},
		"db.state.idle in transaction (aborted)": {"idle in transaction (aborted: 失敗したトランザクション)", "idle in transaction (aborted)"},
		"ev.sql":                                 {"%[1]s%[2]s: %[3]s", "%[1]s%[2]s: %[3]s"},
		"ev.sql-waiting":                         {"%[1]s%[2]s: %[3]s のロックを待つ (持っているのは %[4]s)", "%[1]s%[2]s: waits for the lock on %[3]s, held by %[4]s"},
		"ev.sql-error":                           {"%[1]s%[2]s: ERROR (SQLSTATE %[3]s)", "%[1]s%[2]s: ERROR (SQLSTATE %[3]s)"},
		"ev.deadlock-check":                      {"%[1]s が deadlock_timeout を待ち終えて調べ、待ちの輪 %[2]s を見つけた。自分の文を中断する", "%[1]s has waited deadlock_timeout, looks, finds the cycle %[2]s, and aborts its own statement"},
		"verdict.lost-update":                    {"危険: %[1]s が %[3]s に %[2]s をコミットした。その計算の元になった読み取りは、%[4]s のコミット (%[5]s) より前のもので、%[4]s の変更は消えた。", "Unsafe: %[1]s committed %[2]s at %[3]s, computed from a read taken before %[4]s's commit (%[5]s). %[4]s's change is lost."},
		"verdict.deadlock.formed":                {"デッドロック: %[1]s と %[2]s が互いのロックを待っている (%[3]s から)。どちらも先へ進めない。PostgreSQL がこの輪に気づくのは、待ち始めて deadlock_timeout が過ぎたバックエンドが調べたときで、そのとき片方を ERROR 40P01 で中断する。", "Deadlock: %[1]s and %[2]s wait for each other's locks (from %[3]s), and neither can move. PostgreSQL finds the cycle only when a waiter has waited deadlock_timeout and looks; then it aborts one of them with ERROR 40P01."},
		"verdict.deadlock":                       {"デッドロック: %[1]s と %[2]s は %[3]s から互いのロックを待っていた。%[4]s に deadlock_timeout を待ち終えた検出がこの輪を見つけ、%[5]s のトランザクションを ERROR 40P01 で中断した。%[5]s はやり直しが要る。", "Deadlock: %[1]s and %[2]s waited for each other's locks from %[3]s. At %[4]s, after deadlock_timeout, the detector found the cycle and aborted %[5]s's transaction with ERROR 40P01. %[5]s has to start again."},
		"verdict.queued":                         {"非効率: %[1]s は %[3]s が持つ %[4]s のロックを %[2]s 待ったあげく、別の行を取った。ワーカーが 1 列に並んでいる。", "Wasted: %[1]s waited %[2]s for %[3]s's lock on %[4]s and then took a different row. The workers are running one after another."},
		"verdict.waits-on-itself":                {"行き詰まり: %[1]s は自分が別の接続で持っている %[2]s を待っている (%[3]s から)。デッドロック検出には見えない。", "Stuck: %[1]s waits for %[2]s, which it holds itself on another connection (from %[3]s). No deadlock detector can see it."},
		"verdict.safe.database":                  {"問題なし: 消えた更新も、中断されたトランザクションも、無駄な待ちも、同時に 2 人がロックを持ったこともない。", "Fine: no update was lost, no transaction was aborted, nobody waited for nothing, and no two clients held the lock at once."},
		"verdict.lost-update.short":              {"失われた更新", "lost update"},
		"verdict.deadlock.short":                 {"デッドロック", "deadlock"},
		"verdict.queued.short":                   {"待ち行列", "queued"},
		"verdict.waits-on-itself.short":          {"自分待ち", "waits on itself"},
	} {
		messages[k] = v
	}
}
