package views

import (
	"fmt"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/lockservice"
)

// describeLock puts a lock service call in a sentence.
func describeLock(lang string, f demo.Frame, e demo.Event) (string, bool) {
	sc := f.Scenario
	key := "ev." + e.Kind().String()
	clock := func(t int) string { return Clock(sc, t) }
	switch e := e.(type) {
	case lockservice.AcquireCall:
		if e.OK {
			return fmt.Sprintf(T(lang, key), e.Client, e.Token, clock(e.Expiry)), true
		}
	case lockservice.RenewCall:
		if e.OK {
			return fmt.Sprintf(T(lang, key), e.Client, clock(e.Expiry), e.Token), true
		}
	case lockservice.LeaseExpiry:
		return fmt.Sprintf(T(lang, key), e.Client, clock(e.At), e.Token), true
	}
	return "", false
}

// lockChanged says whether the frame's own move changed the lock service's
// holder, token or expiry, so the page can draw the eye to it.
func lockChanged(f demo.Frame, what string) bool {
	for _, e := range f.Latest() {
		switch e := e.(type) {
		case lockservice.AcquireCall:
			if e.OK && (what == "holder" || what == "token" || what == "expiry") {
				return true
			}
		case lockservice.RenewCall:
			if e.OK && what == "expiry" {
				return true
			}
		case lockservice.ReleaseCall, lockservice.LeaseExpiry:
			if what == "holder" || what == "expiry" {
				return true
			}
		}
	}
	return false
}
