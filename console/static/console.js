// tieout review console: keyboard shortcuts. No framework, no build step; every action is a plain
// form or link, so the console works without this file too.
(function () {
  "use strict";
  var page = document.body.dataset.page;
  var help = document.getElementById("help");
  var dismissArmed = false;

  // The width the flag page's pages have in this browser: the server fits the pages of a cross-page flag
  // into it (console/routes/flags.py ROOM_COOKIE), so that a zoom remembered on one page never pushes the
  // second page off screen.
  function measureRoom() {
    var main = document.querySelector("main");
    if (!main) { return; }
    var css = window.getComputedStyle(main);
    var room = main.clientWidth - parseFloat(css.paddingLeft) - parseFloat(css.paddingRight);
    document.cookie = "tieout_room=" + Math.floor(room) + "; path=/; SameSite=Strict";
  }
  measureRoom();
  window.addEventListener("resize", measureRoom);

  function typing(e) {
    var t = e.target;
    return t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
  }
  function go(id) {
    var a = document.getElementById(id);
    if (a && a.href) { window.location.href = a.href; return true; }
    return false;
  }
  function focus(id) {
    var el = document.getElementById(id);
    if (el) { el.focus(); }
  }
  function submit(formId, then) {
    var f = document.getElementById(formId);
    if (!f) { return; }
    var next = f.querySelector("input[name=then]");
    if (next) { next.value = then || ""; }
    f.requestSubmit(f.querySelector("button[type=submit]"));
  }
  function toggleHelp(show) {
    if (!help) { return; }
    help.hidden = show === undefined ? !help.hidden : !show;
  }
  document.querySelectorAll(".help-toggle").forEach(function (b) {
    b.addEventListener("click", function () { toggleHelp(); });
  });

  // queue: j/k move the selection, Enter or o opens it; a click on a row opens it too
  var rows = Array.prototype.slice.call(document.querySelectorAll("#queue tbody tr[data-href]"));
  var selected = -1;
  function select(i) {
    if (!rows.length) { return; }
    i = Math.max(0, Math.min(rows.length - 1, i));
    if (selected >= 0) { rows[selected].classList.remove("selected"); }
    selected = i;
    rows[i].classList.add("selected");
    rows[i].scrollIntoView({ block: "nearest" });
  }
  rows.forEach(function (r) {
    r.addEventListener("click", function (e) {
      if (e.target.tagName !== "A") { window.location.href = r.dataset.href; }
    });
  });

  // flag: d arms the dismiss form, then 1-5 picks a reason and submits ("other" waits for a note)
  var dismissForm = document.getElementById("dismiss-form");
  var dismissThen = "";
  function armDismiss(on, then) {
    dismissArmed = on;
    dismissThen = then || "";
    if (dismissForm) { dismissForm.classList.toggle("armed", on); }
  }
  function pickReason(n) {
    var radio = dismissForm && dismissForm.querySelector("input[data-key='" + n + "']");
    if (!radio) { return; }
    radio.checked = true;
    var then = dismissThen;
    armDismiss(false);
    if (radio.value === "other") {
      dismissForm.querySelector("input[name=then]").value = then;
      document.getElementById("dismiss-note").focus();
    } else {
      submit("dismiss-form", then);
    }
  }
  function zoomStep(dir) {
    var links = Array.prototype.slice.call(document.querySelectorAll(".zoom a[data-zoom]"));
    var cur = links.findIndex(function (a) { return a.getAttribute("aria-current"); });
    var next = links[cur + dir];
    if (next) { window.location.href = next.href; }
  }

  // Every shortcut, once: the key handler looks keys up here and the help (#help) is made from here, so
  // the help lists every key bound. page: where it works ("" everywhere); when: only while that holds;
  // typing: also while typing in a field; keepDefault: the browser's own use of the key goes on too.
  var KEYS = [
    { page: "", keys: ["?"], help: "show or hide this help", run: function () { toggleHelp(); } },
    {
      page: "", keys: ["Escape"], help: "cancel, close this help, leave a field", typing: true, keepDefault: true,
      run: function (e) { armDismiss(false); toggleHelp(false); if (typing(e)) { e.target.blur(); } }
    },
    { page: "queue", keys: ["j"], help: "select the next flag", run: function () { select(selected + 1); } },
    { page: "queue", keys: ["k"], help: "select the previous flag", run: function () { select(selected - 1); } },
    {
      page: "queue", keys: ["Enter", "o"], help: "open the selected flag",
      when: function () { return selected >= 0; },
      run: function () { window.location.href = rows[selected].dataset.href; }
    },
    { page: "queue", keys: ["n"], help: "next page of the queue", run: function () { go("next-page"); } },
    { page: "queue", keys: ["p"], help: "previous page of the queue", run: function () { go("prev-page"); } },
    {
      page: "flag", keys: ["1", "2", "3", "4", "5"], when: function () { return dismissArmed; },
      help: "after d or D: the reason, as numbered in the Dismiss row (5 other: type a note, then Enter)",
      run: function (e) { pickReason(e.key); }
    },
    { page: "flag", keys: ["j"], help: "next flag of the queue", run: function () { go("next"); } },
    { page: "flag", keys: ["k"], help: "previous flag of the queue", run: function () { go("prev"); } },
    { page: "flag", keys: ["u"], help: "back to the queue", run: function () { go("to-queue"); } },
    { page: "flag", keys: ["c"], help: "confirm: a real inconsistency", run: function () { submit("confirm-form"); } },
    {
      page: "flag", keys: ["C"], help: "confirm, then open the next flag of the queue",
      run: function () { submit("confirm-form", "next"); }
    },
    { page: "flag", keys: ["d"], help: "dismiss, then pick a reason with 1–5", run: function () { armDismiss(true); } },
    {
      page: "flag", keys: ["D"], help: "dismiss, then open the next flag of the queue",
      run: function () { armDismiss(true, "next"); }
    },
    { page: "flag", keys: ["r"], help: "reopen", run: function () { submit("reopen-form"); } },
    { page: "flag", keys: ["a"], help: "reassign (pick a user)", run: function () { focus("assignee-select"); } },
    { page: "flag", keys: ["m"], help: "write a comment", run: function () { focus("comment"); } },
    { page: "flag", keys: ["+", "="], help: "zoom the pages in", run: function () { zoomStep(1); } },
    { page: "flag", keys: ["-"], help: "zoom the pages out", run: function () { zoomStep(-1); } }
  ];
  var SHOWN = { Escape: "Esc", Enter: "Enter", "-": "−" };
  var PLACES = [["", "Everywhere"], ["queue", "Queue"], ["flag", "Flag"]];

  function makeHelp() {
    var holder = document.getElementById("help-keys");
    if (!holder) { return; }
    PLACES.forEach(function (place) {
      var title = document.createElement("h3");
      title.textContent = place[1];
      var list = document.createElement("dl");
      KEYS.filter(function (b) { return b.page === place[0]; }).forEach(function (b) {
        var dt = document.createElement("dt");
        b.keys.forEach(function (key, i) {
          if (i) { dt.appendChild(document.createTextNode(" ")); }
          var kbd = document.createElement("kbd");
          kbd.dataset.key = key;
          kbd.textContent = SHOWN[key] || key;
          dt.appendChild(kbd);
        });
        var dd = document.createElement("dd");
        dd.textContent = b.help;
        list.appendChild(dt);
        list.appendChild(dd);
      });
      holder.appendChild(title);
      holder.appendChild(list);
    });
  }
  makeHelp();

  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) { return; }
    var bound = KEYS.find(function (b) {
      return (b.page === "" || b.page === page) && b.keys.indexOf(e.key) >= 0 &&
        (b.typing || !typing(e)) && (!b.when || b.when());
    });
    if (!bound) { return; }
    bound.run(e);
    if (!bound.keepDefault) { e.preventDefault(); }
  });
})();
