package demo

import (
	"fmt"
	"strconv"
	"strings"
)

// FreeNarration is the narration of a free-play frame, made from its action
// in both languages. Like a script's, it says what was done and never what
// came of it: the frame's events and verdict say that. A family may word its
// own verbs (Family.Narrate); the engine's verbs and time are worded here.
func FreeNarration(sc *Scenario, a Action) Narration {
	if n, ok := engineNarration(sc, a); ok {
		return n
	}
	if sc.Family.Narrate != nil {
		if n, ok := sc.Family.Narrate(sc, a); ok {
			return n
		}
	}
	return verbNarration(sc, a)
}

// engineNarration words time passing and what any client does alike.
func engineNarration(sc *Scenario, a Action) (Narration, bool) {
	c := a.Who
	switch a.Verb {
	case Tick:
		d := duration(sc, a.Args.(TickArgs).Forward)
		return Narration{
			Title: Text{EN: "Time passes", JA: "時間が進む"},
			Text:  Text{EN: "The clock moves " + d.EN + " forward.", JA: "時計が " + d.JA + " 進む。"},
		}, true
	case Pause:
		return Narration{
			Title: Text{EN: c + " stops for a pause", JA: c + " が停止する"},
			Text: Text{EN: c + "'s process stops, for a stop-the-world garbage collection say. While it is stopped, " + c + " sends nothing and notices nothing.",
				JA: c + " のプロセスが止まる (ストップ・ザ・ワールド型の GC など)。止まっている間、" + c + " は何も送らず、何にも気づかない。"},
		}, true
	case Resume:
		return Narration{
			Title: Text{EN: c + " wakes up", JA: c + " が再開する"},
			Text: Text{EN: c + " carries on where it stopped. It does not know it was stopped, and believes what it believed before.",
				JA: c + " は止まったところから続ける。止まっていたことを知らず、止まる前に信じていたことを今も信じている。"},
		}, true
	case Crash:
		return Narration{
			Title: Text{EN: c + " crashes", JA: c + " がクラッシュする"},
			Text:  Text{EN: c + "'s process dies and never comes back.", JA: c + " のプロセスが落ち、二度と戻らない。"},
		}, true
	case Check:
		m := duration(sc, a.Args.(CheckArgs).Margin)
		return Narration{
			Title: Text{EN: c + " checks its lease", JA: c + " がリースの残りを確かめる"},
			Text: Text{EN: fmt.Sprintf("%s reads how long its lease has left by its own clock, and gives the lock up unless more than %s is left.", c, m.EN),
				JA: fmt.Sprintf("%s は自分の時計でリースの残りを読み、%s より多く残っていなければロックをあきらめる。", c, m.JA)},
		}, true
	case Write:
		v := a.Args.(WriteArgs).Value
		return Narration{
			Title: Text{EN: c + " goes to write", JA: c + " が書き込みにいく"},
			Text: Text{EN: fmt.Sprintf("%s goes to write %q to %s, by what it believes about the lock.", c, v, sc.Resource),
				JA: fmt.Sprintf("%s はロックについて自分が信じていることに従い、%s に %q を書きにいく。", c, sc.Resource, v)},
		}, true
	}
	return Narration{}, false
}

// verbNarration words a family's verb from its table, for a family that
// has not worded it: the command as the script writes it, and its help.
func verbNarration(sc *Scenario, a Action) Narration {
	// A program's step is played written out (Run.Free): its words are
	// the statement's.
	said := strings.TrimPrefix(a.Source, a.Who+" ")
	spec, _ := sc.Family.Verb(sc.Store, a.Verb)
	if spec.Node {
		return Narration{
			Title: Text{EN: a.Who + ": " + string(a.Verb), JA: a.Who + ": " + string(a.Verb)},
			Text: Text{EN: fmt.Sprintf("On %s: %s (%s).", a.Who, said, spec.Help),
				JA: fmt.Sprintf("%s で「%s」が起きる。", a.Who, said)},
		}
	}
	return Narration{
		Title: Text{EN: a.Who + " sends " + string(a.Verb), JA: a.Who + " が " + string(a.Verb) + " を送る"},
		Text: Text{EN: fmt.Sprintf("%s sends “%s” (%s).", a.Who, said, spec.Help),
			JA: fmt.Sprintf("%s が「%s」を送る。", a.Who, said)},
	}
}

// duration is d in the scenario's unit, in both languages.
func duration(sc *Scenario, d int) Text {
	n := strconv.Itoa(d)
	if sc.Unit() == "ms" {
		return Text{EN: n + " ms", JA: n + " ms"}
	}
	if d == 1 {
		return Text{EN: "1 tick", JA: "1 ティック"}
	}
	return Text{EN: n + " ticks", JA: n + " ティック"}
}
