package main

// Follow along: a lecturer steps through a scenario at the projector, and the
// students in the room watch the same frame on their own screens, live. Each
// run gets a follow id at its first click; its page links to /follow/<id>.
// A follower's page shows the lecturer's current frame, read-only, in the
// follower's own language, and a stream of server-sent events brings every
// later move. From any frame a student can "try it myself from here": a link
// to that frame's own address, where their first click starts their own run.
//
//	GET /follow/:fid            the follower's page (works without JavaScript)
//	GET /follow/:fid/events     the stream: text/event-stream, one event a move
//	GET /follow/:fid/qr.svg     a QR code of the follower's page, for the room
//
// The follow id is not the run id. A run id is a capability to drive a run;
// a follow id only lets its holder watch, so the lecturer can put it on the
// projector. Nothing a follower is shown carries the run id.

import (
	"bytes"
	"container/list"
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	qrcode "github.com/skip2/go-qrcode"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/views"
)

// The follow-along limits. A session costs a few hundred bytes, a follower a
// goroutine and a connection; the limits keep a script from opening streams
// until the server runs out of either.
const (
	maxFollowers = 1000 // followers of one session at once: a lecture hall
	maxStreams   = 5000 // followers of all sessions at once, on this server

	followHeartbeat = 15 * time.Second // a comment line, so proxies and browsers keep an idle stream open
	followWriteWait = 10 * time.Second // a follower that takes longer than this to take one event is dropped
	followRetry     = 3 * time.Second  // how long EventSource waits before it reconnects
)

// followEventsPath is the stream's route; the gzip middleware skips it.
const followEventsPath = "/follow/:fid/events"

// followFrame is all a follower needs to draw the lecturer's screen: which
// frame it shows. The frame itself is computed again from these three, as
// the model is deterministic.
type followFrame struct {
	sc   *demo.Scenario
	on   bool
	step int
}

var (
	errFollowGone = errors.New("follow: no such session")
	errFollowFull = errors.New("follow: too many followers")
)

// broker keeps, per follow id, only the latest frame and a version number
// that counts the lecturer's moves. It never queues frames: a follower that
// falls behind skips straight to the latest, so publishing costs the same
// whether one student is watching or a thousand, and never waits for any of
// them.
//
// A session lives as long as its run does: it ends idle after the last move
// (the run cache's own idle time), its followers told the lecture has ended.
// There are at most maxSessions (the run cache's size): at the limit a new
// run's session takes the place of the least recently moved one that nobody
// follows, or, when every session has followers, the new run goes without.
type broker struct {
	idle        time.Duration
	maxSessions int
	// maxFollowers and maxStreams are the limits above; tests lower them.
	maxFollowers, maxStreams int
	// heartbeat and writeWait are the constants above; tests shorten them.
	heartbeat, writeWait time.Duration
	// render draws one move for followers in one language, as the body of a
	// server-sent event. It is called once per language per version.
	render func(fid string, at followFrame, version uint64, lang string) ([]byte, error)

	mu      sync.Mutex
	byID    map[string]*session // follow id -> session
	byRun   map[string]*session // run id -> session
	recent  *list.List          // of *session, the most recently moved first
	streams int                 // followers connected, all sessions together
	closed  bool
}

// session is one run as its followers see it.
type session struct {
	id   string
	done chan struct{} // closed when the session ends

	// Guarded by broker.mu.
	run    string
	elem   *list.Element
	moved  time.Time // the last publish
	expiry *time.Timer

	mu      sync.Mutex
	at      followFrame
	version uint64
	subs    map[*follower]struct{}
	renders map[string]*rendered // lang -> the current version, drawn
}

// follower is one open stream. wake holds at most one signal meaning "there
// is something newer than what you sent": however many moves happen while the
// follower is busy, it wakes once and reads the latest.
type follower struct {
	wake chan struct{}
}

// rendered is one version drawn in one language. The first follower to ask
// draws it; the others wait for that drawing and share its bytes.
type rendered struct {
	version uint64
	at      followFrame
	once    sync.Once
	event   []byte
	err     error
}

func newBroker(maxSessions int, idle time.Duration, render func(string, followFrame, uint64, string) ([]byte, error)) *broker {
	return &broker{
		idle:         idle,
		maxSessions:  max(maxSessions, 1),
		maxFollowers: maxFollowers,
		maxStreams:   maxStreams,
		heartbeat:    followHeartbeat,
		writeWait:    followWriteWait,
		render:       render,
		byID:         map[string]*session{},
		byRun:        map[string]*session{},
		recent:       list.New(),
	}
}

