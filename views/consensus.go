package views

import (
	"fmt"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/consensus"
)

// describeCoord puts a consensus service's event into a sentence.
func describeCoord(lang string, f demo.Frame, e demo.Event) (string, bool) {
	s := coordSentence(lang, f, e)
	return s, s != ""
}

func coordSentence(lang string, f demo.Frame, e demo.Event) string {
	sc := f.Scenario
	switch e := e.(type) {
	case consensus.Call:
		switch e.Op {
		case consensus.OpSession:
			return fmt.Sprintf(T(lang, "ev.session."+string(e.Store)), e.Client, Duration(sc, e.TTL), Duration(sc, e.Asked))
		case consensus.OpCreate:
			return fmt.Sprintf(T(lang, "ev.created"), e.Client, e.Created, e.Zxid)
		case consensus.OpTxnLock:
			return fmt.Sprintf(T(lang, "ev.created.etcd"), e.Client, e.Path, e.Zxid)
		case consensus.OpChildren:
			if e.Watch {
				return fmt.Sprintf(T(lang, "ev.read.watch"), e.Client, e.Path, len(e.Children))
			}
			return fmt.Sprintf(T(lang, "ev.read"), e.Client, e.Path, len(e.Children))
		case consensus.OpExists:
			return fmt.Sprintf(T(lang, "ev.read.exists"), e.Client, e.Path)
		case consensus.OpWaitDeletes:
			if e.Watch {
				return fmt.Sprintf(T(lang, "ev.read.etcd"), e.Client, e.Owner)
			}
			return fmt.Sprintf(T(lang, "ev.read.etcd.none"), e.Client)
		case consensus.OpDelete, consensus.OpRelease:
			return fmt.Sprintf(T(lang, "ev.deleted"), e.Client, e.Path)
		case consensus.OpAcquire:
			switch {
			case e.OK:
				return fmt.Sprintf(T(lang, "ev.kv-acquired"), e.Client, e.Path, e.Zxid)
			case e.DelayUntil > 0:
				return fmt.Sprintf(T(lang, "ev.kv-refused.delay"), e.Client, e.Path, Clock(sc, e.DelayUntil))
			}
			return fmt.Sprintf(T(lang, "ev.kv-refused"), e.Client, e.Path, e.Owner)
		case consensus.OpReconnect:
			if e.OK {
				return fmt.Sprintf(T(lang, "ev.session-alive"), e.Client)
			}
			return fmt.Sprintf(T(lang, "ev.session-lost."+string(e.Store)), e.Client)
		}
	case consensus.LockHeld:
		return fmt.Sprintf(T(lang, "ev.lock-held"), e.Client, e.Token)
	case consensus.WatchFired:
		return fmt.Sprintf(T(lang, "ev.watch-fired"), e.Client, e.Notice())
	case consensus.SessionEnded:
		s := fmt.Sprintf(T(lang, "ev.session-ended."+string(e.Store)), e.Client, Clock(sc, e.At))
		if e.DelayUntil > 0 {
			s += " " + fmt.Sprintf(T(lang, "coord.delay"), Clock(sc, e.DelayUntil))
		}
		return s
	}
	return ""
}

