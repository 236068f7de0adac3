package demo_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	. "github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// The chapter's story played by hand from the first frame, with fencing
// off, ends in the stale write its script shows; every free-play frame
// numbers itself after the scripted one and is the latest.
func TestFreePlayGCPauseByHand(t *testing.T) {
	sc, _ := testkit.Catalog(t).Get("gc-pause")
	p := Place{Sc: sc, On: false, Step: 1}
	for _, line := range []string{"A acquire 10", "A pause", "tick 10", "B acquire 10", "B write B", "A resume", "A write A"} {
		a, err := ParseFree(sc, line)
		if err != nil {
			t.Fatalf("ParseFree(%q): %v", line, err)
		}
		p = p.Then(a)
	}
	f, err := p.Frame()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.Index, 8; got != want {
		t.Errorf("index=%d, want %d", got, want)
	}
	if f.Total != f.Index || f.Free != 7 || f.Last() {
		t.Errorf("total=%d free=%d last=%v, want the latest free-play frame, not the script's last", f.Total, f.Free, f.Last())
	}
	if got, want := f.Verdict().Kind, StaleWrite; got != want {
		t.Errorf("verdict=%v, want %v", got, want)
	}
	if got := f.Narration.Text.EN; !strings.Contains(got, `"A"`) || !strings.Contains(f.Narration.Text.JA, "row-42") {
		t.Errorf("narration %q / %q does not say what A writes where", got, f.Narration.Text.JA)
	}
	if back := p.Back(); strings.Count(back.Play, "\n") != 5 {
		t.Errorf("Back left %q", back.Play)
	}
	if s := p.Back().Back().Back().Back().Back().Back().Back(); s != (Place{Sc: sc, Step: 1}) {
		t.Errorf("Back to the start = %+v, want the scripted place", s)
	}
}

// A history keeps its valid prefix and names the first action that cannot
// be played, and why.
func TestParseHistoryStopsAtFirstImpossible(t *testing.T) {
	sc, _ := testkit.Catalog(t).Get("gc-pause")
	valid, err := ParseHistory(sc, true, 1, "A acquire 10\nA pause\nA write A\ntick 1")
	var he *HistoryError
	if !errors.As(err, &he) {
		t.Fatalf("err=%v, want a *HistoryError", err)
	}
	if valid != 2 || he.Index != 3 || !strings.Contains(err.Error(), "paused") {
		t.Errorf("valid=%d index=%d err=%v, want 2 valid and the paused write named", valid, he.Index, err)
	}
	for _, bad := range []string{"A fly", "tick x", "Z acquire 1", "A stmt 99", strings.Repeat("x", 500)} {
		if _, err := ParseHistory(sc, true, 1, bad); err == nil {
			t.Errorf("ParseHistory(%q) took it", bad)
		}
	}
}

// Offers say why a paused client can do nothing, in both languages, and
// every family of the catalog offers something in every position from
// every frame; 40 actions of any family's offers fit in an address.
func TestOffers(t *testing.T) {
	c := testkit.Catalog(t)
	sc, _ := c.Get("gc-pause")
	p := Place{Sc: sc, On: true, Step: 3} // A is paused
	offers, err := p.Offers()
	if err != nil {
		t.Fatal(err)
	}
	var write Offer
	for _, o := range offers {
		if o.Action.Source == "A write A" {
			write = o
		}
	}
	if write.Enabled() || !strings.Contains(write.Why.EN, "A is paused") || !strings.Contains(write.Why.JA, "停止中") {
		t.Errorf("A's write while paused: %+v, want disabled with the reason", write)
	}
	for _, sc := range c.Scenarios {
		for _, on := range []bool{false, true} {
			for step := 1; step <= sc.Frames(); step++ {
				offers, err := Place{Sc: sc, On: on, Step: step}.Offers()
				if err != nil || len(offers) == 0 {
					t.Fatalf("%s: offers=%d, %v", testkit.Name(sc, on), len(offers), err)
				}
				for _, o := range offers {
					if len(o.Action.Source) > 40 {
						t.Errorf("%s: %q is too long for an address", sc.ID, o.Action.Source)
					}
					if o.Label.EN == "" || o.Label.JA == "" {
						t.Errorf("%s: %q has no label", sc.ID, o.Action.Source)
					}
					if _, err := ParseFree(sc, o.Action.Source); err != nil {
						t.Errorf("%s: offer %q does not read back: %v", sc.ID, o.Action.Source, err)
					}
				}
			}
		}
	}
}

// A free-play call to the lock service is told in the chapter's words, in
// both languages, saying what was asked and not what came of it.
func TestFreeNarrationOfACall(t *testing.T) {
	sc, _ := testkit.Catalog(t).Get("gc-pause")
	a, err := ParseFree(sc, "B acquire 10")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Place{Sc: sc, Step: 2}.Then(a).Frame() // A holds the lock: B is refused
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.Narration.Title.EN, "B asks for the lock"; got != want {
		t.Errorf("title=%q, want %q", got, want)
	}
	if !strings.Contains(f.Narration.Text.JA, "リース 10") || strings.Contains(f.Narration.Text.EN, "takes") {
		t.Errorf("narration %q / %q", f.Narration.Text.EN, f.Narration.Text.JA)
	}
}

