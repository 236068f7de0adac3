package script

import "bytes"

// piece is a run of whole items of a scenarios file's list, under the line
// "scenarios:", that parses on its own; first is the line of the file that
// the piece's first line stands for, so that every line keeps its number.
type piece struct {
	data  []byte
	first int
}

// split cuts a scenarios file into at most n pieces, so that they can be
// parsed at the same time. It returns nil, and the file is read whole,
// unless the file has the plain shape that scenarios.yaml has: comments,
// then "scenarios:" alone at the top level, then its items, each starting
// at one indentation with "- ", and nothing else at the top level after
// them.
func split(data []byte, n int) []piece {
	if n < 2 || bytes.IndexByte(data, '\r') >= 0 {
		return nil
	}
	head := -1 // the line "scenarios:"
	var item []byte
	var starts []int  // the lines where an item starts
	var offsets []int // and where they start in data
	line := 0
	for at := 0; at < len(data); line++ {
		end := bytes.IndexByte(data[at:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += at
		}
		body := bytes.TrimRight(data[at:end], " ")
		start := at
		at = end + 1
		switch {
		case len(body) == 0 || body[0] == '#' || bytes.HasPrefix(bytes.TrimLeft(body, " "), []byte("#")):
			continue // blank or a comment, at any indentation
		case head < 0 && string(body) == "scenarios:":
			head = line
		case head < 0 || body[0] != ' ' && !bytes.HasPrefix(body, []byte("- ")):
			return nil // something before the list, or after it: a key, a "---"
		case item == nil:
			indent := len(body) - len(bytes.TrimLeft(body, " "))
			if !bytes.HasPrefix(body[indent:], []byte("- ")) {
				return nil
			}
			item = body[:indent+2]
			starts, offsets = append(starts, line), append(offsets, start)
		case bytes.HasPrefix(body, item):
			starts, offsets = append(starts, line), append(offsets, start)
		}
	}
	if len(starts) < 2 {
		return nil
	}
	n = min(n, len(starts))
	pieces := make([]piece, n)
	for k := range n {
		from, to := k*len(starts)/n, len(data)
		if k+1 < n {
			to = offsets[(k+1)*len(starts)/n]
		}
		// The piece's line "scenarios:" stands for the line before its first
		// item's, which is at least the file's own "scenarios:".
		pieces[k] = piece{data: append([]byte("scenarios:\n"), data[offsets[from]:to]...), first: starts[from]}
	}
	return pieces
}
