package follow

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"
)

// The framing of server-sent events (text/event-stream), as EventSource
// reads them: fields of one line each, an empty line ending an event.

// Event frames data as one server-sent event with id version, so that a
// reconnecting EventSource says which version it has (Last-Event-ID). Each
// line of data gets its own "data:" field; EventSource joins them with "\n".
func Event(version uint64, data []byte) []byte {
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	data = bytes.ReplaceAll(data, []byte("\r"), []byte("\n"))
	var b bytes.Buffer
	b.Grow(len(data) + 64)
	b.WriteString("id: " + strconv.FormatUint(version, 10) + "\n")
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		b.WriteString("data: ")
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// retryField tells EventSource how long to wait before it reconnects.
func retryField(d time.Duration) []byte {
	return []byte("retry: " + strconv.FormatInt(d.Milliseconds(), 10) + "\n\n")
}

// ping is a comment: it keeps an idle stream open.
var ping = []byte(": ping\n\n")

// Stream sends follower f its lecture's moves on w until ctx ends, the broker
// closes or a write fails, in lang. On connect it sends the current frame at
// once, unless lastEventID says the follower has it already, so a follower
// that lost its connection catches up as soon as EventSource reconnects; a
// lecture with no move yet sends nothing until its first. After that, one
// event per version and a heartbeat comment every b.Heartbeat. The caller
// has written the headers; Stream unsubscribes f when it returns.
//
// A follower whose machine has not taken a heartbeat within b.HeartWait
// (f.Probe: its kernel has not acknowledged it, which on a live network takes
// a round trip) has stopped reading, and is dropped whether or not the
// lecturer moves; so is a follower whose place goes to another (Subscribe).
//
// The server's WriteTimeout is meant for ordinary requests and would cut a
// stream off mid-lecture. So before each write Stream sets a write deadline
// of b.WriteWait from now instead: a stream lives as long as its follower
// keeps reading. The caller shrinks the connection's buffers (TuneConn) so
// that a follower who stops reading is found out after a few moves and
// b.WriteWait, not after the kernel has buffered hundreds.
func (b *Broker) Stream(ctx context.Context, w http.ResponseWriter, f *Follower, lang string, lastEventID uint64) error {
	defer b.Unsubscribe(f)
	rc := http.NewResponseController(w)
	write := func(p []byte) error {
		if err := rc.SetWriteDeadline(time.Now().Add(b.WriteWait)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return err
		}
		if _, err := w.Write(p); err != nil {
			return err
		}
		return rc.Flush()
	}
	sent := lastEventID
	// sendLatest returns an error only when the move could not be drawn; a
	// write that fails (the follower left or stopped reading) ends the
	// stream quietly, through ok.
	sendLatest := func() (ok bool, err error) {
		r, err := b.event(f.sess, lang)
		if err != nil {
			return false, err
		}
		if r == nil || r.version == sent {
			return true, nil
		}
		sent = r.version
		return write(r.event) == nil, nil
	}

	if err := write(retryField(Retry)); err != nil {
		return nil // the follower is gone already
	}
	if ok, err := sendLatest(); !ok {
		return err
	}
	heartbeat := time.NewTicker(b.Heartbeat)
	defer heartbeat.Stop()
	// check fires HeartWait after each heartbeat, to see that the
	// follower's machine took it (and so everything before it); mark is
	// how far it must have taken.
	var check <-chan time.Time
	var mark uint64
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-b.closed:
			return nil // no "end": the follower reconnects, to this server once it is back or to another
		case <-f.gone:
			return nil // its place went to a follower from an address holding fewer
		case <-f.wake:
			if ok, err := sendLatest(); !ok {
				return err
			}
		case <-heartbeat.C:
			if write(ping) != nil {
				return nil
			}
			if f.Probe != nil && check == nil {
				if _, handed, ok := f.Probe(); ok {
					mark, check = handed, time.After(b.HeartWait)
				}
			}
		case <-check:
			check = nil
			if delivered, _, ok := f.Probe(); ok && delivered < mark {
				// Not read: the follower's machine has had the heartbeat
				// for HeartWait and not made room for it. Its place is
				// for someone who reads.
				b.Stalled.Add(1)
				return nil
			}
		}
	}
}
