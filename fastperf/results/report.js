// fastperf report: the table (sort, filter, pages) and the runs of a row, drawn on demand.
(function () {
  "use strict";
  // the data: JSON, or (large reports) gzip-compressed JSON in base64
  var source = document.getElementById("fp-data");
  if (source.getAttribute("data-encoding") !== "gzip-base64") {
    main(JSON.parse(source.textContent));
    return;
  }
  var bin = atob(source.textContent.trim()), bytes = new Uint8Array(bin.length);
  for (var k = 0; k < bin.length; k++) bytes[k] = bin.charCodeAt(k);
  new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip")))
    .text().then(function (text) { main(JSON.parse(text)); });
})();

function main(data) {
  "use strict";
  var t = data.table, PAGE = 200, NS = "http://www.w3.org/2000/svg";
  var state = {sort: -1, dir: 1, text: "", cat: "", page: 0};
  var haystack = t.rows.map(function (r) { return r.join("\u0001").toLowerCase(); });
  var head = document.querySelector("#fp-table thead"), body = document.querySelector("#fp-table tbody");
  var filter = document.getElementById("fp-filter"), select = document.getElementById("fp-category");
  var count = document.getElementById("fp-count");

  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) {
      return {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;"}[c];
    });
  }
  function num(s) { var v = parseFloat(s); return isNaN(v) ? (s === "nan" ? NaN : null) : v; }

  function header() {
    head.innerHTML = "<tr>" + t.columns.map(function (c, i) {
      var cls = i === state.sort ? (state.dir > 0 ? "fp-sorted-asc" : "fp-sorted-desc") : "";
      return "<th data-col=\"" + i + "\" class=\"" + cls + "\" title=\"sort\">" + esc(c) + "</th>";
    }).join("") + "</tr>";
  }

  function matching() {
    var text = state.text.toLowerCase(), out = [];
    for (var i = 0; i < t.rows.length; i++) {
      if (state.cat && t.rows[i][data.category] !== state.cat) continue;
      if (text && haystack[i].indexOf(text) < 0) continue;
      out.push(i);
    }
    if (state.sort >= 0) {
      var c = state.sort, numeric = t.numeric[c], d = state.dir;
      out.sort(function (a, b) {
        var x = t.rows[a][c], y = t.rows[b][c];
        if (numeric) {
          x = num(x); y = num(y);
          if (x === null || isNaN(x)) return (y === null || isNaN(y)) ? a - b : 1;
          if (y === null || isNaN(y)) return -1;
          return x === y ? a - b : (x < y ? -d : d);
        }
        return x === y ? a - b : (x < y ? -d : d);
      });
    }
    return out;
  }

  function render() {
    var rows = matching(), pages = Math.max(1, Math.ceil(rows.length / PAGE));
    state.page = Math.min(state.page, pages - 1);
    var start = state.page * PAGE, shown = rows.slice(start, start + PAGE);
    body.innerHTML = shown.map(function (i) {
      return "<tr data-row=\"" + i + "\">" + t.rows[i].map(function (cell, j) {
        return "<td" + (t.numeric[j] ? " class=\"num\"" : "") + ">" + esc(cell) + "</td>";
      }).join("") + "</tr>";
    }).join("");
    count.textContent = rows.length ? "rows " + (start + 1) + "\u2013" + (start + shown.length) +
      " of " + rows.length + (rows.length < t.rows.length ? " matching (" + t.rows.length + " in all)" : "")
      : "no row matches (" + t.rows.length + " in all)";
    document.getElementById("fp-prev").disabled = state.page === 0;
    document.getElementById("fp-next").disabled = state.page >= pages - 1;
    header();
  }

  if (data.category >= 0) {
    var seen = {};
    t.rows.forEach(function (r) { seen[r[data.category]] = (seen[r[data.category]] || 0) + 1; });
    select.innerHTML = "<option value=\"\">every " + esc(t.columns[data.category]) + "</option>" +
      Object.keys(seen).sort().map(function (k) {
        return "<option value=\"" + esc(k) + "\">" + esc(k) + " (" + seen[k] + ")</option>";
      }).join("");
  } else {
    select.hidden = true;
  }
  filter.addEventListener("input", function () { state.text = filter.value; state.page = 0; render(); });
  select.addEventListener("change", function () { state.cat = select.value; state.page = 0; render(); });
  document.getElementById("fp-prev").addEventListener("click", function () { state.page--; render(); });
  document.getElementById("fp-next").addEventListener("click", function () { state.page++; render(); });
  head.addEventListener("click", function (e) {
    var th = e.target.closest("th"); if (!th) return;
    var c = +th.getAttribute("data-col");
    state.dir = state.sort === c ? -state.dir : 1; state.sort = c; render();
  });
  body.addEventListener("click", function (e) {
    var tr = e.target.closest("tr"); if (tr) showRuns(+tr.getAttribute("data-row"));
  });
  Array.prototype.forEach.call(document.querySelectorAll(".fp-interval,.fp-share"), function (g) {
    g.addEventListener("click", function () { showRuns(+g.getAttribute("data-row")); });
  });

  // ---- the runs of one row, on demand ----
  function svg(w, h, title) {
    var s = "<svg xmlns=\"" + NS + "\" width=\"" + w + "\" height=\"" + h + "\" viewBox=\"0 0 " + w + " " + h + "\">";
    return s + "<text x=\"4\" y=\"14\" font-weight=\"600\">" + esc(title) + "</text>";
  }
  function scale(lo, hi, a, b) {
    if (!(hi > lo)) { lo -= 0.5; hi += 0.5; }
    return function (v) { return a + (v - lo) / (hi - lo) * (b - a); };
  }
  function fmt(v) { return Number(v).toPrecision(4).replace(/\.?0+(e|$)/, "$1"); }
  function median(a) {
    var s = a.slice().sort(function (x, y) { return x - y; }), n = s.length;
    return n ? (n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) : NaN;
  }
  function probit(p) {  // Acklam's rational approximation of the normal quantile
    var a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.3577518672690, -30.66479806614716, 2.506628277459239],
        b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572],
        c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783],
        d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416], q, r;
    if (p < 0.02425) { q = Math.sqrt(-2 * Math.log(p)); return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1); }
    if (p > 0.97575) return -probit(1 - p);
    q = p - 0.5; r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  function clean(a) { return a.filter(function (v) { return v !== null && isFinite(v); }); }
  function xaxis(x, lo, hi, y) {
    return "<line x1=\"" + x(lo) + "\" x2=\"" + x(hi) + "\" y1=\"" + y + "\" y2=\"" + y + "\" stroke=\"#90a4ae\"/>" +
      "<text x=\"" + x(lo) + "\" y=\"" + (y + 13) + "\" fill=\"#607d8b\">" + fmt(lo) + "</text>" +
      "<text x=\"" + x(hi) + "\" y=\"" + (y + 13) + "\" text-anchor=\"end\" fill=\"#607d8b\">" + fmt(hi) + "</text>";
  }
  function strip(xs, ys, names) {
    var all = xs.concat(ys), lo = Math.min.apply(null, all), hi = Math.max.apply(null, all);
    var x = scale(lo, hi, 110, 470), out = svg(490, 130, "runs and medians");
    [xs, ys].forEach(function (v, k) {
      var y = 45 + k * 40, cls = k ? "fp-candidate" : "fp-baseline", m = median(v);
      out += "<text x=\"104\" y=\"" + (y + 4) + "\" text-anchor=\"end\">" + esc(names[k]) + " (" + v.length + ")</text>";
      v.forEach(function (u, i) {
        out += "<circle class=\"fp-run " + cls + "\" cx=\"" + x(u).toFixed(1) + "\" cy=\"" + (y + ((i * 0.618034) % 1 - 0.5) * 18).toFixed(1) + "\" r=\"2.5\" fill-opacity=\"0.6\"><title>" + fmt(u) + "</title></circle>";
      });
      if (v.length) out += "<line class=\"" + cls + "\" x1=\"" + x(m) + "\" x2=\"" + x(m) + "\" y1=\"" + (y - 14) + "\" y2=\"" + (y + 14) + "\" stroke-width=\"3\"><title>median " + fmt(m) + "</title></line>";
    });
    return out + xaxis(x, lo, hi, 108) + "</svg>";
  }
  function ecdf(xs, ys, names) {
    var all = xs.concat(ys), lo = Math.min.apply(null, all), hi = Math.max.apply(null, all);
    var x = scale(lo, hi, 40, 470), y = scale(0, 1, 170, 24), out = svg(490, 200, "empirical distribution functions");
    [xs, ys].forEach(function (v, k) {
      var s = v.slice().sort(function (a, b) { return a - b; }), p = "M" + x(lo) + "," + y(0);
      s.forEach(function (u, i) { p += "H" + x(u).toFixed(1) + "V" + y((i + 1) / s.length).toFixed(1); });
      out += "<path class=\"fp-ecdf " + (k ? "fp-candidate" : "fp-baseline") + "\" d=\"" + p + "H" + x(hi) + "\" fill=\"none\" stroke-width=\"1.5\"/>";
      out += "<text x=\"" + (50 + 150 * k) + "\" y=\"34\" class=\"" + (k ? "fp-candidate" : "fp-baseline") + "\" stroke=\"none\">" + esc(names[k]) + "</text>";
    });
    return out + xaxis(x, lo, hi, 172) + "</svg>";
  }
  function qq(v, name, cls) {
    var s = v.slice().sort(function (a, b) { return a - b; }), n = s.length;
    var z = s.map(function (_, i) { return probit((i + 0.5) / n); });
    var x = scale(z[0] || -1, z[n - 1] || 1, 40, 230), y = scale(s[0], s[n - 1], 170, 24);
    var out = svg(240, 195, "normal Q-Q: " + name);
    s.forEach(function (u, i) { out += "<circle class=\"fp-qq " + cls + "\" cx=\"" + x(z[i]).toFixed(1) + "\" cy=\"" + y(u).toFixed(1) + "\" r=\"2.5\"/>"; });
    return out + "<text x=\"40\" y=\"188\" fill=\"#607d8b\">normal quantiles</text></svg>";
  }
  function showRuns(i) {
    var panel = document.getElementById("fp-runs");
    var html = "<h2>" + esc(data.labels[i]) + "</h2>";
    if (!data.runs) {
      html += "<p class=\"fp-note\">This result keeps no runs; row " + (i + 1) + " of the table.</p>";
    } else {
      var r = data.runs.rows[i], xs = clean(r[0]), ys = clean(r[1]);
      var names = [data.runs.baseline, data.runs.candidate];
      if (!xs.length && !ys.length) {
        html += "<p class=\"fp-note\">No runs on either side.</p>";
      } else {
        if (data.runs.plots.indexOf("strip") >= 0) html += strip(xs, ys, names);
        if (data.runs.plots.indexOf("ecdf") >= 0) html += ecdf(xs, ys, names);
        if (data.runs.plots.indexOf("qq") >= 0) {
          if (xs.length > 1) html += qq(xs, names[0], "fp-baseline");
          if (ys.length > 1) html += qq(ys, names[1], "fp-candidate");
        }
      }
    }
    panel.innerHTML = html + "<p><button type=\"button\" id=\"fp-close\">close</button></p>";
    panel.hidden = false;
    panel.setAttribute("data-row", String(i));
    document.getElementById("fp-close").addEventListener("click", function () { panel.hidden = true; });
    panel.scrollIntoView({block: "nearest"});
  }
  render();
  document.body.setAttribute("data-ready", "1");
}
