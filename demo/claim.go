package demo

// Every sentence the page makes from the model asserts facts about its
// frame: who held the lock and until when, whose write landed over whose
// data, which token the resource had seen, who waited for what. A Claim is
// one such fact, named by the code that writes the sentence, so that a
// test can hold it to the frame with an account of the model computed
// apart from that code (package demo/truth): a sentence is only as true as
// the facts it names, in every frame a learner can reach.
type Claim struct {
	Fact   Fact
	Client string
	Other  string
	Value  string
	At     int
	Token  int64
}

// Fact is what a claim says of its client, at its moment or at the frame.
type Fact string

// Currently is a claim's moment for what holds as the frame leaves it, after
// everything that happened at its last instant (a panel's line); a claim
// about a moment t is true if it held at some point during that instant, as
// several things may happen at one instant.
const Currently = -1

// The facts a sentence may claim. Each says what must be true of the frame
// for the claim to hold; package truth checks them.
const (
	// Believes: Client believed it held the lock at At.
	Believes Fact = "believes"
	// BelievesNot: Client did not believe it held the lock at At: it never
	// had it, released it, learned it lost it, or died.
	BelievesNot Fact = "believes-not"
	// HoldsValid: Client held the lock at At, within its lease.
	HoldsValid Fact = "holds"
	// LeaseOver: Client's last lease before At had run out by At.
	LeaseOver Fact = "lease-over"
	// IsPaused: Client is paused, at the frame's now.
	IsPaused Fact = "paused"
	// Dead: Client has crashed, by the frame's now.
	Dead Fact = "dead"
	// Landed: a write of Client's, of Value, reached the resource at At
	// and was taken.
	Landed Fact = "landed"
	// NoneLanded: no write of Client's has reached the resource since At,
	// by the frame's now.
	NoneLanded Fact = "none-landed"
	// Overwrote: Client's write taken at At replaced Value, which Other
	// wrote ("" for nobody's: the stage's, or an empty resource's).
	Overwrote Fact = "overwrote"
	// Destroyed: what Overwrote says, and Other took the lock after
	// Client's last hold began: a newer holder's data is gone.
	Destroyed Fact = "destroyed"
	// NothingNewerLost: Client's write taken at At replaced no data of a
	// holder newer than Client.
	NothingNewerLost Fact = "nothing-newer-lost"
	// FencedOff: Client's write with Token was turned away by a resource
	// that had seen a higher token, at At (-1: at some moment).
	FencedOff Fact = "fenced-off"
	// NotYetSeen: at At the resource had seen no token above Token, though
	// Other held a higher one: a resource can only reject what it has seen.
	NotYetSeen Fact = "not-yet-seen"
	// BothValid: Client and Other both held the lock at At, each within
	// its lease.
	BothValid Fact = "both-valid"
	// TokenGiven: Client was given Token with the lock by At.
	TokenGiven Fact = "token"
)

// Claimed is something that says which facts it asserts: a family's event
// whose sentence claims more than what happened to it (a client resuming
// "still believing it holds the lock").
type Claimed interface {
	Claims() []Claim
}

// ResourceWrite is a family's event that carries a write to the scenario's
// resource, which the engine would record as a WriteResult (a database's
// UPDATE of the resource's row): what the resource took, or turned away.
type ResourceWrite interface {
	Written() (WriteResult, bool)
}