// A page never offers a button that can only answer an error: every offer
// shown enabled, on every frame of every scenario in both positions, plays.
func TestEnabledOffersPlay(t *testing.T) {
	for _, sc := range testkit.Catalog(t).Scenarios {
		for _, on := range []bool{false, true} {
			for step := 1; step <= sc.Frames(); step++ {
				p := Place{Sc: sc, On: on, Step: step}
				offers, err := p.Offers()
				if err != nil {
					t.Fatalf("%s frame %d: %v", testkit.Name(sc, on), step, err)
				}
				for _, o := range offers {
					if !o.Enabled() {
						continue
					}
					if _, err := p.Then(o.Action).Frame(); err != nil {
						t.Errorf("%s frame %d: %q is offered, but playing it fails: %v", testkit.Name(sc, on), step, o.Action.Source, err)
					}
				}
			}
		}
	}
}

// The chapter's Renew is offered where the lock service lends the lock,
// for every lease the script asks for, though no script of the lesson
// renews: the holder that renews keeps its lease, the token unchanged.
func TestRenewIsOffered(t *testing.T) {
	sc := testkit.Scenario(t, "lease-length")
	p := Place{Sc: sc, On: false, Step: 2} // A holds the lock with a lease of 10, from t=0
	renew := mustOffer(t, p, "A renew 10")
	if !renew.Enabled() {
		t.Fatalf("A's renew while it holds the lock: %+v, want enabled", renew)
	}
	if b := mustOffer(t, p, "B renew 10"); !b.Enabled() {
		t.Errorf("B's renew is not offered as a call B may make: %+v", b)
	}
	f, err := p.Then(renew.Action).Frame()
	if err != nil {
		t.Fatal(err)
	}
	a := f.Clients[0]
	if !a.Holds || a.Token != 1 || a.Until != f.Now+10 {
		t.Errorf("after Renew(A, 10) at %d: A holds=%v token=%d until=%d, want token 1 until %d", f.Now, a.Holds, a.Token, a.Until, f.Now+10)
	}
	if f.Narration.Title.EN != "A asks to renew its lease" {
		t.Errorf("narration %q", f.Narration.Title.EN)
	}
	// fencing-sql takes the lock service beside the database: Renew too.
	mustOffer(t, Place{Sc: testkit.Scenario(t, "fencing-sql"), Step: 2}, "A renew 10000")
}

// A paused process can be killed, and its host can die: crash is offered
// to a paused client, and the crash ends its pause.
func TestCrashWhilePaused(t *testing.T) {
	sc := testkit.Scenario(t, "gc-pause")
	p := Place{Sc: sc, On: true, Step: 3} // A is paused, holding the lock
	crash := mustOffer(t, p, "A crash")
	if !crash.Enabled() {
		t.Fatalf("A's crash while paused: %+v, want enabled", crash)
	}
	f, err := p.Then(crash.Action).Frame()
	if err != nil {
		t.Fatal(err)
	}
	if a := f.Clients[0]; !a.Crashed || a.Paused || a.Holds {
		t.Errorf("A after its crash: %+v, want crashed, neither paused nor holding", a)
	}
	for _, s := range f.Timeline().Pauses {
		if s.Open || s.To != f.Now {
			t.Errorf("A's pause %+v runs on past its crash at %d", s, f.Now)
		}
	}
}

// A store that keeps the data itself (a database's tables, an account, a
// partition) is never offered the engine's write, which would change a
// resource that nothing shows, and a history that writes is refused.
func TestNoEngineWriteWhereTheStoreOwnsTheData(t *testing.T) {
	owners := 0
	for _, sc := range testkit.Catalog(t).Scenarios {
		if !sc.Family.OwnsResource {
			continue
		}
		owners++
		for _, on := range []bool{false, true} {
			for step := 1; step <= sc.Frames(); step++ {
				offers, err := Place{Sc: sc, On: on, Step: step}.Offers()
				if err != nil {
					t.Fatal(err)
				}
				for _, o := range offers {
					if o.Action.Verb == Write {
						t.Errorf("%s frame %d offers %q", testkit.Name(sc, on), step, o.Action.Source)
					}
				}
			}
		}
		w := sc.Clients[0] + " write " + sc.Clients[0]
		if _, err := ParseHistory(sc, false, 1, w); err == nil || !strings.Contains(err.Error(), "keeps the data itself") {
			t.Errorf("%s: %q played: %v", sc.ID, w, err)
		}
	}
	if owners < 4 {
		t.Errorf("%d scenarios own their data, want the database's, event-log's and single-owner's", owners)
	}
}

// offerSaying is who's offer at p whose button says says.
func offerSaying(t *testing.T, p Place, who, says string) Offer {
	t.Helper()
	offers, err := p.Offers()
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range offers {
		if o.Who == who && o.Label.EN == says {
			return o
		}
	}
	t.Fatalf("%s frame %d: %s is offered no %q", p.Sc.ID, p.Step, who, says)
	return Offer{}
}

