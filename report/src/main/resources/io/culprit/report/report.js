// Draws the charts and flame graphs from the JSON embedded in the page. No fetches: the page's
// Content-Security-Policy forbids them, and everything needed is inline.
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('culprit-data').textContent);
  var PALETTE = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#4b5563'];
  var charts = [];
  var hoverX = null;

  // A vertical cursor drawn at the same second on every chart: the axis is shared, so a GC
  // spike and the P99 it causes line up under the pointer.
  var cursor = {
    id: 'culpritCursor',
    afterDatasetsDraw: function (chart) {
      if (hoverX === null) return;
      var x = chart.scales.x.getPixelForValue(hoverX), a = chart.chartArea;
      if (x < a.left || x > a.right) return;
      var ctx = chart.ctx;
      ctx.save(); ctx.strokeStyle = '#0008'; ctx.lineWidth = 1;
      ctx.beginPath(); ctx.moveTo(x, a.top); ctx.lineTo(x, a.bottom); ctx.stroke(); ctx.restore();
    }
  };

  function drawCharts() {
    if (typeof Chart === 'undefined') return;
    (data.charts || []).forEach(function (c) {
      var canvas = document.querySelector('canvas[data-chart="' + c.id.replace(/[^A-Za-z0-9_-]/g, '-') + '"]');
      if (!canvas) return;
      var datasets = c.lines.map(function (l, i) {
        return {
          label: l.label, culpritRef: l.ref, borderColor: PALETTE[i % PALETTE.length],
          backgroundColor: PALETTE[i % PALETTE.length], borderWidth: 1.5, pointRadius: l.x.length > 120 ? 0 : 2,
          spanGaps: false, data: l.x.map(function (x, j) { return {x: x, y: l.y[j]}; })
        };
      });
      var chart = new Chart(canvas, {
        type: 'line', data: {datasets: datasets}, plugins: [cursor],
        options: {
          animation: false, responsive: true, maintainAspectRatio: false, normalized: true,
          interaction: {mode: 'nearest', axis: 'x', intersect: false},
          scales: {
            x: {type: 'linear', min: 0, max: c.xMax, title: {display: true, text: 'seconds since start'}},
            y: {beginAtZero: true, title: {display: !!c.unit, text: c.unit}}
          },
          plugins: {legend: {labels: {boxWidth: 12}}},
          onHover: function (e, els, ch) {
            var x = ch.scales.x.getValueForPixel(e.x);
            hoverX = (x >= 0 && x <= c.xMax) ? x : null;
            charts.forEach(function (o) { if (o !== ch) o.draw(); });
          }
        }
      });
      charts.push(chart);
    });
  }

  function hue(name) {
    var h = 0;
    for (var i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) | 0;
    return h;
  }

  // Warm colours for a normal graph; in a differential one red grew and blue shrank, by how much.
  function colour(node) {
    if (node.b === undefined) {
      var h = Math.abs(hue(node.n));
      return 'hsl(' + (10 + h % 45) + ',' + (70 + h % 20) + '%,' + (58 + h % 14) + '%)';
    }
    var d = (node.v - node.b) / Math.max(node.v, node.b, 1);
    if (Math.abs(d) < 0.02) return 'hsl(0,0%,88%)';   // same share before and after: neutral grey
    var l = 92 - Math.round(Math.min(1, Math.abs(d)) * 42);
    return d >= 0 ? 'hsl(0,80%,' + l + '%)' : 'hsl(220,80%,' + l + '%)';
  }

  function Flame(el, flame) {
    var box = el.querySelector('.flame-box'), input = el.querySelector('input'), matched = el.querySelector('.matched');
    var root = flame.root, zoom = root, ROW = 17, MIN = 0.002;
    // Layout width: samples, or in a differential graph the wider of before and after (w), so
    // frames the fix removed still show.
    function wd(n) { return n.w !== undefined ? n.w : n.v; }
    function share(s) { return (100 * s / root.v).toFixed(2) + '%'; }
    (function link(n, p) { n.p = p; (n.c || []).forEach(function (k) { link(k, n); }); })(root, null);
    el.culpritFlame = this;
    var self = this;

    function frame(n, depth, left, width, anc) {
      var d = document.createElement('div');
      d.className = 'fr' + (anc ? ' anc' : '');
      d.style.left = (left * 100) + '%'; d.style.width = (width * 100) + '%'; d.style.top = (depth * ROW) + 'px';
      d.style.background = colour(n);
      d.textContent = n.n;
      d.title = n.n + '\n' + (n.b === undefined ? n.v + ' samples (' + share(n.v) + ')'
          : share(n.b) + ' of samples before, ' + share(n.v) + ' after (' + n.v + ' samples)');
      d.culpritNode = n;
      d.addEventListener('click', function () { self.zoomTo(n === zoom ? (n.p || root) : n); });
      box.appendChild(d);
    }

    this.render = function () {
      box.textContent = '';
      var chain = [], a = zoom;
      while (a) { chain.unshift(a); a = a.p; }
      chain.forEach(function (n, i) { if (n !== zoom) frame(n, i, 0, 1, true); });
      var base = chain.length - 1, depth = base;
      (function walk(n, d, left) {
        var width = wd(n) / wd(zoom);
        if (width < MIN) return;
        frame(n, d, left, width, false);
        depth = Math.max(depth, d);
        var x = left;
        (n.c || []).forEach(function (k) { walk(k, d + 1, x); x += wd(k) / wd(zoom); });
      })(zoom, base, 0);
      box.style.height = ((depth + 1) * ROW + 2) + 'px';
      this.search(input.value);
    };

    this.zoomTo = function (n) { zoom = n; this.zoomed = n.n; this.render(); };

    // Matched share counts each matching subtree once (the outermost match), as flame graph tools do.
    this.search = function (q) {
      var hits = 0, total = 0;
      Array.prototype.forEach.call(box.children, function (d) {
        var on = !!q && d.culpritNode.n.indexOf(q) >= 0;
        d.classList.toggle('hit', on);
        if (on) hits++;
      });
      if (q) {
        (function walk(n, inside) {
          var on = !inside && n.n.indexOf(q) >= 0;
          if (on) total += n.v;
          (n.c || []).forEach(function (k) { walk(k, inside || on); });
        })(root, false);
        matched.textContent = hits + ' frames shown, ' + (100 * total / root.v).toFixed(1) + '% of samples';
      } else {
        matched.textContent = '';
      }
      this.hits = hits;
    };

    input.addEventListener('input', function () { self.search(input.value); });
    el.querySelector('.reset').addEventListener('click', function () { self.zoomTo(root); });
    this.zoomed = root.n;
    this.render();
  }

  function drawFlames() {
    document.querySelectorAll('.flame[data-flame]').forEach(function (el) {
      var f = (data.flames || [])[+el.getAttribute('data-flame')];
      if (f) new Flame(el, f);
    });
  }

  // An evidence link (a ref, a summary, a number) scrolls to its chart or row (the browser does that) and flashes it.
  document.addEventListener('click', function (e) {
    var a = e.target.closest && e.target.closest('a.ev, a.ev-sum, a.num');
    if (!a) return;
    var t = document.getElementById(a.getAttribute('href').slice(1));
    if (!t) return;
    t.classList.add('flash');
    setTimeout(function () { t.classList.remove('flash'); }, 1600);
  });

  drawCharts();
  drawFlames();
  // readyMs: navigation start to everything drawn, what the 2-second budget is measured on.
  window.culpritReport = {charts: charts, ready: true, readyMs: performance.now()};
})();
