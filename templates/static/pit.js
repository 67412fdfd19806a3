// The pit board refreshes itself: every few seconds it reads /api/v1/pit and writes the new
// figures into the tiles the page already has (text only, never HTML). A table added or removed
// since the page loaded reloads the page. No inline script: the page's CSP allows only this file.
(function () {
  "use strict";
  var status = document.getElementById("pit-status");
  if (!status) { return; }
  var seconds = Number(status.getAttribute("data-refresh")) || 15;
  var source = status.getAttribute("data-source");

  function setText(root, selector, text) {
    var el = root.querySelector(selector);
    if (el && el.textContent !== text) { el.textContent = text; }
  }

  function updateTile(tile, t) {
    tile.classList.toggle("open", t.open);
    tile.classList.toggle("flagged", t.flags.length > 0);
    setText(tile, '[data-field="status"]', t.status);
    setText(tile, '[data-field="dealer"]', t.dealer || "No dealer");
    setText(tile, '[data-field="since"]', t.since ? "since " + t.since : "");
    ["shift_rounds", "shift_rounds_word", "shift_house_text", "day_rounds", "day_rounds_word",
      "day_house_text", "draft_text", "pending", "accounting_text", "win_text"]
      .forEach(function (key) { setText(tile, '[data-field="' + key + '"]', String(t[key])); });
    var list = tile.querySelector('[data-field="flags"]');
    if (list) {
      list.textContent = "";
      t.flags.forEach(function (f) {
        var li = document.createElement("li");
        li.className = "flag flag-" + f.kind;
        if (f.href) {
          var a = document.createElement("a");
          a.href = f.href;
          a.textContent = f.text;
          li.appendChild(a);
        } else {
          li.textContent = f.text;
        }
        list.appendChild(li);
      });
    }
  }

  function apply(pit) {
    var tiles = document.querySelectorAll(".tile[data-code]");
    if (tiles.length !== pit.tables.length) { window.location.reload(); return; }
    var grid = document.getElementById("pit-grid");
    for (var i = 0; i < pit.tables.length; i++) {
      var t = pit.tables[i];
      var tile = document.getElementById("pit-" + t.code);
      if (!tile) { window.location.reload(); return; }
      updateTile(tile, t);
      // In the board's order (flagged tables first): moving a tile to the end keeps it whole.
      if (grid && grid.lastElementChild !== tile) { grid.appendChild(tile); }
    }
    ["gaming_day", "open_tables", "flagged_tables", "pit_rounds", "pit_rounds_word", "pit_dealer_foul_rate",
      "updated"]
      .forEach(function (key) { setText(document, '[data-pit="' + key + '"]', String(pit[key])); });
    pit.totals.forEach(function (total) {
      setText(document, '[data-total="' + total.currency + '"]', total.day_house_text);
    });
    status.classList.remove("stale");
    status.setAttribute("data-refreshed", String(Number(status.getAttribute("data-refreshed") || 0) + 1));
  }

  function refresh() {
    fetch(source, { headers: { "Accept": "application/json" }, credentials: "same-origin" })
      .then(function (res) {
        if (res.status === 401) { window.location.assign("/login"); throw new Error("signed out"); }
        if (!res.ok) { throw new Error("HTTP " + res.status); }
        return res.json();
      })
      .then(apply)
      .catch(function () { status.classList.add("stale"); })
      .then(function () { window.setTimeout(refresh, seconds * 1000); });
  }

  window.setTimeout(refresh, seconds * 1000);
})();
