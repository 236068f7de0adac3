// Instant steps (docs/prefetch.md): the frames a click leads to (data-to)
// are fetched while the page is idle; a click paints its frame at once,
// through htmx's own swap as every frame is painted, and posts beside it.
// Moves the network did not take wait, in order. Anything else goes
// through htmx.
(function () {
  "use strict";
  if (!window.fetch || !window.AbortController || !window.URLSearchParams || !window.htmx) return;

  var doc = document;
  // Per painted frame: requests, bytes over the wire.
  var MAX_REQUESTS = 3, MAX_BYTES = 15000, KEEP = 96, AHEAD = 4;

  // address -> {html, marks, links}: marks are what stands in html where
  // the visitor's run key and follow id go (the server names its own in
  // each frame's Frame-Marks header; a click's answer has the ids themselves).
  var frames = new Map();
  var pending = new Map(); // address -> AbortController
  var refused = new Set(); // addresses answered with an error
  var spent = { requests: 0, bytes: 0 }, guess = 5000; // a frame's bytes, till measured
  var moves = [], sending = false, offline = false, retry = 0, waiting = null, htmxBusy = 0, unpainted = false;
  // The run key and follow id the first answer brought, before the frame on
  // screen (painted ahead of that answer) carries them.
  var known = null;

  function demo() { return doc.getElementById("demo"); }

  // The visitor's run key and follow id; none before the first click.
  function ids() {
    var d = demo(), run = d && d.querySelector('input[name="run"]');
    var link = d && d.querySelector('[data-testid="follow-link"]');
    var m = link && /\/follow\/([0-9a-f]{32})/.exec(link.getAttribute("href"));
    return run && run.value && m ? { run: run.value, follow: m[1] } : null;
  }

  // The prefetch address of a data-to: with marks for a visitor with ids.
  function address(to, withIDs) {
    var u = new URL(to, location.href);
    u.pathname += "/frame";
    if (withIDs) u.searchParams.set("ids", "1");
    return u.pathname + u.search;
  }

  // The ids an answer carries, if it made or kept a run.
  function idsOf(html) {
    var run = /name="run" value="([0-9a-f]{32})"/.exec(html), follow = /\/follow\/([0-9a-f]{32})/.exec(html);
    return run && follow ? { run: run[1], follow: follow[1] } : null;
  }

  // fill writes the visitor's ids v where frame f has its marks.
  function fill(f, v) {
    var m = f.marks;
    return m && v ? f.html.split(m.run).join(v.run).split(m.follow).join(v.follow) : f.html;
  }

  // marksOf reads a Frame-Marks header: "run=<mark> follow=<mark>".
  function marksOf(header) {
    var m = /^run=(\S+) follow=(\S+)$/.exec(header || "");
    return m ? { run: m[1], follow: m[2] } : null;
  }

  // The data-to of root's enabled controls: step, back, switch first.
  function links(root) {
    var first = [], rest = [];
    Array.prototype.forEach.call(root.querySelectorAll("[data-to]"), function (el) {
      var button = el.tagName === "FORM" ? el.querySelector("button") : el;
      if (!button || button.disabled) return;
      var act = (el.closest("form").getAttribute("action") || "").split("/").pop();
      (/^(step|back|switch)$/.test(act) ? first : rest).push(el.dataset.to);
    });
    return first.concat(rest);
  }

  // The frames to have, nearest first: one click away, then one click from
  // those here, up to AHEAD clicks (what an offline lecture steps through).
  function wanted(withIDs) {
    var out = [], seen = new Set(), level = links(demo());
    for (var depth = 0; depth < AHEAD && level.length; depth++) {
      var next = [];
      level.forEach(function (to) {
        var a = address(to, withIDs);
        if (seen.has(a)) return;
        seen.add(a);
        out.push(a);
        var f = frames.get(a);
        if (f) next = next.concat(f.links || (f.links = linksOf(f.html)));
      });
      level = next;
    }
    return out;
  }

  function linksOf(html) {
    var d = fragment(html).getElementById("demo");
    return d ? links(d) : [];
  }

  function idle(fn) {
    if (window.requestIdleCallback) requestIdleCallback(fn, { timeout: 300 });
    else setTimeout(fn, 30);
  }

  // After each painted frame: a new budget.
  function refill() {
    spent = { requests: 0, bytes: 0 };
    ready.clear();
    doc.documentElement.dataset.prefetch = "busy"; // until prefetch has looked
    idle(prefetch);
  }

  // Start what the budget allows, cancel what the visitor moved past, and
  // say on <html data-prefetch> whether it is done for now.
  function prefetch() {
    if (doc.hidden || !demo()) return; // visibilitychange starts it again
    var want = wanted(!!ids());
    var keep = new Set(want);
    pending.forEach(function (ctl, a) { if (!keep.has(a)) { ctl.abort(); pending.delete(a); } });
    if (!offline) {
      want.forEach(function (a) {
        if (frames.has(a) || pending.has(a) || refused.has(a)) return;
        if (spent.requests >= MAX_REQUESTS || spent.bytes + (pending.size + 1) * guess > MAX_BYTES) return;
        spent.requests++;
        fetchFrame(a);
      });
    }
    var busy = pending.size > 0;
    if (prepare()) { busy = true; idle(prefetch); }
    doc.documentElement.dataset.prefetch = busy ? "busy" : "idle";
  }

  // The frames one click away, parsed ahead as a click would paint them
  // (its html: the fragment), each painted once: parsing was a millisecond
  // of a click. Emptied with each painted frame (refill).
  var ready = new Map();

  // prepare does one piece of the idle work for a frame one click away and
  // says whether it did any: parse it, or lay it out once, out of sight, if
  // this tab has not yet. A frame's first layout in a tab pays for its
  // fonts, fallback glyphs and shaping, better paid now than in the click
  // (docs/performance.md).
  function prepare() {
    var near = links(demo()).slice(0, MAX_REQUESTS);
    for (var i = 0; i < near.length; i++) {
      var got = frameFor(near[i]), f = got && got.f, html = got && got.html;
      if (!got || ready.has(html) && f.warm) continue;
      if (!ready.has(html)) { ready.set(html, fragment(html)); return true; }
      f.warm = true;
      var d = ready.get(html).getElementById("demo");
      if (!d) continue;
      d = d.cloneNode(true);
      Array.prototype.forEach.call(d.querySelectorAll("[id]"), function (el) { el.removeAttribute("id"); });
      d.removeAttribute("id");
      var box = doc.createElement("div");
      box.className = "warm-up";
      box.setAttribute("aria-hidden", "true");
      box.inert = true;
      box.style.width = demo().offsetWidth + "px";
      box.appendChild(d);
      demo().after(box); // where the page's styles for it apply
      void d.offsetHeight; // lays it out
      box.remove();
      return true;
    }
    return false;
  }

  function fetchFrame(a) {
    var ctl = new AbortController(), marks = null;
    pending.set(a, ctl);
    fetch(a, { signal: ctl.signal, credentials: "omit", headers: { "HX-Request": "true" } })
      .then(function (r) { marks = marksOf(r.headers.get("Frame-Marks")); return r.ok ? r.text() : null; })
      .then(function (html) {
        pending.delete(a);
        if (html === null) { refused.add(a); idle(prefetch); return; } // the server said no: not again
        var e = performance.getEntriesByName(new URL(a, location.href).href).pop();
        var size = e && e.transferSize ? e.transferSize : 0;
        spent.bytes += size;
        if (size > guess) guess = size;
        store(a, html, marks);
        idle(prefetch); // the next level may be known now
      }, function (err) {
        if (err && err.name === "AbortError") return; // prefetch dropped it
        pending.delete(a);
        idle(prefetch);
      });
  }

  // A click's answer is kept too, for Back: its marks are the ids it carries.
  function keep(html, url) {
    var v = ids() || known;
    if (!url || !v || html.indexOf(v.run) < 0) return;
    store(address(url, true), html, v);
  }

  function store(a, html, marks) {
    frames.delete(a);
    frames.set(a, { html: html, marks: marks });
    if (frames.size > KEEP) frames.delete(frames.keys().next().value);
  }

  // paint puts an answer (html) in #demo through htmx's own swap, as htmx
  // paints a click's answer: the parts out of band, the title, the focus,
  // htmx:afterSwap with info as its detail (app.js: the motion, and the
  // address after the paint), and once settled the controls wired and
  // htmx:afterSettle. The fragment parsed while idle is put in as it is
  // (htmx's swap takes a fragment as well as a string).
  function paint(html, info) {
    var mark = window.performance && performance.mark ? function (n) { performance.mark(n); } : function () {};
    mark("swap:start");
    var frag = ready.get(html) || fragment(html);
    ready.delete(html);
    var shown = demo();
    if (!shown || !frag.getElementById("demo")) return false;
    mark("swap:parsed");
    lighten(shown);
    htmx.swap(shown, frag, swapSpec, { title: frag.title, eventInfo: info });
    mark("swap:replaced"); // htmx wires the controls as the frame settles, after the paint
    return true;
  }

  // A frame's swap, as #demo's hx-swap asks of htmx.
  var swapSpec = { swapStyle: "outerHTML", swapDelay: 0, settleDelay: htmx.config.defaultSettleDelay };

  // lighten takes out of the frame on screen (d), just before a swap
  // replaces it, its parts that hold nothing htmx wired and not the focus.
  // htmx cleans up each element a swap takes out (an event, and a walk up
  // its ancestors for extensions), about half its swap for a frame's ~170
  // elements; these parts need none of it, and htmx still cleans the rest.
  // htmx's own swaps of #demo (a click with nothing here) are lightened too.
  function lighten(d) {
    var focus = doc.activeElement;
    Array.prototype.slice.call(d.children).forEach(function (el) {
      if (!el.contains(focus) && !el.matches(wired) && !el.querySelector(wired)) el.remove();
    });
  }
  // What htmx wires: what fetches or posts, forms and their buttons, triggers.
  var wired = "[hx-get],[hx-post],[hx-trigger],[hx-boost],[hx-ext],form,[type=submit]";
  doc.addEventListener("htmx:beforeSwap", function (e) {
    if (e.detail.shouldSwap && e.detail.target === demo()) lighten(demo());
  });

  // fragment parses an answer as htmx does: its title apart.
  function fragment(html) {
    var t = doc.createElement("template");
    t.innerHTML = html;
    var f = t.content, title = f.querySelector("title");
    if (title && title.parentNode === f) { f.title = title.textContent; title.remove(); }
    return f;
  }

  // giveRun puts the run key into the run fields in root that have none: a
  // frame painted before the run existed.
  function giveRun(root, run) {
    Array.prototype.forEach.call(root.querySelectorAll('input[name="run"]'), function (el) { if (!el.value) el.value = run; });
  }

  // answered brings the frame on screen, painted from was before its
  // answer came, to that answer (html), which differs from it: a first
  // click's answer brings the run key, which goes into the forms on
  // screen, and what a run adds (the follow link, a lecture's question to
  // the room); a server started since with another scenario file draws
  // otherwise. Each part of #demo that differs is swapped alone, through
  // htmx's swap, so the step's motion does not play twice and a click
  // waiting on a form keeps its form; the parts out of band likewise.
  function answered(html, was) {
    var got = idsOf(html), first = was.indexOf('name="run" value=""') >= 0;
    if (got) {
      was = was.split('name="run" value=""').join('name="run" value="' + got.run + '"');
      if (demo()) giveRun(demo(), got.run);
      // The first answer: the frames one click away were fetched without
      // ids, for a click made before it; from now on a click wants them
      // with the run's, so they are fetched again (prefetch looks later).
      if (first) refill();
    }
    var shown = demo();
    if (html === was || !shown) return;
    var next = fragment(html), old = fragment(was), fresh = next.getElementById("demo"), stale = old.getElementById("demo");
    if (!fresh || !stale || stale.children.length !== shown.children.length) { paint(html, {}); return; }
    fresh.remove();
    stale.remove();
    if (outside(next) !== outside(old)) htmx.swap(shown, next, { swapStyle: "none", swapDelay: 0, settleDelay: 0 }, { title: next.title });
    parts(Array.prototype.slice.call(shown.children), Array.prototype.slice.call(stale.children), Array.prototype.slice.call(fresh.children));
  }

  // outside is an answer's parts outside #demo (its title apart), as HTML.
  function outside(frag) {
    return Array.prototype.map.call(frag.children, function (el) { return el.outerHTML; }).join("") + (frag.title || "");
  }

  // parts swaps into #demo the parts (fresh) that differ from those
  // painted (stale, on screen as live): the same part (by its data-testid,
  // id or first class) is swapped if it differs, a part the answer has that
  // the painted frame lacks is put in, one it no longer has is taken out.
  function parts(live, stale, fresh) {
    var key = function (el) { return el.tagName + " " + (el.getAttribute("data-testid") || el.id || el.classList[0] || ""); };
    var put = function (at, style, el) {
      var f = doc.createDocumentFragment();
      if (el) f.appendChild(el);
      htmx.swap(at, f, { swapStyle: style, swapDelay: 0, settleDelay: 0 });
    };
    var j = 0;
    fresh.forEach(function (el) {
      var at = -1;
      for (var i = j; i < stale.length && at < 0; i++) if (key(stale[i]) === key(el)) at = i;
      if (at < 0) { if (j < live.length) put(live[j], "beforebegin", el); else put(live[j - 1], "afterend", el); return; }
      for (; j < at; j++) put(live[j], "delete");
      if (el.outerHTML !== stale[j].outerHTML) put(live[j], "outerHTML", el);
      j++;
    });
    for (; j < live.length; j++) put(live[j], "delete");
  }

  // A frame's controls are wired by htmx as it settles, after the paint; a
  // control used before then is wired first. A listener at the document in
  // the capture phase runs before the control's own, and the control's
  // listeners are read when the event reaches it, so htmx's new ones hear
  // this event.
  function wire(e) {
    var d = demo(), el = e.target.closest ? e.target.closest("[hx-post],[hx-get]") : null;
    if (el && d && d.classList.contains(htmx.config.settlingClass) && d.contains(el)) htmx.process(el);
  }

  // A click on a control whose frame is here is painted now and posted
  // beside it, taken before htmx reads the form (half a millisecond of a
  // click); a submit made any other way (Enter in a field) reaches htmx,
  // which asks first (htmx:confirm). Anything else goes htmx's way.
  doc.addEventListener("click", function (e) {
    var by = e.target.closest ? e.target.closest("button") : null;
    if (!e.defaultPrevented && by && by.type === "submit" && by.form && take(by.form, by)) e.preventDefault();
    else wire(e);
  }, true);
  doc.addEventListener("submit", wire, true);
  doc.addEventListener("htmx:confirm", function (e) {
    var form = e.detail.elt, ev = e.detail.triggeringEvent;
    if (!form || e.detail.verb !== "post" || e.detail.path !== form.getAttribute("hx-post")) return;
    if (take(form, ev && ev.submitter)) { e.preventDefault(); return; }
    if (!ours(form)) return;
    // Nothing to paint: htmx posts it, after any moves still waiting, so
    // the server gets them in order. One such click waits; another made on
    // the same frame meanwhile would be made on a frame already left.
    if (moves.length) { e.preventDefault(); if (!waiting) waiting = { issue: e.detail.issueRequest, form: form }; }
    if (offline) say("missing");
  });

  // ours says whether a submit of form is a move this script may paint: a
  // post of the demo's own, with no htmx request of the demo's under way.
  function ours(form) {
    return !htmxBusy && form.tagName === "FORM" && !!form.getAttribute("hx-post") && !!demo() && demo().contains(form);
  }

  // frameFor is the frame here that a click on a control naming to would
  // paint now (f), and its html with the visitor's ids written in; null if
  // there is none. A lecture's question goes the server's way: the room's
  // answers decide what the next frame reveals. A page's first click (and
  // any before its answer is in) paints the frame fetched without ids; the
  // answer brings them (answered), and send puts the run key in the rest.
  function frameFor(to) {
    var v = ids() || known, room = doc.querySelector('[data-testid="room"]');
    var f = to && !room && v && frames.get(address(to, true));
    if (to && !room && !f && !ids()) { f = frames.get(address(to, false)); v = null; }
    return f ? { f: f, html: fill(f, v) } : null;
  }

  // take paints the frame a submit of form (by the button by) leads to, if
  // it is here, and queues its post; it says whether the submit is dealt
  // with (painted, or dropped as an echo).
  function take(form, by) {
    if (!ours(form)) return false;
    // A click on a frame not painted yet (two clicks in one script, as a
    // quick double click makes before any answer) is the first one's echo.
    if (unpainted) return true;
    var to = (by && by.dataset.to) || form.dataset.to, got = frameFor(to);
    if (!got) return false;
    var html = got.html;
    paint(html, { pushURL: to });
    var body = new URLSearchParams(new FormData(form)); // the form the click was made on, now out of the page
    if (by && by.name) body.set(by.name, by.value);
    // A second click in this same script is the first's echo (a quick
    // double click before any answer); any later one is a click of its own
    // on the new frame, even before the paint (a key pressed the moment the
    // frame is there). A frame painted for any other reason (a first
    // click's answer) has no echo to drop. The flag ends with the script,
    // at its microtasks: a timer or a message, the next task, may wait
    // behind input, which a browser runs first, and the key was dropped.
    unpainted = true;
    Promise.resolve().then(function () { unpainted = false; });
    moves.push({ action: form.getAttribute("hx-post"), body: body.toString(), painted: html });
    // Posted after the paint, which sending would delay.
    if (doc.hidden) send();
    else requestAnimationFrame(function () { setTimeout(send, 0); });
    return true;
  }

  // Post the waiting moves one at a time, in order; an answer unlike what
  // was painted replaces it unless a later move was painted since. With
  // XMLHttpRequest, as htmx, so what counts htmx's requests counts these.
  function send() {
    if (sending || !moves.length) return;
    var m = moves[0], xhr = new XMLHttpRequest(), body = new URLSearchParams(m.body);
    // A click made before the first answer came has no run key: it is the
    // first's run.
    if (known && body.has("run") && !body.get("run")) body.set("run", known.run);
    sending = true;
    xhr.open("POST", m.action);
    xhr.setRequestHeader("HX-Request", "true");
    xhr.setRequestHeader("Content-Type", "application/x-www-form-urlencoded");
    xhr.onload = function () {
      sending = false;
      moves.shift();
      back();
      if (!moves.length && caughtUp) { caughtUp = false; say("back"); }
      if (m.quiet) { // a traversal: nothing to paint, whatever the answer
        if (moves.length) send(); else if (waiting) go();
        return;
      }
      var url = xhr.getResponseHeader("HX-Push-Url");
      if (xhr.status >= 200 && xhr.status <= 299 && !known) known = idsOf(xhr.responseText);
      if (xhr.status < 200 || xhr.status > 299) {
        // Refused (a 429 to a class starting at once): painted as htmx
        // paints one, with what app.js reads of htmx's (it tries a 429
        // again).
        moves = [];
        waiting = null; // made on a frame the refusal has replaced
        var form = new FormData();
        new URLSearchParams(m.body).forEach(function (v, k) { form.append(k, v); });
        paint(xhr.responseText, { xhr: xhr, successful: false, requestConfig: { verb: "post", path: m.action, formData: form } });
        return;
      }
      keep(xhr.responseText, url);
      if (!moves.length && xhr.responseText !== m.painted) answered(xhr.responseText, m.painted);
      // Moves that waited for the network go a little apart, so that
      // followers watch the lecture catch up rather than skip to its end.
      if (moves.length) { if (caughtUp) setTimeout(send, 100); else send(); }
      else if (waiting) go();
    };
    xhr.onerror = function () {
      sending = false;
      lost();
    };
    xhr.send(body.toString());
  }

  // go sends the click that waited for the moves before it, with the run
  // key they brought if its form had none (htmx reads the form now).
  function go() {
    var w = waiting;
    waiting = null;
    if (!w.form.isConnected) {
      // Its part of the frame was replaced by an answer: the same form
      // there now is sent instead (htmx drops a request of a form gone).
      var same = doc.querySelector('#demo form[hx-post="' + w.form.getAttribute("hx-post") + '"]');
      if (same && same.requestSubmit) same.requestSubmit();
      return;
    }
    if (known) giveRun(w.form, known.run);
    w.issue(true);
  }

  // The note: outside #demo, so painted frames keep it; a live region there
  // from the start (empty), so a screen reader hears what it says.
  var words = {
    en: {
      lost: "Offline: the frames already on this page keep playing. Your moves are sent when the network is back, and anyone following catches up then.",
      missing: "Offline: this frame is not on the page yet; it can be shown once the network is back.",
      back: "Back online: your moves are sent, and anyone following has caught up.",
    },
    ja: {
      lost: "オフライン：このページにあるフレームはそのまま進められます。操作はネットワークが戻ったときに送られ、フォローしている人もそのとき追いつきます。",
      missing: "オフライン：このフレームはまだページにありません。ネットワークが戻ると表示できます。",
      back: "オンラインに戻りました：操作は送られ、フォローしている人も追いつきました。",
    },
  };
  var note = null, hideNote = 0;
  function noteReady() {
    if (note && note.isConnected || !doc.body) return; // Back and Forward put back the whole body
    note = doc.createElement("p");
    note.id = "offline-note";
    note.className = "offline-note";
    note.setAttribute("role", "status");
    note.dataset.testid = "offline-note";
    doc.body.appendChild(note);
  }
  function say(what) {
    noteReady();
    clearTimeout(hideNote);
    note.dataset.state = what;
    note.textContent = (words[doc.documentElement.lang] || words.en)[what];
    if (what === "back") hideNote = setTimeout(function () { note.textContent = ""; note.dataset.state = ""; }, 5000);
  }

  var caughtUp = false; // said offline: say so when all is sent
  function lost() {
    if (!offline) { offline = true; caughtUp = true; say("lost"); }
    clearTimeout(retry);
    retry = setTimeout(send, 2000); // also at once on the browser's "online"
  }

  function back() {
    if (!offline) return;
    offline = false;
    clearTimeout(retry);
    refill();
  }

  // The lecturer's browser Back and Forward move the room as Step does:
  // the page put back on screen (by htmx from the server, from the
  // browser's back-forward cache, or loaded anew) posts its own frame
  // (its controls' hidden fields, "from" among them) to the run, in order
  // after any moves still waiting. Only a page with a run has a room.
  function traversed() {
    var d = demo(), from = d && d.querySelector('form[hx-post] input[name="from"]');
    var form = from && from.form, run = form && form.querySelector('input[name="run"]');
    if (!run || !run.value) return;
    var action = form.getAttribute("hx-post").replace(/\/[^\/]*$/, "/traverse");
    var body = new URLSearchParams(new FormData(form));
    moves.push({ action: action, body: body.toString(), quiet: true });
    send();
  }
  doc.addEventListener("htmx:historyRestore", traversed);
  window.addEventListener("pageshow", function (e) { if (e.persisted) traversed(); });
  doc.addEventListener("DOMContentLoaded", function () {
    var nav = window.performance && performance.getEntriesByType && performance.getEntriesByType("navigation")[0];
    if (nav && nav.type === "back_forward") traversed();
  });

  window.addEventListener("online", function () { clearTimeout(retry); send(); });
  window.addEventListener("offline", function () { if (moves.length || sending) lost(); });
  doc.addEventListener("visibilitychange", function () { if (!doc.hidden) refill(); });
  // Every frame painted (by a click here or htmx's request, or put back by
  // Back and Forward) starts the work for the next.
  function ofDemo(e) { return e.detail && e.detail.target && e.detail.target.id === "demo"; }
  doc.addEventListener("htmx:afterSwap", function (e) { if (e.target.id === "demo") refill(); });
  doc.addEventListener("htmx:historyRestore", refill);
  doc.addEventListener("htmx:beforeRequest", function (e) { if (ofDemo(e)) htmxBusy++; });
  doc.addEventListener("htmx:afterRequest", function (e) { if (ofDemo(e) && htmxBusy > 0) htmxBusy--; });
  doc.addEventListener("DOMContentLoaded", function () {
    noteReady();
    requestAnimationFrame(function () { setTimeout(refill, 0); }); // after the first paint
  });
})();
