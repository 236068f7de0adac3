package conformance

import (
	"fmt"
	"slices"
	"strconv"

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

// scaled returns the command's arguments with every duration it carries
// divided by scale, for the scaled clock: the PX of a SET, the seconds of
// EXPIRE (sent as PEXPIRE, since a scaled second is not a whole second), the
// renewal script's TTL, the lease of Redisson's scripts and the TTL of its
// unlock latch, a WAIT's timeout, and the TTL an eval's client asks for. Each argument is found where the
// command puts it and checked against the event's own field, so a change in
// the engine's spelling fails here rather than sending an unscaled TTL. A
// duration that does not divide evenly is an error: nothing is rounded.
func scaled(c model.Command) ([]string, error) {
	args := c.Args()
	type at struct{ i, ms int }
	var ds []at
	switch c := c.(type) {
	case model.SetCommand:
		if c.PX > 0 {
			ds = append(ds, at{slices.Index(args, "PX") + 1, c.PX})
		}
	case model.ExpireCommand:
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

// ttlReply reports whether c's reply is a time left, in model ms, rather
// than a value: Redisson's lock script answers a refused caller with the
// holder's PTTL, which real Redis counts on the scaled clock.
func ttlReply(c model.Command) (int, bool) {
	if l, ok := c.(model.RedissonLock); ok && !l.OK {
		return l.Left, true
	}
	return 0, false
}
