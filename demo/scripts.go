package demo

// Script is one of a scenario's named scripts: code that its family runs
// for a client, as a Redis client sends a Lua script with EVAL. Role says
// what the client believes of its answer, in the family's words ("release",
// "renew", ...). The engine only carries a script from the file to the
// family, as it carries a move's actions: the family compiles it, checks
// its role and runs it.
type Script struct {
	Name string
	Role string
	Lua  string
	// Line is the line of the file its first line of Lua stands on, so a
	// mistake in the script can be reported where it is; 0 for a script
	// made in code.
	Line int
}

// ScriptNamed returns sc's script called name.
func (sc *Scenario) ScriptNamed(name string) (Script, bool) {
	for _, s := range sc.Scripts {
		if s.Name == name {
			return s, true
		}
	}
	return Script{}, false
}
