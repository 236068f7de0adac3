package views

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/consensus"
)

// The panels' strip: every store family's panel shows a summary of a few
// lines above the fold, and its whole table behind a disclosure that opens
// over the stage, so the strip's height does not depend on how many nodes,
// sessions or rows a scenario has.

// happenedShown is how many of a move's events the narration shows open;
// wireShown, how long a command and its reply may be to stand open under
// their event.
const (
	happenedShown = 2
	wireShown     = 60
)

// stripWords are the words of the event strip and the diagram's bands.
var stripWords = map[string][2]string{
	"strip.more":  {"詳細", "Details"},
	"strip.queue": {"待ち行列", "Queue"},
	"strip.until": {"期限 %s", "until %s"},
	// The diagram's band for a holder working on after its lease ended.
	"diagram.overdue":  {"リース切れで作業中", "past its lease"},
	"diagram.token":    {"トークン %d", "token %d"},
	"happened.earlier": {"それより前の %d 件", "%d earlier"},
	"wire.command":     {"送ったコマンド", "the command sent"},
}

// queue is a consensus service's lock entries in the order the recipe
// serves them: the first is the holder, the others wait behind it.
func queue(st *consensus.State) []consensus.EntryState {
	var q []consensus.EntryState
	for _, e := range st.Entries {
		if e.Owner != "" {
			q = append(q, e)
		}
	}
	return q
}

// shortLeaf is an entry's last path part with a sequence number's leading
// zeros folded ("lock-…03"), so a queue of five keeps to one line.
func shortLeaf(kind demo.StoreKind, path string) string {
	if kind == consensus.ConsulStore {
		return path
	}
	l := path[strings.LastIndexByte(strings.TrimSuffix(path, "/"), '/')+1:]
	if i := strings.LastIndexByte(l, '-'); i >= 0 && i+1 < len(l) {
		n := strings.TrimLeft(l[i+1:], "0")
		if n == "" {
			n = "0"
		}
		if len(n) < len(l[i+1:]) {
			return l[:i+1] + "…" + n
		}
	}
	return Short(l)
}

// watchGroups folds the watches armed on one path into one, its watchers
// named together ("B C D E"): with a watch on the parent, the whole queue
// watches the same node.
func watchGroups(ws []consensus.WatchState) []consensus.WatchState {
	var out []consensus.WatchState
	at := map[string]int{}
	for _, w := range ws {
		if i, ok := at[w.Path]; ok {
			out[i].Client += " " + w.Client
			continue
		}
		at[w.Path] = len(out)
		out = append(out, w)
	}
	return out
}

// sessionGroups folds sessions the strip would show alike (alive until the
// same deadline, or ended at the same moment) into one chip; with known,
// what each library reports keeps them apart.
func sessionGroups(ss []consensus.SessionState, known bool) [][]consensus.SessionState {
	var out [][]consensus.SessionState
	at := map[[3]string]int{}
	for _, s := range ss {
		k := [3]string{strconv.Itoa(s.Deadline), strconv.Itoa(s.Ended), ""}
		if known || s.Ended >= 0 {
			k[2] = s.Known
		}
		if s.Ended >= 0 {
			k[0] = ""
		}
		if i, ok := at[k]; ok {
			out[i] = append(out[i], s)
			continue
		}
		at[k] = len(out)
		out = append(out, []consensus.SessionState{s})
	}
	return out
}

// wireShort says whether a command and its reply are short enough to stand
// open under their event.
func wireShort(call, reply string) bool {
	return utf8.RuneCountInString(call)+utf8.RuneCountInString(reply) <= wireShown
}

// wireCut is a long reply's first words for a folded command's summary,
// and whether it was cut; the whole reply opens with the command.
func wireCut(reply string) (string, bool) {
	const keep = 32
	r := []rune(reply)
	if len(r) <= keep+4 {
		return reply, false
	}
	return string(r[:keep]) + "…", true
}
