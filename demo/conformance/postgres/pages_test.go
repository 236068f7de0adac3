package postgres_test

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/demo/conformance/history"
	model "github.com/distlock/fencing-demo/demo/sql"
	"github.com/distlock/fencing-demo/internal/realserver"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// TestNoLockPagesShowTheServer plays the designs that need no lock on a real
// PostgreSQL, move by move, and holds each page, in both languages, against
// what the server answered rather than against the model: every reply the
// server gave in a move is on that move's page, the tables panel at the end
// shows the server's rows, and the verdict is the one the server's rows call
// for: a resource count below zero is oversold, and two rows equal in all
// but their key are a payment charged twice.
func TestNoLockPagesShowTheServer(t *testing.T) {
	if testing.Short() {
		t.Skip("conformance against a real PostgreSQL: not in -short")
	}
	pg := startPostgres(t)
	seen := 0
	for _, sc := range testkit.Catalog(t).Scenarios {
		if sc.Store != model.DatabaseStore || sc.Topology != "nolock" {
			continue
		}
		seen++
		for _, on := range []bool{false, true} {
			t.Run(testkit.Name(sc, on), func(t *testing.T) { pagesShowServer(t, pg, sc, on) })
		}
	}
	if seen == 0 {
		t.Fatal("no scenario of the designs that need no lock plays on PostgreSQL")
	}
}

func pagesShowServer(t *testing.T, pg *realserver.Postgres, sc *demo.Scenario, on bool) {
	run := demo.NewRun(sc, on)
	db := newDatabase(t, pg)
	watch := dial(t, pg, db)
	stage(t, watch, run.Frame())
	conns := map[string]*conn{}
	for run.Step() {
		f := run.Frame()
		var replies []string
		for _, ev := range f.Latest() {
			e, ok := ev.(model.SQLStatement)
			if !ok {
				continue
			}
			if e.Waiting {
				t.Fatalf("t=%dms %s: this check sends one statement at a time; a statement that waits is the other suite's", e.At, e.SQL)
			}
			c := conns[e.Session]
			if c == nil {
				c = dial(t, pg, db)
				conns[e.Session] = c
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			replies = append(replies, c.send(ctx, e.SQL).Reply())
			cancel()
		}
		for _, lang := range []string{"en", "ja"} {
			doc := page(t, sc, f, on, lang)
			var shown []string
			doc.Find(".happened code.reply").Each(func(_ int, s *goquery.Selection) { shown = append(shown, s.Text()) })
			for _, r := range replies {
				if !slices.Contains(shown, r) {
					t.Errorf("frame %d (%s): the server answered %q; the page shows %q", f.Index, lang, r, shown)
				}
			}
		}
	}
	if err := run.Err(); err != nil {
		t.Fatal(err)
	}
	f := run.Frame()
	for _, lang := range []string{"en", "ja"} {
		doc := page(t, sc, f, on, lang)
		verdict := ""
		for _, tb := range f.Store.(model.State).Tables {
			rows := realRows(t, watch, tb)
			var cells [][]string
			doc.Find(`[data-testid="table-` + tb.Name + `"] tbody tr`).Each(func(_ int, tr *goquery.Selection) {
				var row []string
				tr.Find("td").Each(func(i int, td *goquery.Selection) {
					if i < len(tb.Cols) {
						row = append(row, strings.TrimSpace(td.Text()))
					}
				})
				cells = append(cells, row)
			})
			if g, w := strings.Join(flat(cells), " "), strings.Join(flat(rows), " "); g != w {
				t.Errorf("%s (%s): the page's table shows %q, the server holds %q", tb.Name, lang, g, w)
			}
			if tb.Name == sc.Resource && verdict == "" {
				verdict = serverVerdict(rows)
			}
		}
		got, _ := doc.Find(`[data-testid="verdict"]`).Attr("data-verdict")
		if want := verdict; want != "" && got != want || want == "" && got != demo.MutualExclusionHeld.String() {
			t.Errorf("verdict (%s): the page says %q; the server's rows call for %q", lang, got, want)
		}
	}
}

// serverVerdict is what the rows of the resource on the real server show:
// a count below zero, or two rows equal in all but their key.
func serverVerdict(rows [][]string) string {
	for _, r := range rows {
		for _, v := range r[1:] {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n < 0 {
				return model.Oversold.String()
			}
		}
	}
	for i, r := range rows {
		for _, o := range rows[:i] {
			if slices.Equal(r[1:], o[1:]) {
				return model.ChargedTwice.String()
			}
		}
	}
	return ""
}

// realRows reads a table from the server in the model's order of its rows:
// the order they were inserted, which is the key's order in these lessons.
func realRows(t *testing.T, watch *conn, tb model.TableState) [][]string {
	t.Helper()
	got := watch.send(context.Background(), "SELECT "+strings.Join(tb.Cols, ", ")+" FROM "+tb.Name+" ORDER BY "+tb.Cols[0])
	if got.Err != nil {
		t.Fatalf("%s: %s", tb.Name, got.Reply())
	}
	return got.Rows
}

func flat(rows [][]string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, "("+strings.Join(r, ",")+")")
	}
	return out
}

// page renders frame f as the visitor sees it.
func page(t *testing.T, sc *demo.Scenario, f demo.Frame, on bool, lang string) *goquery.Document {
	t.Helper()
	here := views.Place{Place: demo.Place{Sc: sc, On: on, Step: f.Index}, Lang: lang}
	d := views.Demo{Page: views.Page{Lang: lang, Title: sc.Title.In(lang), Chrome: true}, Frame: f, Here: here}
	var buf bytes.Buffer
	if err := views.DemoPage(d).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// Every statement a database scenario's script plays is printed on its
// page as the model sent it, with the answer it got: what the suite sends.
// Needs no server, so it runs where PostgreSQL is absent too.
func TestPagesPrintTheStatements(t *testing.T) {
	for _, sc := range testkit.Catalog(t).Scenarios {
		if sc.Store != model.DatabaseStore {
			continue
		}
		for _, on := range []bool{false, true} {
			h := history.History{Place: demo.Place{Sc: sc, On: on, Step: sc.Frames()}, Kind: history.Script, Name: "script"}
			n := 0
			err := h.Frames(func(f history.Frame) error {
				evs, err := history.Sent(f)
				for _, e := range evs {
					call, reply := e.Wire()
					if e.Call != call || e.Reply != reply {
						t.Errorf("%s frame %d: the page prints %q => %q, the model played %q => %q", h, f.Index, e.Call, e.Reply, call, reply)
					}
					n++
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				t.Errorf("%s: no statement on the wire", h)
			}
		}
	}
}
