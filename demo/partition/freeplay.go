package partition

import (
	"slices"
	"strconv"

	"github.com/distlock/fencing-demo/demo"
)

// offers are the script's writes, by either worker, and a rebalance to each
// worker: what the world may do to the partition's ownership at any moment.
func offers(r *demo.Run) []demo.Offer {
	out := demo.ScriptOffers(r, true)
	for _, c := range r.Scenario().Clients {
		src := Coordinator + " " + string(Assign) + " " + c
		if slices.ContainsFunc(out, func(o demo.Offer) bool { return o.Action.Source == src }) {
			continue
		}
		label := string(Assign) + " " + c
		out = append(out, demo.Offer{
			Action: demo.Action{Who: Coordinator, Verb: Assign, Args: assignArgs{c}, Source: src},
			Who:    Coordinator, Label: demo.Text{EN: label, JA: label},
		})
	}
	return out
}

// What the finder asks of a store beyond demo.Store: a cheap copy and a
// canonical key.
var (
	_ demo.Cloner = (*partition)(nil)
	_ demo.Keyer  = (*partition)(nil)
)

// Clone copies the partition for the finder.
func (p *partition) Clone() demo.Store {
	c := *p
	c.epochs = make(map[string]int64, len(p.epochs))
	for w, e := range p.epochs {
		c.epochs[w] = e
	}
	return &c
}

// Key is the whole partition: no time enters its rules.
func (p *partition) Key(b []byte, _ int) []byte {
	b = append(b, p.owner...)
	b = strconv.AppendInt(append(b, ' '), p.epoch, 10)
	workers := make([]string, 0, len(p.epochs))
	for w := range p.epochs {
		workers = append(workers, w)
	}
	slices.Sort(workers)
	for _, w := range workers {
		b = strconv.AppendInt(append(append(b, ' '), w...), p.epochs[w], 10)
	}
	b = append(append(append(b, ' '), p.value...), 0)
	b = append(append(b, p.writer...), 0)
	return strconv.AppendInt(b, p.maxEpoch, 10)
}
