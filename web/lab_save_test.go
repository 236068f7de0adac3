package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/find"
	"github.com/distlock/fencing-demo/demo/script"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// "Save as a scenario" from a build's frames, wherever the learner stands
// in them, saves the build whole: a file of one scenario, <lab>-build,
// that loads as -scenarios loads a file, plays the build's frames, and
// that the judge (as the check command runs it) answers as the lab's page
// does. With -short, the tries whose answer comes at once.
func TestSaveBuild(t *testing.T) {
	s := judgeServer(t)
	for _, sc := range labsOf(t, s) {
		for _, try := range sc.Lab.Tries {
			if testing.Short() && !strings.HasPrefix(try.Expect, "broken") {
				continue
			}
			t.Run(sc.ID+"/"+try.Name, func(t *testing.T) {
				built, err := views.Built(sc, try.Build.String())
				if err != nil {
					t.Fatal(err)
				}
				here := views.Place{Place: demo.Place{Sc: built, On: built.Default, Step: built.Frames()}, Lang: "en", FreePlay: true}
				page := testkit.Get(t, s, here.SaveURL())
				testkit.MustStatus(t, page, http.StatusOK)
				doc := testkit.Parse(t, page.Body.Bytes())
				if got := testkit.TestID(t, doc, "save-built"); !strings.Contains(got, "check -scenarios "+script.SavedBuildID(sc)+".yaml") {
					t.Errorf("the save page does not say how to check it: %q", got)
				}
				w := testkit.Get(t, s, here.SaveURL()+"&download=1")
				testkit.MustStatus(t, w, http.StatusOK)
				if got, want := w.Header().Get("Content-Disposition"), `attachment; filename="`+script.SavedBuildID(sc)+`.yaml"`; got != want {
					t.Errorf("Content-Disposition=%q, want %q", got, want)
				}
				cat, err := script.Load("saved.yaml", w.Body.Bytes())
				if err != nil {
					t.Fatalf("the saved build does not load: %v\n%s", err, testkit.Numbered(w.Body.String()))
				}
				saved, ok := cat.Get(script.SavedBuildID(sc))
				if !ok {
					t.Fatalf("the saved file holds %q", cat.IDs())
				}
				if saved.Frames() != built.Frames() || saved.Sometimes != sc.Lab.Sometimes || saved.TimeBound != sc.Lab.Time {
					t.Errorf("saved: %d frames, sometimes %q, time %d; want the build's %d, %q, %d",
						saved.Frames(), saved.Sometimes, saved.TimeBound, built.Frames(), sc.Lab.Sometimes, sc.Lab.Time)
				}
				for k := 1; k <= saved.Frames(); k++ {
					sameFrame(t, demo.Place{Sc: built, On: built.Default, Step: k}, demo.Place{Sc: saved, On: saved.Default, Step: k})
				}
				j, err := find.Judge(demo.Place{Sc: saved, On: saved.Default, Step: 1}, find.Options{MaxStates: 2_000_000})
				if err != nil {
					t.Fatal(err)
				}
				if got := j.Verdict(); got != try.Expect {
					t.Errorf("the saved build is judged %q, the lab states %q", got, try.Expect)
				}
			})
		}
	}
}
