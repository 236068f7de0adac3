package redis

import "github.com/distlock/fencing-demo/demo"

// offers are the script's commands, by any client (they run the same code),
// what the world does to nodes in either position of the switch (a clock
// stepped where the operator chose to slew, a failover), any node going
// down and coming back, and time passing by each TTL the script asks for.
func offers(r *demo.Run) []demo.Offer {
	sc := r.Scenario()
	out := demo.ScriptOffers(r, true)
	for _, o := range out {
		switch a := o.Action.Args.(type) {
		case SetArgs:
			out = addTick(out, sc, a.PX)
		case TTLArgs:
			out = addTick(out, sc, a.PX)
		case RedlockArgs:
			out = addTick(out, sc, a.PX)
		}
	}
	// A node the script never takes down is beyond the lesson's world
	// (a restart loses every key without persistence, whatever the
	// switch): offered by hand, not searched.
	for _, v := range []demo.Verb{Down, Up} {
		for _, o := range demo.NodeOffers(sc, v, nil, "") {
			o.Beyond = true
			out = append(out, o)
		}
	}
	if sc.Store == ReplicatedStore {
		out = append(out, demo.Offer{
			Action: demo.Action{Who: "primary", Verb: Replicate, Source: "primary replicate"},
			Who:    "primary", Label: demo.Text{EN: "replicate", JA: "replicate"},
		})
		// The replica that acknowledged a WAIT may restart without
		// persistence and come back empty: the way around WAIT the docs
		// warn of, so the finder searches it in either position.
		out = append(out, demo.Offer{
			Action: demo.Action{Who: "replica", Verb: Restart, Source: "replica restart"},
			Who:    "replica", Label: demo.Text{EN: "restart", JA: "restart"},
		})
	}
	return dedupe(out)
}

func addTick(out []demo.Offer, sc *demo.Scenario, d int) []demo.Offer {
	if d > 0 {
		out = append(out, demo.TickOffer(sc, d))
	}
	return out
}

// dedupe keeps the first offer of each action.
func dedupe(in []demo.Offer) []demo.Offer {
	var out []demo.Offer
	seen := map[string]bool{}
	for _, o := range in {
		if !seen[o.Action.Source] {
			seen[o.Action.Source] = true
			out = append(out, o)
		}
	}
	return out
}

// narrate words the family's own world actions that the verb table's help
// says too loosely for a page; the rest take the table's wording.
func narrate(sc *demo.Scenario, a demo.Action) (demo.Narration, bool) {
	if a.Verb != Restart {
		return demo.Narration{}, false
	}
	n := a.Who
	if sc.Appendfsync == "always" {
		return demo.Narration{
			Title: demo.Text{EN: "The " + n + " restarts", JA: n + " が再起動する"},
			Text: demo.Text{
				EN: "The " + n + "'s process dies and starts again at once. It fsynced every write to its append-only file before it answered (appendfsync always), " +
					"so it comes back with every key it had. If its primary is up, it copies every key from it again (a full sync).",
				JA: n + " のプロセスが落ち、すぐに起動し直す。書き込みはどれも、応答する前に追記専用ファイルへ fsync してあった (appendfsync always) ので、" +
					"持っていたキーをすべて持って戻ってくる。プライマリが生きていれば、すべてのキーをもう一度写し取る (フル同期)。",
			},
		}, true
	}
	return demo.Narration{
		Title: demo.Text{EN: "The " + n + " restarts", JA: n + " が再起動する"},
		Text: demo.Text{
			EN: "The " + n + "'s process dies and starts again at once. It kept nothing on disk, so it comes back empty. " +
				"If its primary is up, it copies every key from it again (a full sync); if not, it stays empty, " +
				"whatever it had acknowledged to a WAIT before.",
			JA: n + " のプロセスが落ち、すぐに起動し直す。ディスクには何も残していないので、空で戻ってくる。" +
				"プライマリが生きていれば、すべてのキーをもう一度写し取る (フル同期)。生きていなければ空のままだ。" +
				"それまでに WAIT に対して受け取ったと応答した書き込みも残らない。",
		},
	}, true
}

// duty reports whether a is a renewal thread's call rather than its
// client's program's: the compare-and-renew script, or an EXPIRE on a key
// the client last set with a TTL of its own (SET ... PX), which can only
// renew it. An EXPIRE after SETNX gives the key its first TTL: that is
// taking the lock, the program's. (Redisson's watchdog renewal is a duty
// by its verb, which the store plays even while its client is paused.)
func duty(sc *demo.Scenario, on bool, a demo.Action) bool {
	switch a.Verb {
	case Extend:
		return true
	case Expire:
	default:
		return false
	}
	key, ttl := a.Args.(ExpireArgs).Key, false
	for _, m := range sc.Moves {
		for _, b := range m.Do {
			if b.Who != a.Who || b.Line >= a.Line || !b.PlaysWhen(on) {
				continue
			}
			switch x := b.Args.(type) {
			case SetArgs:
				if x.Key == key {
					ttl = x.PX > 0
				}
			case KeyArgs:
				if b.Verb == SetNX && x.Key == key {
					ttl = false
				}
			}
		}
	}
	return ttl
}
