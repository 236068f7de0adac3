// The demo's small script: presenter keys, autoplay, copy buttons, and the
// height message an embedding page needs. Everything it touches also works
// without it, through plain forms and links.
(function () {
  "use strict";

  var doc = document;
  var playing = null; // the autoplay timer, while playing

  function $(sel) { return doc.querySelector(sel); }

  // click presses one of the demo's own controls, so a key does exactly what
  // the button does, through htmx or, without it, a plain form post.
  function click(testid) {
    var el = $('#demo [data-testid="' + testid + '"]');
    if (!el || el.disabled || el.getAttribute("aria-disabled") === "true") return false;
    el.click();
    return true;
  }

  // post sends an action that has no button of its own (the last frame).
  function post(action) {
    var form = $('#demo form[action$="/step"]');
    if (!form) return;
    var clone = form.cloneNode(true);
    var target = form.getAttribute("action").replace(/\/step$/, "/" + action);
    clone.setAttribute("action", target);
    if (window.htmx) {
      htmx.ajax("POST", target, { source: form, target: "#demo", swap: "outerHTML", values: htmx.values(form) });
    } else {
      clone.hidden = true;
      doc.body.appendChild(clone);
      clone.submit();
    }
  }

  // A double click is one step: the browser counts the clicks of a pair at
  // one spot (ev.detail is 2 for the second, whatever button is under the
  // pointer by then, the first answer may have swapped in a new one), and
  // the second is dropped. Keys and script clicks (detail 0) always count.
  doc.addEventListener("click", function (ev) {
    if (ev.detail > 1 && ev.target.closest && ev.target.closest("#demo .controls button, #demo .offers button")) {
      ev.preventDefault();
      ev.stopImmediatePropagation();
    }
  }, true);

  function isTyping(el) {
    return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  }

  // Keys act only when the focus is in the demo's own page and not in a
  // field, and never on a key with a modifier, so the browser's and the
  // host page's own shortcuts keep working. Inside an iframe the keys only
  // reach us while the frame has the focus.
  doc.addEventListener("keydown", function (ev) {
    if (ev.defaultPrevented || ev.altKey || ev.ctrlKey || ev.metaKey || isTyping(ev.target)) return;
    var dialog = $("#help");
    if (dialog && dialog.open) return;
    var onControl = ev.target && /^(BUTTON|A|SUMMARY)$/.test(ev.target.tagName);
    var done = false;
    switch (ev.key) {
      case "ArrowRight": case "PageDown": done = click("step"); break;
      case " ": if (!onControl) done = click("step"); break;
      case "ArrowLeft": case "PageUp": done = click("back"); break;
      case "Home": done = click("reset"); break;
      case "End": if ($("#demo").dataset.last !== "true") { post("last"); done = true; } break;
      case "r": case "R": done = click("reset"); break;
      case "t": case "T": done = click("takeover") || click("script"); break;
      case "f": case "F": done = !!switchButton() && (switchButton().click(), true); break;
      case "p": case "P": toggle(); done = true; break;
      case "a": case "A": done = click("ask"); break; // a lecture's question to the room (predict.templ)
      case "?": openHelp(); done = true; break;
    }
    if (done) ev.preventDefault();
  });

  function switchButton() { return $("#demo .switch [aria-pressed]"); }

  // Autoplay steps on at the chosen pace and stops by itself at the end.
  function toggle() { if (playing) stop(); else start(); }

  function start() {
    var btn = $("#play");
    if (!btn) return;
    btn.setAttribute("aria-pressed", "true");
    btn.textContent = "⏸ " + btn.dataset.pause;
    schedule();
  }

  function schedule() {
    clearTimeout(playing);
    playing = setTimeout(function () {
      if ($("#demo").dataset.last === "true" || !click("step")) { stop(); return; }
      schedule();
    }, Number(($("#speed") || {}).value || 2000));
  }

  function stop() {
    clearTimeout(playing);
    playing = null;
    var btn = $("#play");
    if (!btn) return;
    btn.setAttribute("aria-pressed", "false");
    btn.textContent = "▶ " + btn.dataset.play;
  }

  function openHelp() {
    var d = $("#help");
    if (d && !d.open) d.showModal();
  }

  // Addresses in the share box are made absolute with the host the visitor
  // sees, and copy buttons appear now that there is script to run them.
  function enhance() {
    var link = $("#share-link");
    if (link) link.value = new URL(link.value, location.href).href;
    var code = $("#embed-code");
    if (code) {
      var src = new URL(code.dataset.embed, location.href).href;
      code.value = '<iframe src="' + src + '" title="' + code.dataset.title.replace(/"/g, "&quot;") +
        '" width="100%" height="760" style="border:0" loading="lazy"></iframe>';
    }
    Array.prototype.forEach.call(doc.querySelectorAll("button.copy"), function (b) {
      b.hidden = false;
      b.onclick = function () {
        var field = doc.getElementById(b.dataset.copy);
        field.select();
        var done = function () { b.textContent = "✓"; };
        if (navigator.clipboard) navigator.clipboard.writeText(field.value).then(done, function () { doc.execCommand("copy"); done(); });
        else { doc.execCommand("copy"); done(); }
      };
    });
    showNow();
    tellHeight();
  }

  // On a phone the diagram scrolls sideways; keep the moment shown in view,
  // at a place where no label stands half under the lane names pinned at
  // the left edge (the nearest such place to the moment's). A label wholly
  // under them is scrolled past, as one beyond the edge is.
  function showNow() {
    var box = $("#demo .tl-scroll"), svg = box && box.querySelector("svg.tl-body"), now = svg && svg.querySelector("line.now");
    if (!now || box.scrollWidth <= box.clientWidth) return;
    var scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    var want = Math.max(0, Math.round(now.x1.baseVal.value * scale - box.clientWidth * 0.65));
    var pinned = box.querySelector(".tl-lanes rect.pinned");
    var cover = pinned ? pinned.getBoundingClientRect() : null;
    var labels = [];
    if (cover) {
      var top = cover.top - svg.getBoundingClientRect().top, bottom = top + cover.height;
      Array.prototype.forEach.call(svg.querySelectorAll("text:not(.lane-label)"), function (t) {
        var b = t.getBBox();
        if (b.y * scale < bottom && (b.y + b.height) * scale > top) labels.push([b.x * scale, (b.x + b.width) * scale]);
      });
    }
    // First a place with the moment well inside the view, else any place
    // where no label is cut.
    var nowX = now.x1.baseVal.value * scale;
    var clear = function (s, nowIn) {
      var edge = s + (cover ? cover.width : 0);
      return (!nowIn || nowX >= edge + 8 && nowX <= s + box.clientWidth * 0.85) &&
        labels.every(function (l) { return l[1] <= edge - 1 || l[0] >= edge + 1; });
    };
    var max = Math.floor(box.scrollWidth - box.clientWidth);
    want = Math.min(want, max);
    for (var pass = 0; pass < 2; pass++) {
      for (var d = 0; d <= max; d += 2) {
        if (want - d >= 0 && clear(want - d, pass === 0)) { box.scrollLeft = want - d; return; }
        if (want + d <= max && clear(want + d, pass === 0)) { box.scrollLeft = want + d; return; }
      }
    }
    box.scrollLeft = want;
  }

  // An embedding page sizes its iframe from this message, and a Canvas
  // page from its own (lti.frameResize, a JSON string as Canvas sends it).
  function tellHeight() {
    if (window.parent === window) return;
    var h = doc.documentElement.scrollHeight;
    window.parent.postMessage({ type: "fencing-demo:height", height: h }, "*");
    window.parent.postMessage(JSON.stringify({ subject: "lti.frameResize", height: h }), "*");
  }

  // What the learner did (a prediction answered, a challenge broken or a
  // lab fixed) is told to an embedding page as an xAPI statement with no
  // actor: the page's [data-xapi], its object's id made absolute here. Each
  // is told once a tab (a reload shows the same answer again).
  function tellDone(root) {
    if (window.parent === window) return;
    Array.prototype.forEach.call((root || doc).querySelectorAll("[data-xapi]"), function (el) {
      var text = el.getAttribute("data-xapi"), seen = "fencing-demo:xapi:" + text;
      try { if (sessionStorage.getItem(seen)) return; sessionStorage.setItem(seen, "1"); } catch (e) { /* storage off: tell it */ }
      var st = JSON.parse(text);
      st.object.id = new URL(st.object.id, location.href).href;
      st.timestamp = new Date().toISOString();
      window.parent.postMessage({ type: "fencing-demo:xapi", statement: st }, "*");
    });
  }

  // init wires the page's own buttons: at load, and again after Back or
  // Forward, when htmx puts the page back from the server's answer (the
  // demo keeps no snapshot of itself: hx-history="false" on #demo).
  function init() {
    var player = $("#player");
    if (player) player.hidden = false;
    var play = $("#play");
    if (play) play.onclick = toggle;
    var speed = $("#speed");
    if (speed) speed.onchange = function () { if (playing) schedule(); };
    var help = $("#help-open");
    if (help) help.onclick = openHelp;
    enhance();
  }

  doc.addEventListener("DOMContentLoaded", function () {
    init();
    if (window.ResizeObserver) new ResizeObserver(tellHeight).observe(doc.body);
    tellDone();
  });
  // A phone turned on its side lays the diagram out anew.
  window.addEventListener("resize", showNow);
  doc.addEventListener("htmx:historyRestore", function () { stop(); init(); });

  // A frame swapped into #demo, by htmx's request or painted ahead of its
  // answer by prefetch.js through htmx's swap, shows what its move changed
  // with motion (app.css; the first load does not move), and the address
  // bar follows it once it is on screen: the address its answer names
  // (HX-Push-Url), or the one prefetch.js painted it for (pushURL). htmx
  // would call replaceState and pushState before its swap, and in Chromium
  // those two calls took longer than all the rest of a click, so they are
  // made here, after the next paint, with htmx's own state: Back and
  // Forward still go through htmx. Without this script htmx does it.
  if (window.htmx) htmx.config.historyEnabled = false;
  // Nor does htmx carry an element's class and style over from the frame
  // before for 20 ms, for a CSS transition: the motion is html.moving's,
  // and an error answer would be shown as the frame it replaces meanwhile.
  if (window.htmx) htmx.config.attributesToSettle = [];
  doc.addEventListener("htmx:afterSwap", function (e) {
    if (e.target.id !== "demo") return;
    doc.documentElement.classList.add("moving");
    var d = e.detail, url = d.pushURL || (d.xhr && d.successful && d.xhr.getResponseHeader("HX-Push-Url"));
    if (!url || htmx.config.historyEnabled && d.xhr) return; // htmx pushed its own answer's
    var push = function () {
      if (!(history.state && history.state.htmx)) history.replaceState({ htmx: true }, "", location.href);
      history.pushState({ htmx: true }, "", url);
    };
    // A hidden page draws no frames, so it pushes at once.
    if (doc.hidden) push();
    else requestAnimationFrame(function () { setTimeout(push, 0); });
  });
  // What was swapped into the demo is finished once settled (htmx fires
  // this for each part of an answer; those out of band need nothing).
  doc.addEventListener("htmx:afterSettle", function (e) { if (e.target.closest && e.target.closest("#demo")) enhance(); });
  doc.addEventListener("htmx:afterSettle", function (e) { if (e.target.querySelectorAll) tellDone(e.target); });

  // A 429 (too many new runs from this address: a whole class behind one
  // NAT starting at once) is tried again by itself after Retry-After, with
  // a note on the error page saying so; the visitor need not do anything.
  doc.addEventListener("htmx:afterSwap", function (e) {
    var xhr = e.detail.xhr, cfg = e.detail.requestConfig;
    if (!xhr || xhr.status !== 429 || !cfg || cfg.verb !== "post") return;
    var secs = Math.min(Math.max(parseInt(xhr.getResponseHeader("Retry-After"), 10) || 1, 1), 120);
    var box = $('#demo[data-testid="error"]');
    if (!box) return;
    var note = doc.createElement("p");
    note.setAttribute("role", "status");
    note.dataset.testid = "retry-note";
    note.textContent = doc.documentElement.lang === "ja" ?
      secs + " 秒後に自動でもう一度試す…" : "Trying again by itself in " + secs + (secs === 1 ? " second…" : " seconds…");
    box.appendChild(note);
    var values = {};
    if (cfg.formData) cfg.formData.forEach(function (v, k) { values[k] = v; });
    setTimeout(function () {
      if (!box.isConnected) return; // the visitor went on by themselves
      htmx.ajax("POST", cfg.path, { target: "#demo", swap: "outerHTML", values: values });
    }, secs * 1000);
  });
})();
