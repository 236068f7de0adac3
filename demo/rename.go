package demo

// Interchangeable clients. Where some clients run the same program (five
// clients queueing on one ZooKeeper lock, three of them only locking), two
// states that differ only in which of them did what have the same future,
// with the names swapped, and break a property alike. The finder keys such
// a state as the one renamed into a canonical order, so it explores one of
// them. Only a store that says its future does not depend on its clients'
// names (Renamer) is keyed so.

// Renaming is a permutation of a run's clients: client i takes place
// To(i) in the renamed state. A nil Renaming renames nobody and writes
// names as they are.
type Renaming struct {
	names    []string // the run's clients, in the scenario's order
	to, from []int
	// Values: the resource's value, where it is a client's name, is that
	// client's own write, so it is renamed with the client.
	Values bool
}

// NewRenaming is the renaming of the clients called names that renames
// nobody.
func NewRenaming(names []string) *Renaming {
	n := &Renaming{names: names, to: make([]int, len(names)), from: make([]int, len(names))}
	for i := range names {
		n.to[i], n.from[i] = i, i
	}
	return n
}

// Names is the run's clients, in the scenario's order.
func (n *Renaming) Names() []string { return n.names }

// Move has client i take place j; a whole permutation's moves make a
// renaming.
func (n *Renaming) Move(i, j int) { n.to[i], n.from[j] = j, i }

// To is the place client i takes.
func (n *Renaming) To(i int) int {
	if n == nil {
		return i
	}
	return n.to[i]
}

// Slot is the place the client called name takes, or -1 for a name that is
// no client's (or no renaming).
func (n *Renaming) Slot(name string) int {
	if n == nil {
		return -1
	}
	for i, c := range n.names {
		if sameName(c, name) {
			return n.to[i]
		}
	}
	return -1
}

// From is the client that takes place j.
func (n *Renaming) From(j int) int {
	if n == nil {
		return j
	}
	return n.from[j]
}

// AppendValue appends the resource's value to a key: renamed where it is a
// client's own write (Values), as it is otherwise.
func (n *Renaming) AppendValue(b []byte, v string) []byte {
	if n != nil && n.Values {
		return n.AppendName(b, v)
	}
	return append(b, v...)
}

// AppendName appends a client's name to a key as its place in the renamed
// state (a zero byte and the place, which no name has), and any other name
// as it is.
func (n *Renaming) AppendName(b []byte, name string) []byte {
	if j := n.Slot(name); j >= 0 {
		return append(b, 0, byte(j))
	}
	return append(b, name...)
}

// AppendClient appends client i (by its place among the run's clients) to
// a key as AppendName appends its name.
func (n *Renaming) AppendClient(b []byte, i int) []byte {
	return append(b, 0, byte(n.To(i)))
}

// Renamer is a Keyer that can write its key for the state renamed: what
// it keeps for each client alone, without the client's name, and the rest
// with every client named by its place in the renamed state. The finder
// writes each client's part once, orders interchangeable clients by it and
// writes the parts in the renamed order.
type Renamer interface {
	Keyer
	// Renames reports whether the store's future depends on its clients'
	// names only up to a renaming: no rule orders clients by name or by the
	// order they came in, and no action's arguments name a client.
	Renames() bool
	// ClientKeys appends to alone[i] what the store keeps for client i
	// (by its place among the run's clients) alone, without its name.
	ClientKeys(alone [][]byte, now int)
	// KeyShared appends the rest of the store's state, renamed by n.
	KeyShared(b []byte, now int, n *Renaming) []byte
}

// Renames reports whether r's key can be written for r renamed.
func (r *Run) Renames() bool {
	k, ok := r.store.(Renamer)
	return ok && k.Renames()
}

// ClientKeys sets alone[i] to what r keeps for client i alone, its belief
// and what the store keeps for it, without its name, for a run that
// Renames. Each is part of r's key renamed (KeyRenamed).
func (r *Run) ClientKeys(alone [][]byte) {
	var buf [32]int
	r.clientKeys(alone, r.past(buf[:0]), nil)
}

// clientKeys sets alone as ClientKeys does; with the store's parts
// written already (StoreClientKeys), it appends those.
func (r *Run) clientKeys(alone [][]byte, past []int, store [][]byte) {
	for i := range r.clients {
		alone[i] = r.clientKey(alone[i][:0], i, past)
		if store != nil {
			alone[i] = append(alone[i], store[i]...)
		}
	}
	if store == nil {
		r.store.(Renamer).ClientKeys(alone, r.now)
	}
}

// StoreClientKeys sets parts[i] to what the store alone keeps for client
// i (Renamer.ClientKeys appends each to the client's part): as StoreKey,
// written once for the steps tried from one state that leave the store
// and the time as they are, and given to KeyCanonicalWith.
func (r *Run) StoreClientKeys(parts [][]byte) {
	for i := range parts {
		parts[i] = parts[i][:0]
	}
	r.store.(Renamer).ClientKeys(parts, r.now)
}

// KeyShared appends the rest of r's key renamed by n, for a run that
// Renames: the resource, the holdings, the violations and the store's
// shared state, with every client by its place.
func (r *Run) KeyShared(b []byte, n *Renaming) []byte {
	var buf [32]int
	return r.keyRenamedShared(b, n, r.past(buf[:0]))
}

func (r *Run) keyRenamedShared(b []byte, n *Renaming, past []int) []byte {
	b = r.keyShared(b, n, past)
	return r.store.(Renamer).KeyShared(b, r.now, n)
}

// KeyCanonical appends r's key renamed by the renaming that canon picks
// from what each client keeps alone (set in alone as by ClientKeys, for
// canon to add to): KeyRenamed's, with the past moments worked out once
// for both parts. The finder keys every state it tries so.
func (r *Run) KeyCanonical(b []byte, alone [][]byte, canon func(alone [][]byte) *Renaming) []byte {
	return r.KeyCanonicalWith(b, alone, nil, canon)
}

// KeyCanonicalWith is KeyCanonical with the store's part of each client's
// written already (StoreClientKeys) for the same store at the same moment;
// nil: written here.
func (r *Run) KeyCanonicalWith(b []byte, alone, store [][]byte, canon func(alone [][]byte) *Renaming) []byte {
	var buf [32]int
	past := r.past(buf[:0])
	r.clientKeys(alone, past, store)
	n := canon(alone)
	for j := range alone {
		part := alone[n.From(j)]
		b = append(KeyInt(b, int64(len(part))), part...)
	}
	return r.keyRenamedShared(b, n, past)
}

// KeyRenamed is r's key renamed by n, for a run that Renames: each
// client's part (ClientKeys) in the renamed order, each with its length,
// then the rest (KeyShared). Two runs that are a renaming of each other,
// by n and by m, have n's key for the one and m's for the other when the
// renamed states are the same.
func (r *Run) KeyRenamed(b []byte, n *Renaming) []byte {
	alone := make([][]byte, len(r.clients))
	r.ClientKeys(alone)
	for j := range alone {
		part := alone[n.From(j)]
		b = append(KeyInt(b, int64(len(part))), part...)
	}
	return r.KeyShared(b, n)
}
