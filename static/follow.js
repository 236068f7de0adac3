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
    if (!banner || !status || !window.fetch || !window.ReadableStream || !window.TextDecoder) return;

    function say(state) {
      banner.dataset.state = state;
      status.textContent = banner.dataset[state];
    }

    // The stream is read with fetch rather than EventSource, which gives up
    // for good when the server answers with an error (a full lecture's 503,
    // a replica going away behind a balancer) and cannot see Retry-After.
    // Refused, this waits as long as the server's Retry-After says (a
    // second while the address's places may be coming free, longer when
    // the lecture is full), a random part longer so a room refused at once
    // does not come back at once; cut off or unreachable, it tries again
    // within a second, then after a wait that doubles up to ten. Each new
    // stream says which version it has, and its first event is the latest
    // frame, which show swaps in if it is newer than the one shown.
    var last = "", tries = 0;
    function connect() {
      var headers = { Accept: "text/event-stream" };
      if (last) headers["Last-Event-ID"] = last;
      fetch(banner.dataset.events, { headers: headers, credentials: "same-origin", cache: "no-store" })
        .then(function (r) {
          if (!r.ok || !r.body) return again(Number(r.headers.get("Retry-After")) * 1000 || 0);
          tries = 0;
          say("live");
          return read(r.body.getReader()).then(function (ended) { if (!ended) again(0); });
        }, function () { again(0); });
    }
    function again(asked) {
      say("lost");
      var wait = asked || Math.min(10000, 1000 * Math.pow(2, tries++));
      setTimeout(connect, asked ? wait + Math.random() * wait / 2 : wait / 2 + Math.random() * wait / 2);
    }
    // read takes server-sent events off the stream until it ends: true when
    // the lecture ended it ("end").
    function read(reader) {
      var decoder = new TextDecoder(), buf = "", id = "", type = "", data = [];
      function line(l) {
        if (l === "") {
          if (type === "end") return true;
          if (data.length) { if (id) last = id; show({ data: data.join("\n") }); }
          id = ""; type = ""; data = [];
        } else if (l.lastIndexOf("data:", 0) === 0) data.push(l.slice(l.charAt(5) === " " ? 6 : 5));
        else if (l.lastIndexOf("id:", 0) === 0) id = l.slice(3).trim();
        else if (l.lastIndexOf("event:", 0) === 0) type = l.slice(6).trim();
        return false;
      }
      function pump() {
        return reader.read().then(function (chunk) {
          if (chunk.done) return false;
          buf += decoder.decode(chunk.value, { stream: true });
          var lines = buf.split("\n");
          buf = lines.pop();
          for (var i = 0; i < lines.length; i++) {
            if (line(lines[i].replace(/\r$/, ""))) { reader.cancel(); say("ended"); return true; }
          }
          return pump();
        }, function () { return false; });
      }
      return pump();
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
  // every follower, so the mark is this page's own). An answer refused
  // (the question closed, the page's ticket missing, too many at once) is
  // left unmarked, and the server's reason is read out in the banner.
  doc.addEventListener("submit", function (ev) {
    var form = ev.target;
    var section = form.closest && form.closest("[data-poll]");
    if (!section || !window.fetch || !ev.submitter) return;
    ev.preventDefault();
    var body = new URLSearchParams(new FormData(form));
    body.set(ev.submitter.name, ev.submitter.value);
    fetch(form.action, { method: "POST", body: body, headers: { "HX-Request": "true" }, credentials: "same-origin" })
      .then(function (r) {
        if (!r.ok) return r.text().then(refused);
        try { sessionStorage.setItem("answer:" + section.dataset.poll, ev.submitter.value); } catch (e) { /* private mode */ }
        markMine(doc.getElementById("demo"));
      });
  });

  function refused(html) {
    var tpl = doc.createElement("template");
    tpl.innerHTML = html;
    var why = tpl.content.querySelector("[data-testid=error-message]");
    var status = doc.getElementById("follow-status");
    if (why && status) status.textContent = why.textContent.trim();
  }

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
