package eventlog

import (
	"strconv"

	"github.com/distlock/fencing-demo/demo"
)

// The log's event kinds.
const (
	ReadKind    demo.Kind = "log-read"
	PutKind     demo.Kind = "log-put"
	AppendKind  demo.Kind = "log-append"
	AppliedKind demo.Kind = "log-applied"
)

// ReadBalance is a handler reading the balance.
type ReadBalance struct {
	demo.Head
	Balance int64
}

func (ReadBalance) Kind() demo.Kind { return ReadKind }
func (e ReadBalance) Wire() (string, string) {
	return "read account 1", "balance=" + strconv.FormatInt(e.Balance, 10)
}

// PutBalance is a handler writing back the balance it computed.
type PutBalance struct {
	demo.Head
	Change  Args
	Balance int64
}

func (PutBalance) Kind() demo.Kind { return PutKind }
func (e PutBalance) Wire() (string, string) {
	return "write account 1 balance=" + strconv.FormatInt(e.Balance, 10), "ok"
}

// Deeds: a write-back is a write, and it records the balance.
func (PutBalance) Deeds() demo.Deed { return demo.Wrote | demo.Recorded }

// Appended is a handler appending an event to the account's log.
type Appended struct {
	demo.Head
	Entry Entry
}

func (Appended) Kind() demo.Kind { return AppendKind }
func (e Appended) Wire() (string, string) {
	return "append " + e.Entry.Change.Name() + " to account 1's log", "offset " + strconv.Itoa(e.Entry.Offset)
}

// AppliedEvent is the consumer applying one event of the log.
type AppliedEvent struct {
	demo.Head
	Entry   Entry
	Balance int64
}

func (AppliedEvent) Kind() demo.Kind        { return AppliedKind }
func (AppliedEvent) Wire() (string, string) { return "", "" }

// Story is the consumer's step in the transcript's words.
func (e AppliedEvent) Story(*demo.Scenario) string {
	return "applies log " + strconv.Itoa(e.Entry.Offset) + ", " + e.Entry.Change.Name() + " from " + e.Entry.Client +
		": balance " + strconv.FormatInt(e.Balance, 10)
}
