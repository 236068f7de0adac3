package sql

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// substituteRE is substitute as it was written with a regexp, kept as the
// reference the hand-written scanner must agree with.
func substituteRE(sql string, vars map[string]string) (string, error) {
	re := regexp.MustCompile(`\$([a-z_][a-z_0-9]*)(\s*([+-])\s*([0-9]+))?`)
	var err error
	out := re.ReplaceAllStringFunc(sql, func(m string) string {
		g := re.FindStringSubmatch(m)
		v, ok := vars[g[1]]
		if !ok {
			err = fmt.Errorf("$%s: the client has not read %s yet", g[1], g[1])
			return m
		}
		if g[2] == "" {
			if _, e := strconv.ParseInt(v, 10, 64); e != nil {
				return "'" + strings.ReplaceAll(v, "'", "''") + "'"
			}
			return v
		}
		a, e1 := strconv.ParseInt(v, 10, 64)
		b, e2 := strconv.ParseInt(g[4], 10, 64)
		if e1 != nil || e2 != nil {
			err = fmt.Errorf("$%s: %q is not a number", g[1], v)
			return m
		}
		if g[3] == "-" {
			b = -b
		}
		return strconv.FormatInt(a+b, 10)
	})
	return out, err
}

var substituteVars = map[string]string{"a": "5", "a1": "it's", "_": "-3", "b": "x"}

// The scanner fills in every text of up to five characters from a small
// alphabet as the regexp did: each variable's value, sums, quotes, names
// unread or not numbers, a $ that starts none.
func TestSubstituteAsTheRegexpDid(t *testing.T) {
	const alphabet = "$a1_ +-b\t"
	var texts []string
	var grow func(s string)
	grow = func(s string) {
		texts = append(texts, s)
		if len(s) < 5 {
			for i := range len(alphabet) {
				grow(s + alphabet[i:i+1])
			}
		}
	}
	grow("")
	texts = append(texts, "UPDATE t SET v = $a - 30, w = $a1 WHERE k = $b + 99999999999999999999")
	for _, s := range texts {
		checkSubstitute(t, s)
	}
}

func FuzzSubstitute(f *testing.F) {
	f.Add("UPDATE accounts SET balance = $balance - 30 WHERE id = 1")
	f.Add("SELECT $a+1, $_ -\t2, $$a1, $9, $b - x")
	f.Fuzz(func(t *testing.T, s string) { checkSubstitute(t, s) })
}

func checkSubstitute(t *testing.T, s string) {
	t.Helper()
	got, gotErr := substitute(s, substituteVars)
	want, wantErr := substituteRE(s, substituteVars)
	if got != want || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("substitute(%q) = %q, %v; the regexp gave %q, %v", s, got, gotErr, want, wantErr)
	}
}

// number reads a whole number as strconv.ParseInt does, and refuses what it
// refuses: words, signs alone, spaces, numbers past 64 bits.
func TestNumberAsParseInt(t *testing.T) {
	for _, s := range []string{"", "0", "-0", "+7", "-", "+", "12a", "a12", " 1", "1 ", "'A'", "1_000", "0x10",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "٣"} {
		n, ok := number(s)
		want, err := strconv.ParseInt(s, 10, 64)
		if ok != (err == nil) || ok && n != want {
			t.Errorf("number(%q) = %d, %v; ParseInt gave %d, %v", s, n, ok, want, err)
		}
	}
}
