package views_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/views"
)

// What the lab's pages say of the model is true as well: every frame of
// each lab try's built scenario (its programs played as the script's
// moves), the frames the finder's own search reaches from its first, and
// the judge's answer, whose finding is told of the frame the shortest
// break ends in. The claims are held to the frame as TestEverySentenceTrue
// holds the scenarios' own.
func TestLabSentencesTrue(t *testing.T) {
	depth, states, judged := 4, 5_000, 2_000_000
	if testing.Short() {
		depth, states, judged = 1, 100, 20_000
	}
	var total audit
	for _, lt := range labTries(t) {
		t.Run(lt.lab.ID+"/"+lt.try.Name, func(t *testing.T) {
			b := lt.built
			var a audit
			a.script(t, b, b.Default)
			start := demo.Place{Sc: b, On: b.Default, Step: 1}
			a.walk(t, start, find.Options{Depth: depth, MaxStates: states})
			j, err := find.Judge(start, find.Options{MaxStates: judged})
			if err != nil {
				t.Fatal(err)
			}
			for _, lang := range []string{"ja", "en"} {
				v, err := views.NewJudge(views.Place{Place: start, Lang: lang}, j, false)
				if err != nil {
					t.Fatal(err)
				}
				v.Page.Audit = true
				var buf bytes.Buffer
				if err := views.JudgeResult(v).Render(context.Background(), &buf); err != nil {
					t.Fatal(err)
				}
				at, f := v.Broken.Place, v.End
				if !j.Always.Found {
					at, f = start, frameAt(t, start)
				}
				a.sentencesOf(t, at, &f, lang, buf.Bytes())
			}
			total.add(a)
		})
	}
	t.Logf("checked %d frames, %d sentences and %d claims of the labs' builds, in both languages", total.frames, total.sentences, total.claims)
}

func frameAt(t *testing.T, p demo.Place) demo.Frame {
	t.Helper()
	f, err := p.Frame()
	if err != nil {
		t.Fatal(err)
	}
	return f
}
