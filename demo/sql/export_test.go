package sql

import "github.com/distlock/fencing-demo/demo"

// StaleRowKey names a row of the database in s whose key parts are not what
// its maps and its place make now, as when a change forgot rekey; "" when
// there is none.
func StaleRowKey(s demo.Store) string {
	d, ok := s.(*database)
	if !ok {
		return ""
	}
	for _, t := range d.tables {
		for j, w := range t.rows {
			fresh := *w
			fresh.rekey()
			ref := string(demo.KeyInt(append([]byte(t.name), '/'), int64(j)))
			if fresh.valuesKey != w.valuesKey || fresh.pendingKey != w.pendingKey || w.ref != ref {
				return w.name()
			}
		}
	}
	return ""
}
