// The follower's small script: it keeps the lecturer's frame on screen. Each
// server-sent event is the follower's whole #demo, drawn by the server in the
// follower's language; this swaps it in, moves its title and its sentence for
// the screen reader into place, and says in the banner whether the page is
// live. Without it the page is a snapshot with a reload link.
(function () {
  "use strict";

  var doc = document;

  doc.addEventListener("DOMContentLoaded", function () {
    var banner = doc.getElementById("follow");
    var status = doc.getElementById("follow-status");
    if (!banner || !status || !window.EventSource) return;

    function say(state) {
      banner.dataset.state = state;
      status.textContent = banner.dataset[state];
    }

    // EventSource reconnects by itself after a network error, sending the
    // last event id it saw; the server then sends the latest frame if it is
    // newer. But it gives up for good when the server answers with an error
    // (a full lecture's 503, a replica going away behind a balancer), and it
    // ignores Retry-After. So then this opens a new one itself, after a
    // wait that doubles up to half a minute, each a random part shorter so a
    // room cut off at once does not come back at once; the new stream's
    // first event is the latest frame, which the version check below swaps
    // in if it is newer than the one shown.
    var events, tries = 0, timer = 0;
    function connect() {
      timer = 0;
      events = new EventSource(banner.dataset.events);
      events.onopen = function () { tries = 0; say("live"); };
      events.onerror = function () {
        say("lost");
        if (events.readyState !== EventSource.CLOSED || timer) return;
        var wait = Math.min(30000, 1000 * Math.pow(2, tries));
        tries++;
        timer = setTimeout(connect, wait / 2 + Math.random() * wait / 2);
      };
      events.addEventListener("end", function () { events.close(); say("ended"); });
      events.onmessage = show;
    }
    connect();
    function show(ev) {
      var tpl = doc.createElement("template");
      tpl.innerHTML = ev.data;
      var next = tpl.content.getElementById("demo");
      var shown = doc.getElementById("demo");
      if (!next || !shown || next.dataset.version === shown.dataset.version) return;
      keep(shown, next);
      shown.replaceWith(next);
      markMine(next);
      doc.title = next.dataset.title;
      var line = next.querySelector("[data-announce]");
      var announce = doc.getElementById("announce");
      if (line && announce) announce.textContent = line.textContent.trim();
    }
  });

  // A lecturer's question (predict.templ): an answer is sent without leaving
  // the page, and the pressed answer stays marked, also on the frames the
  // stream draws again while the question is open (they are the same for
  // every follower, so the mark is this page's own).
  doc.addEventListener("submit", function (ev) {
    var form = ev.target;
    var section = form.closest && form.closest("[data-poll]");
    if (!section || !window.fetch || !ev.submitter) return;
    ev.preventDefault();
    var body = new URLSearchParams(new FormData(form));
    body.set(ev.submitter.name, ev.submitter.value);
    fetch(form.action, { method: "POST", body: body, headers: { "HX-Request": "true" }, credentials: "same-origin" })
      .then(function (r) {
        if (!r.ok) return;
        try { sessionStorage.setItem("answer:" + section.dataset.poll, ev.submitter.value); } catch (e) { /* private mode */ }
        markMine(doc.getElementById("demo"));
      });
  });

  function markMine(root) {
    var section = root && root.querySelector("[data-poll]");
    if (!section) return;
    var mine = null;
    try { mine = sessionStorage.getItem("answer:" + section.dataset.poll); } catch (e) { return; }
    if (mine === null) return;
    section.querySelectorAll("button[name=option]").forEach(function (b) {
      b.setAttribute("aria-pressed", String(b.value === mine));
    });
    section.dataset.answered = mine;
  }

  // keep carries over what the follower did to the old frame: the event log
  // they opened, and the focus on the "try it myself" link.
  function keep(from, to) {
    var was = from.querySelectorAll("details");
    var now = to.querySelectorAll("details");
    for (var i = 0; i < was.length && i < now.length; i++) now[i].open = was[i].open;
    var focused = doc.activeElement;
    if (focused && from.contains(focused) && focused.dataset.testid) {
      var same = to.querySelector('[data-testid="' + focused.dataset.testid + '"]');
      if (same) setTimeout(function () { same.focus(); }, 0);
    }
  }
})();
