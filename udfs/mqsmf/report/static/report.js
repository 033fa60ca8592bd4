// mqsmf analyst report: draws the charts (Plotly, inlined above) and makes the advisory table
// sortable and filterable. Plain browser JavaScript, no external assets.
(function () {
  "use strict";

  function drawCharts() {
    var specs = JSON.parse(document.getElementById("mqsmf-charts").textContent);
    if (typeof Plotly === "undefined") {
      specs.forEach(function (c) { document.getElementById(c.id).textContent = "Plotly did not load."; });
      return;
    }
    specs.forEach(function (c) {
      Plotly.newPlot(c.id, c.figure.data, c.figure.layout, { displaylogo: false, responsive: true });
    });
  }

  function setUpTable() {
    var table = document.getElementById("advisory-table");
    if (!table) { return; }
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var filters = Array.prototype.slice.call(table.querySelectorAll("[data-filter-col]"));
    var counter = document.getElementById("advisory-count");

    function cellValue(row, col) {
      var cell = row.cells[col];
      return cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent;
    }

    function applyFilters() {
      var shown = 0;
      rows.forEach(function (row) {
        var keep = filters.every(function (f) {
          var wanted = f.value.trim().toLowerCase();
          if (!wanted) { return true; }
          var text = row.cells[+f.getAttribute("data-filter-col")].textContent.trim().toLowerCase();
          return f.tagName === "SELECT" ? text === wanted : text.indexOf(wanted) >= 0;
        });
        row.hidden = !keep;
        if (keep) { shown += 1; }
      });
      if (counter) { counter.textContent = shown + " of " + rows.length; }
    }

    filters.forEach(function (f) {
      f.addEventListener(f.tagName === "SELECT" ? "change" : "input", applyFilters);
    });

    Array.prototype.forEach.call(table.querySelectorAll("th[data-col]"), function (th) {
      th.addEventListener("click", function () {
        var col = +th.getAttribute("data-col");
        var numeric = th.getAttribute("data-type") === "num";
        var ascending = !th.classList.contains("sorted-asc");
        Array.prototype.forEach.call(table.querySelectorAll("th[data-col]"), function (other) {
          other.classList.remove("sorted-asc", "sorted-desc");
        });
        th.classList.add(ascending ? "sorted-asc" : "sorted-desc");
        rows.sort(function (a, b) {
          var x = cellValue(a, col), y = cellValue(b, col), order;
          if (numeric) {
            x = x === "" ? -Infinity : +x;
            y = y === "" ? -Infinity : +y;
            order = x < y ? -1 : x > y ? 1 : 0;
          } else {
            order = x.localeCompare(y);
          }
          return ascending ? order : -order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
    applyFilters();
  }

  setUpTable();
  drawCharts();
})();
