package consensus

import (
	"slices"
	"strings"
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

// pathKey is a path as the state's key writes it: its FNV-1a hash of 64
// bits, worked out once where a znode, a watch, a count or a session takes
// the path, rather than the path's bytes written and hashed for every
// state the finder tries (paths were half of a ZooKeeper key). A search
// meets a few dozen paths, so two of them share a hash with a chance near
// 2^-55; "" (no path) is 0, which no path's hash is.
func pathKey(p string) uint64 {
	if p == "" {
		return 0
	}
	h := uint64(14695981039346656037)
	for i := 0; i < len(p); i++ {
		h = (h ^ uint64(p[i])) * 1099511628211
	}
	return max(h, 1)
}

// setMine sets the lock node or key ss's client created.
func (ss *session) setMine(p string) { ss.mine, ss.mineKey = p, pathKey(p) }

// setWaitOn sets what ss's watch waits on.
func (ss *session) setWaitOn(p string) { ss.waitOn, ss.waitKey = p, pathKey(p) }
