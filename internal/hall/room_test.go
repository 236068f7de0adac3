package hall

import (
	"net/http"
	"testing"
	"time"
)

// A student is at a move when its stream showed the move's frame, or a
// later move's, after the move was sent; one sent straight to the latest
// frame is at every move it skipped, and a frame shown before a move was
// sent does not count for it.
func TestLags(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	moves := []Move{
		{Frame: "2 / 7", Sent: at(0), Landed: at(10)},
		{Frame: "3 / 7", Sent: at(100), Landed: at(110)},
		{Frame: "2 / 7", Sent: at(200), Landed: at(210)}, // Back: a frame shown before
	}
	prompt := &Student{seen: []Seen{{"2 / 7", at(5)}, {"3 / 7", at(120)}, {"2 / 7", at(230)}}}
	skipper := &Student{seen: []Seen{{"2 / 7", at(8)}, {"2 / 7", at(400)}}} // missed 3, sent to the latest
	stale := &Student{seen: []Seen{{"2 / 7", at(8)}}}                       // never saw 3 nor the second 2
	r := &Room{Students: []*Student{prompt, skipper}}
	worst, lags, missed := r.Lags(moves)
	if worst != 290*time.Millisecond || missed != 0 || len(lags) != 6 {
		t.Fatalf("worst %v, %d lags, %d missed; want 290ms (the skipper's 3 / 7 by its latest frame), 6, 0", worst, len(lags), missed)
	}
	r.Students = append(r.Students, stale)
	if _, _, missed := r.Lags(moves); missed != 2 {
		t.Fatalf("%d moves missed, want the stale student's 2", missed)
	}
}

// Only a 5xx without Retry-After, or no answer, is a failure: a 503 or 429
// with Retry-After is a documented refusal.
func TestStatusesFailures(t *testing.T) {
	var s Statuses
	refusal := &http.Response{StatusCode: 503, Header: http.Header{"Retry-After": {"1"}}}
	s.Add(refusal, nil)
	s.Add(&http.Response{StatusCode: 429, Header: http.Header{}}, nil)
	s.Add(&http.Response{StatusCode: 204, Header: http.Header{}}, nil)
	if n := s.Failures(); n != 0 {
		t.Fatalf("%d failures among %s, want none", n, s.String())
	}
	s.Add(&http.Response{StatusCode: 502, Header: http.Header{}}, nil)
	s.Add(nil, http.ErrHandlerTimeout)
	if n := s.Failures(); n != 2 {
		t.Fatalf("%d failures among %s, want 2", n, s.String())
	}
}
