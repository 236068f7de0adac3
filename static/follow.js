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
    // newer. It gives up only when the server answers with an error (the
    // lecture is over, or the server restarted and lost it).
    var events = new EventSource(banner.dataset.events);
    events.onopen = function () { say("live"); };
    events.onerror = function () { say(events.readyState === EventSource.CLOSED ? "stopped" : "lost"); };
    events.addEventListener("end", function () { events.close(); say("ended"); });
    events.onmessage = function (ev) {
      var tpl = doc.createElement("template");
      tpl.innerHTML = ev.data;
      var next = tpl.content.getElementById("demo");
      var shown = doc.getElementById("demo");
      if (!next || !shown || next.dataset.version === shown.dataset.version) return;
      keep(shown, next);
      shown.replaceWith(next);
      doc.title = next.dataset.title;
      var line = next.querySelector("[data-announce]");
      var announce = doc.getElementById("announce");
      if (line && announce) announce.textContent = line.textContent.trim();
    };
  });

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
