(function () {
  var table = document.getElementById("leaderboard");
  var tbody = table.tBodies[0];
  var headers = table.tHead.rows[0].cells;
  var state = { col: -1, dir: 1 };
  function key(row, col) {
    var cell = row.cells[col];
    var raw = cell ? cell.getAttribute("data-sort") : null;
    if (raw === null || raw === "") return null;
    var num = Number(raw);
    return isNaN(num) ? raw.toLowerCase() : num;
  }
  function compare(a, b, col, dir) {
    // degenerate models stay after all others, whatever the column
    var da = a.classList.contains("degenerate"), db = b.classList.contains("degenerate");
    if (da !== db) return da ? 1 : -1;
    var ka = key(a, col), kb = key(b, col);
    if (ka === null && kb === null) return 0;
    if (ka === null) return 1;   // missing values last
    if (kb === null) return -1;
    if (typeof ka !== typeof kb) { ka = String(ka); kb = String(kb); }
    return ka < kb ? -dir : ka > kb ? dir : 0;
  }
  function sortBy(col) {
    var dir = state.col === col ? -state.dir : 1;
    state = { col: col, dir: dir };
    var rows = Array.prototype.slice.call(tbody.rows);
    rows.sort(function (a, b) { return compare(a, b, col, dir); });
    rows.forEach(function (r) { tbody.appendChild(r); });
    for (var i = 0; i < headers.length; i++) {
      headers[i].classList.remove("sorted-asc", "sorted-desc");
    }
    headers[col].classList.add(dir === 1 ? "sorted-asc" : "sorted-desc");
    table.setAttribute("data-sorted-by", col + ":" + (dir === 1 ? "asc" : "desc"));
  }
  for (var i = 0; i < headers.length; i++) {
    headers[i].addEventListener("click", (function (c) {
      return function () { sortBy(c); };
    })(i));
  }
  // #sort=<column index> (or #sort=-<index> for descending) sorts on load, exactly as clicks
  var m = /^#sort=(-?)(\d+)$/.exec(window.location.hash);
  if (m && +m[2] < headers.length) {
    headers[+m[2]].click();
    if (m[1] === "-") headers[+m[2]].click();
  }
})();