// mustOffer is the offer whose action is src at p.
func mustOffer(t *testing.T, p Place, src string) Offer {
	t.Helper()
	offers, err := p.Offers()
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range offers {
		if o.Action.Source == src {
			return o
		}
	}
	var all []string
	for _, o := range offers {
		all = append(all, o.Action.Source)
	}
	t.Fatalf("%s frame %d: no offer %q among %q", p.Sc.ID, p.Step, src, all)
	return Offer{}
}

// A database client's free play is the steps of its program, which each
// position spells its own way: lost-update played by hand with FOR UPDATE
// on holds, and the same history with the switch off, the same steps with
// plain SELECTs, loses B's update, as docs/freeplay.md promises.
func TestProgramStepsFollowTheSwitch(t *testing.T) {
	sc := testkit.Scenario(t, "lost-update")
	on := Place{Sc: sc, On: true, Step: 1}
	// Each button a student clicks, by what it says.
	for _, click := range []struct{ who, says string }{
		{"A", "sql BEGIN"}, {"A", "sql SELECT balance FROM accounts WHERE id = 1 FOR UPDATE"},
		{"B", "sql BEGIN"}, {"B", "sql SELECT balance FROM accounts WHERE id = 1 FOR UPDATE"},
		{"A", "sql UPDATE accounts SET balance = $balance - 30 WHERE id = 1"}, {"A", "sql COMMIT"},
		{"B", "sql UPDATE accounts SET balance = $balance - 50 WHERE id = 1"}, {"B", "sql COMMIT"},
	} {
		on = on.Then(offerSaying(t, on, click.who, click.says).Action)
	}
	for _, tt := range []struct {
		p     Place
		query string
		want  ViolationKind
	}{
		{on, "SELECT balance FROM accounts WHERE id = 1 FOR UPDATE", MutualExclusionHeld},
		{on.Switched(), "SELECT balance FROM accounts WHERE id = 1", LostUpdate},
	} {
		f, err := tt.p.Frame()
		if err != nil {
			t.Fatal(err)
		}
		var sent []string
		for _, e := range f.Events {
			if call, _ := e.Wire(); strings.HasPrefix(call, "SELECT") {
				sent = append(sent, call)
			}
		}
		if len(sent) < 2 || slices.ContainsFunc(sent, func(s string) bool { return s != tt.query }) {
			t.Errorf("%s %s: the SELECTs sent are %q, want A's and B's %q", sc.Switch, OnOff(tt.p.On), sent, tt.query)
		}
		if got := f.Verdict().Kind; got != tt.want {
			t.Errorf("%s %s: verdict %v, want %v", sc.Switch, OnOff(tt.p.On), got, tt.want)
		}
		if got := f.Narration.Text.EN; !strings.Contains(got, "COMMIT") {
			t.Errorf("%s %s: the last move's narration %q does not say the statement", sc.Switch, OnOff(tt.p.On), got)
		}
	}
	// The offers name the steps, and say them in their position's words.
	if o := mustOffer(t, Place{Sc: sc, On: false, Step: 1}, "A step 2"); o.Label.EN != "sql SELECT balance FROM accounts WHERE id = 1" {
		t.Errorf("A's step 2 with the switch off is labelled %q", o.Label.EN)
	}
	if got := Spell(sc, true, "B step 2"); got != "B sql SELECT balance FROM accounts WHERE id = 1 FOR UPDATE" {
		t.Errorf("B's step 2 with the switch on is spelled %q", got)
	}
}

// An address written before program steps named a statement by its number
// among the scenario's ("A stmt 2"): it still plays, as the step of the
// client's program that says it; switched, that step is the other
// position's. A statement the client's program never says is refused.
func TestOldStatementLinks(t *testing.T) {
	sc := testkit.Scenario(t, "lost-update")
	old := "A stmt 1\nA stmt 2" // BEGIN, then the SELECT without FOR UPDATE
	for _, on := range []bool{false, true} {
		f, err := Place{Sc: sc, On: on, Step: 1, Play: old}.Frame()
		if err != nil {
			t.Fatalf("%s: %v", OnOff(on), err)
		}
		call, _ := f.Latest()[0].Wire()
		if want := Spell(sc, on, "A step 2"); "A sql "+call != want {
			t.Errorf("%s: an old link's \"A stmt 2\" sent %q, want A's step 2, %q", OnOff(on), call, want)
		}
	}
	valid, err := ParseHistory(sc, false, 1, "A stmt 1\nA stmt 6") // B's UPDATE, which A never sends
	if valid != 1 || err == nil || !strings.Contains(err.Error(), "never says statement 6") {
		t.Errorf("valid=%d err=%v, want the first action kept and the second refused for what it is", valid, err)
	}
	if _, err := ParseHistory(sc, false, 1, "A step 5"); err == nil || !strings.Contains(err.Error(), "steps 1 to 4") {
		t.Errorf("A step 5: %v, want refused: A's program has four steps", err)
	}
}