// publish records that run now shows frame at, and wakes its followers. It
// returns the run's follow id, made at the run's first move. prev is the run
// id the click came with: when the run cache had lost that run (evicted) and
// goTo gave the lecturer a new one, the session moves to the new id, so the
// students' link keeps working. Only the lecturer knows prev, so nobody else
// can take a session over this way.
func (b *broker) publish(prev, run string, at followFrame) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || run == "" {
		return ""
	}
	sess := b.byRun[run]
	if sess == nil && prev != "" && prev != run {
		if sess = b.byRun[prev]; sess != nil {
			delete(b.byRun, prev)
			sess.run = run
			b.byRun[run] = sess
		}
	}
	if sess == nil {
		if b.recent.Len() >= b.maxSessions && !b.evictUnwatched() {
			return "" // every session has followers: this run offers no link for now
		}
		created := &session{id: newFollowID(), run: run, done: make(chan struct{}),
			subs: map[*follower]struct{}{}, renders: map[string]*rendered{}}
		created.elem = b.recent.PushFront(created)
		created.expiry = time.AfterFunc(b.idle, func() { b.expire(created) })
		b.byID[created.id], b.byRun[run] = created, created
		sess = created
	}
	b.recent.MoveToFront(sess.elem)
	sess.moved = time.Now()
	sess.expiry.Reset(b.idle)
	sess.set(at)
	return sess.id
}

// set makes at the session's frame and wakes every follower, without ever
// waiting for one. The same frame again (a double click's duplicate, a
// replayed request) is not a new version.
func (s *session) set(at followFrame) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.version > 0 && s.at == at {
		return
	}
	s.at = at
	s.version++
	for f := range s.subs {
		select {
		case f.wake <- struct{}{}:
		default: // already woken: it will read the latest anyway
		}
	}
}

// evictUnwatched makes room by ending the session moved least recently among
// those nobody follows, and reports whether it found one. A lecture being
// watched is never pushed out by the runs of the students watching it; the
// run cache may drop the lecturer's run meanwhile, and publish then moves
// the session to the run that replaces it. b.mu is held.
func (b *broker) evictUnwatched() bool {
	for e := b.recent.Back(); e != nil; e = e.Prev() {
		sess := e.Value.(*session)
		sess.mu.Lock()
		watched := len(sess.subs) > 0
		sess.mu.Unlock()
		if !watched {
			b.end(sess)
			return true
		}
	}
	return false
}

// expire ends a session whose run has been idle too long. The timer may fire
// just as a publish resets it; then the session was moved and lives on, and
// its timer is set for the rest of its new idle time.
func (b *broker) expire(sess *session) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.byID[sess.id] != sess {
		return // ended already
	}
	if left := b.idle - time.Since(sess.moved); left > 0 {
		sess.expiry.Reset(left)
		return
	}
	b.end(sess)
}

// end drops a session and tells its followers; b.mu is held.
func (b *broker) end(sess *session) {
	delete(b.byID, sess.id)
	if b.byRun[sess.run] == sess {
		delete(b.byRun, sess.run)
	}
	b.recent.Remove(sess.elem)
	sess.expiry.Stop()
	close(sess.done)
}

// close ends every session, so every stream returns: for a server shutting
// down, whose Shutdown would otherwise wait for streams that never go idle.
func (b *broker) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for _, sess := range b.byID {
		b.end(sess)
	}
}

