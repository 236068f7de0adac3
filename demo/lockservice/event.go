package lockservice

import (
	"fmt"
	"strconv"

	"github.com/distlock/fencing-demo/demo"
)

// The lock service's event kinds.
const (
	Acquired       demo.Kind = "acquired"        // AcquireCall, granted
	AcquireDenied  demo.Kind = "acquire-denied"  // AcquireCall, the lock was held
	Renewed        demo.Kind = "renewed"         // RenewCall, extended
	RenewDenied    demo.Kind = "renew-denied"    // RenewCall, the caller is not the holder
	Released       demo.Kind = "released"        // ReleaseCall by the holder
	ReleaseIgnored demo.Kind = "release-ignored" // ReleaseCall by someone who does not hold the lock
	Expired        demo.Kind = "expired"         // LeaseExpiry
)

// The lock service's calls, in the chapter's Go API.

// AcquireCall is Acquire(client, lease): a token and a lease, or a refusal.
type AcquireCall struct {
	demo.Head
	Lease  int   // the lease asked for
	Token  int64 // the token issued; 0 when refused
	Expiry int   // when the lease runs out
	OK     bool
}

func (e AcquireCall) Kind() demo.Kind { return demo.Pick(e.OK, Acquired, AcquireDenied) }

func (e AcquireCall) Wire() (string, string) {
	return fmt.Sprintf("Acquire(%q, %d)", e.Client, e.Lease), fmt.Sprintf("(%d, %t)", e.Token, e.OK)
}

func (e AcquireCall) Note(sc *demo.Scenario) string {
	if e.OK {
		return ", lease until " + demo.Clock(sc, e.Expiry)
	}
	return ""
}

func (e AcquireCall) Draw(d *demo.Drawing) {
	if e.OK {
		d.Start("", e.Client, e.At, e.Token, e.Expiry)
	}
}

// RenewCall is Renew(client, lease), a heartbeat. Token is the one the client
// believes it holds.
type RenewCall struct {
	demo.Head
	Lease  int
	Token  int64
	Expiry int // the new expiry; 0 when refused
	OK     bool
}

func (e RenewCall) Kind() demo.Kind { return demo.Pick(e.OK, Renewed, RenewDenied) }

func (e RenewCall) Wire() (string, string) {
	return fmt.Sprintf("Renew(%q, %d)", e.Client, e.Lease), strconv.FormatBool(e.OK)
}

func (e RenewCall) Note(sc *demo.Scenario) string {
	if e.OK {
		return ", lease until " + demo.Clock(sc, e.Expiry)
	}
	return ""
}

// ReleaseCall is Release(client). Held says whether the caller was the holder;
// anyone else's call does nothing.
type ReleaseCall struct {
	demo.Head
	Token int64 // the token the client believed it held
	Held  bool
}

func (e ReleaseCall) Kind() demo.Kind        { return demo.Pick(e.Held, Released, ReleaseIgnored) }
func (e ReleaseCall) Wire() (string, string) { return fmt.Sprintf("Release(%q)", e.Client), "" }

func (e ReleaseCall) Draw(d *demo.Drawing) {
	if e.Held {
		d.Stop("", e.Client, e.At)
	}
}

// LeaseExpiry is a lease running out while the clock moved; Client was the
// holder, At the instant the lease ended.
type LeaseExpiry struct {
	demo.Head
	Token int64
}

func (LeaseExpiry) Kind() demo.Kind        { return Expired }
func (LeaseExpiry) Wire() (string, string) { return "", "" }

func (e LeaseExpiry) Story(*demo.Scenario) string {
	return fmt.Sprintf("lease token=%d expired", e.Token)
}

func (e LeaseExpiry) Draw(d *demo.Drawing) {
	d.Stop("", e.Client, e.At)
	d.Mark(demo.Mark{Lane: "", At: e.At, What: "expiry"})
}

func (e AcquireCall) Deeds() demo.Deed {
	if e.OK {
		return demo.Asked | demo.Got
	}
	return demo.Asked
}

func (e RenewCall) Deeds() demo.Deed {
	if e.OK {
		return demo.Renewed
	}
	return 0
}
func (ReleaseCall) Deeds() demo.Deed { return demo.Unlocked }
