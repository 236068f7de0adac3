package demo

// Resource is the shared thing the lock protects: a database row, a file, an
// external API. When fenced it only takes writes whose token is at least the
// largest token it has seen, so a late old holder (a smaller token) bounces off
// and a double acquisition cannot destroy data.
type Resource struct {
	Name     string
	fenced   bool   // whether the resource checks tokens
	data     string // the current value
	maxToken int64  // the largest fencing token accepted so far
	Rejected int    // writes refused by fencing (for watching)
	writes   int    // writes accepted (for watching)
}

// NewResource makes a resource with fencing on.
func NewResource(name string) *Resource {
	return &Resource{Name: name, fenced: true}
}

// NewUnfencedResource makes a resource with fencing off. It is the comparison
// case: it lets an old holder's write through, so the demo can show the damage.
func NewUnfencedResource(name string) *Resource {
	return &Resource{Name: name, fenced: false}
}

// Write tries a write that carries a token. With fencing on it is accepted only
// when token is at least the largest token seen so far; an older token is
// refused and Write returns false. With fencing off every write is accepted,
// which is exactly how an old holder overwrites a newer value.
func (r *Resource) Write(token int64, value string) bool {
	if r.fenced && token < r.maxToken {
		r.Rejected++
		return false // fenced off: a stale holder's write, stopped before it lands
	}
	if token > r.maxToken {
		r.maxToken = token
	}
	r.data = value
	r.writes++
	return true
}

// Data returns the current value.
func (r *Resource) Data() string { return r.data }

// MaxToken returns the largest token accepted so far.
func (r *Resource) MaxToken() int64 { return r.maxToken }

// Fenced reports whether the resource checks tokens.
func (r *Resource) Fenced() bool { return r.fenced }

// Writes returns how many writes were accepted.
func (r *Resource) Writes() int { return r.writes }
