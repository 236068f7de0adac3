// The lab's editor (views/lab.templ). Without this script each client's
// program is a textarea, one action a line, with the palette's blocks
// listed beside it; with it, the program becomes a Parsons problem: its
// lines in a list, each with up, down and remove buttons, and each block of
// the palette a button that adds it. Every edit is written back into the
// same textarea, so the form the server reads is the same either way, and
// htmx posts it (the form's hx-trigger) to check the build and put it in
// the address. Nothing here drags: every move is a button, by keyboard too.
(function () {
  "use strict";

  var doc = document;

  // The address follows the build: htmx's answer names it (HX-Replace-Url),
  // and it is replaced here rather than by htmx, which would also keep a
  // snapshot of the page for Back; Back loads the page from its address.
  if (window.htmx) htmx.config.historyEnabled = false;
  doc.addEventListener("htmx:afterRequest", function (e) {
    var xhr = e.detail.xhr, url = xhr && xhr.getResponseHeader("HX-Replace-Url");
    if (url) history.replaceState(history.state, "", url);
  });
  doc.addEventListener("htmx:afterSettle", function (e) {
    absoluteLink();
    // The judge's answer may land below the fold: bring it into view.
    if (e.detail.target && e.detail.target.id === "judge") {
      e.detail.target.scrollIntoView({ block: "nearest" });
    }
  });

  function absoluteLink() {
    var link = doc.getElementById("lab-link");
    if (link) link.value = new URL(link.value, location.href).href;
  }

  // words are the page's own, in its language, from the form's data-*.
  var form, words;

  function say(key, a, b) {
    return (words[key] || key).replace("%1", a).replace("%2", b);
  }

  // announce reads a change out to a screen reader.
  function announce(text) {
    var live = doc.getElementById("lab-announce");
    if (live) live.textContent = text;
  }

  function button(text, label, cls) {
    var b = doc.createElement("button");
    b.type = "button";
    b.className = cls;
    b.textContent = text;
    if (label) b.setAttribute("aria-label", label);
    return b;
  }

  // Editor is one client's program: its textarea, and the list drawn from
  // it. labels are what each block of the palette does, by its line.
  var labels = {};

  function Editor(fieldset) {
    this.client = fieldset.dataset.client;
    this.area = fieldset.querySelector("textarea");
    this.help = fieldset.querySelector(".lab-text");
    var self = this;
    this.list = doc.createElement("ol");
    this.list.className = "program-lines";
    this.list.setAttribute("aria-label", say("program", this.client));
    this.list.dataset.testid = "lines-" + this.client;
    this.area.parentNode.insertBefore(this.list, this.area);
    this.toggle = button(say("astext"), "", "as-text");
    this.toggle.setAttribute("aria-pressed", "false");
    this.toggle.onclick = function () { self.text(self.area.hidden); };
    fieldset.appendChild(this.toggle);
    this.text(false);
  }

  // add puts line at the end of the program.
  Editor.prototype.add = function (line) {
    var lines = this.lines().concat([line]);
    this.edit(lines, lines.length - 1, "add", line);
  };

  // palette makes each client's mark in the palette a button that adds the
  // block to that client's program.
  function palette(editors) {
    Array.prototype.forEach.call(doc.querySelectorAll(".palette tbody tr"), function (tr) {
      var line = tr.dataset.line;
      labels[line] = tr.dataset.label;
      Array.prototype.forEach.call(tr.querySelectorAll(".for-client"), function (mark) {
        var ed = editors[mark.dataset.client];
        if (!ed) return;
        var add = button("+ " + ed.client, say("addto", ed.client, line), "add");
        add.dataset.testid = "add-" + ed.client;
        add.dataset.line = line;
        add.onclick = function () { ed.add(line); };
        mark.replaceWith(add);
      });
    });
  }

  // lines are the program's lines as the textarea holds them.
  Editor.prototype.lines = function () {
    return this.area.value.split("\n").map(function (l) { return l.trim(); }).filter(Boolean);
  };

  // text shows the textarea (on) or the list drawn from it.
  Editor.prototype.text = function (on) {
    this.area.hidden = !on;
    if (this.help) this.help.hidden = !on;
    this.list.hidden = on;
    this.toggle.textContent = on ? say("aslist") : say("astext");
    this.toggle.setAttribute("aria-pressed", String(on));
    if (!on) this.draw();
  };

  // draw lays the list out from the textarea: each line with what its
  // block does, and its up, down and remove buttons.
  Editor.prototype.draw = function () {
    var self = this, lines = this.lines();
    this.list.textContent = "";
    if (!lines.length) {
      var none = doc.createElement("li");
      none.className = "empty";
      none.textContent = say("empty");
      this.list.appendChild(none);
      return;
    }
    lines.forEach(function (line, i) {
      var li = doc.createElement("li");
      li.dataset.line = line;
      var code = doc.createElement("code");
      code.textContent = line;
      li.appendChild(code);
      var what = doc.createElement("span");
      what.className = "block-label";
      what.textContent = labels[line] || "";
      li.appendChild(what);
      var tools = doc.createElement("span");
      tools.className = "line-tools";
      var where = " " + line + " (" + (i + 1) + ")";
      var up = button("↑", say("up") + ":" + where, "up");
      up.disabled = i === 0;
      up.onclick = function () { self.edit(swap(lines, i, i - 1), i - 1, "up", line); };
      var down = button("↓", say("down") + ":" + where, "down");
      down.disabled = i === lines.length - 1;
      down.onclick = function () { self.edit(swap(lines, i, i + 1), i + 1, "down", line); };
      var cut = button("✕", say("remove") + ":" + where, "remove");
      cut.onclick = function () { self.edit(lines.slice(0, i).concat(lines.slice(i + 1)), i, "remove", line); };
      tools.appendChild(up);
      tools.appendChild(down);
      tools.appendChild(cut);
      li.appendChild(tools);
      self.list.appendChild(li);
    });
  };

  function swap(lines, i, j) {
    var out = lines.slice();
    out[i] = lines[j];
    out[j] = lines[i];
    return out;
  }

  // edit writes the new lines into the textarea, draws them, keeps the
  // focus on the line moved (or where a line was removed), says what
  // happened, and tells the form, whose htmx trigger posts it.
  Editor.prototype.edit = function (lines, at, how, line) {
    this.area.value = lines.join("\n");
    this.draw();
    var items = this.list.querySelectorAll("li[data-line]");
    var focus = null;
    if (how === "add") {
      announce(say("added", line, lines.length));
      return this.changed();
    }
    if (how === "remove") {
      announce(say("removed", line));
      var next = items[Math.min(at, items.length - 1)];
      focus = next ? next.querySelector(".remove") : this.toggle;
    } else {
      announce(say("moved", line, at + 1));
      focus = items[at].querySelector(how === "up" ? ".up" : ".down");
      if (focus.disabled) focus = items[at].querySelector(how === "up" ? ".down" : ".up");
    }
    if (focus && !focus.disabled) focus.focus();
    this.changed();
  };

  Editor.prototype.changed = function () {
    this.area.dispatchEvent(new Event("input", { bubbles: true }));
  };

  function init() {
    form = doc.getElementById("lab-form");
    if (!form) return;
    words = form.dataset;
    var editors = {};
    Array.prototype.forEach.call(form.querySelectorAll(".palette tbody tr"), function (tr) { labels[tr.dataset.line] = tr.dataset.label; });
    Array.prototype.forEach.call(form.querySelectorAll("fieldset.lab-program"), function (f) {
      var ed = new Editor(f);
      editors[ed.client] = ed;
    });
    palette(editors);
    // Each edit is checked as it is made: the button that checks the build
    // without JavaScript has nothing left to do.
    var check = form.querySelector('[data-testid="lab-check"]');
    if (check) check.hidden = true;
    absoluteLink();
  }

  // The judge's answer tells an embedding page what the learner did (a lab
  // fixed, or tried), as a frame's page does (app.js; README "Embed it"):
  // each judgement, as each is a try.
  doc.addEventListener("htmx:afterSettle", function (e) {
    var el = window.parent !== window && e.target.querySelector && e.target.querySelector("[data-xapi]");
    if (!el) return;
    var st = JSON.parse(el.getAttribute("data-xapi"));
    st.object.id = new URL(st.object.id, location.href).href;
    window.parent.postMessage({ type: "fencing-demo:xapi", statement: st }, "*");
  });

  if (doc.readyState === "loading") doc.addEventListener("DOMContentLoaded", init);
  else init();
})();
