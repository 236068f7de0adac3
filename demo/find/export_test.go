package find

// DropKept forgets the tables kept from earlier searches (kept.go), so that
// a benchmark weighs the heap a search makes for itself.
func DropKept() {
	kept.Lock()
	defer kept.Unlock()
	kept.slots, kept.nodes = [keptClasses][][2]uint64{}, [keptClasses][]node{}
}
