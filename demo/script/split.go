package script

import "bytes"

// split cuts a scenarios file into at most n pieces that each parse on their
// own, so that they can be parsed at the same time. A piece is the line
// "scenarios:" and a run of whole items of its list, with empty lines in
// front so that every line keeps its number in the file. split returns nil,
// and the file is read whole, unless the file has the plain shape that
// scenarios.yaml has: comments, then "scenarios:" alone at the top level,
// then its items, each starting at one indentation with "- ", and nothing
// else at the top level after them.
func split(data []byte, n int) [][]byte {
	if n < 2 || bytes.IndexByte(data, '\r') >= 0 {
		return nil
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	head := -1 // the line "scenarios:"
	var item []byte
	var starts []int // the lines where an item starts
	for i, l := range lines {
		body := bytes.TrimRight(l, " \n")
		switch {
		case len(body) == 0 || body[0] == '#' || bytes.HasPrefix(bytes.TrimLeft(body, " "), []byte("#")):
			continue // blank or a comment, at any indentation
		case head < 0 && string(body) == "scenarios:":
			head = i
		case head < 0 || body[0] != ' ' && !bytes.HasPrefix(body, []byte("- ")):
			return nil // something before the list, or after it: a key, a "---"
		case item == nil:
			indent := len(body) - len(bytes.TrimLeft(body, " "))
			if !bytes.HasPrefix(body[indent:], []byte("- ")) {
				return nil
			}
			item = body[:indent+2]
			starts = append(starts, i)
		case bytes.HasPrefix(body, item):
			starts = append(starts, i)
		}
	}
	if len(starts) < 2 {
		return nil
	}
	n = min(n, len(starts))
	var pieces [][]byte
	for k := range n {
		from, to := starts[k*len(starts)/n], len(lines)
		if k+1 < n {
			to = starts[(k+1)*len(starts)/n]
		}
		piece := append([]byte("scenarios:\n"), bytes.Repeat([]byte("\n"), from-1)...)
		pieces = append(pieces, append(piece, bytes.Join(lines[from:to], nil)...))
	}
	return pieces
}
