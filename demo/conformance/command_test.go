package conformance

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/distlock/fencing-demo/demo"
	model "github.com/distlock/fencing-demo/demo/redis"
)

// refused is the page's answer, and go-redis's, when nothing listens.
const refused = "connection refused"

// request returns the command e sent to a Redis node and the answer the page
// says it got: the command's own reply, or, when the node never answered,
// why not (a down node refuses the connection; a cut-off client gives up
// after its timeout). ok is false for events no client sent.
func request(e demo.Event) (cmd model.Command, want string, ok bool) {
	switch e := e.(type) {
	case model.NoAnswer:
		if e.Refused() {
			return e.Sent, refused, true
		}
		return e.Sent, noAnswer(e.Waited), true
	case model.Command:
		return e, e.Reply(), true
	}
	return nil, "", false
}

func noAnswer(ms int) string { return fmt.Sprintf("no answer in %d ms", ms) }

// scripts are the scripts the page shows by what they do rather than by
// their text (Redisson's, whose text runs to several lines), with the text
// a Redisson client sends for each.
var scripts = map[string]string{
	"‹lock: HINCRBY+PEXPIRE if free or mine, else PTTL›":      model.RedissonLockScript,
	"‹renew: PEXPIRE if mine, 1, else 0›":                     model.RedissonRenewScript,
	"‹unlock: HINCRBY -1, at 0 DEL+PUBLISH; nil if not mine›": model.RedissonUnlockScript,
}

// parseCall reads a command line as the page prints it (as one types it
// into redis-cli: a script in single quotes, a random value cut short
// "9f2c1a3b…", a Redisson field "3f2a91c0…:1", a latch's request id cut
// short) back into the words a client sends. A word cut short is filled in
// from known, the values the sending client has drawn so far (a real client
// knows its own): the one value that starts and ends as the word does.
func parseCall(line string, known []string) ([]string, error) {
	var words []string
	for rest := strings.TrimSpace(line); rest != ""; rest = strings.TrimSpace(rest) {
		var w string
		switch {
		case strings.HasPrefix(rest, "'"):
			end := strings.Index(rest[1:], "'")
			if end < 0 {
				return nil, fmt.Errorf("%q: a quote that does not end", line)
			}
			w, rest = rest[1:end+1], rest[end+2:]
		case strings.HasPrefix(rest, `"`):
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return nil, fmt.Errorf("%q: %w", line, err)
			}
			w, _ = strconv.Unquote(q)
			rest = rest[len(q):]
		case strings.HasPrefix(rest, "‹"):
			end := strings.Index(rest, "›")
			if end < 0 {
				return nil, fmt.Errorf("%q: a ‹ that does not end", line)
			}
			end += len("›")
			text, ok := scripts[rest[:end]]
			if !ok {
				return nil, fmt.Errorf("%q: no script is shown as %s", line, rest[:end])
			}
			w, rest = text, rest[end:]
		default:
			w, rest, _ = strings.Cut(rest, " ")
		}
		if strings.Contains(w, "…") && len(words) > 0 {
			full, err := expand(w, known)
			if err != nil {
				return nil, fmt.Errorf("%q: %w", line, err)
			}
			w = full
		}
		words = append(words, w)
	}
	return words, nil
}

// expand fills in a word cut short with "…".
func expand(w string, known []string) (string, error) {
	pre, suf, _ := strings.Cut(w, "…")
	var found []string
	for _, v := range known {
		if len(v) > len(pre)+len(suf) && strings.HasPrefix(v, pre) && strings.HasSuffix(v, suf) && !slices.Contains(found, v) {
			found = append(found, v)
		}
	}
	if len(found) != 1 {
		return "", fmt.Errorf("%s stands for %d of the client's values %q, not one", w, len(found), known)
	}
	return found[0], nil
}

// drawn appends the words of cmd after its name, but for a script's text:
// among them the values its client drew (a lock's random value, a Redisson
// field, an unlock's latch), which a real client keeps and the page cuts
// short.
func drawn(known []string, cmd model.Command) []string {
	for _, a := range cmd.Args()[1:] {
		if !strings.Contains(a, " ") && !slices.Contains(known, a) {
			known = append(known, a)
		}
	}
	return known
}

