package demo

import (
	"fmt"
	"strconv"
	"strings"
)

// Property is a promise a scenario's switch is about: the finder looks for
// the shortest history that breaks it. Each is one of the verdict's kinds
// of violation, sometimes narrowed to the case the lesson means.
type Property struct {
	Name string
	Says Text // the promise, for a page and the check command
	Kind ViolationKind
	// Match narrows Kind, with every holding of the run to judge by; nil:
	// every violation of Kind breaks the promise.
	Match func(v Violation, holdings []Holding) bool
}

// Breaks reports whether v, found in a run with these holdings, breaks the
// promise.
func (p Property) Breaks(v Violation, holdings []Holding) bool {
	return v.Kind == p.Kind && (p.Match == nil || p.Match(v, holdings))
}

// overwroteNewer reports whether a stale write destroyed the data of a
// holder newer than the writer: one whose hold began after the writer's
// last one did. A late write over an older holder's value, or its own,
// breaks no one's work, nor one over the empty resource the stage set up
// (a database's row inserted by the setup names a client as its writer);
// over a newer holder's data it is the chapter's harm.
func overwroteNewer(v Violation, holdings []Holding) bool {
	if v.Before == "" {
		return false
	}
	mine := -1
	for _, h := range holdings {
		if h.Client == v.Client && h.From <= v.At {
			mine = h.From
		}
	}
	for _, h := range holdings {
		if h.Client == v.Other && h.From > mine && h.From <= v.At {
			return true
		}
	}
	return false
}

// Properties are the promises a scenario may name in its property field.
var Properties = []Property{
	{Name: "no-stale-write", Kind: StaleWrite,
		Says: Text{EN: "no late write from an expired holder lands over another holder's data",
			JA: "期限切れの持ち主の出遅れた書き込みが、ほかの持ち主のデータを上書きしない"},
		Match: overwroteNewer},
	{Name: "no-two-holders", Kind: TwoHolders,
		Says: Text{EN: "two clients never hold the lock at once, each within its lease",
			JA: "二つのクライアントが同時に、それぞれ期限内でロックを持つことはない"}},
	{Name: "never-stuck", Kind: Stuck,
		Says: Text{EN: "the lock is never stuck for ever with a dead holder",
			JA: "死んだ持ち主のためにロックが永久に取れなくなることはない"}},
	{Name: "no-lost-update", Kind: LostUpdate,
		Says: Text{EN: "no committed update is lost", JA: "コミットした更新が失われない"}},
	{Name: "no-deadlock", Kind: Deadlock,
		Says: Text{EN: "transactions never wait for each other in a cycle", JA: "トランザクションが互いを循環して待つことはない"}},
	{Name: "no-queue", Kind: QueuedBehind,
		Says: Text{EN: "no worker waits for a row it then does not take", JA: "ワーカーが、結局取らない行のために待たされない"}},
	{Name: "no-self-wait", Kind: WaitsOnItself,
		Says: Text{EN: "no client waits for a lock it holds itself", JA: "クライアントが自分の持つロックを待つことはない"}},
	{Name: "no-stale-owner", Kind: StaleOwner,
		Says: Text{EN: "no write from a partition's former owner lands", JA: "パーティションの元の持ち主の書き込みが通らない"}},
	{Name: "no-overlap", Kind: Overlap,
		Says: Text{EN: "no client still believes it holds the lock once another holds it",
			JA: "ほかのクライアントが持ったあとも、自分がロックを持っていると思い込むクライアントはいない"}},
	{Name: "no-token-reuse", Kind: TokenReused,
		Says: Text{EN: "no fencing token is handed out twice", JA: "同じフェンシングトークンが二度渡されることはない"}},
	{Name: "no-oversell", Kind: Oversold,
		Says: Text{EN: "no order takes the stock below zero", JA: "注文が在庫を 0 未満にすることはない"}},
	{Name: "charged-once", Kind: ChargedTwice,
		Says: Text{EN: "a payment that is retried is charged once", JA: "再試行した支払いが二度請求されることはない"}},
	{Name: "no-spread", Kind: TooManyClients,
		Says: Text{EN: "no request is refused a connection while others hold theirs waiting for a lock",
			JA: "ロックを待つ接続のせいで、ほかの要求が接続を断られることはない"},
		Match: func(v Violation, _ []Holding) bool { return v.Before != "" }},
}

// PropertyNamed returns the property called name.
func PropertyNamed(name string) (Property, bool) {
	for _, p := range Properties {
		if p.Name == name {
			return p, true
		}
	}
	return Property{}, false
}

// Expectation is what the finder must find from a scenario's first frame
// in one position, as scenarios.yaml writes it: "violation in N" (the
// shortest history breaking the property has N actions) or "none within D"
// (no history of up to D actions breaks it).
type Expectation struct {
	Found bool
	N     int // the trace's length, or the depth searched
}

func (e Expectation) String() string {
	if e.Found {
		return "violation in " + strconv.Itoa(e.N)
	}
	return "none within " + strconv.Itoa(e.N)
}

// ParseExpectation reads an expectation.
func ParseExpectation(s string) (Expectation, error) {
	f := strings.Fields(s)
	if len(f) == 3 && (f[0] == "violation" && f[1] == "in" || f[0] == "none" && f[1] == "within") {
		if n, err := strconv.Atoi(f[2]); err == nil && n >= 0 && n <= 20 {
			return Expectation{Found: f[0] == "violation", N: n}, nil
		}
	}
	return Expectation{}, fmt.Errorf(`expect %q: want "violation in N" or "none within D", N and D from 0 to 20`, s)
}
