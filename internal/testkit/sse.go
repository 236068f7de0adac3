package testkit

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A client of a server-sent event stream, reading it line by line as
// EventSource does.

// Event is one server-sent event as a client reads it.
type Event struct {
	ID, Event, Data string
}

// Stream reads a text/event-stream response line by line, as EventSource
// does, and hands over its events.
type Stream struct {
	resp     *http.Response
	Events   chan Event
	Comments atomic.Int64 // heartbeats seen
	Retry    atomic.Value // the retry field, as sent
	cancel   context.CancelFunc
}

// OpenStream connects to a follow stream and fails unless it answers as an
// event stream should. header is "Name", "value" pairs.
func OpenStream(tb testing.TB, client *http.Client, target string, header ...string) *Stream {
	tb.Helper()
	st, err := DialStream(client, target, header...)
	if st != nil {
		tb.Cleanup(st.Close)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// DialStream is OpenStream for any goroutine: it returns its failure.
func DialStream(client *http.Client, target string, header ...string) (*Stream, error) {
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("GET %s: %v", target, err)
	}
	st := &Stream{resp: resp, Events: make(chan Event, 8), cancel: cancel}
	if resp.StatusCode != http.StatusOK {
		return st, fmt.Errorf("GET %s: %s", target, resp.Status)
	}
	for name, want := range map[string]string{
		"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no", "Content-Encoding": "",
	} {
		if got := resp.Header.Get(name); got != want {
			return st, fmt.Errorf("GET %s: %s=%q, want %q", target, name, got, want)
		}
	}
	go st.read()
	return st, nil
}

// Close hangs up, as a follower closing the tab does.
func (st *Stream) Close() {
	st.cancel()
	st.resp.Body.Close()
}

func (st *Stream) read() {
	defer close(st.Events)
	sc := bufio.NewScanner(st.resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var ev Event
	var data []string
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if data != nil {
				ev.Data = strings.Join(data, "\n")
				st.Events <- ev
			}
			ev, data = Event{}, nil
			continue
		}
		if strings.HasPrefix(line, ":") {
			st.Comments.Add(1)
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			ev.ID = value
		case "event":
			ev.Event = value
		case "data":
			data = append(data, value)
		case "retry":
			st.Retry.Store(value)
		}
	}
}

// Next waits for the stream's next event.
func (st *Stream) Next(tb testing.TB, within time.Duration) Event {
	tb.Helper()
	ev, err := st.Wait(within)
	if err != nil {
		tb.Fatal(err)
	}
	return ev
}

// Wait is Next for any goroutine.
func (st *Stream) Wait(within time.Duration) (Event, error) {
	select {
	case ev, ok := <-st.Events:
		if !ok {
			return ev, fmt.Errorf("the stream ended")
		}
		return ev, nil
	case <-time.After(within):
		return Event{}, fmt.Errorf("no event within %v", within)
	}
}
