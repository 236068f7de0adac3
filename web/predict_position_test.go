package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/web/follow"
)

// A question written per position is asked in its position's words: on
// the reader's page, in the lecture's room question on a follower's phone,
// and on the frame that marks the answer. fencing-sql's A sends its old
// token with the switch on and no token with it off.
func TestQuestionInItsPosition(t *testing.T) {
	s := newTestServer(t, DefaultConfig())
	q := testkit.Scenario(t, "fencing-sql").Moves[5].Predict
	for _, tc := range []struct {
		on   string
		want string
	}{{"on", q.AskOn.EN}, {"off", q.AskOff.EN}} {
		t.Run(tc.on, func(t *testing.T) {
			page := testkit.Parse(t, testkit.Get(t, s, "/scenarios/fencing-sql?fencing="+tc.on+"&step=6&lang=en").Body.Bytes())
			if got := testkit.TestID(t, page, "predict-ask"); got != tc.want {
				t.Fatalf("the reader is asked %q, want %q", got, tc.want)
			}
			w := testkit.Post(t, s, "/scenarios/fencing-sql/step", url.Values{"from": {"5"}, "fencing": {tc.on}, "lang": {"en"}}, false)
			testkit.MustStatus(t, w, http.StatusSeeOther)
			lecturer := runCookieOf(t, w)
			fid := follow.LectureID(strings.TrimPrefix(lecturer, runCookieName+"="))
			ask := url.Values{"from": {"6"}, "fencing": {tc.on}, "lang": {"en"}}
			testkit.MustStatus(t, lecturePost(t, s, "/scenarios/fencing-sql/ask", lecturer, ask), http.StatusSeeOther)
			phone := testkit.Parse(t, lectureGet(t, s, "/follow/"+fid+"?lang=en", "").Body.Bytes())
			if got := testkit.TestID(t, phone, "predict-ask"); got != tc.want {
				t.Fatalf("the follower is asked %q, want %q", got, tc.want)
			}
			marked := testkit.Get(t, s, "/scenarios/fencing-sql?fencing="+tc.on+"&step=7&lang=en&guess=stale-write")
			testkit.MustStatus(t, marked, http.StatusOK)
			if !strings.Contains(marked.Body.String(), tc.want) {
				t.Fatalf("the marked frame does not ask %q", tc.want)
			}
		})
	}
}
