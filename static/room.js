// room.js: a workshop room's pages. On the lecturer's board it keeps the
// counts live from the board's stream; on a learner's challenge it fills
// in the address of their run (the frame below the form) and submits it
// in the page, each submission with a key of its own, so a retry of the
// same submission is counted once and a new one is counted anew.
(function () {
  "use strict";

  function newKey() {
    var b = new Uint8Array(16);
    crypto.getRandomValues(b);
    return Array.prototype.map.call(b, function (x) { return (x + 0x100).toString(16).slice(1); }).join("");
  }

  function board(live) {
    var es = new EventSource(live.dataset.events);
    es.addEventListener("board", function (e) { live.innerHTML = e.data; });
    es.addEventListener("closed", function () { es.close(); });
  }

  function frameAddress(frame) {
    try {
      var l = frame.contentWindow.location;
      return l.pathname + l.search;
    } catch (e) {
      return "";
    }
  }

  function submitter(form) {
    var frame = document.getElementById("room-frame");
    var out = document.getElementById("room-result");
    var place = form.elements.place;
    var key = form.elements.key;
    place.closest("label").hidden = true;
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var here = frameAddress(frame);
      if (here) place.value = here;
      var button = form.querySelector("button[type=submit]");
      button.disabled = true;
      fetch(form.action, {
        method: "POST",
        headers: { "HX-Request": "true", "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(new FormData(form)),
        credentials: "same-origin"
      }).then(function (r) {
        return r.text().then(function (t) {
          out.innerHTML = t;
          if (r.status !== 503 && r.status !== 429) key.value = newKey(); // nothing counted: the same submission again
        });
      }).catch(function () {
        // The answer was lost: the same key again, so a submission that
        // was counted is not counted twice.
      }).then(function () { button.disabled = false; });
    });
  }

  var live = document.getElementById("room-live");
  if (live && live.dataset.events && window.EventSource) board(live);
  var form = document.getElementById("room-submit");
  if (form && window.fetch) submitter(form);
})();
