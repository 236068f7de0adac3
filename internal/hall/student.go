package hall

import (
	"bufio"
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/distlock/fencing-demo/views"
)

// Student follows the lecture as a phone with follow.js does: it opens the
// follow page (which hands it its ticket, in a cookie), then the stream,
// and opens the stream again whenever it ends or is refused, after the
// wait follow.js takes (Retry-After, a random part longer, when refused;
// within a second when cut off). It answers the lecturer's question with
// its ticket.
type Student struct {
	From string // the address it dials from

	client *http.Client
	mu     sync.Mutex
	seen   []Seen // every frame its stream showed, with when
	poll   string // the open question's id, once a frame showed one
	// Admitted is when its stream first opened; zero until then.
	admitted   time.Time
	arrived    time.Time
	Reconnects atomic.Int64
	Statuses   Statuses // what its page, stream and answers were answered
}

// Seen is one frame a student's stream showed.
type Seen struct {
	Frame string // "3 / 7"
	At    time.Time
}

// NewStudent is a student at address from, with a cookie jar of its own.
func NewStudent(from string) *Student {
	jar, _ := cookiejar.New(nil)
	c := Client(from, true)
	c.Jar = jar
	return &Student{From: from, client: c}
}

// Follow opens the page of lecture link (/follow/<id>) on base and follows
// its stream until ctx ends.
func (s *Student) Follow(ctx context.Context, base, link string) {
	s.mu.Lock()
	s.arrived = time.Now()
	s.mu.Unlock()
	for !s.openPage(ctx, base+link+"?lang=en") {
		if !Sleep(ctx, time.Second) {
			return
		}
	}
	last, tries := "", 0
	for ctx.Err() == nil {
		wait, admitted := s.stream(ctx, base+link+"/events?lang=en", &last)
		if admitted {
			tries = 0
		}
		if wait == 0 { // cut off, or unreachable: as follow.js, 0.5 to 1 s, doubling up to 10
			w := min(10*time.Second, time.Second<<min(tries, 4))
			tries++
			wait = w/2 + rand.N(w/2)
		} else {
			wait += rand.N(wait / 2)
		}
		s.Reconnects.Add(1)
		if !Sleep(ctx, wait) {
			return
		}
	}
}

// openPage loads the follow page: true once it answered 200 (the ticket is
// in the jar).
func (s *Student) openPage(ctx context.Context, page string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, page, nil)
	return err == nil && s.do(req) == http.StatusOK
}

// do sends req, counts and reads its answer, and returns its status (0:
// none).
func (s *Student) do(req *http.Request) int {
	resp, err := s.client.Do(req)
	s.Statuses.Add(resp, err)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// stream reads one stream until it ends; it returns how long the server
// asked it to wait (0: not asked), and whether the stream opened.
func (s *Student) stream(ctx context.Context, events string, last *string) (time.Duration, bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, events, nil)
	if err != nil {
		return 0, false
	}
	req.Header.Set("Accept", "text/event-stream")
	if *last != "" {
		req.Header.Set("Last-Event-ID", *last)
	}
	streams := &http.Client{Transport: s.client.Transport, Jar: s.client.Jar} // no timeout: a stream is long
	resp, err := streams.Do(req)
	s.Statuses.Add(resp, err)
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, resp.Body)
		secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		return time.Duration(secs) * time.Second, false
	}
	s.mu.Lock()
	if s.admitted.IsZero() {
		s.admitted = time.Now()
	}
	s.mu.Unlock()
	s.read(resp.Body, last)
	return 0, true
}

var pollID = regexp.MustCompile(`data-poll="([^"]+)"`)

// read records each frame the stream shows, and the open question's id.
func (s *Student) read(body io.Reader, last *string) {
	r := bufio.NewReaderSize(body, 64<<10)
	id := ""
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		switch {
		case strings.HasPrefix(line, "id: "):
			id = strings.TrimSpace(line[4:])
		case strings.HasPrefix(line, "data: "):
			if f := views.StepShown([]byte(line)); f != "" {
				s.mu.Lock()
				s.seen = append(s.seen, Seen{Frame: f, At: time.Now()})
				s.mu.Unlock()
			}
			if m := pollID.FindStringSubmatch(line); m != nil {
				s.mu.Lock()
				s.poll = m[1]
				s.mu.Unlock()
			}
		case line == "\n" && id != "":
			*last, id = id, ""
		}
	}
}

// Answer sends option as the answer to the question the stream showed,
// as follow.js does: true when it was counted (204).
func (s *Student) Answer(ctx context.Context, base, link, option string) bool {
	s.mu.Lock()
	q := s.poll
	s.mu.Unlock()
	form := url.Values{"q": {q}, "option": {option}, "lang": {"en"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+views.FollowAnswerURL(strings.TrimPrefix(link, "/follow/")), strings.NewReader(form.Encode()))
	if err != nil {
		return false
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	return s.do(req) == http.StatusNoContent
}

// Asked reports whether the stream has shown a question.
func (s *Student) Asked() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.poll != ""
}

// Frame is the frame shown last, "" before any.
func (s *Student) Frame() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.seen) == 0 {
		return ""
	}
	return s.seen[len(s.seen)-1].Frame
}

// Admitted is how long after it arrived its stream first opened; false
// while it has not.
func (s *Student) Admitted() (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.admitted.Sub(s.arrived), !s.admitted.IsZero()
}

// Seen is every frame the stream showed since since.
func (s *Student) Seen(since time.Time) []Seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Seen
	for _, x := range s.seen {
		if !x.At.Before(since) {
			out = append(out, x)
		}
	}
	return out
}
