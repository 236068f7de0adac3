package views

import (
	"fmt"
	"github.com/distlock/fencing-demo/demo"
)

// Assets are the fingerprinted addresses of the files under static/.
type Assets struct {
	CSS, HTMX, JS, Icon string
	Follow              string // follow.js, on a follower's page only
}

// Page is what every page shares: its language, title and where it lives.
type Page struct {
	Lang      string
	Title     string
	Assets    Assets
	Canonical string // this page's address, without the run
	Origin    string // scheme://host[:port] the site is reached at; "": unknown, and no rel=canonical
	OtherLang string // the same page in the other language
	Home      string // the site's front page and its scenario list;
	Index     string // "" leaves the link out
	Chrome    bool   // the site's header; off inside an iframe
	Present   bool   // presenter mode: large type, high contrast
}

// CanonicalURL is the page's absolute address, for rel=canonical: "" when
// the page has none or the server was not told where it is reached (a
// canonical address must be absolute, and a Host header is the visitor's
// word, not the site's).
func (p Page) CanonicalURL() string {
	if p.Origin == "" || p.Canonical == "" {
		return ""
	}
	return p.Origin + p.Canonical
}

// Demo is the view model of one frame of a scenario.
type Demo struct {
	Page
	Frame demo.Frame
	Here  Place
	Run   string // the visitor's run id; "" until the first click makes one
	// Follow is the address of this run's follow-along page, where others
	// watch it live; "" until the first click makes the run.
	Follow string
}

// Sc returns the scenario being shown.
func (d Demo) Sc() *demo.Scenario { return d.Frame.Scenario }

// SwitchLabel is the switch's name on screen.
func (d Demo) SwitchLabel() string { return d.Sc().SwitchLabel.In(d.Lang) }

// NoLease says that no lease has been granted yet: there is no expiry to
// show, only that nothing is held.
func NoLease(f demo.Frame) bool { return f.Holder == "" && f.Expiry == 0 }

// AboutFencing says whether the scenario is about fencing tokens, so the
// resource's token check (its state, maxToken, rejected writes) is worth
// showing; elsewhere the resource just stores what it is sent.
func AboutFencing(sc *demo.Scenario) bool { return sc.Fencing == "on" || sc.Fencing == "switch" }

// Changed says whether the frame's own move changed what (holder, token,
// expiry, value, rejected), so the page can draw the eye to it.
func Changed(f demo.Frame, what string) bool {
	for _, e := range f.Latest() {
		switch e := e.(type) {
		case demo.AcquireCall:
			if e.OK && (what == "holder" || what == "token" || what == "expiry") {
				return true
			}
		case demo.RenewCall:
			if e.OK && what == "expiry" {
				return true
			}
		case demo.ReleaseCall, demo.LeaseExpiry:
			if what == "holder" || what == "expiry" {
				return true
			}
		case demo.WriteResult:
			if e.OK && what == "value" || !e.OK && what == "rejected" {
				return true
			}
		}
	}
	return false
}

