// tieout review console: keyboard shortcuts. No framework, no build step; every action is a plain
// form or link, so the console works without this file too.
(function () {
  "use strict";
  var page = document.body.dataset.page;
  var help = document.getElementById("help");
  var dismissArmed = false;

  function typing(e) {
    var t = e.target;
    return t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
  }
  function go(id) {
    var a = document.getElementById(id);
    if (a && a.href) { window.location.href = a.href; return true; }
    return false;
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

  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) { return; }
    if (e.key === "Escape") {
      armDismiss(false); toggleHelp(false);
      if (typing(e)) { e.target.blur(); }
      return;
    }
    if (typing(e)) { return; }
    var k = e.key;
    if (k === "?") { toggleHelp(); e.preventDefault(); return; }
    if (page === "queue") {
      if (k === "j") { select(selected + 1); }
      else if (k === "k") { select(selected - 1); }
      else if ((k === "Enter" || k === "o") && selected >= 0) { window.location.href = rows[selected].dataset.href; }
      else if (k === "n") { go("next-page"); }
      else if (k === "p") { go("prev-page"); }
      else { return; }
      e.preventDefault();
      return;
    }
    if (page !== "flag") { return; }
    if (dismissArmed && /^[1-5]$/.test(k)) { pickReason(k); }
    else if (k === "j") { go("next"); }
    else if (k === "k") { go("prev"); }
    else if (k === "u") { go("to-queue"); }
    else if (k === "c") { submit("confirm-form"); }
    else if (k === "C") { submit("confirm-form", "next"); }
    else if (k === "d") { armDismiss(true); }
    else if (k === "D") { armDismiss(true, "next"); }
    else if (k === "r") { submit("reopen-form"); }
    else if (k === "a") { document.getElementById("assignee-select").focus(); }
    else if (k === "m") { document.getElementById("comment").focus(); }
    else if (k === "+" || k === "=") { zoomStep(1); }
    else if (k === "-") { zoomStep(-1); }
    else { return; }
    e.preventDefault();
  });
})();
