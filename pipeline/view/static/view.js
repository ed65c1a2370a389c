/* trajpipe view: filters for the list pages. No library, no network: data.js is a local script
   (window.TRAJPIPE_DATA = {trajectories: {cols, rows}, tasks: {cols, rows}}), loaded on the first
   filter so unfiltered pages stay light. Filters live in the URL hash (#reason=X&split=train), so
   the index links to filtered lists. */
(function () {
  "use strict";
  var root = document.querySelector("[data-list]");
  if (!root) return;
  var kind = root.getAttribute("data-list");
  var pageSize = parseInt(root.getAttribute("data-page-size"), 10) || 250;
  var base = document.querySelector('script[src$="view.js"]').getAttribute("src").replace(/assets\/view\.js$/, "");
  var selects = root.querySelectorAll("select[data-filter]");
  var stat = root.querySelector("[data-static]"), dyn = root.querySelector("[data-dynamic]");
  var match = root.querySelector("[data-match]");
  var shown = 0;

  function esc(s) {
    return String(s === null || s === undefined ? "" : s).replace(/[&<>"']/g, function (c) {
      return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c];
    });
  }
  function pct(x) { return x === null || x === undefined ? "–" : Math.round(100 * x) + "%"; }
  function badge(p) {
    return p === null || p === undefined ? '<span class="badge none">no verdict</span>'
      : (p ? '<span class="badge pass">pass</span>' : '<span class="badge fail">fail</span>');
  }
  function codes(list) { return (list || []).map(function (c) { return '<span class="code">' + esc(c) + "</span>"; }).join(" "); }
  function wanted() {
    var f = {};
    selects.forEach(function (s) { if (s.value) f[s.getAttribute("data-filter")] = s.value; });
    return f;
  }
  function readHash() {
    var h = location.hash.replace(/^#/, "");
    var f = {};
    h.split("&").forEach(function (kv) {
      if (!kv) return;
      var i = kv.indexOf("=");
      if (i > 0) f[decodeURIComponent(kv.slice(0, i))] = decodeURIComponent(kv.slice(i + 1).replace(/\+/g, " "));
    });
    selects.forEach(function (s) {
      var v = f[s.getAttribute("data-filter")];
      if (v !== undefined) {
        if (!Array.prototype.some.call(s.options, function (o) { return o.value === v; })) {
          var o = document.createElement("option"); o.textContent = v; o.value = v; s.appendChild(o);
        }
        s.value = v;
      }
    });
  }
  function keep(r, f) {
    var skills = r.skills || [];
    if (f.split && r.split !== f.split) return false;
    if (f.blueprint && r.blueprint_id !== f.blueprint) return false;
    if (f.skill && skills.indexOf(f.skill) < 0) return false;
    if (f.reason && (r.codes || []).indexOf(f.reason) < 0) return false;
    if (f.verdict === "pass" && r.passed !== true) return false;
    if (f.verdict === "fail" && r.passed !== false) return false;
    if (f.verdict === "none" && r.passed !== null) return false;
    if (f.hinted && ((r.hint_mode !== "none") !== (f.hinted === "yes"))) return false;
    if (f.recovery && (!!r.recovery !== (f.recovery === "yes"))) return false;
    if (f.faulted && ((r.faults > 0) !== (f.faulted === "yes"))) return false;
    return true;
  }
  function rowHtml(r, i) {
    if (kind === "trajectories") {
      var flags = (r.recovery ? '<span class="tag">recovery</span>' : "") + (r.faults ? '<span class="tag">' + r.faults + " fault(s)</span>" : "");
      return '<tr class="' + (r.passed ? "row-pass" : (r.passed === false ? "row-fail" : "")) + '"><td>' + (i + 1) + '</td><td><a href="' + esc(base + r.href) + '">' + esc(r.id) +
        "</a></td><td>" + badge(r.passed) + "</td><td>" + (r.reward === null ? "–" : esc(r.reward)) + "</td><td>" + codes(r.codes) +
        "</td><td>" + esc(r.split || "–") + "</td><td>" + esc(r.hint_mode) + "</td><td>" + flags + "</td><td>" + esc(r.finish || "–") + "</td></tr>";
    }
    var check = r.verified ? '<span class="badge pass">verified</span>' : (r.verified === null ? "–" : '<span class="badge fail">dropped</span> ' + codes(r.task_codes));
    return "<tr><td>" + (i + 1) + '</td><td><a href="' + esc(base + r.href) + '">' + esc(r.id) + "</a></td><td>" + esc(r.blueprint_id || "–") +
      "</td><td>" + esc(r.split || "–") + "</td><td>" + esc(r.kind || "–") + (r.variant ? " / " + esc(r.variant) : "") + "</td><td>" +
      esc(r.outcome || "–") + "</td><td>" + check + "</td><td>" + r.rollouts + (r.helped ? ' <span class="muted">(' + r.helped + " helped)</span>" : "") +
      "</td><td>" + r.passes + "</td><td>" + pct(r.rate) + "</td></tr>";
  }
  var rows = null;
  function objects() {
    if (rows) return rows;
    var d = window.TRAJPIPE_DATA[kind];
    rows = d.rows.map(function (a) { var o = {}; d.cols.forEach(function (c, i) { o[c] = a[i]; }); return o; });
    return rows;
  }
  function render(more) {
    var f = wanted();
    var keys = Object.keys(f);
    history.replaceState(null, "", keys.length ? "#" + keys.map(function (k) {
      return encodeURIComponent(k) + "=" + encodeURIComponent(f[k]);
    }).join("&") : location.pathname);
    if (!keys.length) { stat.hidden = false; dyn.hidden = true; match.textContent = ""; return; }
    if (!window.TRAJPIPE_DATA) {  // load data.js on first use
      match.textContent = "loading…";
      var s = document.createElement("script");
      s.src = base + "assets/data.js";
      s.onload = function () { render(false); };
      document.body.appendChild(s);
      return;
    }
    var hits = objects().filter(function (r) { return keep(r, f); });
    shown = more ? shown + pageSize : pageSize;
    var head = stat.querySelector("thead").outerHTML;
    dyn.innerHTML = '<table class="grid">' + head + "<tbody>" + hits.slice(0, shown).map(rowHtml).join("") + "</tbody></table>" +
      (hits.length > shown ? '<p><button type="button" data-more>show ' + Math.min(pageSize, hits.length - shown) + " more</button></p>" : "");
    var btn = dyn.querySelector("[data-more]");
    if (btn) btn.addEventListener("click", function () { render(true); });
    match.textContent = hits.length + " of " + objects().length + " match";
    stat.hidden = true; dyn.hidden = false;
  }
  selects.forEach(function (s) { s.addEventListener("change", function () { render(false); }); });
  root.querySelector("[data-clear]").addEventListener("click", function () {
    setTimeout(function () { selects.forEach(function (s) { s.value = ""; }); render(false); }, 0);
  });
  readHash();
  if (Object.keys(wanted()).length) render(false);
})();