// Describe turns an event into a sentence for the "what this move did" list
// and the event log.
func Describe(lang string, f demo.Frame, e demo.Event) string {
	sc := f.Scenario
	key := "ev." + e.Kind().String()
	clock := func(t int) string { return Clock(sc, t) }
	h := e.Header()
	// ok picks the sentence for a command's answer.
	ok := func(yes bool, ok, no string) string {
		if yes {
			return key + ok
		}
		return key + no
	}
	if s, ok := describeSQL(lang, f, e); ok {
		return s
	}
	switch e := e.(type) {
	case demo.AcquireCall:
		if e.OK {
			return fmt.Sprintf(T(lang, key), e.Client, e.Token, clock(e.Expiry))
		}
	case demo.RenewCall:
		if e.OK {
			return fmt.Sprintf(T(lang, key), e.Client, clock(e.Expiry), e.Token)
		}
	case demo.LeaseExpiry:
		return fmt.Sprintf(T(lang, key), e.Client, clock(e.At), e.Token)
	case demo.WriteResult:
		if !e.OK {
			return fmt.Sprintf(T(lang, key), e.Client, e.Value, e.Token, e.Token, e.Max)
		}
		if e.Token == 0 {
			key += ".notoken"
		}
		s := fmt.Sprintf(T(lang, key), e.Client, e.Value, e.Token)
		if Stale(f, e) {
			s += " — " + fmt.Sprintf(T(lang, "ev.overwrote"), e.Before)
		}
		return s
	case demo.SetCommand:
		return fmt.Sprintf(T(lang, ok(e.OK, ".ok", ".nil")), e.Client, e.Node, e.Key)
	case demo.SetNXCommand:
		return fmt.Sprintf(T(lang, ok(e.OK, ".ok", ".nil")), e.Client, e.Node, e.Key)
	case demo.ExpireCommand:
		return fmt.Sprintf(T(lang, ok(e.OK, ".ok", ".no")), e.Client, e.Node, e.Key)
	case demo.DelCommand:
		return fmt.Sprintf(T(lang, ok(e.OK, ".ok", ".no")), e.Client, e.Node, e.Key)
	case demo.UnlockScript:
		return fmt.Sprintf(T(lang, ok(e.OK, ".ok", ".no")), e.Client, e.Node, e.Key)
	case demo.RenewScript:
		return fmt.Sprintf(T(lang, ok(e.OK, ".ok", ".no")), e.Client, e.Node, e.Key)
	case demo.WaitCommand:
		return fmt.Sprintf(T(lang, key), e.Client, e.Acked, e.Replicas)
	case demo.RedlockResult:
		q := e.Quorum
		return fmt.Sprintf(T(lang, key), e.Client, q.Locked, q.Need, q.TTL, q.Elapsed, q.Drift, q.Validity)
	case demo.KeyExpiry:
		return fmt.Sprintf(T(lang, key), e.Key, e.Node, ownerOf(lang, e.Client))
	case demo.NoAnswer:
		return fmt.Sprintf(T(lang, ok(e.Refused(), ".refused", ".timeout")), e.Client, e.Node)
	case demo.RedissonLock:
		if e.OK {
			return fmt.Sprintf(T(lang, key+".ok"), e.Client, e.Node, e.Key)
		}
		return fmt.Sprintf(T(lang, key+".held"), e.Client, e.Node, e.Key, Duration(sc, e.Left))
	case demo.RedissonRenew:
		return fmt.Sprintf(T(lang, ok(e.OK, ".ok", ".no")), e.Client, e.Node, e.Key)
	case demo.RedissonUnlock:
		switch {
		case !e.Found:
			key += ".nil"
		case e.Released:
			key += ".released"
		default:
			key += ".held"
		}
		return fmt.Sprintf(T(lang, key), e.Client, e.Node, e.Key)
	case demo.LatchDel:
		return fmt.Sprintf(T(lang, key), e.Client, e.Node)
	case demo.ClockSlewing:
		return fmt.Sprintf(T(lang, key), e.Node, e.Rate, Duration(sc, e.By))
	case demo.RetryDelay:
		return fmt.Sprintf(T(lang, key), e.Client, e.Delay, e.Max)
	case demo.BlockedWait:
		return fmt.Sprintf(T(lang, key), e.Client, e.Replicas)
	case demo.NodeChange:
		return fmt.Sprintf(T(lang, key), e.Node)
	case demo.Replication:
		return fmt.Sprintf(T(lang, key), e.Node, e.Shipped)
	case demo.ClockJumped:
		return fmt.Sprintf(T(lang, key), e.Node, Duration(sc, e.By))
	case demo.SkippedWrite:
		return fmt.Sprintf(T(lang, key), e.Client, e.Value)
	case demo.CoordCall, demo.LockHeld, demo.WatchFired, demo.SessionEnded:
		return describeCoord(lang, f, e)
	}
	return fmt.Sprintf(T(lang, key), h.Client)
}

func ownerOf(lang, client string) string {
	if client == "" {
		return "—"
	}
	return client
}

// Verdict is the frame's verdict in words: the heaviest of what the model
// found, with its evidence, or that mutual exclusion held.
func Verdict(lang string, f demo.Frame) string { return Violation(lang, f.Scenario, f.Verdict()) }

// Violation is one finding of the model in words.
func Violation(lang string, sc *demo.Scenario, v demo.Violation) string {
	if s, ok := verdictSQL(lang, sc, v); ok {
		return s
	}
	key := "verdict." + v.Kind.String()
	at := Clock(sc, v.At)
	switch v.Kind {
	case demo.MutualExclusionHeld:
		return T(lang, key)
	case demo.TwoHolders:
		return fmt.Sprintf(T(lang, key), v.Other, v.Client, at)
	case demo.StaleWrite:
		return fmt.Sprintf(T(lang, key), v.Client, at, v.Before, v.Value)
	case demo.Overlap:
		return fmt.Sprintf(T(lang, key), v.Client, v.Other, at)
	case demo.Contained:
		return fmt.Sprintf(T(lang, key), v.Client, v.Other, at, v.Token, v.Max)
	default:
		return fmt.Sprintf(T(lang, key), v.Client, at)
	}
}

// VerdictShort is a kind's name on the index and the diagram.
func VerdictShort(lang string, k demo.ViolationKind) string {
	return T(lang, "verdict."+k.String()+".short")
}

