package demo

// OnOff names a switch position as addresses, files and transcripts spell
// it: "on" or "off".
func OnOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}
