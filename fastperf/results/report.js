// fastperf report: the table (sort, filter, pages) and the runs or the history of a row, drawn
// on demand.
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
  // a value as a CSS class fragment: the rule of fastperf.results.figures.css_class
  function css(s) { return String(s).toLowerCase().replace(/[^\p{L}\p{N}]/gu, "-"); }
  function flagsOf(cell) { return cell ? cell.split(", ") : []; }
  function badges(cell) {  // one badge per flag; the ", " kept in the text, hidden
    return flagsOf(cell).map(function (f) {
      return "<span class=\"fp-badge fp-flag-" + css(f) + "\">" + esc(f) + "</span>";
    }).join("<span class=\"fp-sep\">, </span>");
  }
  function cellHtml(cell, j) {
    var cls = [];
    if (t.numeric[j]) cls.push("num");
    if (j === data.category && cell !== "") cls.push("fp-cat fp-cat-" + css(cell));
    if (j === data.badges) cls.push("fp-badges");
    return "<td" + (cls.length ? " class=\"" + cls.join(" ") + "\"" : "") + ">" +
      (j === data.badges ? badges(cell) : esc(cell)) + "</td>";
  }
  // the category filter: the cell's value, or for the flags column a flag the row has
  var NOFLAG = " none";  // no flag starts with a space
  function inCategory(row) {
    var cell = row[data.category];
    if (data.category !== data.badges) return cell === state.cat;
    return state.cat === NOFLAG ? cell === "" : flagsOf(cell).indexOf(state.cat) >= 0;
  }

  function header() {
    head.innerHTML = "<tr>" + t.columns.map(function (c, i) {
      var cls = i === state.sort ? (state.dir > 0 ? "fp-sorted-asc" : "fp-sorted-desc") : "";
      return "<th data-col=\"" + i + "\" class=\"" + cls + "\" title=\"sort\">" + esc(c) + "</th>";
    }).join("") + "</tr>";
  }

  function matching() {
    var text = state.text.toLowerCase(), out = [];
    for (var i = 0; i < t.rows.length; i++) {
      if (state.cat && !inCategory(t.rows[i])) continue;
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
      return "<tr data-row=\"" + i + "\">" + t.rows[i].map(cellHtml).join("") + "</tr>";
    }).join("");
    count.textContent = rows.length ? "rows " + (start + 1) + "\u2013" + (start + shown.length) +
      " of " + rows.length + (rows.length < t.rows.length ? " matching (" + t.rows.length + " in all)" : "")
      : "no row matches (" + t.rows.length + " in all)";
    document.getElementById("fp-prev").disabled = state.page === 0;
    document.getElementById("fp-next").disabled = state.page >= pages - 1;
    header();
  }

  if (data.category >= 0) {
    var seen = {}, none = 0;
    t.rows.forEach(function (r) {
      var cell = r[data.category], keys = data.category === data.badges ? flagsOf(cell) : [cell];
      if (!keys.length) none++;
      keys.forEach(function (k) { seen[k] = (seen[k] || 0) + 1; });
    });
    select.innerHTML = "<option value=\"\">" + (data.category === data.badges ? "any flag or none" :
      "every " + esc(t.columns[data.category])) + "</option>" +
      Object.keys(seen).sort().map(function (k) {
        return "<option value=\"" + esc(k) + "\">" + esc(k) + " (" + seen[k] + ")</option>";
      }).join("") + (data.category === data.badges && none ?
        "<option value=\"" + NOFLAG + "\">no flag (" + none + ")</option>" : "");
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
  function xaxis(x, lo, hi, y) {
    return "<line x1=\"" + x(lo) + "\" x2=\"" + x(hi) + "\" y1=\"" + y + "\" y2=\"" + y + "\" stroke=\"#90a4ae\"/>" +
      "<text x=\"" + x(lo) + "\" y=\"" + (y + 13) + "\" fill=\"#607d8b\">" + fmt(lo) + "</text>" +
      "<text x=\"" + x(hi) + "\" y=\"" + (y + 13) + "\" text-anchor=\"end\" fill=\"#607d8b\">" + fmt(hi) + "</text>";
  }
  var SIDES = ["fp-baseline", "fp-candidate"];
  function sorted(v) { return v.slice().sort(function (a, b) { return a - b; }); }
  function quantile(s, p) {  // of sorted values, linear interpolation
    var h = (s.length - 1) * p, k = Math.floor(h);
    return k + 1 < s.length ? s[k] + (h - k) * (s[k + 1] - s[k]) : s[k];
  }
  // Gaussian kernel density of v at k + 1 points of [lo, hi]; Silverman's bandwidth
  // 0.9 min(sd, IQR / 1.34) n^(-1/5) (Silverman 1986, eq. 3.31)
  function density(v, lo, hi, k) {
    var s = sorted(v), n = s.length, mean = 0, ss = 0, grid = [], out = [];
    s.forEach(function (u) { mean += u / n; });
    s.forEach(function (u) { ss += (u - mean) * (u - mean); });
    var sd = n > 1 ? Math.sqrt(ss / (n - 1)) : 0, iqr = (quantile(s, 0.75) - quantile(s, 0.25)) / 1.34;
    var h = 0.9 * (iqr > 0 ? Math.min(sd, iqr) : sd) * Math.pow(n, -0.2);
    if (!(h > 0)) h = (hi - lo) / 50 || Math.abs(s[0]) * 1e-3 || 1;
    for (var j = 0; j <= k; j++) {
      var g = lo + (hi - lo) * j / k, f = 0;
      for (var i = 0; i < n; i++) { var z = (g - s[i]) / h; if (z > -6 && z < 6) f += Math.exp(-0.5 * z * z); }
      grid.push(g); out.push(f / (n * h * 2.5066282746310002));
    }
    return {x: grid, y: out};
  }
  // each side: every value a dot (the tested runs "fp-run"; warm-up values ringed, hollow when
  // the test left them out), its median, and its violin (the density outline) above the dots
  function strip(sides, names) {
    var all = [];
    sides.forEach(function (d) { all = all.concat(d.all); });
    var lo = Math.min.apply(null, all), hi = Math.max.apply(null, all);
    if (!(hi > lo)) { lo -= Math.abs(lo) * 0.01 || 0.5; hi += Math.abs(hi) * 0.01 || 0.5; }
    var x = scale(lo, hi, 110, 470), height = 40 + sides.length * 64;
    var out = svg(490, height, "runs, medians and densities");
    sides.forEach(function (d, k) {
      var top = 26 + k * 64, y = top + 40, cls = SIDES[k], m = median(d.tested);
      out += "<text x=\"104\" y=\"" + (y + 4) + "\" text-anchor=\"end\">" + esc(names[k]) + " (" + d.tested.length + ")</text>";
      if (d.tested.length) {
        var f = density(d.tested, lo, hi, 80), peak = Math.max.apply(null, f.y) || 1;
        var p = "M" + x(lo).toFixed(1) + "," + (top + 28);
        f.x.forEach(function (g, j) { p += "L" + x(g).toFixed(1) + "," + (top + 28 - f.y[j] / peak * 24).toFixed(1); });
        out += "<path class=\"fp-violin " + cls + "\" d=\"" + p + "L" + x(hi).toFixed(1) + "," + (top + 28) + "Z\"><title>kernel density of " + esc(names[k]) + "</title></path>";
      }
      d.all.forEach(function (u, i) {
        var warm = d.warm[i], kind = warm ? (data.runs.dropped ? "fp-dropped" : "fp-run fp-warmup") : "fp-run";
        out += "<circle class=\"" + kind + " " + cls + "\" cx=\"" + x(u).toFixed(1) + "\" cy=\"" + (y + ((i * 0.618034) % 1 - 0.5) * 18).toFixed(1) + "\" r=\"2.5\"><title>" + fmt(u) + (warm ? " (warm-up" + (data.runs.dropped ? ", not tested)" : ")") : "") + "</title></circle>";
      });
      if (d.tested.length) out += "<line class=\"fp-median " + cls + "\" x1=\"" + x(m) + "\" x2=\"" + x(m) + "\" y1=\"" + (top + 4) + "\" y2=\"" + (y + 12) + "\" stroke-width=\"3\"><title>median " + fmt(m) + "</title></line>";
    });
    return out + xaxis(x, lo, hi, height - 22) + "</svg>";
  }
  function ecdf(sides, names) {
    var all = [];
    sides.forEach(function (v) { all = all.concat(v); });
    var lo = Math.min.apply(null, all), hi = Math.max.apply(null, all);
    var x = scale(lo, hi, 40, 470), y = scale(0, 1, 170, 24), out = svg(490, 200, "empirical distribution functions");
    sides.forEach(function (v, k) {
      var s = sorted(v), p = "M" + x(lo) + "," + y(0);
      s.forEach(function (u, i) { p += "H" + x(u).toFixed(1) + "V" + y((i + 1) / s.length).toFixed(1); });
      out += "<path class=\"fp-ecdf " + SIDES[k] + "\" d=\"" + p + "H" + x(hi) + "\" fill=\"none\" stroke-width=\"1.5\"/>";
      out += "<text x=\"" + (50 + 150 * k) + "\" y=\"34\" class=\"" + SIDES[k] + "\" stroke=\"none\">" + esc(names[k]) + "</text>";
    });
    return out + xaxis(x, lo, hi, 172) + "</svg>";
  }
  // one side's iteration traces: a polyline per process (iteration -> value; the rows' shared
  // value axis, logarithmic when every value is > 0), the first `warm` iterations of each
  // process shaded and their points marked
  function traces(d, name, cls, lo, hi, log) {
    var longest = Math.max.apply(null, d.lens.concat([1])), many = d.lens.length > 1;
    var f = log ? Math.log : function (v) { return v; };
    var x = scale(0, Math.max(longest - 1, 1), 58, 470), y = scale(f(lo), f(hi), 172, 26);
    var out = svg(490, 210, (many ? "iteration traces: " : "runs in order: ") + name + " (" +
      (many ? d.lens.length + " processes" : d.all.length + " runs") + ")");
    if (d.w > 0) {
      var x0 = x(-0.5), x1 = x(Math.min(d.w, longest) - 0.5);
      out += "<rect class=\"fp-warmup-zone\" x=\"" + Math.max(x0, 50).toFixed(1) + "\" y=\"24\" width=\"" + Math.max(x1 - Math.max(x0, 50), 1).toFixed(1) + "\" height=\"150\"><title>warm-up: the first " + d.w + " iteration" + (d.w > 1 ? "s" : "") + (many ? " of each process" : "") + (data.runs.dropped ? " (left out of the test)" : "") + "</title></rect>";
      out += "<text class=\"fp-warmup-label\" x=\"" + (Math.max(x0, 50) + 3).toFixed(1) + "\" y=\"170\">warm-up</text>";
    }
    var opacity = Math.max(0.2, Math.min(0.9, 4 / d.lens.length)).toFixed(2), start = 0;
    d.lens.forEach(function (n, p) {
      var pts = [], marks = "";
      for (var j = 0; j < n; j++) {
        var v = d.raw[start + j];  // each value at its iteration
        if (v === null || !isFinite(v)) continue;
        var px = x(j).toFixed(1), py = y(f(v)).toFixed(1);
        pts.push(px + "," + py);
        if (j < d.w) marks += "<circle class=\"fp-warmup-point " + cls + "\" cx=\"" + px + "\" cy=\"" + py + "\" r=\"2.2\"/>";
      }
      out += "<polyline class=\"fp-trace " + cls + "\" data-process=\"" + p + "\" points=\"" + pts.join(" ") + "\" fill=\"none\" stroke-opacity=\"" + opacity + "\"><title>" + (many ? "process " + (p + 1) : "runs") + "</title></polyline>" + marks;
      start += n;
    });
    out += "<line x1=\"58\" x2=\"470\" y1=\"176\" y2=\"176\" stroke=\"#90a4ae\"/>" +
      "<text x=\"58\" y=\"189\" fill=\"#607d8b\">" + (many ? "iteration 1" : "run 1") + "</text>" +
      "<text x=\"470\" y=\"189\" text-anchor=\"end\" fill=\"#607d8b\">" + longest + "</text>" +
      "<text x=\"54\" y=\"30\" text-anchor=\"end\" fill=\"#607d8b\">" + fmt(hi) + "</text>" +
      "<text x=\"54\" y=\"174\" text-anchor=\"end\" fill=\"#607d8b\">" + fmt(lo) + "</text>" +
      "<text x=\"264\" y=\"204\" text-anchor=\"middle\" fill=\"#607d8b\">value" + (log ? " (log scale)" : "") + " by " + (many ? "iteration, one line per process" : "run") + "</text>";
    return out + "</svg>";
  }
  function qq(v, name, cls) {
    var s = v.slice().sort(function (a, b) { return a - b; }), n = s.length;
    var z = s.map(function (_, i) { return probit((i + 0.5) / n); });
    var x = scale(z[0] || -1, z[n - 1] || 1, 40, 230), y = scale(s[0], s[n - 1], 170, 24);
    var out = svg(240, 195, "normal Q-Q: " + name);
    s.forEach(function (u, i) { out += "<circle class=\"fp-qq " + cls + "\" cx=\"" + x(z[i]).toFixed(1) + "\" cy=\"" + y(u).toFixed(1) + "\" r=\"2.5\"/>"; });
    return out + "<text x=\"40\" y=\"188\" fill=\"#607d8b\">normal quantiles</text></svg>";
  }
  // one side of row i: every value (measurement order with traces), which are warm-up, the
  // tested values, the process lengths and the warm-up iterations
  function side(r, k) {
    var all = r[k].map(function (v) { return v === null ? NaN : v; }), warm = all.map(function () { return false; });
    var lens = [], w = 0;
    if (data.runs.traces) {
      lens = r[2 + k].slice(); w = r[4 + k];
      var used = lens.reduce(function (a, b) { return a + b; }, 0);
      if (used < all.length) lens.push(all.length - used);
      var start = 0;
      lens.forEach(function (n) { for (var j = 0; j < Math.min(w, n); j++) warm[start + j] = true; start += n; });
    }
    var kept = [], keptWarm = [], tested = [];
    all.forEach(function (v, i) {
      if (!isFinite(v)) return;
      kept.push(v); keptWarm.push(warm[i]);
      if (!(warm[i] && data.runs.dropped)) tested.push(v);
    });
    return {all: kept, warm: keptWarm, tested: tested, raw: all, lens: lens, w: w};
  }
  // ---- the history of one series (fastperf.changepoints), drawn on demand ----
  // data.histories: "orders", the distinct order values as text; per row [points, runs of
  // consecutive orders (first, count, ...), segments [start, end, drift, median, low, high,
  // fit_start, fit_end], changes [drift, position, end_position, direction, label]]
  var H = data.histories;
  function niceStep(span, n) {
    var raw = span / n, p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
    return p * (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10);
  }
  function historyOrders(r) {
    var out = [];
    for (var k = 0; k < r[1].length; k += 2) {
      for (var j = 0; j < r[1][k + 1]; j++) out.push(H.orders[r[1][k] + j]);
    }
    return out;
  }
  function historyChart(i, w, h) {
    var r = H.rows[i], v = r[0], n = v.length, segs = r[2], chg = r[3], orders = historyOrders(r);
    var ys = [];
    v.forEach(function (u) { if (u !== null) ys.push(u); });
    segs.forEach(function (s) {
      (s[2] ? [s[6], s[7]] : [s[3], s[4], s[5]]).forEach(function (u) { if (u !== null) ys.push(u); });
    });
    var out = "<svg class=\"fp-history\" data-row=\"" + i + "\" xmlns=\"" + NS + "\" width=\"" + w + "\" height=\"" + h + "\" viewBox=\"0 0 " + w + " " + h + "\">" +
      "<text class=\"fp-history-title\" x=\"4\" y=\"14\">" + esc(data.labels[i]) + " (" + n + " points, " + chg.length + " change" + (chg.length === 1 ? "" : "s") + ")</text>";
    if (!ys.length) return out + "<text x=\"4\" y=\"40\" fill=\"#607d8b\">no points to draw</text></svg>";
    var log = ys.every(function (u) { return u > 0; }), f = log ? Math.log : function (u) { return u; };
    var lo = Infinity, hi = -Infinity;
    ys.forEach(function (u) { var g = f(u); if (g < lo) lo = g; if (g > hi) hi = g; });
    var pad = (hi - lo) * 0.06 || Math.abs(lo) * 0.01 || 0.5;
    var L = 66, R = w - 12, T = 50, B = h - 36;
    var x = scale(-0.5, Math.max(n, 1) - 0.5, L, R), yv = scale(lo - pad, hi + pad, B, T);
    var y = function (u) { return yv(f(u)); };
    // y ticks: round values of the data scale, placed on the axis' scale
    var a = log ? Math.exp(lo - pad) : lo - pad, b = log ? Math.exp(hi + pad) : hi + pad;
    var ticks = [];
    if (log && b / a > 10) {  // over decades: 1, 2, 5 times powers of ten (or the powers alone)
      for (var e = Math.floor(Math.log10(a)); e <= Math.ceil(Math.log10(b)); e++) {
        [1, 2, 5].forEach(function (m) { var u = m * Math.pow(10, e); if (u >= a && u <= b) ticks.push(u); });
      }
      if (ticks.length > 8) ticks = ticks.filter(function (u) { return Math.abs(Math.log10(u) % 1) < 1e-9; });
    } else {
      var step = niceStep(b - a, 4);
      for (var u = Math.ceil(a / step) * step; u <= b; u += step) ticks.push(u);
    }
    ticks.forEach(function (t) {
      var py = y(t).toFixed(1);
      out += "<line class=\"fp-grid\" x1=\"" + L + "\" x2=\"" + R + "\" y1=\"" + py + "\" y2=\"" + py + "\"/>" +
        "<text class=\"fp-tick\" x=\"" + (L - 4) + "\" y=\"" + (+py + 4) + "\" text-anchor=\"end\">" + fmt(t) + "</text>";
    });
    // x ticks: point indices, labelled with their order values
    var longest = Math.max(4, String(orders[0] || "").length, String(orders[n - 1] || "").length);
    var room = Math.max(2, Math.min(8, Math.floor((R - L) / (Math.min(longest, 24) * 6.2 + 18))));
    var every = n > 1 ? Math.max(1, Math.ceil(niceStep(n - 1, room - 1))) : 1;
    for (var j = 0; j < n; j += every) {
      var px = x(j).toFixed(1), label = String(orders[j]);
      out += "<line class=\"fp-axis\" x1=\"" + px + "\" x2=\"" + px + "\" y1=\"" + B + "\" y2=\"" + (B + 4) + "\"/>" +
        "<text class=\"fp-tick fp-order-tick\" x=\"" + px + "\" y=\"" + (B + 15) + "\" text-anchor=\"middle\">" + esc(label.length > 24 ? label.slice(0, 23) + "\u2026" : label) + "</text>";
    }
    out += "<line class=\"fp-axis\" x1=\"" + L + "\" x2=\"" + R + "\" y1=\"" + B + "\" y2=\"" + B + "\"/>" +
      "<text class=\"fp-axis-label\" x=\"" + ((L + R) / 2) + "\" y=\"" + (h - 6) + "\" text-anchor=\"middle\">point (order value); value" + (log ? " (log scale)" : "") + "; dots: points, lines: segments' medians, bands: their intervals</text>";
    // drifts: a shaded range of points, labelled
    var labels = "", lane = 0;
    chg.forEach(function (c) {
      var dir = css(c[3]), x0 = x(c[1] - 0.5), x1 = x(c[2] + 0.5), where;
      var ly = (T - 18 + 11 * (lane++ % 2)).toFixed(1);
      if (c[0]) {
        where = "drift from " + orders[c[1]] + " to " + orders[c[2]];
        out += "<rect class=\"fp-drift-zone fp-cat-" + dir + "\" x=\"" + x0.toFixed(1) + "\" y=\"" + T + "\" width=\"" + Math.max(x1 - x0, 1).toFixed(1) + "\" height=\"" + (B - T) + "\"><title>" + esc(where + ": " + c[4] + " (" + c[3] + ")") + "</title></rect>";
        labels += "<text class=\"fp-change-label fp-cat-" + dir + "\" x=\"" + ((x0 + x1) / 2).toFixed(1) + "\" y=\"" + ly + "\" text-anchor=\"middle\">" + esc(c[4]) + "</text>";
      } else {
        var sx = x(c[1] - 0.5), right = sx > R - 90;
        where = "step at " + orders[c[1]];
        labels += "<line class=\"fp-step fp-cat-" + dir + "\" x1=\"" + sx.toFixed(1) + "\" x2=\"" + sx.toFixed(1) + "\" y1=\"" + (T - 6) + "\" y2=\"" + B + "\"><title>" + esc(where + ": " + c[4] + " (" + c[3] + ")") + "</title></line>" +
          "<text class=\"fp-change-label fp-cat-" + dir + "\" x=\"" + (sx + (right ? -3 : 3)).toFixed(1) + "\" y=\"" + ly + "\"" + (right ? " text-anchor=\"end\"" : "") + ">" + esc(c[4]) + "</text>";
      }
    });
    // segments: a level's median interval as a band and its median as a line; a drift's fit
    segs.forEach(function (s, k) {
      var x0 = x(s[0] - 0.5), x1 = x(s[1] - 0.5);
      if (s[2]) {
        out += "<line class=\"fp-segment fp-drift-fit\" x1=\"" + x(s[0]).toFixed(1) + "\" x2=\"" + x(s[1] - 1).toFixed(1) + "\" y1=\"" + y(s[6]).toFixed(1) + "\" y2=\"" + y(s[7]).toFixed(1) + "\"><title>segment " + (k + 1) + ", a drift: from " + fmt(s[6]) + " to " + fmt(s[7]) + "</title></line>";
        return;
      }
      if (s[4] !== null && s[5] !== null) {
        out += "<rect class=\"fp-segment-band\" x=\"" + x0.toFixed(1) + "\" y=\"" + y(s[5]).toFixed(1) + "\" width=\"" + Math.max(x1 - x0, 1).toFixed(1) + "\" height=\"" + Math.max(y(s[4]) - y(s[5]), 1).toFixed(1) + "\"/>";
      }
      out += "<line class=\"fp-segment fp-level\" x1=\"" + x0.toFixed(1) + "\" x2=\"" + x1.toFixed(1) + "\" y1=\"" + y(s[3]).toFixed(1) + "\" y2=\"" + y(s[3]).toFixed(1) + "\"><title>segment " + (k + 1) + ": median " + fmt(s[3]) + (s[4] !== null && s[5] !== null ? " [" + fmt(s[4]) + ", " + fmt(s[5]) + "]" : " (too few runs for an interval)") + "</title></line>";
    });
    v.forEach(function (u, j) {
      if (u === null) return;
      out += "<circle class=\"fp-history-point\" cx=\"" + x(j).toFixed(1) + "\" cy=\"" + y(u).toFixed(1) + "\" r=\"2\"><title>" + esc(orders[j]) + ": " + fmt(u) + "</title></circle>";
    });
    return out + labels + "</svg>";
  }
  function historyChanges(i) {  // the changes of row i as a line of text
    var r = H.rows[i], orders = historyOrders(r);
    if (!r[3].length) return "<p class=\"fp-note\">No change found.</p>";
    return "<p class=\"fp-note fp-history-changes\">" + r[3].map(function (c) {
      return esc((c[0] ? "drift " + orders[c[1]] + " to " + orders[c[2]] + ": " + c[4].replace(/^drift /, "") : "step at " + orders[c[1]] + ": " + c[4]) + " (" + c[3] + ")");
    }).join("; ") + "</p>";
  }
  if (H && H.top.length) {
    var box = document.getElementById("fp-history-top");
    box.innerHTML = H.top.map(function (i) { return historyChart(i, 1000, 220); }).join("");
    Array.prototype.forEach.call(box.querySelectorAll("svg.fp-history"), function (g) {
      g.addEventListener("click", function () { showRuns(+g.getAttribute("data-row")); });
    });
  }

  function showRuns(i) {
    var panel = document.getElementById("fp-runs");
    var html = "<h2>" + esc(data.labels[i]) + "</h2>";
    if (H) {
      html += historyChart(i, 1000, 300) + historyChanges(i);
    } else if (!data.runs) {
      html += "<p class=\"fp-note\">This result keeps no runs; row " + (i + 1) + " of the table.</p>";
    } else {
      var r = data.runs.rows[i], two = data.runs.candidate !== "";
      var names = two ? [data.runs.baseline, data.runs.candidate] : [data.runs.baseline];
      var sides = names.map(function (_, k) { return side(r, k); });
      if (!sides.some(function (d) { return d.all.length; })) {
        html += "<p class=\"fp-note\">No runs" + (two ? " on either side" : "") + ".</p>";
      } else {
        if (data.runs.plots.indexOf("strip") >= 0) html += strip(sides, names);
        if (data.runs.plots.indexOf("ecdf") >= 0) html += ecdf(sides.map(function (d) { return d.tested; }), names);
        if (data.runs.plots.indexOf("qq") >= 0) {
          sides.forEach(function (d, k) { if (d.tested.length > 1) html += qq(d.tested, names[k], SIDES[k]); });
        }
        if (data.runs.traces) {
          var every = [];
          sides.forEach(function (d) { every = every.concat(d.all); });
          var lo = Math.min.apply(null, every), hi = Math.max.apply(null, every), log = lo > 0;
          if (!(hi > lo)) { lo = lo > 0 ? lo * 0.99 : lo - 0.5; hi = hi > 0 ? hi * 1.01 : hi + 0.5; }
          html += "<div class=\"fp-traces\">";
          sides.forEach(function (d, k) {
            if (d.all.length) html += traces(d, names[k], SIDES[k], lo, hi, log);
          });
          html += "</div>";
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