// VerdictMark is the sign a verdict of class c carries: a tick where mutual
// exclusion held or the resource contained the overlap, a warning sign
// otherwise.
func VerdictMark(c demo.Class) string {
	if c == demo.Held || c == demo.ContainedByResource {
		return "✓"
	}
	return "⚠"
}

// VerdictKinds lists every kind, lightest first, for the index's legend.
var VerdictKinds = []demo.ViolationKind{
	demo.MutualExclusionHeld, demo.Contained, demo.Overlap, demo.Stuck, demo.TwoHolders, demo.StaleWrite,
}

// WireReply is the answer a command got, for the screen: the protocol's own
// reply as it stands, or, when no answer came, what happened in lang.
func WireReply(lang string, e demo.Event) string {
	if n, ok := e.(demo.NoAnswer); ok {
		if n.Refused() {
			return T(lang, "wire.refused")
		}
		return fmt.Sprintf(T(lang, "wire.timeout"), n.Waited)
	}
	_, reply := e.Wire()
	return reply
}

// Believes is a client's belief in words.
func Believes(lang string, sc *demo.Scenario, c demo.Client) string {
	switch {
	case c.Crashed:
		return T(lang, "dead")
	case !c.Holds:
		return T(lang, "nolock")
	case c.Token > 0:
		return fmt.Sprintf(T(lang, "believes"), c.Token)
	case c.Until < 0:
		return T(lang, "believes.forever")
	}
	return fmt.Sprintf(T(lang, "believes.until"), Clock(sc, c.Until))
}

// TTL is a key's time left in words.
func TTL(lang string, sc *demo.Scenario, ttl int) string {
	if ttl < 0 {
		return T(lang, "ttl.none")
	}
	return Duration(sc, ttl)
}

// ErrorPage is the view model of an error: what went wrong, in words meant
// for the visitor, and where to go on from here.
type ErrorPage struct {
	Page
	Status   int
	Heading  string
	Message  string
	Continue string   // where the visitor was, or the start
	Known    []string // scenario ids, on a 404
}

// Short cuts a lock's random value for the screen.
func Short(v string) string { return demo.Short(v) }

func verdictKind(d Demo) string { return d.Frame.Verdict().Kind.String() }

// Stale reports whether an accepted write is one the verdict found stale:
// it landed after the writer's lock had run out.
func Stale(f demo.Frame, ev demo.Event) bool {
	e, ok := ev.(demo.WriteResult)
	if !ok || !e.OK {
		return false
	}
	for _, v := range f.Violations {
		if v.Kind == demo.StaleWrite && v.Client == e.Client && v.At == e.At {
			return true
		}
	}
	return false
}

func clientIndexOf(d Demo, name string) int { return clientIndex(d.Sc(), name) }

// EmbedSnippet is the iframe a textbook pastes to embed a frame. The address
// is made absolute by app.js, which knows the host the visitor sees.
func EmbedSnippet(src, title string) string {
	return `<iframe src="` + src + `" title="` + title + `" width="100%" height="760" style="border:0" loading="lazy"></iframe>`
}

// FrameTitle is a frame's page title: the scenario, where the frame stands in
// it, and the site.
func FrameTitle(f demo.Frame, lang string) string {
	return fmt.Sprintf("%s %d/%d · %s", f.Scenario.Title.In(lang), f.Index, f.Total, T(lang, "site"))
}

// CheckedKey names the line that says which real server sc's commands and
// replies were checked against (checked.redis, checked.postgres, ...), or ""
// where nothing checks them. Each key stands for a conformance suite under
// demo/conformance that replays the scenario against Debian bookworm's server
// of that version and fails for a scenario of its family it does not play.
// The lock service speaks the chapter's own API, and Consul has no Debian
// package to check against, so neither says anything.
func CheckedKey(sc *demo.Scenario) string {
	switch sc.Store {
	case demo.RedisStore, demo.ReplicatedStore, demo.RedlockStore:
		if jumpsClock(sc) {
			return "checked.redis.jump"
		}
		return "checked.redis"
	case demo.DatabaseStore:
		if sc.UsesLockService() {
			return "checked.postgres.leases" // the lock service is the chapter's own code
		}
		return "checked.postgres"
	case demo.ZooKeeperStore:
		return "checked.zookeeper"
	case demo.EtcdStore:
		return "checked.etcd"
	}
	return ""
}

// jumpsClock reports whether a move of sc steps a node's wall clock: no
// Debian redis-server can be given a jumped clock here (libfaketime clashes
// with its jemalloc), so the suite plays the jump by moving the keys'
// absolute expiry times, and the page says so.
func jumpsClock(sc *demo.Scenario) bool {
	for _, m := range sc.Moves {
		for _, a := range m.Do {
			if a.Verb == demo.Jump {
				return true
			}
		}
	}
	return false
}
