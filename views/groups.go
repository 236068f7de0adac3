package views

import "github.com/distlock/fencing-demo/demo"

// IndexGroups plays every scenario to its end in both switch positions and
// groups them as the texts do: by purpose, then by topology. The server works
// it out once at start-up, the static export once per export.
func IndexGroups(catalog *demo.Catalog) ([]Group, error) {
	var groups []Group
	for _, purpose := range []string{"efficiency", "correctness"} {
		for _, topology := range []string{"single", "replicated", "quorum", "consensus", "database", "nolock"} {
			g := Group{Purpose: purpose, Topology: topology}
			for _, sc := range catalog.Scenarios {
				if sc.Purpose != purpose || sc.Topology != topology {
					continue
				}
				off, err := demo.Replay(sc, false, sc.Frames())
				if err != nil {
					return nil, err
				}
				on, err := demo.Replay(sc, true, sc.Frames())
				if err != nil {
					return nil, err
				}
				g.Entries = append(g.Entries, Entry{Sc: sc, Off: off.Frame(), On: on.Frame()})
			}
			if len(g.Entries) > 0 {
				groups = append(groups, g)
			}
		}
	}
	return groups, nil
}