// link is the follower's address for run, or "" when the run has made no move
// on this server (or its session has ended). It carries no language: each
// follower sees the page in their own.
func (b *broker) link(run string) string {
	if run == "" {
		return ""
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if sess := b.byRun[run]; sess != nil {
		return followPath(sess.id)
	}
	return ""
}

// current returns the frame a session shows now and its version.
func (b *broker) current(fid string) (followFrame, uint64, bool) {
	b.mu.Lock()
	sess := b.byID[fid]
	b.mu.Unlock()
	if sess == nil {
		return followFrame{}, 0, false
	}
	at, version := sess.latest()
	return at, version, true
}

func (s *session) latest() (followFrame, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.at, s.version
}

// subscribe adds a follower to session fid.
func (b *broker) subscribe(fid string) (*session, *follower, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	sess := b.byID[fid]
	if sess == nil {
		return nil, nil, errFollowGone
	}
	if b.streams >= b.maxStreams {
		return nil, nil, errFollowFull
	}
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if len(sess.subs) >= b.maxFollowers {
		return nil, nil, errFollowFull
	}
	f := &follower{wake: make(chan struct{}, 1)}
	sess.subs[f] = struct{}{}
	b.streams++
	return sess, f, nil
}

// unsubscribe removes a follower whose stream has ended, for whatever reason.
func (b *broker) unsubscribe(sess *session, f *follower) {
	b.mu.Lock()
	defer b.mu.Unlock()
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if _, ok := sess.subs[f]; ok {
		delete(sess.subs, f)
		b.streams--
	}
}

// event returns the session's latest version drawn in lang, as a server-sent
// event. However many followers ask at once, each version is drawn once per
// language; the drawing happens outside the session's lock, so a publish
// never waits for it.
func (b *broker) event(sess *session, lang string) (*rendered, error) {
	sess.mu.Lock()
	r := sess.renders[lang]
	if r == nil || r.version != sess.version {
		r = &rendered{version: sess.version, at: sess.at}
		sess.renders[lang] = r
	}
	sess.mu.Unlock()
	r.once.Do(func() { r.event, r.err = b.render(sess.id, r.at, r.version, lang) })
	return r, r.err
}

// len is how many sessions are live.
func (b *broker) len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.byID)
}

// newFollowID makes a follow id: 128 random bits in hex, like a run id, so
// nobody can find a lecture by guessing, but drawn apart from it.
func newFollowID() string { return newRunID() }

func followPath(fid string) string { return "/follow/" + fid }

// The handlers.

// followPage shows the lecturer's current frame, read-only, in the visitor's
// language. Without JavaScript it is a snapshot with a reload link; with it,
// follow.js keeps it live from the stream.
func (s *server) followPage(c echo.Context) error {
	fid := c.Param("fid")
	lang, err := s.lang(c, c.QueryParam("lang"))
	if err != nil {
		if validRunID(fid) {
			err.(*problem).cont = followPath(fid)
		}
		return err
	}
	if !validRunID(fid) {
		return followGone(lang)
	}
	at, version, ok := s.follow.current(fid)
	if !ok {
		return followGone(lang)
	}
	v, err := s.followView(fid, at, version, lang)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return render(c, http.StatusOK, views.FollowPage(v))
}

// followGone is the answer for a follow id this server does not know: the
// lecturer's run ended or was evicted, or the server restarted. The way on
// is the scenario list.
func followGone(lang string) *problem {
	return &problem{status: http.StatusNotFound, key: "err.follow.gone", cont: "/scenarios?lang=" + lang, known: true}
}

// followView is a follower's view of frame at. The page loads follow.js and
// the stylesheet only: there is nothing to click but links, so no htmx.
func (s *server) followView(fid string, at followFrame, version uint64, lang string) (views.Follow, error) {
	r, err := demo.Replay(at.sc, at.on, at.step)
	if err != nil {
		return views.Follow{}, err
	}
	d := s.demoView(r.Frame(), views.Place{Sc: at.sc, On: at.on, Step: at.step, Lang: lang}, "")
	d.Title = views.T(lang, "follow.live") + " · " + d.Title
	d.Canonical = "" // a lecture is not a page of the site: the frame's own address is the try link
	d.OtherLang = followPath(fid) + "?lang=" + otherLang(lang)
	d.Assets = views.Assets{CSS: s.assets.URL("app.css"), Icon: s.assets.URL("icon.svg"), Follow: s.assets.URL("follow.js")}
	return views.Follow{
		Demo:    d,
		Version: version,
		Events:  followPath(fid) + "/events?lang=" + lang,
		Reload:  followPath(fid) + "?lang=" + lang,
	}, nil
}

// renderFollowEvent draws one move for the stream: the follower's #demo, which
// follow.js swaps in whole. Sending the HTML rather than a small JSON that
// each follower would then fetch means one event a move and no burst of
// hundreds of requests after every click; the bytes are drawn once per
// language and shared by every follower (see broker.event).
func (s *server) renderFollowEvent(fid string, at followFrame, version uint64, lang string) ([]byte, error) {
	v, err := s.followView(fid, at, version, lang)
	if err != nil {
		return nil, err
	}
	var html bytes.Buffer
	if err := views.FollowFragment(v).Render(context.Background(), &html); err != nil {
		return nil, err
	}
	return sseEvent(version, html.Bytes()), nil
}

