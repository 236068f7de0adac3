package demo_test

import (
	"fmt"
	"strings"

	. "github.com/distlock/fencing-demo/demo"
)

// What the transcripts add for the consensus services: the counter a call
// left behind, the happenings no client sent, and the service's state.

func coordNote(e CoordCall) string {
	switch {
	case e.Op == OpCreate && e.Created != "":
		return fmt.Sprintf(", czxid 0x%x", e.Zxid)
	case e.Op == OpSession && e.Store == ZooKeeperStore:
		return fmt.Sprintf(" (asked %d ms; negotiated into [2, 20] tickTime)", e.Asked)
	case e.Op == OpAcquire && e.OK:
		return fmt.Sprintf(", LockIndex %d", e.Zxid)
	case e.Op == OpAcquire && e.DelayUntil > 0:
		return fmt.Sprintf(" (lock-delay until t=%dms)", e.DelayUntil)
	case e.Op == OpAcquire && e.Owner != "":
		return " (held by " + e.Owner + ")"
	case e.Op == OpReconnect:
		return ", the client now reports " + e.Known
	}
	return ""
}

func coordStory(sc *Scenario, e Event) string {
	switch e := e.(type) {
	case LockHeld:
		return fmt.Sprintf("holds the lock (%s), token %d", e.Path, e.Token)
	case WatchFired:
		return e.Notice()
	case SessionEnded:
		s := "session " + e.Session + " ended by the service"
		if e.Store == EtcdStore {
			s = "lease " + e.Session + " expired"
		}
		if len(e.Deleted) > 0 {
			s += fmt.Sprintf(", deleted %s (zxid/revision %d)", strings.Join(e.Deleted, ", "), e.Rev)
		}
		if len(e.Released) > 0 {
			s += ", released " + strings.Join(e.Released, ", ")
		}
		if e.DelayUntil > 0 {
			s += fmt.Sprintf(", lock-delay until %s", clock(sc, e.DelayUntil))
		}
		return s
	}
	return ""
}

func writeCoord(b *strings.Builder, sc *Scenario, st *CoordState) {
	counter := map[StoreKind]string{ZooKeeperStore: "zxid", EtcdStore: "revision", ConsulStore: "index"}[st.Kind]
	fmt.Fprintf(b, "  %s: %s %d, notifications %d, reads %d\n", st.Kind, counter, st.Zxid, st.Notified, st.Reads)
	for _, s := range st.Sessions {
		state := fmt.Sprintf("ends %s without a keep-alive", clock(sc, s.Deadline))
		if s.Ended >= 0 {
			state = "ended at " + clock(sc, s.Ended)
		}
		wait := ""
		if s.WaitOn != "" {
			wait = ", waits on " + s.WaitOn
		}
		fmt.Fprintf(b, "    session %s %s: ttl %dms, last keep-alive %s, %s; client reports %s%s\n",
			s.Client, s.ID, s.TTL, clock(sc, s.Beat), state, s.Known, wait)
	}
	for _, e := range st.Entries {
		owner := ""
		if e.Owner != "" {
			owner = " owner " + e.Owner
		}
		extra := ""
		if e.LockIndex > 0 {
			extra += fmt.Sprintf(" LockIndex %d", e.LockIndex)
		}
		if e.DelayUntil > 0 {
			extra += " lock-delay until " + clock(sc, e.DelayUntil)
		}
		fmt.Fprintf(b, "    %s (created %d%s%s)\n", e.Path, e.Zxid, owner, extra)
	}
	for _, w := range st.Watches {
		kind := "node"
		if w.Children {
			kind = "children"
		}
		fmt.Fprintf(b, "    watch: %s on %s (%s)\n", w.Client, w.Path, kind)
	}
}
