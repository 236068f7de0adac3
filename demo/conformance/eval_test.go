package conformance

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/conformance/history"
	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/demo/redis/lua"
	"github.com/distlock/fencing-demo/demo/redis/redistest"
	"github.com/distlock/fencing-demo/internal/realserver"
)

// The learner's Lua against real Redis: the sandbox's answers to the
// library and to the replies and errors a script makes, and every lab's
// reference solutions and wrong tries (demo/redis/testdata/labs) sent with
// EVAL, the same text, in the scripted frames and in the finder's own
// histories, every reply and the keys and TTLs of every frame compared.

// TestConformanceLuaScripts holds real Redis to what the sandbox's tests
// hold the sandbox to: each of Lua 5.1's library cases, and each reply and
// error of redistest's, reply for reply, in the protocol's own types.
func TestConformanceLuaScripts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real redis-server: not under -short")
	}
	node := realserver.StartRedis(t, "lua")
	c := dialRESP(t, node.Addr())
	sha := func(src string) string {
		s, err := lua.Compile("x", src)
		if err != nil {
			t.Fatal(err)
		}
		return s.SHA
	}
	for _, lc := range redistest.LibraryCases(t) {
		if got := c.do(t, "EVAL", lc.Script(), "0"); got.Kind != lua.Bulk || got.Str != lc.Want {
			t.Errorf("library.txt:%d: %s\n\tredis: %v\n\tpage:  %q", lc.Line, lc.Expr, got, lc.Want)
		}
	}
	for _, r := range redistest.Replies {
		c.do(t, "SET", "k", "v")
		if got := c.do(t, "EVAL", r.Script, "1", "k", "v"); got.String() != r.Want {
			t.Errorf("%s\n\tredis: %v\n\tpage:  %s", r.Script, got, r.Want)
		}
	}
	for _, f := range redistest.Errors {
		c.do(t, "SET", "k", "v")
		want := strings.Replace(f.Want, "%s", sha(f.Script), 1)
		if got := c.do(t, "EVAL", f.Script, "1", "k", "v"); got.Kind != lua.Error || got.Str != want {
			t.Errorf("%s\n\tredis: %v\n\tpage:  %s", f.Script, got, want)
		}
	}
}

// TestConformanceLabs sends every lab's reference solutions and wrong tries
// to real Redis as the page sends them: the scripted frames, the shortest
// break the finder finds, and the deepest histories of a walk of its
// search, each replayed as the suite replays a scenario, every EVAL's reply
// and every frame's keys and TTLs compared with the page's (play). A try
// that does not compile is sent once, and real Redis must refuse it on the
// same line; a try the sandbox stops on a bound it has and Redis has not
// (an endless loop, a string past 64 KiB, a command the model does not
// play) is not sent, and the test says so.
func TestConformanceLabs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real redis-server processes: not under -short")
	}
	realserver.Binary(t, "redis-server", "redis-server")
	redis.SetLogger(quiet{})
	for _, l := range redistest.Labs(t) {
		for _, try := range l.Tries {
			t.Run(l.Scenario+"/"+try.Name, func(t *testing.T) {
				t.Parallel()
				if try.Expect.Error != nil {
					refusedAlike(t, try)
					return
				}
				sc := l.With(t, try)
				tl := history.NewTally("redis")
				play(t, history.History{Place: demo.Place{Sc: sc, On: l.On(), Step: sc.Frames()}, Kind: history.Script, Name: "script"}, tl)
				for i, h := range histories(t, l, sc) {
					t.Run(fmt.Sprintf("history-%d", i+1), func(t *testing.T) {
						t.Logf("history: %s", h)
						play(t, h, tl)
					})
				}
			})
		}
	}
}

// refusedAlike sends a try the page refuses: one that does not compile must
// not compile on real Redis either, on the same line.
func refusedAlike(t *testing.T, try redistest.Try) {
	_, err := lua.Compile(try.Name, try.Lua)
	var ce *lua.CompileError
	if !errors.As(err, &ce) {
		// Nothing to compare: Redis would run it to the end, or block.
		t.Logf("not sent: the sandbox stops this try on a bound real Redis does not have (%s)", try.Expect.Error.Says)
		return
	}
	node := realserver.StartRedis(t, "compile")
	got := dialRESP(t, node.Addr()).do(t, "EVAL", try.Lua, "0")
	want := fmt.Sprintf("ERR Error compiling script (new function): user_script:%d: ", ce.Line)
	if got.Kind != lua.Error || !strings.HasPrefix(got.Str, want) {
		t.Errorf("the page refuses the script on line %d (%s); real Redis answers %v", ce.Line, ce.EN, got)
	}
}