// sseEvent frames data as one server-sent event with id version, so that a
// reconnecting EventSource says which version it has (Last-Event-ID). Each
// line of data gets its own "data:" field; EventSource joins them with "\n".
func sseEvent(version uint64, data []byte) []byte {
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	data = bytes.ReplaceAll(data, []byte("\r"), []byte("\n"))
	var b bytes.Buffer
	b.Grow(len(data) + 64)
	b.WriteString("id: " + strconv.FormatUint(version, 10) + "\n")
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		b.WriteString("data: ")
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// followEvents streams a session's moves. On connect it sends the current
// frame at once, unless Last-Event-ID says the follower has it already, so a
// follower that lost its connection catches up as soon as EventSource
// reconnects. After that, one event per version, a heartbeat comment every
// 15 s, and an "end" event when the session ends.
//
// The server's WriteTimeout (30 s, main.go) is meant for ordinary requests
// and would cut a stream off mid-lecture. So before each write the handler
// sets a write deadline of writeWait from now instead: a stream lives as long
// as its follower keeps reading, and one who stops is dropped after
// writeWait. ReadTimeout needs nothing: net/http lifts the read deadline
// once a request without a body reaches its handler.
func (s *server) followEvents(c echo.Context) error {
	fid := c.Param("fid")
	lang, err := s.lang(c, c.QueryParam("lang"))
	if err != nil {
		return err
	}
	if !validRunID(fid) {
		return followGone(lang)
	}
	b := s.follow
	sess, f, err := b.subscribe(fid)
	switch {
	case errors.Is(err, errFollowGone):
		return followGone(lang)
	case errors.Is(err, errFollowFull):
		c.Response().Header().Set("Retry-After", "60")
		return &problem{status: http.StatusServiceUnavailable, key: "err.follow.full", cont: followPath(fid) + "?lang=" + lang}
	case err != nil:
		return err
	}
	defer b.unsubscribe(sess, f)

	w := c.Response()
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set(echo.HeaderCacheControl, "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx: pass each event on at once
	w.WriteHeader(http.StatusOK)

	write := func(p []byte) error {
		if err := rc.SetWriteDeadline(time.Now().Add(b.writeWait)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return err
		}
		if _, err := w.Write(p); err != nil {
			return err
		}
		return rc.Flush()
	}
	sent, _ := strconv.ParseUint(c.Request().Header.Get("Last-Event-ID"), 10, 64)
	sendLatest := func() error {
		r, err := b.event(sess, lang)
		if err != nil {
			s.log.Error("drawing a move for followers", "fid", fid, "err", err)
			return err
		}
		if r.version == sent {
			return nil
		}
		sent = r.version
		return write(r.event)
	}

	if err := write([]byte("retry: " + strconv.FormatInt(followRetry.Milliseconds(), 10) + "\n\n")); err != nil {
		return nil // the follower is gone already
	}
	if err := sendLatest(); err != nil {
		return nil
	}
	heartbeat := time.NewTicker(b.heartbeat)
	defer heartbeat.Stop()
	ctx := c.Request().Context()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-sess.done:
			_ = write([]byte("event: end\ndata: \n\n"))
			return nil
		case <-f.wake:
			err = sendLatest()
		case <-heartbeat.C:
			err = write([]byte(": ping\n\n"))
		}
		if err != nil {
			return nil // a write failed: the follower left or stopped reading
		}
	}
}

// followQR draws a QR code of the follower's page, for the share box: the
// lecturer shows it and the room scans it. Like /qr.svg it encodes only an
// address of this site, and only for a session that exists.
func (s *server) followQR(c echo.Context) error {
	fid := c.Param("fid")
	if !validRunID(fid) {
		return followGone(acceptLang(c.Request()))
	}
	if _, _, ok := s.follow.current(fid); !ok {
		return followGone(acceptLang(c.Request()))
	}
	code, err := qrcode.New(origin(c)+followPath(fid), qrcode.Medium)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "private, max-age=3600")
	return c.Blob(http.StatusOK, "image/svg+xml", qrSVG(code.Bitmap()))
}

// publishMove is act's hook: the run moved to there, so its followers see it.
func (s *server) publishMove(prev, run string, there views.Place) {
	s.follow.publish(prev, run, followFrame{sc: there.Sc, on: there.On, step: there.Step})
}