// readBack reads the command line the page prints for cmd back into the
// words to send, and says how it differs from what the model sent: "" when
// it does not.
func readBack(line string, cmd model.Command, values []string) (args []string, diff string) {
	args, err := parseCall(line, values)
	sent, shown := cmd.Args(), cmd.Args()
	if one := onOneLine(cmd); one != nil {
		shown = one // the script as sent, its lines and all, goes to Redis
	}
	switch {
	case err != nil:
		return nil, fmt.Sprintf("the page prints a command the suite cannot read: %v", err)
	case slices.Equal(args, shown):
		return sent, ""
	}
	return nil, fmt.Sprintf("the page prints a command other than the model sent:\n\tpage:  %s\n\tmodel: %s", shortArgs(args), shortArgs(shown))
}

// onOneLine is cmd's words with a learner's script on one line, as the page
// prints an EVAL (EvalCommand.Wire); nil for any other command.
func onOneLine(cmd model.Command) []string {
	e, ok := cmd.(model.EvalCommand)
	if !ok {
		return nil
	}
	args := cmd.Args()
	args[1] = strings.Join(strings.Fields(e.Text), " ")
	return args
}

// scaled returns the command's arguments with every duration it carries
// divided by scale, for the scaled clock: the PX of a SET, the seconds of
// EXPIRE (sent as PEXPIRE, since a scaled second is not a whole second), the
// renewal script's TTL, the lease of Redisson's scripts and the TTL of its
// unlock latch, a WAIT's timeout, and the TTL an eval's client asks for. Each argument is found where the
// command puts it and checked against the event's own field, so a change in
// the engine's spelling fails here rather than sending an unscaled TTL. A
// duration that does not divide evenly is an error: nothing is rounded.
func scaled(c model.Command, args []string) ([]string, error) {
	args = slices.Clone(args)
	type at struct{ i, ms int }
	var ds []at
	switch c := c.(type) {
	case model.SetCommand:
		if c.PX > 0 {
			ds = append(ds, at{slices.Index(args, "PX") + 1, c.PX})
		}
	case model.ExpireCommand:
		if len(args) != 3 || args[2] != strconv.Itoa(c.Seconds) {
			return nil, fmt.Errorf("EXPIRE: expected %d seconds as the third word of %q", c.Seconds, args)
		}
		args[0], args[2] = "PEXPIRE", strconv.Itoa(c.Seconds*1000)
		ds = append(ds, at{2, c.Seconds * 1000})
	case model.RenewScript:
		ds = append(ds, at{5, c.PX})
	case model.RedissonLock:
		ds = append(ds, at{4, c.Lease})
	case model.RedissonRenew:
		ds = append(ds, at{4, c.Lease})
	case model.RedissonUnlock:
		ds = append(ds, at{7, c.Lease}, at{10, model.RedissonLatchTTL})
	case model.WaitCommand:
		if c.Timeout > 0 {
			ds = append(ds, at{2, c.Timeout})
		}
	case model.EvalCommand:
		if c.LeaseArg >= 0 { // the TTL a renew or acquire script's client asks for
			ms, _ := strconv.Atoi(c.Argv[c.LeaseArg])
			ds = append(ds, at{4 + c.LeaseArg, ms})
		}
	}
	for _, d := range ds {
		if d.i <= 0 || d.i >= len(args) || args[d.i] != strconv.Itoa(d.ms) {
			return nil, fmt.Errorf("%s: expected the duration %d ms at argument %d of %q", c.Kind(), d.ms, d.i, args)
		}
		if d.ms%scale != 0 {
			return nil, fmt.Errorf("%s: the duration %d ms does not divide by %d", c.Kind(), d.ms, scale)
		}
		args[d.i] = strconv.Itoa(d.ms / scale)
	}
	return args, nil
}

// keysOf returns the keys a command names: a script's KEYS, or the key
// after the command's name; none for WAIT.
func keysOf(args []string) []string {
	switch strings.ToUpper(args[0]) {
	case "WAIT":
		return nil
	case "EVAL", "EVALSHA":
		n, err := strconv.Atoi(args[2])
		if err != nil || 3+n > len(args) {
			return nil
		}
		return args[3 : 3+n]
	}
	return args[1:2]
}
