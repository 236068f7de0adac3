// Instant steps (docs/prefetch.md): the frames a click leads to (data-to)
// are fetched while the page is idle; a click paints its frame at once and
// posts beside it, and the post's answer wins if it differs. Moves the
// network did not take wait, in order. Anything else goes through htmx.
(function () {
  "use strict";
  if (!window.fetch || !window.AbortController || !window.URLSearchParams) return;

  var doc = document;
  // Where a visitor's ids go in a prefetched answer (web/internal/respond).
  var RUN_MARK = "RUNXRUNXRUNXRUNXRUNXRUNXRUNXRUNX", FOLLOW_MARK = "FIDXFIDXFIDXFIDXFIDXFIDXFIDXFIDX";
  // Per painted frame: requests, bytes over the wire.
  var MAX_REQUESTS = 3, MAX_BYTES = 15000, KEEP = 96, AHEAD = 4;

  var frames = new Map(); // address -> {html, links}
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

  function fill(html, v) {
    return v ? html.split(RUN_MARK).join(v.run).split(FOLLOW_MARK).join(v.follow) : html;
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
    var d = parsed(html).getElementById("demo");
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
      if (!ready.has(html)) { ready.set(html, parsed(html)); return true; }
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
    var ctl = new AbortController();
    pending.set(a, ctl);
    fetch(a, { signal: ctl.signal, credentials: "omit", headers: { "HX-Request": "true" } })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        pending.delete(a);
        if (html === null) { refused.add(a); idle(prefetch); return; } // the server said no: not again
        var e = performance.getEntriesByName(new URL(a, location.href).href).pop();
        var size = e && e.transferSize ? e.transferSize : 0;
        spent.bytes += size;
        if (size > guess) guess = size;
        store(a, html);
        idle(prefetch); // the next level may be known now
      }, function (err) {
        if (err && err.name === "AbortError") return; // prefetch dropped it
        pending.delete(a);
        idle(prefetch);
      });
  }

  // A click's answer is kept too, marks back in place of the ids, for Back.
  function keep(html, url) {
    var v = ids() || known;
    if (!url || !v || html.indexOf(v.run) < 0) return;
    store(address(url, true), html.split(v.run).join(RUN_MARK).split(v.follow).join(FOLLOW_MARK));
  }

  function store(a, html) {
    frames.delete(a);
    frames.set(a, { html: html });
    if (frames.size > KEEP) frames.delete(frames.keys().next().value);
  }

  // Paint an answer as htmx's swap would (#demo, the title, the parts out of
  // band, the address after the paint), less its settle delay.
  function paint(html, url, isError) {
    var mark = window.performance && performance.mark ? function (n) { performance.mark(n); } : function () {};
    mark("swap:start");
    var frag = ready.get(html) || parsed(html), next = frag.getElementById("demo"), shown = demo();
    ready.delete(html);
    if (!next || !shown) return false;
    mark("swap:parsed");
    outOfBand(frag);
    var focused = doc.activeElement && shown.contains(doc.activeElement) ? doc.activeElement.id : "";
    doc.documentElement.classList.add("moving");
    shown.replaceWith(next);
    mark("swap:replaced");
    if (focused && doc.getElementById(focused)) doc.getElementById(focused).focus({ preventScroll: true });
    // htmx wires only what posts or fetches (a walk of all #demo cost
    // more), after the paint; a click before then wires it first (wire).
    toWire(next);
    mark("swap:swapped");
    // The rest waits for the paint, as htmx's settle: app.js's afterSettle
    // work reads the layout, and the address bar is slow to set.
    var after = function () {
      unpainted = false;
      wire();
      if (url && url !== location.pathname + location.search) {
        if (!(history.state && history.state.htmx)) history.replaceState({ htmx: true }, "", location.href);
        history.pushState({ htmx: true }, "", url);
      }
      next.dispatchEvent(new CustomEvent("htmx:afterSettle", { bubbles: true, detail: { elt: next } }));
      if (!isError) refill();
    };
    if (doc.hidden) after(); // a hidden page paints no frames
    else requestAnimationFrame(function () { setTimeout(after, 0); });
    return true;
  }

  // The title and the parts out of band (the language link, the screen
  // reader's sentence), as htmx places them.
  function outOfBand(frag) {
    var title = frag.querySelector("title");
    if (title) doc.title = title.textContent;
    Array.prototype.forEach.call(frag.querySelectorAll("[hx-swap-oob]"), function (el) {
      var there = doc.getElementById(el.id);
      if (!there) return;
      if (el.getAttribute("hx-swap-oob") === "innerHTML") there.innerHTML = el.innerHTML;
      else { el.removeAttribute("hx-swap-oob"); there.replaceWith(el); }
    });
  }

  // toWire lists el and the controls in it that post or fetch for htmx to
  // wire (wire); anything but an element has none.
  function toWire(el) {
    if (el.nodeType !== 1) return;
    if (el.matches("[hx-post],[hx-get]")) unwired.push(el);
    Array.prototype.push.apply(unwired, el.querySelectorAll("[hx-post],[hx-get]"));
  }

  // giveRun puts the run key into the run fields in root that have none: a
  // frame painted before the run existed.
  function giveRun(root, run) {
    Array.prototype.forEach.call(root.querySelectorAll('input[name="run"]'), function (el) { if (!el.value) el.value = run; });
  }

  function parsed(html) {
    var t = doc.createElement("template");
    t.innerHTML = html;
    return t.content;
  }

  // settle brings the frame on screen, painted from was, to the answer html
  // that differs from it: a first click's answer adds the run key and the
  // follow link. The run key goes into the fields on screen, and only the
  // parts of #demo that still differ are replaced, so the step's motion
  // does not play twice and a click waiting on a form keeps its form.
  // Anything less alike is painted whole.
  function settle(html, was, url) {
    var got = idsOf(html), first = was.indexOf('name="run" value=""') >= 0;
    if (got) {
      was = was.split('name="run" value=""').join('name="run" value="' + got.run + '"');
      giveRun(demo(), got.run);
      // The first answer: the frames one click away were fetched without
      // ids, for a click made before it; from now on a click wants them
      // with the run's, so they are fetched again (prefetch looks later).
      if (first) refill();
    }
    if (html === was) return;
    var frag = parsed(html), next = frag.getElementById("demo"), old = parsed(was).getElementById("demo"), shown = demo();
    var fresh = next ? Array.prototype.slice.call(next.children) : [], stale = old ? Array.prototype.slice.call(old.children) : [];
    if (!next || !old || !shown || fresh.length !== stale.length || shown.children.length !== stale.length ||
        next.cloneNode(false).outerHTML !== old.cloneNode(false).outerHTML) {
      paint(html, url);
      return;
    }
    var live = Array.prototype.slice.call(shown.children);
    outOfBand(frag);
    fresh.forEach(function (el, i) {
      if (el.outerHTML === stale[i].outerHTML) return;
      live[i].replaceWith(el);
      toWire(el);
    });
    wire();
    // app.js finishes the parts put in (the share box's copy buttons).
    shown.dispatchEvent(new CustomEvent("htmx:afterSettle", { bubbles: true, detail: { elt: shown } }));
  }

  // The controls of painted frames that htmx has not wired yet. A click or
  // a submit wires them first: a listener at the document in the capture
  // phase runs before the control's own, and the control's listeners are
  // read when the event reaches it, so htmx's new ones hear this event.
  var unwired = [];
  function wire() {
    if (!window.htmx || !unwired.length) return;
    var els = unwired;
    unwired = [];
    els.forEach(function (el) { if (el.isConnected) htmx.process(el); });
  }
  doc.addEventListener("click", wire, true);
  doc.addEventListener("submit", wire, true);

  // A click on a control whose frame is here is painted now and posted
  // beside it, taken before htmx reads the form (half a millisecond of a
  // click); a submit made any other way (Enter in a field) reaches htmx,
  // which asks first (htmx:confirm). Anything else goes htmx's way.
  doc.addEventListener("click", function (e) {
    var by = e.target.closest ? e.target.closest("button") : null;
    if (!e.defaultPrevented && by && by.type === "submit" && by.form && take(by.form, by)) e.preventDefault();
  }, true);
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
  // answer brings them (settle), and send puts the run key in the rest.
  function frameFor(to) {
    var v = ids() || known, room = doc.querySelector('[data-testid="room"]');
    var f = to && !room && v && frames.get(address(to, true));
    if (to && !room && !f && !ids()) { f = frames.get(address(to, false)); v = null; }
    return f ? { f: f, html: fill(f.html, v) } : null;
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
    paint(html, to);
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
      var url = xhr.getResponseHeader("HX-Push-Url");
      if (xhr.status >= 200 && xhr.status <= 299 && !known) known = idsOf(xhr.responseText);
      if (xhr.status < 200 || xhr.status > 299) {
        // Refused (a 429 to a class starting at once): shown as htmx would,
        // and app.js hears of it as of htmx's (it tries a 429 again).
        moves = [];
        waiting = null; // made on a frame the refusal has replaced
        if (paint(xhr.responseText, null, true)) {
          var form = new FormData();
          new URLSearchParams(m.body).forEach(function (v, k) { form.append(k, v); });
          demo().dispatchEvent(new CustomEvent("htmx:afterSwap", { bubbles: true, detail: {
            target: demo(), elt: demo(), xhr: xhr, requestConfig: { verb: "post", path: m.action, formData: form } } }));
        }
        return;
      }
      keep(xhr.responseText, url);
      if (!moves.length && xhr.responseText !== m.painted) settle(xhr.responseText, m.painted, url);
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
    if (note || !doc.body) return;
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

  window.addEventListener("online", function () { clearTimeout(retry); send(); });
  window.addEventListener("offline", function () { if (moves.length || sending) lost(); });
  doc.addEventListener("visibilitychange", function () { if (!doc.hidden) refill(); });
  // A frame htmx swapped in (a click with nothing prefetched, Back and
  // Forward) is a painted frame too.
  function ofDemo(e) { return e.detail && e.detail.target && e.detail.target.id === "demo"; }
  doc.addEventListener("htmx:afterSwap", function (e) { if (ofDemo(e)) refill(); });
  doc.addEventListener("htmx:beforeRequest", function (e) { if (ofDemo(e)) htmxBusy++; });
  doc.addEventListener("htmx:afterRequest", function (e) { if (ofDemo(e) && htmxBusy > 0) htmxBusy--; });
  doc.addEventListener("DOMContentLoaded", function () {
    noteReady();
    requestAnimationFrame(function () { setTimeout(refill, 0); }); // after the first paint
  });
})();
