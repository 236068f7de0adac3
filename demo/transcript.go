package demo

import (
	"fmt"
	"strings"
)

// Transcript plays sc with the switch on or off and writes down every frame,
// in the manner of etcd raft's data-driven tests: the frame's English title,
// the actions of the move that led to it (those played in this switch
// position), a "----" line, the events those actions produced with the
// commands and answers on the wire, the state the frame shows and the
// verdict. The golden files under demo/testdata are its output; read one
// like a story.
func Transcript(sc *Scenario, on bool) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s, %s %s: %s\n", sc.ID, sc.Switch, OnOff(on), sc.Title.EN)
	fmt.Fprintf(&b, "# store %s, resource %s (fencing %s), clients %s\n", sc.Store, sc.Resource, sc.Fencing, strings.Join(sc.Clients, ", "))
	r := NewRun(sc, on)
	for {
		f := r.Frame()
		fmt.Fprintf(&b, "\nframe %d/%d: %s\n", f.Index, f.Total, f.Title.EN)
		if f.Index > 1 {
			for _, a := range sc.Moves[f.Index-2].Do {
				if a.playsWhen(on) {
					fmt.Fprintf(&b, "> %s\n", a.Source)
				}
			}
		}
		b.WriteString("----\n")
		for _, e := range f.Latest() {
			fmt.Fprintf(&b, "%s\n", EventLine(sc, e))
		}
		writeState(&b, &f)
		if !r.Step() {
			break
		}
	}
	return b.String(), r.Err()
}

// Clock writes a time in the scenario's unit, as a transcript does.
func Clock(sc *Scenario, t int) string {
	if sc.Unit() == "ms" {
		return fmt.Sprintf("t=%dms", t)
	}
	return fmt.Sprintf("t=%d", t)
}

// EventLine puts one event in a line: when, who, what was sent and what the
// store or the resource answered.
func EventLine(sc *Scenario, e Event) string {
	h := e.Header()
	who := h.Client
	if h.Node != "" {
		if who != "" {
			who += " -> "
		}
		who += h.Node
	}
	at := Clock(sc, h.At) + " " + who
	if call, reply := e.Wire(); call != "" {
		line := fmt.Sprintf("%s: %s", at, call)
		if reply != "" {
			line += " => " + reply
		}
		if n, ok := e.(Noted); ok {
			line += n.Note(sc)
		}
		return line
	}
	if t, ok := e.(Told); ok {
		return at + ": " + t.Story(sc)
	}
	return fmt.Sprintf("%s: %s", at, e.Kind())
}

// writeState writes the state block of a frame: the clock, the store, the
// resource, what each client believes, and the verdict.
func writeState(b *strings.Builder, f *Frame) {
	sc := f.Scenario
	fmt.Fprintf(b, "state:\n  now: %s\n", Clock(sc, f.Now))
	if w := sc.Family.Transcript; w != nil && w(b, f) {
		return
	}
	fencing := "fencing off"
	if f.Fenced {
		fencing = "fencing on"
	}
	fmt.Fprintf(b, "  %s: %q maxToken=%d rejected=%d accepted=%d (%s)\n",
		sc.Resource, f.Data, f.MaxToken, f.Rejected, f.Writes, fencing)
	for _, c := range f.Clients {
		fmt.Fprintf(b, "  %s: %s\n", c.Name, belief(sc, c))
	}
	top := f.Verdict()
	fmt.Fprintf(b, "verdict: %s (%s)\n", top.Kind, top.Kind.Class())
	for _, v := range f.Violations {
		if story := v.Kind.Spec().Story; story != nil {
			fmt.Fprintf(b, "  %s: %s\n", v.Kind, story(sc, v))
		}
	}
}

// belief is what a client is doing and believes, in the transcript's words.
func belief(sc *Scenario, c Client) string {
	state := "running"
	switch {
	case c.Crashed:
		state = "crashed"
	case c.Paused:
		state = "paused"
	case c.Blocked:
		state = "blocked in WAIT"
	}
	switch {
	case c.Holds && c.Token > 0:
		return fmt.Sprintf("%s, believes it holds token %d", state, c.Token)
	case c.Holds && c.Until >= 0:
		return fmt.Sprintf("%s, believes it holds the lock until %s", state, Clock(sc, c.Until))
	case c.Holds:
		return state + ", believes it holds the lock for ever"
	case c.Token != 0:
		return fmt.Sprintf("%s, does not hold the lock (last token %d)", state, c.Token)
	}
	return state + ", does not hold the lock"
}
