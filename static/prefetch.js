// Instant steps (docs/prefetch.md). Each control names the frame its click
// leads to (data-to); while the page is idle this fetches those frames, a
// few at a time, as public GETs (.../frame) from the server's answer cache.
// A click then paints its frame at once and posts the move beside it: the
// post moves the run, tells the followers and keeps the run key, and its
// answer replaces the painted frame if it differs. Moves that cannot be sent
// (the network dropped) wait in order and go when it is back, each naming
// the frame it was made on, as every click does. Without this script, or
// for a frame not fetched yet, htmx posts the click as it always did.
(function () {
  "use strict";
  if (!window.fetch || !window.AbortController || !window.URLSearchParams) return;

  var doc = document;
  // The marks the server's answer carries where a visitor's ids go
  // (web/internal/respond): this page writes its own ids in their place.
  var RUN_MARK = "RUNXRUNXRUNXRUNXRUNXRUNXRUNXRUNX", FOLLOW_MARK = "FIDXFIDXFIDXFIDXFIDXFIDXFIDXFIDX";
  // The budget per painted frame: requests, and bytes over the wire.
  var MAX_REQUESTS = 3, MAX_BYTES = 15000, KEEP = 96, AHEAD = 4;

  var frames = new Map(); // prefetch address -> {html, links}: the frames on the page
  var pending = new Map(); // prefetch address -> AbortController
  var spent = { requests: 0, bytes: 0 }, guess = 5000; // a frame's bytes, until one is measured
  var moves = [], sending = false, offline = false, retry = 0, waiting = null, htmxBusy = 0, unpainted = false;

  function demo() { return doc.getElementById("demo"); }

  // ids are the visitor's run key and follow id as the shown frame carries
  // them; none before the first click, whose answer makes them.
  function ids() {
    var d = demo(), run = d && d.querySelector('input[name="run"]');
    var link = d && d.querySelector('[data-testid="follow-link"]');
    var m = link && /\/follow\/([0-9a-f]{32})/.exec(link.getAttribute("href"));
    return run && run.value && m ? { run: run.value, follow: m[1] } : null;
  }

  // address is where the frame at a data-to is prefetched from: the answer
  // with marks for a visitor with ids, else the one of a visitor without.
  function address(to, withIDs) {
    var u = new URL(to, location.href);
    u.pathname += "/frame";
    if (withIDs) u.searchParams.set("ids", "1");
    return u.pathname + u.search;
  }

  function fill(html, v) {
    return v ? html.split(RUN_MARK).join(v.run).split(FOLLOW_MARK).join(v.follow) : html;
  }

  // links are the data-to of root's controls that can be pressed, the
  // script's step, back and switch first, then free play's, then the rest.
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

  // wanted are the frames to have on the page, nearest first: one click from
  // the shown frame, then one click from each of those already here, and so
  // on, a few clicks ahead; the frames further on are what an offline
  // lecture keeps stepping through.
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
    var t = doc.createElement("template");
    t.innerHTML = html;
    var d = t.content.getElementById("demo");
    return d ? links(d) : [];
  }

  function idle(fn) {
    if (window.requestIdleCallback) requestIdleCallback(fn, { timeout: 300 });
    else setTimeout(fn, 30);
  }

  // refill is called after each painted frame: it drops the fetches the
  // visitor moved past and starts the budget anew.
  function refill() {
    spent = { requests: 0, bytes: 0 };
    doc.documentElement.dataset.prefetch = "busy"; // until prefetch has looked
    idle(prefetch);
  }

  // prefetch starts what the budget allows of the frames wanted, and says on
  // <html data-prefetch> whether it is done ("idle") for now.
  function prefetch() {
    if (doc.hidden || !demo()) return; // visibilitychange starts it again
    var want = wanted(!!ids());
    var keep = new Set(want);
    pending.forEach(function (ctl, a) { if (!keep.has(a)) { ctl.abort(); pending.delete(a); } });
    if (!offline) {
      want.forEach(function (a) {
        if (frames.has(a) || pending.has(a)) return;
        if (spent.requests >= MAX_REQUESTS || spent.bytes + (pending.size + 1) * guess > MAX_BYTES) return;
        spent.requests++;
        fetchFrame(a);
      });
    }
    doc.documentElement.dataset.prefetch = pending.size ? "busy" : "idle";
  }

  function fetchFrame(a) {
    var ctl = new AbortController();
    pending.set(a, ctl);
    fetch(a, { signal: ctl.signal, credentials: "omit", headers: { "HX-Request": "true" } })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        pending.delete(a);
        if (html === null) return;
        var e = performance.getEntriesByName(new URL(a, location.href).href).pop();
        var size = e && e.transferSize ? e.transferSize : 0;
        spent.bytes += size;
        if (size > guess) guess = size;
        frames.delete(a);
        frames.set(a, { html: html });
        if (frames.size > KEEP) frames.delete(frames.keys().next().value);
        idle(prefetch); // the next level may be known now
      }, function (err) {
        if (err && err.name === "AbortError") return; // prefetch dropped it
        pending.delete(a);
        idle(prefetch);
      });
  }

  // keep keeps a click's answer as the frame at its address, with the marks
  // back where the visitor's ids are: Back, and an offline lecture, need it.
  function keep(html, url) {
    var v = ids();
    if (!url || !v || html.indexOf(v.run) < 0) return;
    var a = address(url, true);
    frames.delete(a);
    frames.set(a, { html: html.split(v.run).join(RUN_MARK).split(v.follow).join(FOLLOW_MARK) });
    if (frames.size > KEEP) frames.delete(frames.keys().next().value);
  }

  // paint puts an answer's frame on the page: #demo, its title and what the
  // answer swaps out of band (the sentence for the screen reader, the
  // language link, the canonical link), then the address. It does what
  // htmx's swap would, less its settle delay and its copy of the old page.
  function paint(html, url, isError) {
    var mark = window.performance && performance.mark ? function (n) { performance.mark(n); } : function () {};
    mark("swap:start");
    var t = doc.createElement("template");
    t.innerHTML = html;
    var frag = t.content, next = frag.getElementById("demo"), shown = demo();
    if (!next || !shown) return false;
    mark("swap:parsed");
    var title = frag.querySelector("title");
    if (title) doc.title = title.textContent;
    Array.prototype.forEach.call(frag.querySelectorAll("[hx-swap-oob]"), function (el) {
      var there = doc.getElementById(el.id);
      if (!there) return;
      if (el.getAttribute("hx-swap-oob") === "innerHTML") there.innerHTML = el.innerHTML;
      else { el.removeAttribute("hx-swap-oob"); there.replaceWith(el); }
    });
    var focused = doc.activeElement && shown.contains(doc.activeElement) ? doc.activeElement.id : "";
    doc.documentElement.classList.add("moving");
    shown.replaceWith(next);
    if (window.htmx) htmx.process(next);
    if (focused && doc.getElementById(focused)) doc.getElementById(focused).focus({ preventScroll: true });
    mark("swap:swapped");
    unpainted = true;
    requestAnimationFrame(function () { setTimeout(function () { unpainted = false; }, 0); });
    if (url && url !== location.pathname + location.search) {
      requestAnimationFrame(function () {
        setTimeout(function () {
          if (!(history.state && history.state.htmx)) history.replaceState({ htmx: true }, "", location.href);
          history.pushState({ htmx: true }, "", url);
        }, 0);
      });
    }
    // app.js and the tests hear the frame settle as after htmx's own swap.
    next.dispatchEvent(new CustomEvent("htmx:afterSettle", { bubbles: true, detail: { elt: next } }));
    if (!isError) refill();
    return true;
  }

  // A click on a control whose frame is here is painted now and posted
  // beside it. htmx asks first (htmx:confirm); anything else goes its way.
  doc.addEventListener("htmx:confirm", function (e) {
    var form = e.detail.elt, ev = e.detail.triggeringEvent;
    if (htmxBusy || !form || form.tagName !== "FORM" || e.detail.verb !== "post" || !demo() || !demo().contains(form) ||
        e.detail.path !== form.getAttribute("hx-post")) return;
    // A click on a frame not painted yet (two clicks in one task, as a
    // quick double click makes before any answer) is the first one's echo.
    if (unpainted) { e.preventDefault(); return; }
    var by = ev && ev.submitter;
    var to = (by && by.dataset.to) || form.dataset.to;
    var v = ids(), f = to && frames.get(address(to, !!v));
    if (!f) {
      // Nothing to paint: htmx posts it, after any moves still waiting, so
      // the server gets them in order.
      if (moves.length) { e.preventDefault(); waiting = e.detail.issueRequest; }
      if (offline) say("missing");
      return;
    }
    e.preventDefault();
    var body = new URLSearchParams(new FormData(form));
    if (by && by.name) body.set(by.name, by.value);
    var html = fill(f.html, v);
    paint(html, to);
    moves.push({ action: form.getAttribute("hx-post"), body: body.toString(), painted: html });
    send();
  });

  // send posts the waiting moves one at a time, in order. An answer that
  // differs from what was painted replaces it, unless a later move has been
  // painted since. A network failure keeps the move and tries again. It
  // posts with XMLHttpRequest, as htmx does, so whatever counts htmx's
  // requests in flight counts these too.
  function send() {
    if (sending || !moves.length) return;
    var m = moves[0], xhr = new XMLHttpRequest();
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
      if (xhr.status < 200 || xhr.status > 299) {
        // The server refused (a class starting at once gets a 429): its
        // answer says why, as htmx would show it, and app.js hears of it as
        // of htmx's own (it tries a 429 again). The moves after it were made
        // on a frame the server did not take.
        moves = [];
        if (paint(xhr.responseText, null, true)) {
          var form = new FormData();
          new URLSearchParams(m.body).forEach(function (v, k) { form.append(k, v); });
          demo().dispatchEvent(new CustomEvent("htmx:afterSwap", { bubbles: true, detail: {
            target: demo(), elt: demo(), xhr: xhr, requestConfig: { verb: "post", path: m.action, formData: form } } }));
        }
        return;
      }
      keep(xhr.responseText, url);
      if (!moves.length && xhr.responseText !== m.painted) paint(xhr.responseText, url);
      // Moves that waited for the network go a little apart, so that
      // followers watch the lecture catch up rather than skip to its end.
      if (moves.length) { if (caughtUp) setTimeout(send, 100); else send(); }
      else if (waiting) { var go = waiting; waiting = null; go(true); }
    };
    xhr.onerror = function () {
      sending = false;
      lost();
    };
    xhr.send(m.body);
  }

  // The note that says the page is offline: outside #demo, so frames
  // painted meanwhile keep it, and a status, so a screen reader hears it.
  var words = {
    en: {
      lost: "Offline: the frames already on this page keep playing. Your moves are sent when the network is back, and anyone following catches up then.",
      missing: "Offline: this frame was not on the page yet. It can be shown once the network is back.",
      back: "Back online: your moves are sent, and anyone following has caught up.",
    },
    ja: {
      lost: "オフライン：このページにあるフレームはそのまま進められます。操作はネットワークが戻ったときに送られ、フォローしている人もそのとき追いつきます。",
      missing: "オフライン：このフレームはまだページにありません。ネットワークが戻ると表示できます。",
      back: "オンラインに戻りました：操作は送られ、フォローしている人も追いつきました。",
    },
  };
  var note = null, hideNote = 0;
  function say(what) {
    if (!note) {
      note = doc.createElement("p");
      note.id = "offline-note";
      note.className = "offline-note";
      note.setAttribute("role", "status");
      note.dataset.testid = "offline-note";
      doc.body.appendChild(note);
    }
    clearTimeout(hideNote);
    note.hidden = false;
    note.dataset.state = what;
    note.textContent = (words[doc.documentElement.lang] || words.en)[what];
    if (what === "back") hideNote = setTimeout(function () { note.hidden = true; }, 5000);
  }

  var caughtUp = false; // the note said offline: it says so when all is sent
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
    requestAnimationFrame(function () { setTimeout(refill, 0); }); // after the first paint
  });
})();
