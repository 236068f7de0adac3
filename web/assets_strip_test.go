package web

import "testing"

func TestStripCSSComments(t *testing.T) {
	for in, want := range map[string]string{
		"a { b: c; } /* why */\nd { e: f; }":            "a { b: c; } \nd { e: f; }",
		`p::before { content: "/* not a comment */"; }`: `p::before { content: "/* not a comment */"; }`,
		`q { content: 'it\'s /*' } /* x */`:             `q { content: 'it\'s /*' } `,
		"/* a */b/* c */{}":                             "b{}",
		"x { } /* never closed":                         "x { } /* never closed",
	} {
		if got := string(stripCSSComments([]byte(in))); got != want {
			t.Errorf("stripCSSComments(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStripJSLineComments(t *testing.T) {
	for in, want := range map[string]string{
		"// why\nvar a = 1;\n":             "var a = 1;\n",
		"  // indented why\n  f();\n":      "  f();\n",
		"var u = \"http://x\"; // after\n": "var u = \"http://x\"; // after\n",
		"g(); // last line, no newline":    "g(); // last line, no newline",
		"// only a comment":                "",
	} {
		if got := string(stripJSLineComments([]byte(in))); got != want {
			t.Errorf("stripJSLineComments(%q) = %q, want %q", in, got, want)
		}
	}
}
