package eventlog_test

import (
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo/eventlog"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/internal/testkit"
)

// With one consumer the balance is the replay of the log; handlers that
// write the balance back leave a balance no history explains.
func TestBalanceIsTheReplayOnlyWithOneConsumer(t *testing.T) {
	for _, tt := range []struct {
		on            bool
		balance, want int64
	}{{false, 150, 100}, {true, 120, 120}} {
		s, ok := eventlog.Of(testkit.LastFrame(t, "event-log", tt.on))
		if !ok {
			t.Fatal("event-log's last frame has no account")
		}
		sum, _ := s.Replay()
		if s.Balance != tt.balance || sum != tt.want {
			t.Errorf("on=%v: balance %d, replay %d; want %d and %d", tt.on, s.Balance, sum, tt.balance, tt.want)
		}
	}
}

// The consumer applies only what is in the log, and a handler writes back
// only a balance it has read.
func TestApplyAndPutNeedSomethingToWorkFrom(t *testing.T) {
	want := map[string]string{
		"consumer apply":    "no event the consumer has not applied",
		"A put withdraw 30": "has not read the balance yet",
	}
	for do := range want {
		src := testkit.File(testkit.OnStore(t, "eventlog", testkit.YAML("log", do)))
		_, err := script.Load("log.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), want[do]) {
			t.Errorf("%q on an empty account: %v, want an error saying %q", do, err, want[do])
		}
	}
}
