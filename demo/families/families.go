// Package families is the one list of the store families the engine can
// play. A new family is a package of its own under demo/ and one line here
// (and one line in the views' panel registry, for its panel).
package families

import (
	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/backoff"
	"github.com/distlock/fencing-demo/demo/consensus"
	"github.com/distlock/fencing-demo/demo/eventlog"
	"github.com/distlock/fencing-demo/demo/lockservice"
	"github.com/distlock/fencing-demo/demo/partition"
	"github.com/distlock/fencing-demo/demo/redis"
	"github.com/distlock/fencing-demo/demo/sql"
)

// All is every family, in the order an error message names their kinds.
var All = demo.NewRegistry(
	lockservice.Family,
	redis.Family,
	consensus.Family,
	sql.Family,
	eventlog.Family,
	partition.Family,
	backoff.Family,
)