// histories are the finder's histories of a try, each saved as a scenario
// of its own (script.Save), so that the suite plays it as it plays a
// script: the shortest break the finder finds, and the two deepest of a
// walk of its search within a few thousand states.
func histories(t *testing.T, l redistest.Lab, sc *demo.Scenario) []history.History {
	t.Helper()
	start := demo.Place{Sc: sc, On: l.On(), Step: 1}
	var traces [][]demo.Action
	if prop, ok := demo.PropertyOf(sc.Family, l.Property); ok {
		res, err := find.Find(start, prop, find.Options{Depth: l.Depth, MaxStates: 100_000})
		if err != nil {
			t.Fatal(err)
		}
		if res.Found {
			traces = append(traces, res.Trace)
		}
	}
	var walked [][]demo.Action
	if _, err := find.Walk(start, find.Options{Depth: 6, MaxStates: 3000}, func(trace []demo.Action) bool {
		walked = append(walked, slices.Clone(trace))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	traces = append(traces, walked[max(0, len(walked)-2):]...)
	var out []history.History
	for i, trace := range traces {
		if why := unplayable(trace); why != "" {
			t.Logf("not replayed: %s: %s", sources(trace), why)
			continue
		}
		p := start
		for _, a := range trace {
			p = p.Then(pastExpiry(t, sc, a))
		}
		out = append(out, history.History{Place: p, Kind: history.Walk, Name: fmt.Sprintf("lab-%d", i+1)})
	}
	return out
}

// pastExpiry is a, with a tick one model ms longer. The finder's time
// steps are the TTLs the script asks for, so its histories send commands
// at the very instant a key runs out, which the model takes to be gone
// then and Redis one millisecond later (its keys expire once now > when):
// on a real server the command would race the expiry by under a
// millisecond. One ms later, both agree the key is gone.
func pastExpiry(t *testing.T, sc *demo.Scenario, a demo.Action) demo.Action {
	t.Helper()
	tick, ok := a.Args.(demo.TickArgs)
	if !ok {
		return a
	}
	b, err := demo.ParseAction(sc.Family, sc.Store, "tick "+strconv.Itoa(tick.Forward+1))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// unplayable says why the suite cannot play a history on real servers,
// or "": its replica cannot come back while its primary is down, as the
// relay it follows through waits for a primary to connect to.
func unplayable(trace []demo.Action) string {
	primaryDown := false
	for _, a := range trace {
		switch {
		case a.Who == "primary" && a.Verb == "down":
			primaryDown = true
		case a.Who == "primary" && a.Verb == "up":
			primaryDown = false
		case a.Who == "replica" && (a.Verb == "restart" || a.Verb == "up") && primaryDown:
			return "a replica restarts while its primary is down, which the suite's relay cannot follow"
		}
	}
	return ""
}

func sources(as []demo.Action) string {
	var s []string
	for _, a := range as {
		s = append(s, a.Source)
	}
	return strings.Join(s, "; ")
}

// resp is a connection that reads Redis's replies in their own types (a
// status is not a bulk string), as go-redis does not.
type resp struct {
	conn net.Conn
	r    *bufio.Reader
}

func dialRESP(t *testing.T, addr string) *resp {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &resp{conn: conn, r: bufio.NewReader(conn)}
}

// do sends one command and reads its reply.
func (c *resp) do(t *testing.T, args ...string) lua.Reply {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	c.conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c.conn, b.String()); err != nil {
		t.Fatal(err)
	}
	r, err := c.read()
	if err != nil {
		t.Fatalf("%s: %v", args[0], err)
	}
	return r
}

func (c *resp) read() (lua.Reply, error) {
	line, err := c.r.ReadString('\n')
	if err != nil || len(line) < 3 {
		return lua.Reply{}, fmt.Errorf("reading a reply: %q %v", line, err)
	}
	kind, body := line[0], strings.TrimSuffix(line[1:], "\r\n")
	switch kind {
	case '+':
		return lua.Reply{Kind: lua.Status, Str: body}, nil
	case '-':
		return lua.Err(body), nil
	case ':':
		n, err := strconv.ParseInt(body, 10, 64)
		return lua.Int(n), err
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return lua.Reply{}, err
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, buf); err != nil {
			return lua.Reply{}, err
		}
		return lua.Str(string(buf[:n])), nil
	case '*':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return lua.Reply{}, err
		}
		r := lua.Reply{Kind: lua.Array, Elems: []lua.Reply{}}
		for range n {
			e, err := c.read()
			if err != nil {
				return lua.Reply{}, err
			}
			r.Elems = append(r.Elems, e)
		}
		return r, nil
	}
	return lua.Reply{}, fmt.Errorf("an unknown reply %q", line)
}
