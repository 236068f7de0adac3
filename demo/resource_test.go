package demo

import "testing"

// writeCall is one call of Resource.Write and what it should answer.
type writeCall struct {
	token int64
	value string
	ok    bool
}

// wantResource fails unless r holds data with maxToken, having rejected and
// accepted the given numbers of writes.
func wantResource(tb testing.TB, r *Resource, data string, maxToken int64, rejected, writes int) {
	tb.Helper()
	if got, want := r.Data(), data; got != want {
		tb.Fatalf("Data()=%q, want %q", got, want)
	}
	if got, want := r.MaxToken(), maxToken; got != want {
		tb.Fatalf("MaxToken()=%d, want %d", got, want)
	}
	if got, want := r.Rejected, rejected; got != want {
		tb.Fatalf("Rejected=%d, want %d", got, want)
	}
	if got, want := r.Writes(), writes; got != want {
		tb.Fatalf("Writes()=%d, want %d", got, want)
	}
}

func TestNewResource(t *testing.T) {
	for _, tt := range []struct {
		r      *Resource
		fenced bool
	}{
		{NewResource("row-42"), true},
		{NewUnfencedResource("row-42"), false},
	} {
		if got, want := tt.r.Name, "row-42"; got != want {
			t.Fatalf("Name=%q, want %q", got, want)
		}
		if got, want := tt.r.Fenced(), tt.fenced; got != want {
			t.Fatalf("Fenced()=%v, want %v", got, want)
		}
		wantResource(t, tt.r, "", 0, 0, 0)
	}
}

func TestResourceWrite(t *testing.T) {
	for _, tt := range []struct {
		name     string
		fenced   bool
		writes   []writeCall
		data     string
		maxToken int64
		rejected int
		accepted int
	}{
		{
			name:   "fenced: a token equal to maxToken is accepted",
			fenced: true,
			writes: []writeCall{{2, "x", true}, {2, "y", true}},
			data:   "y", maxToken: 2, accepted: 2,
		},
		{
			name:   "fenced: a smaller token is rejected and leaves the data alone",
			fenced: true,
			writes: []writeCall{{2, "B", true}, {1, "A", false}},
			data:   "B", maxToken: 2, rejected: 1, accepted: 1,
		},
		{
			name:   "fenced: a larger token is accepted and moves maxToken",
			fenced: true,
			writes: []writeCall{{1, "A", true}, {3, "C", true}},
			data:   "C", maxToken: 3, accepted: 2,
		},
		{
			name:   "fenced: the chapter's story",
			fenced: true,
			writes: []writeCall{{1, "A", true}, {2, "B", true}, {1, "A", false}},
			data:   "B", maxToken: 2, rejected: 1, accepted: 2,
		},
		{
			name:   "fenced: every stale write counts",
			fenced: true,
			writes: []writeCall{{5, "E", true}, {4, "D", false}, {1, "A", false}, {0, "-", false}, {5, "F", true}},
			data:   "F", maxToken: 5, rejected: 3, accepted: 2,
		},
		{
			name:   "fenced: token 0 on a fresh resource is accepted",
			fenced: true,
			writes: []writeCall{{0, "z", true}},
			data:   "z", maxToken: 0, accepted: 1,
		},
		{
			name:   "unfenced: a smaller token is accepted",
			fenced: false,
			writes: []writeCall{{2, "B", true}, {1, "A", true}},
			data:   "A", maxToken: 2, accepted: 2,
		},
		{
			name:   "unfenced: the chapter's story destroys B's value",
			fenced: false,
			writes: []writeCall{{1, "A", true}, {2, "B", true}, {1, "A", true}},
			data:   "A", maxToken: 2, accepted: 3,
		},
		{
			name:   "unfenced: a larger token moves maxToken",
			fenced: false,
			writes: []writeCall{{1, "A", true}, {7, "G", true}, {3, "C", true}},
			data:   "C", maxToken: 7, accepted: 3,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := NewUnfencedResource("row-42")
			if tt.fenced {
				r = NewResource("row-42")
			}
			for i, w := range tt.writes {
				if got, want := r.Write(w.token, w.value), w.ok; got != want {
					t.Fatalf("write %d: Write(%d, %q)=%v, want %v", i+1, w.token, w.value, got, want)
				}
			}
			wantResource(t, r, tt.data, tt.maxToken, tt.rejected, tt.accepted)
		})
	}
}

// maxToken is the largest token accepted so far: whatever comes in, with or
// without fencing, it never goes down.
func TestMaxTokenNeverDecreases(t *testing.T) {
	tokens := []int64{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 0, 8}
	for _, fenced := range []bool{true, false} {
		r := NewUnfencedResource("row-42")
		if fenced {
			r = NewResource("row-42")
		}
		var largest int64
		for _, token := range tokens {
			before := r.MaxToken()
			r.Write(token, "v")
			largest = max(largest, token)
			if got := r.MaxToken(); got < before {
				t.Fatalf("fenced=%v: Write(%d) moved maxToken down from %d to %d", fenced, token, before, got)
			}
			if got, want := r.MaxToken(), largest; got != want {
				t.Fatalf("fenced=%v: after Write(%d) MaxToken()=%d, want the largest so far, %d", fenced, token, got, want)
			}
		}
	}
}
