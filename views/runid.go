package views

import (
	"bytes"
	"strings"
)

// RunIDLen is the length of a run's key as the page carries it in the form's
// run field (RunParam): 128 random bits in hex.
const RunIDLen = 32

// ValidRunID reports whether id has the shape of a run's key. The server
// checks a click's run field with it, and the load tool a page's.
func ValidRunID(id string) bool {
	if len(id) != RunIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// StepShown returns the "k / n" a page or fragment shows as its step (the
// step-index this package draws), or "". It reads the bytes rather than
// parse the page, for the load tool and the tests that read many answers.
func StepShown(body []byte) string {
	const mark = `data-testid="step-index"`
	i := bytes.Index(body, []byte(mark))
	if i < 0 {
		return ""
	}
	rest := body[i:]
	start := bytes.IndexByte(rest, '>')
	end := bytes.Index(rest, []byte("</"))
	if start < 0 || end < start {
		return ""
	}
	return strings.Join(strings.Fields(string(rest[start+1:end])), " ")
}
