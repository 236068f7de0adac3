package views

// Messages of the database scenarios: the connections and rows panel, the
// wait-for graph, the statements' sentences and the verdicts.
func init() {
	addWords(map[string][2]string{
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
		"topology.nolock":                        {"分散ロックを避ける方法: 本当にロックが必要か", "ways to avoid a distributed lock: do you need one at all?"},
		"ev.sql-refused":                         {"%[1]s: 接続を断られた (FATAL 53300、max_connections %[2]d がすべて使用中)", "%[1]s: connection refused (FATAL 53300: all %[2]d of max_connections in use)"},
		"ev.sql-closed":                          {"%[1]s が接続を閉じる", "%[1]s closes its connection"},
	})
}
