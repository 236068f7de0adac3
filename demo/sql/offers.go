package sql

import (
	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/lockservice"
)

// offers are each client's own statements from the script (a statement
// names its client's values, so it is not lent to another), and the lock
// service's calls where the lesson takes one, the chapter's Renew among
// them.
func offers(r *demo.Run) []demo.Offer {
	return append(demo.ScriptOffers(r, false), lockservice.RenewOffers(r)...)
}
