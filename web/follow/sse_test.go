package follow

import (
	"bytes"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/internal/testkit"
)

// Each line of data gets its own data field, whatever its line ending, and
// the event ends with an empty line: EventSource puts the lines back together.
func TestEventFraming(t *testing.T) {
	for _, tc := range []struct {
		data, want string
	}{
		{"one", "id: 7\ndata: one\n\n"},
		{"a\nb", "id: 7\ndata: a\ndata: b\n\n"},
		{"a\r\nb\rc", "id: 7\ndata: a\ndata: b\ndata: c\n\n"},
		{"", "id: 7\ndata: \n\n"},
	} {
		if got := string(Event(7, []byte(tc.data))); got != tc.want {
			t.Errorf("Event(7, %q)=%q, want %q", tc.data, got, tc.want)
		}
	}
}

// Stream, read by a client as EventSource reads it: the retry field and the
// current frame at once, each move after that, a heartbeat when idle, and
// the stream closed (no "end") when the broker closes; a follower that has
// the latest (Last-Event-ID) gets nothing again.
func TestStream(t *testing.T) {
	sc := gcPause(t)
	b, _ := testBroker(t, 10)
	b.Heartbeat = 20 * time.Millisecond
	s := started(t, b, at(sc, 2))
	done := make(chan error, 4)
	srv := testkit.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, err := b.Subscribe(r.Context(), s.ID(), "192.0.2.1", "")
		if err != nil {
			done <- err
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("X-Accel-Buffering", "no")
		last, _ := strconv.ParseUint(r.Header.Get("Last-Event-ID"), 10, 64)
		done <- b.Stream(r.Context(), w, f, r.URL.Query().Get("lang"), last)
	}))
	t.Cleanup(b.Close) // before the server closes: streams end first

	st := testkit.OpenStream(t, srv.Client(), srv.URL+"?lang=ja")
	if ev := st.Next(t, 5*time.Second); ev.ID != "1" || ev.Data != "v1 step 2 ja" {
		t.Fatalf("first event %+v, want id 1, frame 2 in ja", ev)
	}
	if got := st.Retry.Load(); got != strconv.FormatInt(Retry.Milliseconds(), 10) {
		t.Fatalf("retry=%v, want %d", got, Retry.Milliseconds())
	}
	s.Set(at(sc, 3))
	if ev := st.Next(t, 5*time.Second); ev.ID != "2" || ev.Data != "v2 step 3 ja" {
		t.Fatalf("after a move: %+v, want id 2, frame 3", ev)
	}
	testkit.Eventually(t, 5*time.Second, "a heartbeat on an idle stream", func() bool { return st.Comments.Load() > 0 })

	upToDate := testkit.OpenStream(t, srv.Client(), srv.URL+"?lang=en", "Last-Event-ID", "2")
	s.Set(at(sc, 4))
	if ev := upToDate.Next(t, 5*time.Second); ev.ID != "3" {
		t.Fatalf("an up-to-date follower's first event has id %q, want 3: version 2 again?", ev.ID)
	}

	b.Close()
	for _, c := range []*testkit.Stream{st, upToDate} {
		for {
			ev, err := c.Wait(5 * time.Second)
			if err != nil {
				break // closed
			}
			if ev.Event == "end" || ev.ID != "3" {
				t.Fatalf("at the close: %+v, want the stream closed", ev)
			}
		}
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Fatalf("Stream returned %v, want nil when the broker closes", err)
		}
	}
}

// A move that cannot be drawn ends the stream with the error, for the
// handler to log.
func TestStreamDrawError(t *testing.T) {
	boom := errors.New("boom")
	b := NewBroker(10, func(string, At, uint64, string) ([]byte, error) { return nil, boom })
	t.Cleanup(b.Close)
	s := started(t, b, at(gcPause(t), 2))
	f := subscribed(t, b, s.ID())
	var w bytes.Buffer
	if err := b.Stream(t.Context(), flushless{&w}, f, "en", 0); !errors.Is(err, boom) {
		t.Fatalf("Stream=%v, want %v", err, boom)
	}
	if got := b.Streams(); got != 0 {
		t.Fatalf("%d streams after Stream returned, want 0", got)
	}
}

// flushless is a ResponseWriter with no deadlines or flushing, as a test
// recorder is.
type flushless struct{ *bytes.Buffer }

func (flushless) Header() http.Header { return http.Header{} }
func (flushless) WriteHeader(int)     {}
func (flushless) Flush()              {}
