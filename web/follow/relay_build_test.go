package follow

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
)

// A lecture that plays a learner's build keeps the build in its move: the
// scenario's id, "+" and the build's text in base64url, which the relay's
// lookup applies on any replica; the move reads back as the same place.
func TestRelayMoveKeepsTheBuild(t *testing.T) {
	lab := &demo.Scenario{ID: "gc-pause", Moves: make([]demo.Move, 6)}
	built := &demo.Scenario{ID: "gc-pause", Built: "A: acquire 10\nA: write $me\nB:\nset fencing on\n", Moves: make([]demo.Move, 3)}
	var asked string
	r := &Redis{lookup: func(key string) (*demo.Scenario, bool) {
		asked = key
		if id, code, ok := strings.Cut(key, "+"); ok {
			text, err := base64.RawURLEncoding.DecodeString(code)
			return built, err == nil && id == built.ID && string(text) == built.Built
		}
		return lab, key == lab.ID
	}}
	at := At{Sc: built, On: true, Step: 2, Play: "A pause\ntick 10"}
	got, _, err := r.parse("7 " + move(at))
	if err != nil || got != at {
		t.Fatalf("%+v read back as %+v, %v (looked up %q)", at, got, err, asked)
	}
	if strings.ContainsAny(move(at), "\n") || len(strings.Fields(move(at))) != 4 {
		t.Errorf("the move %q is not four fields", move(at))
	}
}