// consensusWords are the consensus panels' words.
var consensusWords = map[string][2]string{
	"coord.lane.zookeeper":       {"ZooKeeper", "ZooKeeper"},
	"coord.lane.etcd":            {"etcd", "etcd"},
	"coord.lane.consul":          {"Consul", "Consul"},
	"coord.zookeeper":            {"ZooKeeper (znode の木)", "ZooKeeper (the znode tree)"},
	"coord.etcd":                 {"etcd (キーとリース)", "etcd (keys and leases)"},
	"coord.consul":               {"Consul (セッションと KV)", "Consul (sessions and KV)"},
	"coord.counter.zookeeper":    {"zxid", "zxid"},
	"coord.counter.etcd":         {"revision", "revision"},
	"coord.counter.consul":       {"index", "index"},
	"coord.session.zookeeper":    {"セッション", "Session"},
	"coord.session.etcd":         {"リース", "Lease"},
	"coord.session.consul":       {"セッション", "Session"},
	"coord.server":               {"サーバーから見ると", "As the service sees it"},
	"coord.library":              {"ライブラリの報告", "The library reports"},
	"coord.alive":                {"有効 (タイムアウト %s、このままなら %s で終わる)", "alive (timeout %s; ends %s without a keep-alive)"},
	"coord.ended":                {"%s に終了", "ended %s"},
	"coord.tree":                 {"ノードとキー", "Nodes and keys"},
	"coord.ephemeral":            {"エフェメラル", "ephemeral"},
	"coord.delay":                {"lock-delay は %s まで", "lock-delay until %s"},
	"coord.counts":               {"watch の通知 %d 回、子一覧の読み出し %d 回。", "Watch notifications: %d. Reads of the queue: %d."},
	"ev.session.zookeeper":       {"%[1]s が接続: セッションタイムアウト %[2]s (%[3]s を要求)", "%[1]s connected: session timeout %[2]s (asked %[3]s)"},
	"ev.session.etcd":            {"%[1]s がリースを作成: TTL %[2]s", "%[1]s granted a lease: TTL %[2]s"},
	"ev.session.consul":          {"%[1]s がセッションを作成: TTL %[2]s", "%[1]s created a session: TTL %[2]s"},
	"ev.created":                 {"%[1]s がノード %[2]s を作成 (czxid %[3]d)", "%[1]s created %[2]s (czxid %[3]d)"},
	"ev.created.etcd":            {"%[1]s がキー %[2]s を作成 (作成リビジョン %[3]d)", "%[1]s created %[2]s (create revision %[3]d)"},
	"ev.read":                    {"%[1]s が %[2]s の子を読んだ (%[3]d 個)", "%[1]s read the children of %[2]s (%[3]d)"},
	"ev.read.watch":              {"%[1]s が %[2]s の子を読み、子の変化に watch を掛けた (%[3]d 個)", "%[1]s read the children of %[2]s (%[3]d) and left a watch on them"},
	"ev.read.exists":             {"%[1]s が 1 つ前のノード %[2]s に watch を掛けた", "%[1]s left a watch on the node before its own, %[2]s"},
	"ev.read.etcd":               {"%[1]s が自分より古いキー %[2]s の削除を Watch で待つ", "%[1]s watches for the deletion of the older key %[2]s"},
	"ev.read.etcd.none":          {"%[1]s より古いキーはもう無い", "no key older than %[1]s's is left"},
	"ev.deleted":                 {"%[1]s が %[2]s を消した (解放)", "%[1]s deleted %[2]s (released)"},
	"ev.kv-acquired":             {"%[1]s が %[2]s を取った (LockIndex %[3]d)", "%[1]s acquired %[2]s (LockIndex %[3]d)"},
	"ev.kv-refused":              {"%[1]s は %[2]s を取れない (%[3]s が保持中)", "%[1]s could not acquire %[2]s (%[3]s holds it)"},
	"ev.kv-refused.delay":        {"%[1]s は %[2]s を取れない: lock-delay が %[3]s まで続く", "%[1]s could not acquire %[2]s: lock-delay until %[3]s"},
	"ev.session-alive":           {"%s のセッションはまだ有効", "%s's session is still alive"},
	"ev.session-lost.zookeeper":  {"%s が再接続して Expired を受け取った: Curator は SUSPENDED のあと LOST を報告し、ようやくロックを失ったと知る", "%s reconnected and got Expired: Curator reports SUSPENDED, then LOST, and only now does it know it lost the lock"},
	"ev.session-lost.etcd":       {"%s の KeepAlive に TTL 0: リースは無い。Session.Done() が閉じ、ようやくロックを失ったと知る", "%s's KeepAlive got TTL 0: the lease is gone. Session.Done() closes, and only now does it know it lost the lock"},
	"ev.session-lost.consul":     {"%s のセッション更新に 404: セッションは無効。ようやくロックを失ったと知る", "%s's session renewal got 404: the session is gone, and only now does it know it lost the lock"},
	"ev.lock-held":               {"%[1]s がロックを持った: トークン %[2]d", "%[1]s holds the lock: token %[2]d"},
	"ev.watch-fired":             {"%[1]s の watch が一度だけ発火: %[2]s", "%[1]s's watch fired, once: %[2]s"},
	"ev.session-ended.zookeeper": {"%[1]s のセッションが %[2]s に失効: エフェメラルノードが消えた", "%[1]s's session expired at %[2]s: its ephemeral node is gone"},
	"ev.session-ended.etcd":      {"%[1]s のリースが %[2]s に失効: 付いていたキーが消えた", "%[1]s's lease expired at %[2]s: its key is gone"},
	"ev.session-ended.consul":    {"%[1]s のセッションが %[2]s に無効化: ロックが解放された", "%[1]s's session was invalidated at %[2]s: its lock is released"},
}

// coordChecked: ZooKeeper and etcd are replayed against their servers;
// Consul has no Debian package to check against.
func coordChecked(sc *demo.Scenario) string {
	switch sc.Store {
	case consensus.ZooKeeperStore:
		return "checked.zookeeper"
	case consensus.EtcdStore:
		return "checked.etcd"
	}
	return ""
}

// coordCost is what ZooKeeper's lock recipe cost the service: the watch
// notifications it delivered and the reads they caused (the herd's cost).
func coordCost(lang string, f demo.Frame) string {
	c, ok := consensus.Of(f)
	if !ok || c.Kind != consensus.ZooKeeperStore {
		return ""
	}
	return fmt.Sprintf(T(lang, "verdict.cost.zookeeper"), c.Notified, c.Reads)
}
