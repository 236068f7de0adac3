package web

import (
	"net/netip"
	"time"
)

// Config is what an operator can set; main.go reads it from flags and the
// environment. The defaults are sized for a lecture hall: 500 students behind
// one school NAT, all opening the demo and the follow link within a minute.
type Config struct {
	MaxRuns        int           // live runs kept at most
	RunIdle        time.Duration // a run unused for this long is dropped (its key, and so its lecture, lives on)
	FrameAncestors string        // CSP frame-ancestors: who may embed the demo
	RunRate        float64       // new runs one client address may start per second; 0: no limit
	RunBurst       int           // new runs one client address may start at once
	BehindProxy    bool          // believe X-Forwarded-For/-Proto/-Host from TrustedProxies
	TrustedProxies []netip.Prefix
	PublicURL      string // scheme://host[:port] the site is reached at, for QR codes; "": worked out per request
	BenchRoutes    bool   // mount /_bench/ for the load and soak commands (a -tags bench build only)

	// Follow-along (web/follow): streams per lecture, per client address
	// and in all; how long an idle lecture is kept; a Redis URL to share
	// lectures between replicas ("": this server alone).
	FollowPerLecture, FollowPerAddr, FollowStreams int
	LectureIdle                                    time.Duration
	FollowRedis                                    string

	// Connections (limit.go): per client address and in all; behind a
	// proxy, MaxConnsPerAddr bounds each forwarded address's requests in
	// flight instead. An idle keep-alive connection is closed after
	// IdleTimeout, or at once when a new one needs its place.
	MaxConns, MaxConnsPerAddr int
	IdleTimeout               time.Duration
	// DrainWait is how long /healthz fails before a graceful shutdown closes
	// the listener, so a load balancer stops sending new visitors first.
	DrainWait time.Duration

	// The counterexample finder from the page (find.go): the distinct
	// states one search explores at most, and the CPU time it takes at
	// most (four times that by the clock, on a busy machine). A
	// state costs about 65 bytes, and a core's worth of searches run at
	// once (gate.go); the largest search to depth 8 of a built-in
	// scenario takes 296,008.
	FindStates int
	FindTime   time.Duration
	// JudgeTime is the longest the judge of a lab's build runs (judge.go),
	// within the same states and through the same gate as a search: it
	// tries every history within the lab's bounds, which takes longer than
	// a search to a depth.
	JudgeTime time.Duration

	// Workshop rooms (web/room): rooms open at once, learners per room and
	// per client address in a room, submissions one learner may make per
	// minute, and how long a room nobody uses is kept.
	MaxRooms, RoomLearners, RoomPerAddr, RoomSubmits int
	RoomIdle                                         time.Duration
}

// DefaultConfig is the server's settings when nothing is set.
func DefaultConfig() Config {
	return Config{
		MaxRuns: 10000, RunIdle: 30 * time.Minute, FrameAncestors: "*",
		RunRate: 10, RunBurst: 600,
		TrustedProxies:   DefaultTrustedProxies(),
		FollowPerLecture: 2000, FollowPerAddr: 600, FollowStreams: 6000, LectureIdle: 6 * time.Hour,
		MaxConns: 8000, MaxConnsPerAddr: 1500, IdleTimeout: 30 * time.Second,
		DrainWait:  5 * time.Second,
		FindStates: 400_000, FindTime: time.Second, JudgeTime: 5 * time.Second,
		MaxRooms: 200, RoomLearners: 400, RoomPerAddr: 400, RoomSubmits: 20, RoomIdle: 4 * time.Hour,
	}
}

// DefaultTrustedProxies are the peers whose X-Forwarded-* headers are
// believed with -behind-proxy: loopback only, a balancer on the same machine.
// A private network is not trusted by default: on a campus LAN any student
// is a peer from 10/8 or 192.168/16 and could write X-Forwarded-For to
// take every other student's allowance; -trusted-proxies names the balancer.
func DefaultTrustedProxies() []netip.Prefix {
	return []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
}
