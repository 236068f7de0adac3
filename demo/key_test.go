package demo

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
)

// A key's numbers are binary.AppendVarint's bytes, written out so that
// KeyInt inlines: the same bytes for small, large and negative numbers,
// and RelTime's are an '=' and the difference from now, or 'n' for never.
func TestKeyIntIsAVarint(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 63, -64, 64, -65, 8191, 8192, -8193, 1 << 40, -1 << 40, math.MaxInt64, math.MinInt64} {
		if got, want := KeyInt([]byte{'x'}, v), binary.AppendVarint([]byte{'x'}, v); !bytes.Equal(got, want) {
			t.Errorf("KeyInt(%d) = %x, want %x", v, got, want)
		}
	}
	if got, want := RelTime(nil, 2500, 1000), binary.AppendVarint([]byte{'='}, 1500); !bytes.Equal(got, want) {
		t.Errorf("RelTime(2500, 1000) = %x, want %x", got, want)
	}
	if got := RelTime(nil, -1, 1000); string(got) != "n" {
		t.Errorf("RelTime(never) = %q, want n", got)
	}
}
