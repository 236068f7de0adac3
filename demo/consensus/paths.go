package consensus

import (
	"encoding/binary"
	"hash/fnv"
	"io"
	"slices"
	"strings"
	"sync"
)

// znodes are the service's znodes (or keys) sorted by path. A state holds a
// few, and the finder copies and keys a state for every step it tries: a
// sorted slice copies without hashing and is written in order without a
// sort, where a map did both per state.
type znodes []*znode

func (zs znodes) find(path string) (int, bool) {
	return slices.BinarySearchFunc(zs, path, func(z *znode, p string) int { return strings.Compare(z.path, p) })
}

// get is the znode at path, or nil.
func (zs znodes) get(path string) *znode {
	if i, ok := zs.find(path); ok {
		return zs[i]
	}
	return nil
}

// put adds z at its path, or replaces the znode there.
func (zs *znodes) put(z *znode) {
	i, ok := zs.find(z.path)
	if ok {
		(*zs)[i] = z
		return
	}
	*zs = slices.Insert(*zs, i, z)
}

// del removes the znode at path, if any.
func (zs *znodes) del(path string) {
	if i, ok := zs.find(path); ok {
		*zs = slices.Delete(*zs, i, i+1)
	}
}

// count is a parent's child version (ZooKeeper's cversion).
type count struct {
	path string
	key  uint64 // pathKey(path)
	n    int
}

// counts are child versions sorted by path, a slice for the reason znodes
// are one.
type counts []count

func (cs counts) find(path string) (int, bool) {
	return slices.BinarySearchFunc(cs, path, func(c count, p string) int { return strings.Compare(c.path, p) })
}

// get is path's count; 0 for none.
func (cs counts) get(path string) int {
	if i, ok := cs.find(path); ok {
		return cs[i].n
	}
	return 0
}

// inc adds one to path's count.
func (cs *counts) inc(path string) {
	i, ok := cs.find(path)
	if !ok {
		*cs = slices.Insert(*cs, i, count{path: path, key: pathKey(path)})
	}
	(*cs)[i].n++
}

// pathKey is a path as the state's key writes it (appendKey): its number
// (paths), worked out once where a znode, a watch, a count or a session
// takes the path, rather than the path's bytes written and hashed for every
// state the finder tries (paths were half of a ZooKeeper key); "" (no
// path) is 0, which no path's number is.
func pathKey(p string) uint64 {
	if p == "" {
		return 0
	}
	return paths.of(p)
}

// appendKey appends a path's or a setting's number (pathKey, fixedKey) as
// a varint: a byte for the first 127, and the end of one is plain to see,
// so a key needs no separator after it.
func appendKey(b []byte, k uint64) []byte { return binary.AppendUvarint(b, k) }

// paths and settings number the paths and the sessions' settings that
// keys name, for the life of the process: a number names one string in
// every key of every search, so two states' keys name a path alike, and
// the first 127 take a byte of a key where a hash took eight. The
// scenarios meet a few dozen of each; what comes after numberingMax gets a
// hash instead (numbering.of).
var paths, settings numbering

const numberingMax = 1 << 16

// A numbering gives each string it is asked for a number from 1 up, the
// same every time. Searches run side by side on a server, hence the lock;
// a string numbered already is read without it.
type numbering struct {
	known sync.Map // string → uint64
	mu    sync.Mutex
	n     uint64
}

// of is s's number. Past numberingMax, it is s's FNV-1a hash with the top
// bit set, which no number has: two such strings share one with a chance
// near 2^-63 for each pair.
func (t *numbering) of(s string) uint64 {
	if k, ok := t.known.Load(s); ok {
		return k.(uint64)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if k, ok := t.known.Load(s); ok {
		return k.(uint64)
	}
	if t.n >= numberingMax {
		h := fnv.New64a()
		io.WriteString(h, s)
		return h.Sum64() | 1<<63
	}
	t.n++
	t.known.Store(s, t.n)
	return t.n
}

// setMine sets the lock node or key ss's client created.
func (ss *session) setMine(p string) { ss.mine, ss.mineKey = p, pathKey(p) }

// setWaitOn sets what ss's watch waits on.
func (ss *session) setWaitOn(p string) { ss.waitOn, ss.waitKey = p, pathKey(p) }

// setMineNode and setWaitOnNode are setMine and setWaitOn for a znode's
// path, with the number the znode has already.
func (ss *session) setMineNode(z *znode)   { ss.mine, ss.mineKey = z.path, z.key }
func (ss *session) setWaitOnNode(z *znode) { ss.waitOn, ss.waitKey = z.path, z.key }
