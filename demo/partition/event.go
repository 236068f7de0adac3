package partition

import (
	"strconv"

	"github.com/distlock/fencing-demo/demo"
)

// The partition's event kinds.
const (
	AssignKind  demo.Kind = "partition-assigned"
	ProduceKind demo.Kind = "partition-write"
	FencedKind  demo.Kind = "partition-fenced"
)

// Assigned is a rebalance giving the partition to Worker, whose producer
// then starts with the partition's transactional.id and is given Epoch: a
// new producer with the same transactional.id bumps the producer epoch (the
// consumer group's generation is another number, which fences offset
// commits, not writes).
type Assigned struct {
	demo.Head
	Worker string
	Epoch  int64
}

// TransactionalID is the transactional.id of partition 0's producer: each
// owner of the partition starts its producer with it.
const TransactionalID = "writer-p0"

func (Assigned) Kind() demo.Kind { return AssignKind }

// Wire is the rebalance and the new owner's InitProducerId, which the
// transaction coordinator answers with the bumped epoch.
func (e Assigned) Wire() (string, string) {
	return "rebalance: partition 0 to " + e.Worker + "; InitProducerId(transactional.id=" + TransactionalID + ")",
		"producer epoch " + strconv.FormatInt(e.Epoch, 10)
}

// Produced is a worker's write of row-42, with the epoch it was given, and
// whether the store took it.
type Produced struct {
	demo.Head
	Value  string
	Epoch  int64
	Max    int64 // the newest epoch that had written before
	Before string
	OK     bool
}

func (e Produced) Kind() demo.Kind { return demo.Pick(e.OK, ProduceKind, FencedKind) }

// Wire is the write as the model sends it; the refusal is Kafka's
// INVALID_PRODUCER_EPOCH, the error the broker answers a produce request
// carrying an epoch older than the transactional.id's newest (the Java
// client then throws ProducerFencedException).
func (e Produced) Wire() (string, string) {
	call := "write row-42=" + e.Value + " (epoch " + strconv.FormatInt(e.Epoch, 10) + ")"
	if !e.OK {
		return call, "INVALID_PRODUCER_EPOCH (" + strconv.FormatInt(e.Epoch, 10) + " < " + strconv.FormatInt(e.Max, 10) + ")"
	}
	return call, "ok"
}

// Deeds: a worker's write is a write, and a record when the store took it.
func (e Produced) Deeds() demo.Deed {
	if e.OK {
		return demo.Wrote | demo.Recorded
	}
	return demo.Wrote
}
