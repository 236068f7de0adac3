// Package hall is a lecture hall on the open internet, played over HTTP
// against running servers: a lecturer clicking, students following on
// their phones and answering the lecturer's question, each from a loopback
// address of its own (Linux routes all of 127/8 to loopback, so a class
// behind one school NAT is one address and a student on a phone another),
// and hostile attendees who squat follow places, hold silent connections,
// send their headers a byte at a time, and flood answers, searches and
// saves. cmd/fencing-load's hostile command measures with it, and the
// replicas test (replicas_haproxy_test.go) holds its rules in CI; both
// drive the real program behind a real HAProxy.
package hall

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// RequestTimeout bounds one request of a student's or the lecturer's.
const RequestTimeout = 10 * time.Second

// Dialer dials from the loopback address from, so the balancer counts the
// connection against that address.
func Dialer(from string) *net.Dialer {
	return &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
}

// Client is an HTTP client whose connections come from the address from.
// It lets an idle connection go after idleKeep, before the balancer
// closes it (docs/haproxy.cfg: 5 s): a click sent on a connection the
// balancer is closing that moment would be lost, and a POST is not sent
// again by itself.
func Client(from string, keepAlive bool) *http.Client {
	return &http.Client{Timeout: RequestTimeout, Transport: &http.Transport{
		DialContext: Dialer(from).DialContext, DisableCompression: true,
		DisableKeepAlives: !keepAlive, MaxIdleConnsPerHost: 4, IdleConnTimeout: idleKeep,
	}}
}

// idleKeep is how long a client keeps an idle connection.
const idleKeep = 3 * time.Second

// Statuses counts the answers one kind of client got, by status, and
// tells the documented refusals (a 503 or 429 with Retry-After: a full
// lecture, a busy finder, an address at its bound) from failures.
type Statuses struct {
	mu sync.Mutex
	n  map[string]int // by "204", "503 with Retry-After", "error: ..."
}

// Add counts resp's status, or err.
func (s *Statuses) Add(resp *http.Response, err error) {
	var key string
	switch {
	case err != nil:
		key = "error: " + errorKind(err)
	case resp.StatusCode >= 500 && resp.Header.Get("Retry-After") != "":
		key = strconv.Itoa(resp.StatusCode) + " with Retry-After"
	default:
		key = strconv.Itoa(resp.StatusCode)
	}
	s.AddCounts(map[string]int{key: 1})
}

// Counts is a copy of the counts.
func (s *Statuses) Counts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := make(map[string]int, len(s.n))
	for k, v := range s.n {
		c[k] = v
	}
	return c
}

// Merge adds o's counts to s.
func (s *Statuses) Merge(o *Statuses) { s.AddCounts(o.Counts()) }

// AddCounts adds counts (by status, as Counts has them) to s.
func (s *Statuses) AddCounts(counts map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n == nil {
		s.n = map[string]int{}
	}
	for k, v := range counts {
		s.n[k] += v
	}
}

// Failures is how many answers were a 5xx that is not a documented
// refusal, or no answer at all.
func (s *Statuses) Failures() int {
	n := 0
	for k, c := range s.Counts() {
		if k[0] == '5' && !strings.HasSuffix(k, "with Retry-After") || strings.HasPrefix(k, "error") {
			n += c
		}
	}
	return n
}

// Of is how many answers had status key ("204", "503 with Retry-After").
func (s *Statuses) Of(key string) int { return s.Counts()[key] }

func (s *Statuses) String() string {
	counts := s.Counts()
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, counts[k])
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// errorKind is an error without its addresses and ports, to count alike ones.
func errorKind(err error) string { return addrPort.ReplaceAllString(err.Error(), "ADDR") }

var addrPort = regexp.MustCompile(`[0-9.]+:[0-9]+(->[0-9.]+:[0-9]+)?`)

// Healthy asks url (a /healthz) whether its server is up: nil when it
// answered 200.
func Healthy(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return nil
}

// Sleep waits d, or until ctx ends: false then.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
