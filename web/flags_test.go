package web

import (
	"flag"
	"io"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// bind binds a default Config to a fresh flag set with env as the
// environment, and parses args.
func bind(t *testing.T, env map[string]string, args ...string) (Config, error) {
	t.Helper()
	cfg := DefaultConfig()
	fl := flag.NewFlagSet("test", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	envErr := cfg.Bind(fl, func(k string) string { return env[k] })
	if err := fl.Parse(args); err != nil {
		return cfg, err
	}
	return cfg, envErr
}

// A setting comes from its variable when its flag is not given, and from
// the flag when it is; unset, it keeps its default.
func TestBindEnvironmentThenFlags(t *testing.T) {
	cfg, err := bind(t, map[string]string{"MAX_RUNS": "7", "RUN_IDLE": "2m", "BEHIND_PROXY": "true", "TRUSTED_PROXIES": "10.1.0.0/16, 10.2.0.0/16"}, "-max-runs", "9")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cfg.MaxRuns, 9; got != want {
		t.Errorf("MaxRuns=%d with MAX_RUNS=7 and -max-runs 9, want %d", got, want)
	}
	if got, want := cfg.RunIdle, 2*time.Minute; got != want {
		t.Errorf("RunIdle=%v with RUN_IDLE=2m, want %v", got, want)
	}
	if !cfg.BehindProxy {
		t.Error("BehindProxy=false with BEHIND_PROXY=true")
	}
	if got, want := cfg.TrustedProxies, []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16"), netip.MustParsePrefix("10.2.0.0/16")}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("TrustedProxies=%v, want %v", got, want)
	}
	if got, want := cfg.FollowStreams, DefaultConfig().FollowStreams; got != want {
		t.Errorf("FollowStreams=%d with nothing set, want the default %d", got, want)
	}
}

// A variable that does not parse is an error that names it and says what it
// must look like, never silently the default.
func TestBindBadEnvironment(t *testing.T) {
	for env, want := range map[string]string{
		"MAX_RUNS":        `MAX_RUNS="ten" is not a whole number`,
		"RUN_RATE":        `RUN_RATE="ten" is not a number`,
		"LECTURE_IDLE":    `LECTURE_IDLE="ten" is not a duration`,
		"BEHIND_PROXY":    `BEHIND_PROXY="ten" is not true or false`,
		"TRUSTED_PROXIES": `TRUSTED_PROXIES="ten" is not a comma-separated list of CIDRs`,
	} {
		_, err := bind(t, map[string]string{env: "ten"})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s=ten: err=%v, want %q", env, err, want)
		}
	}
}

// Validate names the flag that is wrong, and puts the public URL in the
// form the QR codes use.
func TestValidate(t *testing.T) {
	for args, want := range map[string]string{
		"-max-runs 0":                "-max-runs",
		"-run-idle 0s":               "-run-idle",
		"-run-burst 0":               "-run-burst",
		"-follow-streams 0":          "-follow-streams",
		"-idle-timeout 0s":           "-idle-timeout",
		"-public-url ftp://x":        "-public-url",
		"-public-url https://x/path": "-public-url",
		"-find-states 0":             "-find-states",
		"-find-time 0s":              "-find-time",
		"-judge-time 0s":             "-judge-time",
	} {
		cfg, err := bind(t, nil, strings.Fields(args)...)
		if err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: Validate()=%v, want an error naming %s", args, err, want)
		}
	}
	cfg, _ := bind(t, nil, "-public-url", "https://demo.example.org/", "-behind-proxy")
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if got, want := cfg.PublicURL, "https://demo.example.org"; got != want {
		t.Errorf("PublicURL=%q, want %q", got, want)
	}
	if cfg.MaxConnsPerAddr == 0 {
		t.Error("MaxConnsPerAddr=0 behind a proxy: the bound per address applies to requests in flight there")
	}
}
