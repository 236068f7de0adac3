package web

import (
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// Bind defines a flag for every setting of c, on fl, each in this one place:
// its name, the environment variable that gives it when the flag is not
// given, and what it does. The values c holds are the defaults. A variable
// that does not parse is reported, naming the variable, rather than ignored;
// the flags themselves are read later, by fl.Parse, and win over the
// environment.
func (c *Config) Bind(fl *flag.FlagSet, getenv func(string) string) error {
	b := binder{fl: fl, getenv: getenv}
	b.int(&c.MaxRuns, "max-runs", "MAX_RUNS", "live runs kept at most; the least recently used goes first")
	b.duration(&c.RunIdle, "run-idle", "RUN_IDLE", "a run unused this long is dropped")
	b.string(&c.FrameAncestors, "frame-ancestors", "FRAME_ANCESTORS", "CSP frame-ancestors: the sites that may embed the demo")
	b.float(&c.RunRate, "run-rate", "RUN_RATE", "new runs one client address may start per second; 0 for no limit")
	b.int(&c.RunBurst, "run-burst", "RUN_BURST", "new runs one client address may start at once")
	b.bool(&c.BehindProxy, "behind-proxy", "BEHIND_PROXY", "believe X-Forwarded-For/-Proto/-Host from the trusted proxies")
	b.value((*prefixes)(&c.TrustedProxies), "trusted-proxies", "TRUSTED_PROXIES", "with -behind-proxy, the proxies' `networks`, comma-separated CIDRs", "a comma-separated list of CIDRs")
	b.string(&c.PublicURL, "public-url", "PUBLIC_URL", "scheme://host[:port] the site is reached at, drawn into QR codes; default: worked out per request")
	b.string(&c.FollowRedis, "follow-redis", "FOLLOW_REDIS", "redis://host:port/db shared by replicas, so followers on any replica see the lecturer's moves; default: this server alone")
	b.int(&c.FollowPerLecture, "follow-per-lecture", "FOLLOW_PER_LECTURE", "follow streams of one lecture at once, on this server (with -follow-redis, its share of the lecture's room)")
	b.int(&c.FollowPerAddr, "follow-per-addr", "FOLLOW_PER_ADDR", "follow streams from one client address (IPv6: its /64) at once, across replicas; also the answer tickets an address is handed at once")
	b.int(&c.FollowStreams, "follow-streams", "FOLLOW_STREAMS", "follow streams at once, all lectures together")
	b.duration(&c.LectureIdle, "lecture-idle", "LECTURE_IDLE", "a lecture nobody follows or moves is forgotten after this; its link still works at the lecturer's next click")
	b.int(&c.MaxConns, "max-conns", "MAX_CONNS", "connections at once; idle ones are closed to make room")
	b.int(&c.MaxConnsPerAddr, "max-conns-per-addr", "MAX_CONNS_PER_ADDR", "connections from one client address at once; with -behind-proxy, requests in flight from one client address (follow streams aside)")
	b.duration(&c.IdleTimeout, "idle-timeout", "IDLE_TIMEOUT", "a keep-alive connection idle this long is closed")
	b.duration(&c.DrainWait, "drain-wait", "DRAIN_WAIT", "on SIGTERM, /healthz fails this long before the server stops taking connections")
	b.int(&c.FindStates, "find-states", "FIND_STATES", "distinct states one \"find a way to break this\" search explores at most (about 65 bytes each; a core's worth run at once)")
	b.duration(&c.FindTime, "find-time", "FIND_TIME", "the CPU time one \"find a way to break this\" search takes at most (and four times that by the clock on a busy machine) before it answers with how far it got")
	b.duration(&c.JudgeTime, "judge-time", "JUDGE_TIME", "the CPU time the judge of a lab's build takes at most (and four times that by the clock), with -find-states' budget, before it answers with how far it got")
	b.int(&c.MaxRooms, "max-rooms", "MAX_ROOMS", "workshop rooms open at once (across replicas with -follow-redis)")
	b.int(&c.RoomLearners, "room-learners", "ROOM_LEARNERS", "learners who may join one workshop room")
	b.int(&c.RoomPerAddr, "room-per-addr", "ROOM_PER_ADDR", "learners one client address (IPv6: its /64) may join to one room: a class behind one NAT needs the room's size")
	b.int(&c.RoomSubmits, "room-submits", "ROOM_SUBMITS", "submissions one learner may make per minute (and at once)")
	b.duration(&c.RoomIdle, "room-idle", "ROOM_IDLE", "a workshop room nobody uses is forgotten, learners and submissions with it, after this")
	b.bool(&c.BenchRoutes, "bench-routes", "", "mount /_bench/ for cmd/fencing-load; needs a -tags bench build, never in production")
	return errors.Join(b.errs...)
}

// Validate says what is wrong with c, naming the flag, and puts c in the
// form the server uses (the public URL reduced to scheme and host).
func (c *Config) Validate() error {
	switch {
	case c.MaxRuns < 1:
		return errors.New("-max-runs must be at least 1")
	case c.RunIdle <= 0:
		return errors.New("-run-idle must be positive")
	case c.RunRate < 0 || c.RunBurst < 1:
		return errors.New("-run-rate must be 0 or more and -run-burst at least 1")
	case c.FollowPerLecture < 1 || c.FollowPerAddr < 1 || c.FollowStreams < 1 || c.LectureIdle <= 0:
		return errors.New("-follow-per-lecture, -follow-per-addr and -follow-streams must be at least 1, -lecture-idle positive")
	case c.MaxConns < 0 || c.MaxConnsPerAddr < 0 || c.IdleTimeout <= 0 || c.DrainWait < 0:
		return errors.New("-max-conns and -max-conns-per-addr must be 0 (no bound) or more, -idle-timeout positive, -drain-wait 0 or more")
	case c.FindStates < 1 || c.FindTime <= 0 || c.JudgeTime <= 0:
		return errors.New("-find-states must be at least 1, -find-time and -judge-time positive")
	case c.MaxRooms < 1 || c.RoomLearners < 1 || c.RoomPerAddr < 1 || c.RoomSubmits < 1 || c.RoomIdle <= 0:
		return errors.New("-max-rooms, -room-learners, -room-per-addr and -room-submits must be at least 1, -room-idle positive")
	}
	if c.PublicURL != "" {
		u, err := url.Parse(c.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			return fmt.Errorf("-public-url %q: want scheme://host[:port], such as https://demo.example.org", c.PublicURL)
		}
		c.PublicURL = u.Scheme + "://" + u.Host
	}
	return nil
}

// binder defines flags that take their defaults from the environment.
type binder struct {
	fl     *flag.FlagSet
	getenv func(string) string
	errs   []error
}

// fromEnv sets flag name from the variable env, when it is set; want says
// what its value must look like, for the message when it does not parse.
func (b *binder) fromEnv(name, env, want string) {
	if env == "" {
		return
	}
	if s := b.getenv(env); s != "" {
		if err := b.fl.Set(name, s); err != nil {
			b.errs = append(b.errs, fmt.Errorf("%s=%q is not %s", env, s, want))
		}
	}
}

// withEnv adds the variable's name to a flag's usage.
func withEnv(usage, env string) string {
	if env == "" {
		return usage
	}
	return usage + " (env " + env + ")"
}

func (b *binder) int(p *int, name, env, usage string) {
	b.fl.IntVar(p, name, *p, withEnv(usage, env))
	b.fromEnv(name, env, "a whole number")
}

func (b *binder) float(p *float64, name, env, usage string) {
	b.fl.Float64Var(p, name, *p, withEnv(usage, env))
	b.fromEnv(name, env, "a number")
}

func (b *binder) duration(p *time.Duration, name, env, usage string) {
	b.fl.DurationVar(p, name, *p, withEnv(usage, env))
	b.fromEnv(name, env, "a duration such as 30m")
}

func (b *binder) bool(p *bool, name, env, usage string) {
	b.fl.BoolVar(p, name, *p, withEnv(usage, env))
	b.fromEnv(name, env, "true or false")
}

func (b *binder) string(p *string, name, env, usage string) {
	b.fl.StringVar(p, name, *p, withEnv(usage, env))
	b.fromEnv(name, env, "")
}

func (b *binder) value(v flag.Value, name, env, usage, want string) {
	b.fl.Var(v, name, withEnv(usage, env))
	b.fromEnv(name, env, want)
}

// prefixes is a comma-separated list of networks (CIDRs) as a flag.
type prefixes []netip.Prefix

func (ps *prefixes) Set(s string) error {
	var out []netip.Prefix
	for p := range strings.SplitSeq(s, ",") {
		pfx, err := netip.ParsePrefix(strings.TrimSpace(p))
		if err != nil {
			return err
		}
		out = append(out, pfx)
	}
	*ps = out
	return nil
}

func (ps *prefixes) String() string {
	if ps == nil {
		return ""
	}
	s := make([]string, len(*ps))
	for i, p := range *ps {
		s[i] = p.String()
	}
	return strings.Join(s, ",")
}
