/* report.js - the page of `latscope report` (latscope's own code, no library). Reads the JSON
 * document embedded in #report-data and draws every page: trace pages (breakdowns, tables,
 * findings, the canvas timeline with level-of-detail bins), bench pages and HDR log pages.
 * Text from inputs is only ever set through textContent/attributes, never parsed as HTML. */
'use strict';
(function () {
var errors = [];
window.addEventListener('error', function (e) {
  errors.push(String(e.message || e));
  var sc = document.getElementById('selfcheck');
  if (sc) sc.textContent = 'script error: ' + errors.join('; ');
  document.body.setAttribute('data-status', 'error');
});

var SVGNS = 'http://www.w3.org/2000/svg';
var TL_MAX_ROWS = 64; /* rows of a timeline lane (nesting depth 0..63); the lane scrolls */
function el(tag, attrs, kids) {
  var e = document.createElement(tag);
  setAttrs(e, attrs);
  addKids(e, kids);
  return e;
}
function sv(tag, attrs, kids) {
  var e = document.createElementNS(SVGNS, tag);
  setAttrs(e, attrs);
  addKids(e, kids);
  return e;
}
function setAttrs(e, attrs) {
  if (!attrs) return;
  for (var k in attrs) {
    if (!Object.prototype.hasOwnProperty.call(attrs, k) || attrs[k] == null) continue;
    if (k === 'text' && attrs['class'] === 'name' && String(attrs[k]).length > NAME_SHOW) {
      e.textContent = shortName(attrs[k]); /* a name cell: the whole name on hover */
      if (attrs.title == null) e.setAttribute('title', String(attrs[k]));
    } else if (k === 'text') e.textContent = String(attrs[k]);
    else if (k === 'onclick') e.addEventListener('click', attrs[k]);
    else if (k === 'style') e.style.cssText = String(attrs[k]); /* CSSOM: the CSP blocks style="" */
    else e.setAttribute(k, String(attrs[k]));
  }
}
function addKids(e, kids) {
  if (kids == null) return;
  if (!Array.isArray(kids)) kids = [kids];
  kids.forEach(function (c) {
    if (c == null) return;
    e.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  });
}

/* ---- formatting ---- */
function fmtNum(v, d) {
  if (v == null || typeof v !== 'number' || !isFinite(v)) return '–';
  if (d == null && Number.isInteger(v)) d = 0;
  if (d == null) d = Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2;
  return v.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
}
function fmtUs(us) {
  if (us == null || !isFinite(us)) return '–';
  var a = Math.abs(us);
  if (a >= 1e6) return fmtNum(us / 1e6, 3) + ' s';
  if (a >= 1e3) return fmtNum(us / 1e3, 3) + ' ms';
  return fmtNum(us, a >= 100 ? 1 : 3) + ' µs';
}
function fmtMs(ms) { return ms == null ? '–' : fmtUs(ms * 1000); }
function fmtBytes(b) {
  if (b == null) return '–';
  var u = ['B', 'KB', 'MB', 'GB', 'TB'], i = 0;
  while (Math.abs(b) >= 1000 && i < u.length - 1) { b /= 1000; i++; }
  return fmtNum(b, i ? 1 : 0) + ' ' + u[i];
}
/* A value of an analyze field (its unit from the exported field table). */
function fmtField(f, v) {
  if (v == null) return '–';
  switch (f.unit) {
  case 'ns': return fmtUs(v);
  case 'pct': return /_ratio$/.test(f.key) ? fmtNum(100 * v, 2) + ' %' : fmtNum(v, 2) + ' %';
  case 'bytes': return fmtBytes(v);
  case 'count': case 'i64': case 'i32': return typeof v === 'number' ? fmtNum(v, 0) : String(v);
  case 'bool': return v ? 'yes' : 'no';
  case 'f3': case 'f6': return fmtNum(v, 3);
  default: return String(v);
  }
}
function isNumUnit(u) { return u !== 'str' && u !== 'ktype' && u !== 'bool'; }

/* ---- generic pieces ---- */
/* Names are shown up to NAME_SHOW characters and an ellipsis; the whole name, as embedded (at
 * most 4096 bytes: longer ones were cut by the writer, docs/latscope-report.md), is the cell's
 * title (hover) and the timeline's selection text (copy). */
var NAME_SHOW = 256;
function shortName(s) { s = s == null ? '' : String(s); return s.length > NAME_SHOW ? s.slice(0, NAME_SHOW) + '\u2026' : s; }
function longTitle(s) { s = s == null ? '' : String(s); return s.length > NAME_SHOW ? s : null; }
function card(title, kids) { return el('div', { 'class': 'card' }, [title ? el('h2', { text: title }) : null].concat(kids)); }
function kpi(label, value, key) { return el('div', { 'class': 'kpi', 'data-key': key }, [el('b', { text: value }), el('span', { text: label })]); }
function fieldTable(rows, fields, keys, onName) {
  if (!rows || !rows.length) return el('p', { 'class': 'mut', text: 'none' });
  var fs = keys ? keys.map(function (k) { return fields.filter(function (f) { return f.key === k; })[0]; }).filter(Boolean) : fields;
  var head = el('tr', null, fs.map(function (f) { return el('th', { 'class': isNumUnit(f.unit) ? 'num' : null, text: f.label }); }));
  var body = rows.map(function (r) {
    return el('tr', null, fs.map(function (f) {
      var num = isNumUnit(f.unit);
      if (onName && (f.key === 'name' || f.key === 'kernel' || f.key === 'op') && r[f.key] && !r.others)
        return el('td', { 'class': 'name', title: longTitle(r[f.key]) }, el('a', { 'class': 'jump', title: longTitle(r[f.key]) ? null : 'find on the timeline', text: shortName(fmtField(f, r[f.key])), onclick: function () { onName(r[f.key]); } }));
      return el('td', { 'class': num ? 'num' : 'name', text: fmtField(f, r[f.key]) });
    }));
  });
  return el('table', null, [el('thead', null, head), el('tbody', null, body)]);
}
function simpleTable(head, rows, numcols, cls) {
  return el('table', { 'class': cls }, [el('thead', null, el('tr', null, head.map(function (h, i) { return el('th', { 'class': numcols && numcols[i] ? 'num' : null, text: h }); }))),
    el('tbody', null, rows.map(function (r) { return el('tr', null, r.map(function (c, i) { return el('td', { 'class': numcols && numcols[i] ? 'num' : 'name', text: c }); })); }))]);
}
var PALETTE = ['#2f6fdf', '#e67e22', '#27ae60', '#8e44ad', '#c0392b', '#16a085', '#7f8c8d', '#d4ac0d', '#34495e', '#e84393'];
function legend(items) {
  return el('div', { 'class': 'legend' }, items.map(function (it) { return el('span', null, [el('i', { style: 'background:' + it[1] }), it[0]]); }));
}

/* Stacked horizontal bars: rows of {label, parts:[values]} with part names/colors. */
function stackedBars(rows, parts, colors, fmt, opts) {
  opts = opts || {};
  var w = 900, lw = 90, rh = opts.rowh || 16, gap = 4, h = rows.length * (rh + gap) + 24;
  var max = 0;
  rows.forEach(function (r) { var s = r.parts.reduce(function (a, b) { return a + (b || 0); }, 0); if (s > max) max = s; });
  if (!(max > 0)) max = 1;
  var svg = sv('svg', { width: '100%', viewBox: '0 0 ' + w + ' ' + h, preserveAspectRatio: 'xMinYMin meet', role: 'img' });
  rows.forEach(function (r, i) {
    var y = i * (rh + gap), x = lw;
    svg.appendChild(sv('text', { x: lw - 6, y: y + rh - 4, 'text-anchor': 'end', text: r.label }));
    r.parts.forEach(function (v, k) {
      var pw = (w - lw - 10) * (v || 0) / max;
      if (pw > 0) {
        var rect = sv('rect', { x: x, y: y, width: pw, height: rh, fill: colors[k] });
        rect.appendChild(sv('title', { text: r.label + ' · ' + parts[k] + ': ' + fmt(v) }));
        svg.appendChild(rect);
      }
      x += pw;
    });
  });
  var ty = rows.length * (rh + gap) + 14;
  svg.appendChild(sv('text', { x: lw, y: ty, text: '0' }));
  svg.appendChild(sv('text', { x: w - 10, y: ty, 'text-anchor': 'end', text: fmt(max) }));
  return el('div', null, [legend(parts.map(function (p, k) { return [p, colors[k]]; })), svg]);
}

/* Axis ticks at a round step (1, 2 or 5 x 10^k) from 0 or lo to past hi: {step, v:[...]} */
function niceTicks(lo, hi, n) {
  var span = hi - lo;
  if (!(span > 0)) span = Math.abs(hi) || 1;
  var raw = span / n, mag = Math.pow(10, Math.floor(Math.log10(raw))), f = raw / mag;
  var step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
  var a = Math.floor(lo / step + 1e-9) * step, v = [];
  for (var x = a; x <= hi + step * 0.999 && v.length < 40; x += step) v.push(Math.round(x / step) * step);
  return { step: step, v: v };
}
/* One unit for a whole axis of milliseconds (s, ms or µs from its largest tick) and as many
 * decimals as its step needs: "0 ms, 0.5 ms, 1 ms", never "500 µs, 1.000 ms". */
function msAxisFmt(max, step) {
  var u = max >= 1000 ? ['s', 1000] : max >= 1 ? ['ms', 1] : ['µs', 0.001];
  var st = step / u[1], dec = Math.max(0, Math.min(6, -Math.floor(Math.log10(st) + 1e-9)));
  if (st * Math.pow(10, dec) % 1 > 1e-6) dec++; /* a step of 2.5 */
  return function (v) { return fmtNum(v / u[1], dec) + ' ' + u[0]; };
}
/* Line chart. o: {series:[{name,color,pts:[[x,y]],dash}], xlog10, xTicks:[[x,label]], xLabel,
 * yLabel, yFmt, hlines:[{y,label,color}], vlines:[{x,label,color}]} */
function lineChart(o) {
  var W = 640, H = 300, L = 80, R = 16, T = 12, B = 40;
  var xs = [], ys = [];
  o.series.forEach(function (s) { s.pts.forEach(function (p) { if (p[1] != null && isFinite(p[1])) { xs.push(p[0]); ys.push(p[1]); } }); });
  (o.hlines || []).forEach(function (h) { ys.push(h.y); });
  (o.vlines || []).forEach(function (v) { xs.push(v.x); });
  var x0 = o.x0 != null ? o.x0 : Math.min.apply(null, xs.concat([0])), x1 = Math.max.apply(null, xs.concat([x0 + 1e-9]));
  if (o.xTicks && o.xTicks.length) x1 = Math.max(x1, o.xTicks[o.xTicks.length - 1][0]);
  var yt = niceTicks(0, Math.max.apply(null, ys.concat([1e-9])) * 1.04, 5), y0 = 0, y1 = yt.v[yt.v.length - 1];
  function X(x) { return L + (W - L - R) * (x - x0) / ((x1 - x0) || 1); }
  function Y(y) { return T + (H - T - B) * (1 - (y - y0) / ((y1 - y0) || 1)); }
  var svg = sv('svg', { width: '100%', viewBox: '0 0 ' + W + ' ' + H, role: 'img' });
  svg.appendChild(sv('rect', { x: L, y: T, width: W - L - R, height: H - T - B, fill: '#fbfcfd', stroke: '#e3e6ec' }));
  var yf = o.yFmt || function (v) { return fmtNum(v); };
  var yaf = o.yFmt === fmtMs ? msAxisFmt(y1, yt.step) : function (v) { var d = Math.max(0, -Math.floor(Math.log10(yt.step) + 1e-9)); return fmtNum(v, d); };
  yt.v.forEach(function (yv) {
    svg.appendChild(sv('line', { x1: L, x2: W - R, y1: Y(yv), y2: Y(yv), stroke: '#eef0f3' }));
    svg.appendChild(sv('text', { x: L - 6, y: Y(yv) + 4, 'text-anchor': 'end', 'class': 'ytick', text: yaf(yv) }));
  });
  var ticks = o.xTicks;
  if (!ticks) {
    var xt = niceTicks(x0, x1, 5), xd = Math.max(0, -Math.floor(Math.log10(xt.step) + 1e-9));
    ticks = xt.v.filter(function (v) { return v >= x0 - 1e-9 && v <= x1 + 1e-9; }).map(function (v) { return [v, fmtNum(v, xd)]; });
  }
  ticks.forEach(function (t, ti) {
    var tx = X(t[0]), tw = String(t[1]).length * 6.2; /* ~ the label's width at 11 px */
    /* labels stay inside the plot's width: the last one ends at the edge, the first starts there */
    var anchor = tx + tw / 2 > W - 2 ? 'end' : tx - tw / 2 < L - 30 ? 'start' : 'middle';
    svg.appendChild(sv('line', { x1: tx, x2: tx, y1: T, y2: H - B, stroke: '#eef0f3' }));
    svg.appendChild(sv('text', { x: anchor === 'end' ? Math.min(tx, W - 2) : tx, y: H - B + 14, 'text-anchor': anchor, 'class': 'xtick', text: t[1] }));
  });
  if (o.xLabel) svg.appendChild(sv('text', { x: (L + W - R) / 2, y: H - 6, 'text-anchor': 'middle', text: o.xLabel }));
  if (o.yLabel) svg.appendChild(sv('text', { x: 12, y: T + (H - T - B) / 2, transform: 'rotate(-90 12 ' + (T + (H - T - B) / 2) + ')', 'text-anchor': 'middle', text: o.yLabel }));
  (o.hlines || []).forEach(function (h) {
    svg.appendChild(sv('line', { x1: L, x2: W - R, y1: Y(h.y), y2: Y(h.y), stroke: h.color || '#c0392b', 'stroke-dasharray': '6 4' }));
    svg.appendChild(sv('text', { x: W - R - 4, y: Y(h.y) - 4, 'text-anchor': 'end', text: h.label, fill: h.color || '#c0392b' }));
  });
  (o.vlines || []).forEach(function (v) {
    svg.appendChild(sv('line', { x1: X(v.x), x2: X(v.x), y1: T, y2: H - B, stroke: v.color || '#8e44ad', 'stroke-dasharray': '4 3' }));
    svg.appendChild(sv('text', { x: X(v.x) + 4, y: T + 12, text: v.label, fill: v.color || '#8e44ad' }));
  });
  o.series.forEach(function (s, si) {
    var col = s.color || PALETTE[si % PALETTE.length];
    var pts = s.pts.filter(function (p) { return p[1] != null && isFinite(p[1]); });
    if (!pts.length) return;
    var d = pts.map(function (p, j) { return (j ? 'L' : 'M') + X(p[0]).toFixed(1) + ' ' + Y(p[1]).toFixed(1); }).join('');
    svg.appendChild(sv('path', { d: d, fill: 'none', stroke: col, 'stroke-width': 2, 'stroke-dasharray': s.dash || null }));
    if (pts.length <= 60) pts.forEach(function (p) {
      var c = sv('circle', { cx: X(p[0]), cy: Y(p[1]), r: 3, fill: col });
      c.appendChild(sv('title', { text: s.name + ': ' + (p[2] || fmtNum(p[0])) + ' → ' + yf(p[1]) }));
      svg.appendChild(c);
    });
  });
  return el('div', null, [legend(o.series.map(function (s, si) { return [s.name, s.color || PALETTE[si % PALETTE.length]]; })), svg]);
}
/* HdrHistogram-style percentile axis: x = log10(1 / (1 - q)). */
function pctX(p) { return p >= 100 ? NaN : Math.log10(100 / (100 - p)); }
function pctTicks(maxx) {
  var t = [[0, '0%']], labels = ['90%', '99%', '99.9%', '99.99%', '99.999%', '99.9999%'];
  for (var i = 1; i <= Math.max(2, Math.ceil(maxx)) && i <= 6; i++) t.push([i, labels[i - 1]]);
  return t;
}

/* ---- timeline ---- */
var KIND_COLORS = { kernel: '#2f6fdf', gpu_memcpy: '#e67e22', gpu_memset: '#d35400', cuda_runtime: '#8e44ad', cpu_op: '#27ae60', user_annotation: '#d4ac0d', gpu_user_annotation: '#b7950b', python_function: '#16a085', cuda_sync: '#c0392b' };
function hashColor(s) {
  var h = 0;
  for (var i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return 'hsl(' + (((h % 360) + 360) % 360) + ',55%,' + (52 + (((h >> 9) & 7))) + '%)';
}
function Timeline(host, tl, title) {
  var self = this;
  this.tl = tl;
  this.unit = tl.unit_ns;
  this.names = tl.names;
  this.kinds = tl.kinds;
  this.colorCache = new Array(tl.names.length);
  this.rowH = 14;
  this.labelW = 230;
  /* decode lanes */
  var y = 0;
  this.lanes = tl.lanes.map(function (ln) {
    var n = ln.ts.length, ts = new Float64Array(n), dur = new Float64Array(n), maxEnd = new Float64Array(n);
    var acc = 0, me = -Infinity;
    for (var i = 0; i < n; i++) { acc += ln.ts[i]; ts[i] = acc; dur[i] = ln.dur[i]; me = Math.max(me, acc + ln.dur[i]); maxEnd[i] = me; }
    var rows = Math.min(ln.maxdepth + 1, TL_MAX_ROWS); /* deeper events are not drawn (counted) */
    var corr = null;
    if (ln.corr) { /* delta-decoded: 0 none, v > 0 prev + v, v < 0 prev + v + 1 */
      corr = new Float64Array(n);
      for (var c = 0, pc = 0; c < n; c++) { var v = ln.corr[c]; if (v) { pc += v > 0 ? v : v + 1; corr[c] = pc; } }
    }
    var L = { label: ln.label, gpu: ln.gpu, n: n, corr: corr, ts: ts, dur: dur, maxEnd: maxEnd, name: Int32Array.from(ln.name), kind: Uint8Array.from(ln.kind), depth: Uint16Array.from(ln.depth), rows: rows, md: ln.maxdepth, deep: ln.maxdepth + 1 > rows, y: y, h: rows * self.rowH + 6 };
    y += L.h;
    return L;
  });
  /* a canvas is at most ~32k px tall: fewer rows per lane when there are many lanes */
  [16, 3, 1].forEach(function (cap) {
    if (y <= 16000) return;
    y = 0;
    self.lanes.forEach(function (L) { L.rows = Math.min(L.rows, cap); L.deep = L.md + 1 > L.rows; L.y = y; L.h = L.rows * self.rowH + 6; y += L.h; });
  });
  this.height = Math.max(y, 40);
  this.levels = tl.levels.map(function (lv) {
    return { w: lv.w, lanes: lv.lanes.map(function (b, li) {
      var n = b.idx.length, idx = new Float64Array(n), acc = 0;
      for (var i = 0; i < n; i++) { acc += b.idx[i]; idx[i] = acc; }
      var nb = b.big.length, big = new Int32Array(nb), bme = new Float64Array(nb), ln = self.lanes[li], a2 = 0, m2 = -Infinity;
      for (var j = 0; j < nb; j++) { a2 += b.big[j]; big[j] = a2; m2 = Math.max(m2, ln.ts[a2] + ln.dur[a2]); bme[j] = m2; }
      return { idx: idx, busy: Uint16Array.from(b.busy), n: Uint32Array.from(b.n), top: Int32Array.from(b.top), depth: Uint16Array.from(b.depth), big: big, bigMaxEnd: bme };
    }) };
  });
  this.span = Math.max(tl.span, 1);
  this.v0 = 0;
  this.v1 = this.span;
  this.match = null;
  this.sel = null;
  /* DOM */
  this.search = el('input', { type: 'search', placeholder: 'search names (substring)…', 'aria-label': 'search' });
  this.info = el('span', { 'class': 'mut' });
  this.canvas = el('canvas', { tabindex: '0' });
  this.tip = el('div', { 'class': 'tl-tip' });
  this.selBox = el('div', { 'class': 'tl-sel mut', text: 'click an event to select it; wheel or W/S zoom, drag or A/D pan' });
  this.wrap = el('div', { 'class': 'tl-wrap' }, [this.canvas, this.tip]);
  var next = el('button', { text: 'next match', onclick: function () { self.nextMatch(); } });
  var reset = el('button', { text: 'reset zoom', onclick: function () { self.v0 = 0; self.v1 = self.span; self.draw(); } });
  host.appendChild(el('div', { 'class': 'tl-bar' }, [this.search, next, reset, this.info]));
  host.appendChild(this.wrap);
  host.appendChild(this.selBox);
  this.search.addEventListener('input', function () { self.setSearch(self.search.value); });
  this.canvas.addEventListener('wheel', function (e) {
    e.preventDefault();
    var t = self.xToT(e.offsetX);
    self.zoom(e.deltaY < 0 ? 1 / 1.25 : 1.25, t);
  }, { passive: false });
  var drag = null;
  this.canvas.addEventListener('mousedown', function (e) { drag = { x: e.offsetX, v0: self.v0, v1: self.v1, moved: false }; });
  window.addEventListener('mouseup', function (e) {
    if (drag && !drag.moved && e.target === self.canvas) self.select(self.hit(e.offsetX, e.offsetY));
    drag = null;
  });
  this.canvas.addEventListener('mousemove', function (e) {
    if (drag) {
      var dx = e.offsetX - drag.x;
      if (Math.abs(dx) > 2) drag.moved = true;
      var dt = dx * (drag.v1 - drag.v0) / self.plotW();
      self.v0 = drag.v0 - dt; self.v1 = drag.v1 - dt;
      self.clampView();
      self.draw();
      return;
    }
    self.hover(e.offsetX, e.offsetY);
  });
  this.canvas.addEventListener('mouseleave', function () { self.tip.style.display = 'none'; });
  this.canvas.addEventListener('keydown', function (e) {
    var k = e.key.toLowerCase(), c = (self.v0 + self.v1) / 2, w = self.v1 - self.v0;
    if (k === 'w') self.zoom(1 / 1.5, c);
    else if (k === 's') self.zoom(1.5, c);
    else if (k === 'a') { self.v0 -= w * 0.15; self.v1 -= w * 0.15; self.clampView(); self.draw(); }
    else if (k === 'd') { self.v0 += w * 0.15; self.v1 += w * 0.15; self.clampView(); self.draw(); }
    else return;
    e.preventDefault();
  });
  window.addEventListener('resize', function () { self.draw(); });
}
Timeline.prototype.plotW = function () { return Math.max(50, this.cw - this.labelW); };
Timeline.prototype.xToT = function (x) { return this.v0 + (x - this.labelW) * (this.v1 - this.v0) / this.plotW(); };
Timeline.prototype.clampView = function () {
  var w = this.v1 - this.v0;
  if (w > this.span * 1.05) { this.v0 = -this.span * 0.025; this.v1 = this.span * 1.025; return; }
  if (this.v0 < -w * 0.5) { this.v0 = -w * 0.5; this.v1 = this.v0 + w; }
  if (this.v1 > this.span + w * 0.5) { this.v1 = this.span + w * 0.5; this.v0 = this.v1 - w; }
};
Timeline.prototype.zoom = function (f, at) {
  var w = (this.v1 - this.v0) * f;
  if (w < 20 / this.unit) w = 20 / this.unit; /* 20 ns across the view at most zoomed */
  var r = (at - this.v0) / (this.v1 - this.v0);
  this.v0 = at - r * w; this.v1 = this.v0 + w;
  this.clampView();
  this.draw();
};
Timeline.prototype.fmtT = function (u) { return fmtUs(u * this.unit / 1000); };
Timeline.prototype.color = function (nameId, kind) {
  var c = this.colorCache[nameId];
  if (!c) c = this.colorCache[nameId] = hashColor(this.names[nameId] || '');
  return c;
};
Timeline.prototype.level = function () {
  var upp = (this.v1 - this.v0) / this.plotW(), best = -1;
  for (var j = 0; j < this.levels.length; j++) if (this.levels[j].w >= upp) best = j;
  /* bins of 1..4 px: that level; finer than the finest level's range: raw events */
  if (best >= 0 && this.levels[best].w > 4 * upp) best = -1;
  return best;
};
function firstEnd(maxEnd, t) { /* first index whose running max end >= t */
  var lo = 0, hi = maxEnd.length;
  while (lo < hi) { var m = (lo + hi) >> 1; if (maxEnd[m] < t) lo = m + 1; else hi = m; }
  return lo;
}
function firstGE(arr, v) {
  var lo = 0, hi = arr.length;
  while (lo < hi) { var m = (lo + hi) >> 1; if (arr[m] < v) lo = m + 1; else hi = m; }
  return lo;
}
Timeline.prototype.draw = function () {
  var dpr = window.devicePixelRatio || 1, cw = this.wrap.clientWidth || 1200;
  this.cw = cw;
  var cv = this.canvas, h = this.height + 22;
  if (cv.width !== Math.round(cw * dpr) || cv.height !== Math.round(h * dpr)) {
    cv.width = Math.round(cw * dpr); cv.height = Math.round(h * dpr);
    cv.style.width = cw + 'px'; cv.style.height = h + 'px';
  }
  var g = cv.getContext('2d');
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, cw, h);
  var self = this, LW = this.labelW, PW = this.plotW(), v0 = this.v0, v1 = this.v1, upp = (v1 - v0) / PW;
  var lv = this.level(), drawn = 0, hidden = 0;
  function X(t) { return LW + (t - v0) / upp; }
  g.font = '10px system-ui,sans-serif';
  g.textBaseline = 'middle';
  var top = 20;
  /* time axis */
  g.fillStyle = '#fbfcfd'; g.fillRect(LW, 0, PW, top);
  g.fillStyle = '#667085'; g.strokeStyle = '#e3e6ec';
  var step = Math.pow(10, Math.floor(Math.log10((v1 - v0) / 6 || 1)));
  while ((v1 - v0) / step > 12) step *= 2;
  for (var tk = Math.ceil(v0 / step) * step; tk <= v1; tk += step) {
    var x = X(tk);
    g.beginPath(); g.moveTo(x, top - 4); g.lineTo(x, h); g.stroke();
    g.fillText(this.fmtT(tk), x + 2, 9);
  }
  this.lanes.forEach(function (L, li) {
    var y0 = top + L.y, rh = self.rowH;
    g.fillStyle = li % 2 ? '#fafbfc' : '#fff';
    g.fillRect(0, y0, cw, L.h);
    g.fillStyle = L.gpu ? '#2f6fdf' : '#1d2330';
    g.save(); g.beginPath(); g.rect(0, y0, LW - 4, L.h); g.clip();
    g.fillText(L.label, 4, y0 + 9);
    if (L.deep) { g.fillStyle = '#c0392b'; g.fillText('nesting deeper than ' + L.rows + ' rows: not drawn', 4, y0 + 9 + rh); }
    g.restore();
    g.save(); g.beginPath(); g.rect(LW, y0, PW, L.h); g.clip();
    var lastX = new Float64Array(L.rows).fill(-1);
    function evRect(i) {
      var d = L.depth[i];
      if (d >= L.rows) { hidden++; return; } /* never overdrawn on the last row */
      var xa = X(L.ts[i]), xb = X(L.ts[i] + L.dur[i]);
      if (xa < LW - 1) xa = LW - 1;
      if (xb > LW + PW + 1) xb = LW + PW + 1;
      var wpx = xb - xa;
      if (wpx < 1) { if (Math.floor(xa) <= lastX[d]) return; wpx = 1; }
      lastX[d] = xa + wpx;
      var nm = L.name[i], hit = self.match ? self.match[nm] : 1;
      g.fillStyle = hit ? self.color(nm, L.kind[i]) : '#dde1e6';
      g.fillRect(xa, y0 + 3 + d * rh, wpx, rh - 1);
      drawn++;
      if (wpx > 40) {
        g.fillStyle = '#fff';
        g.fillText(self.names[nm].slice(0, Math.floor(wpx / 5.5)), xa + 3, y0 + 3 + d * rh + rh / 2);
      }
    }
    if (lv < 0) {
      for (var i = firstEnd(L.maxEnd, v0); i < L.n && L.ts[i] <= v1; i++)
        if (L.ts[i] + L.dur[i] >= v0) evRect(i);
    } else {
      var B = self.levels[lv].lanes[li], w = self.levels[lv].w;
      var k0 = firstGE(B.idx, Math.floor(v0 / w) - 1);
      for (var k = k0; k < B.idx.length && B.idx[k] * w <= v1; k++) {
        var d = B.depth[k];
        if (d >= L.rows) { hidden++; continue; }
        var tpi = B.top[k], nm = tpi >= 0 ? L.name[tpi] : -1;
        var hit = self.match ? (nm >= 0 && self.match[nm]) : 1;
        g.globalAlpha = 0.3 + 0.7 * Math.min(1, B.busy[k] / 1000);
        g.fillStyle = hit ? (nm >= 0 ? self.color(nm, 0) : '#999') : '#dde1e6';
        var xa = X(B.idx[k] * w), wpx = Math.max(1, w / upp);
        g.fillRect(xa, y0 + 3 + d * rh, wpx, rh - 1);
        drawn++;
      }
      g.globalAlpha = 1;
      for (var j = firstEnd(B.bigMaxEnd, v0); j < B.big.length && L.ts[B.big[j]] <= v1; j++) {
        var e = B.big[j];
        if (L.ts[e] + L.dur[e] >= v0) evRect(e);
      }
    }
    if (self.sel && self.sel.lane === li) {
      var s = self.sel.i, sd = Math.min(L.depth[s], L.rows - 1);
      g.strokeStyle = '#000'; g.lineWidth = 2;
      g.strokeRect(X(L.ts[s]), y0 + 3 + sd * rh, Math.max(2, L.dur[s] / upp), rh - 1);
      g.lineWidth = 1; g.strokeStyle = '#e3e6ec';
    }
    g.restore();
  });
  if (this.sel && this.selPartner) { /* the flow arrow: launch start -> GPU row start */
    var a = this.sel, b = this.selPartner, La = this.lanes[a.lane], Lb = this.lanes[b.lane];
    if (La.gpu) { var tmp = a; a = b; b = tmp; tmp = La; La = Lb; Lb = tmp; }
    var ya = top + La.y + 3 + Math.min(La.depth[a.i], La.rows - 1) * this.rowH + this.rowH / 2;
    var yb = top + Lb.y + 3 + Math.min(Lb.depth[b.i], Lb.rows - 1) * this.rowH + this.rowH / 2;
    var xa2 = X(La.ts[a.i]), xb2 = X(Lb.ts[b.i]);
    g.strokeStyle = '#c0392b'; g.fillStyle = '#c0392b'; g.lineWidth = 1.5;
    g.beginPath(); g.moveTo(xa2, ya); g.bezierCurveTo(xa2, (ya + yb) / 2, xb2, (ya + yb) / 2, xb2, yb); g.stroke();
    g.beginPath(); g.moveTo(xb2, yb); g.lineTo(xb2 - 4, yb - 7); g.lineTo(xb2 + 4, yb - 7); g.closePath(); g.fill();
    g.lineWidth = 1;
  }
  this.info.textContent = (lv < 0 ? 'raw events' : 'LOD level ' + lv + ' (bins of ' + this.fmtT(this.levels[lv].w) + ')') + ' · ' + drawn + ' drawn' + (hidden ? ' · ' + hidden + ' nested deeper than their lane\'s rows not drawn' : '') + ' · view ' + this.fmtT(v1 - v0) + ' of ' + this.fmtT(this.span) + ' · ' + this.tl.events + ' events';
  this.lastDrawn = drawn;
  this.lastHidden = hidden;
};
Timeline.prototype.laneAt = function (y) {
  y -= 20;
  for (var i = 0; i < this.lanes.length; i++) { var L = this.lanes[i]; if (y >= L.y && y < L.y + L.h) return i; }
  return -1;
};
Timeline.prototype.hit = function (x, y) {
  var li = this.laneAt(y);
  if (li < 0 || x < this.labelW) return null;
  var L = this.lanes[li], row = Math.floor((y - 20 - L.y - 3) / this.rowH), t = this.xToT(x), tol = 2 * (this.v1 - this.v0) / this.plotW();
  var lv = this.level(), best = -1;
  function ok(i) { return L.depth[i] === row && L.ts[i] - tol <= t && L.ts[i] + L.dur[i] + tol >= t; }
  if (lv < 0) {
    for (var i = firstEnd(L.maxEnd, t - tol); i < L.n && L.ts[i] <= t + tol; i++) if (ok(i)) best = i;
    return best >= 0 ? { lane: li, i: best } : null;
  }
  var B = this.levels[lv].lanes[li], w = this.levels[lv].w;
  for (var j = firstEnd(B.bigMaxEnd, t - tol); j < B.big.length && L.ts[B.big[j]] <= t + tol; j++) if (ok(B.big[j])) best = B.big[j];
  if (best >= 0) return { lane: li, i: best };
  var k = firstGE(B.idx, Math.floor(t / w));
  if (k < B.idx.length && B.idx[k] === Math.floor(t / w) && B.depth[k] === row) return { lane: li, bin: k, lv: lv };
  return null;
};
Timeline.prototype.describe = function (h, short) {
  var L = this.lanes[h.lane], nm = short ? shortName : String;
  if (h.bin != null) {
    var B = this.levels[h.lv].lanes[h.lane], w = this.levels[h.lv].w, tp = B.top[h.bin];
    return L.label + ' · ' + B.n[h.bin] + ' small event(s) starting in ' + this.fmtT(w) + ' at ' + this.fmtT(B.idx[h.bin] * w) + ' · busy ' + (B.busy[h.bin] / 10).toFixed(1) + ' %' + (tp >= 0 ? ' · longest: ' + nm(this.names[L.name[tp]]) : '') + ' (zoom in for single events)';
  }
  var i = h.i;
  return nm(this.names[L.name[i]]) + '\n' + this.kinds[L.kind[i]] + ' · ' + L.label + '\nstart ' + this.fmtT(L.ts[i]) + ' · duration ' + this.fmtT(L.dur[i]) + ' · depth ' + L.depth[i];
};
Timeline.prototype.hover = function (x, y) {
  var h = this.hit(x, y);
  if (!h) { this.tip.style.display = 'none'; return; }
  this.tip.textContent = this.describe(h, true);
  this.tip.style.whiteSpace = 'pre-wrap';
  this.tip.style.display = 'block';
  this.tip.style.left = Math.min(x + 12, this.cw - 360) + 'px';
  this.tip.style.top = (y + 14) + 'px';
};
/* The other end of the flow of event h (launch <-> GPU row with the same correlation id). */
Timeline.prototype.partner = function (h) {
  var L = this.lanes[h.lane];
  if (!L.corr || !(L.corr[h.i] > 0)) return null;
  if (!this.corrIndex) {
    var m = new Map();
    this.lanes.forEach(function (ln, li) {
      if (!ln.corr) return;
      for (var k = 0; k < ln.n; k++) if (ln.corr[k] > 0) { var c = ln.corr[k], e = m.get(c); if (!e) m.set(c, e = []); e.push(li, k); }
    });
    this.corrIndex = m;
  }
  var list = this.corrIndex.get(L.corr[h.i]) || [];
  for (var j = 0; j < list.length; j += 2) if (this.lanes[list[j]].gpu !== L.gpu) return { lane: list[j], i: list[j + 1] };
  return null;
};
Timeline.prototype.select = function (h) {
  this.sel = h && h.bin == null ? h : null;
  this.selPartner = this.sel ? this.partner(this.sel) : null;
  var txt = h ? this.describe(h) : 'nothing selected';
  if (this.selPartner) {
    var P = this.lanes[this.selPartner.lane], S = this.lanes[this.sel.lane], pi = this.selPartner.i;
    var cpuEv = S.gpu ? { L: P, i: pi } : { L: S, i: this.sel.i }, gpuEv = S.gpu ? { L: S, i: this.sel.i } : { L: P, i: pi };
    txt += '\n' + (S.gpu ? 'launched by ' : 'launches ') + this.names[P.name[pi]] + ' on ' + P.label + ' · launch delay ' + this.fmtT(gpuEv.L.ts[gpuEv.i] - cpuEv.L.ts[cpuEv.i]) + ' (arrow on the timeline)';
  }
  this.selBox.textContent = txt;
  this.draw();
};
Timeline.prototype.setSearch = function (q) {
  q = q.trim().toLowerCase();
  if (!q) { this.match = null; this.draw(); return; }
  var m = new Uint8Array(this.names.length), nn = 0;
  for (var i = 0; i < this.names.length; i++) if (this.names[i].toLowerCase().indexOf(q) >= 0) { m[i] = 1; nn++; }
  var cnt = 0;
  this.lanes.forEach(function (L) { for (var k = 0; k < L.n; k++) if (m[L.name[k]]) cnt++; });
  this.match = m;
  this.matchCount = cnt;
  this.draw();
  this.info.textContent = cnt + ' matching event(s) of ' + nn + ' name(s) · ' + this.info.textContent;
};
Timeline.prototype.nextMatch = function () {
  if (!this.match) return;
  var c = this.sel ? this.lanes[this.sel.lane].ts[this.sel.i] : (this.v0 + this.v1) / 2, best = null, self = this;
  this.lanes.forEach(function (L, li) {
    for (var k = firstGE(L.ts, c + 1e-9); k < L.n; k++) if (self.match[L.name[k]]) { if (!best || L.ts[k] < self.lanes[best.lane].ts[best.i]) best = { lane: li, i: k }; break; }
  });
  if (!best) return;
  var L = this.lanes[best.lane];
  this.showRange(L.ts[best.i], L.dur[best.i]);
  this.select(best);
};
Timeline.prototype.showRange = function (t, d) {
  var w = Math.max(d * 3, 50000 / this.unit);
  this.v0 = t + d / 2 - w / 2; this.v1 = this.v0 + w;
  this.clampView();
  this.draw();
};
/* Jump to a time given in the trace's own µs (doctor examples). */
Timeline.prototype.showUs = function (tsUs, durUs) {
  var t = (tsUs - parseFloat(this.tl.t0_us)) * 1000 / this.unit;
  this.showRange(t, durUs * 1000 / this.unit);
  this.wrap.scrollIntoView({ block: 'center' });
};

/* CPU samples as an icicle graph (root on top) of the top stacks; a click zooms into a frame,
 * a click on the top bar zooms back out. */
function flameGraph(stacks) {
  var root = { name: 'all sampled stacks', v: 0, kids: {} };
  stacks.forEach(function (s) {
    var n = root;
    n.v += s.samples;
    String(s.stack).split(';').forEach(function (f) {
      n = n.kids[f] || (n.kids[f] = { name: f, v: 0, kids: {}, parent: n });
      n.v += s.samples;
    });
  });
  function depth(n) { var d = 0; Object.keys(n.kids).forEach(function (k) { d = Math.max(d, depth(n.kids[k])); }); return d + 1; }
  var host = el('div');
  function render(focus) {
    host.textContent = '';
    var W = 1200, RH = 18, H = depth(focus) * RH + 2, total = focus.v || 1;
    var svg = sv('svg', { width: '100%', viewBox: '0 0 ' + W + ' ' + H, role: 'img' });
    function lay(n, x, w, d) {
      if (w < 0.5) return;
      var g = sv('g', { style: 'cursor:pointer' });
      g.appendChild(sv('rect', { x: x, y: d * RH, width: Math.max(w - 0.5, 0.5), height: RH - 1, fill: d ? hashColor(n.name) : '#c9ced6' }));
      if (w > 40) g.appendChild(sv('text', { x: x + 3, y: d * RH + 13, text: n.name.slice(0, Math.floor(w / 6.5)) }));
      g.appendChild(sv('title', { text: n.name + ' · ' + n.v + ' samples (' + fmtNum(100 * n.v / root.v, 1) + ' % of these stacks)' }));
      g.addEventListener('click', function () { render(n === focus && n.parent ? n.parent : n); });
      svg.appendChild(g);
      var cx = x;
      Object.keys(n.kids).map(function (k) { return n.kids[k]; }).sort(function (a, b) { return b.v - a.v; }).forEach(function (c) {
        var cw = w * c.v / (n.v || 1);
        lay(c, cx, cw, d + 1);
        cx += cw;
      });
    }
    lay(focus, 0, W, 0);
    host.appendChild(svg);
  }
  render(root);
  return host;
}

/* ---- trace pages ---- */
var STEP_PARTS = ['gpu_compute_us', 'comm_us', 'copies_us', 'gpu_other_us', 'cpu_only_us', 'idle_us'];
var STEP_COLORS = ['#2f6fdf', '#8e44ad', '#e67e22', '#16a085', '#d4ac0d', '#c9ced6'];
var CPU_STEP_PARTS = ['cpu_dataloader_us', 'cpu_ops_us', 'cpu_python_us', 'cpu_other_us'];
var CPU_STEP_COLORS = ['#8e44ad', '#2f6fdf', '#d4ac0d', '#c9ced6'];
/* The format sections analyze embeds per rank (src/analyze/render.c lat_an_sections): drawn
 * generically, a value table for the scalars and a table per array of rows. */
var FORMAT_SECTIONS = [['ort', 'ONNX Runtime'], ['tensorrt', 'TensorRT'], ['tensorflow', 'TensorFlow'], ['ncu', 'Nsight Compute'], ['nsys_stats', 'nsys stats']];
function fmtKeyed(k, v) {
  if (v == null) return '–';
  if (typeof v !== 'number') return typeof v === 'boolean' ? (v ? 'yes' : 'no') : String(v);
  if (/_us$/.test(k)) return fmtUs(v);
  if (/_ns$/.test(k)) return fmtUs(v / 1000);
  if (/_pct$|^pct$/.test(k)) return fmtNum(v, 2) + ' %';
  if (/_bytes$|^bytes$/.test(k)) return fmtBytes(v);
  return fmtNum(v);
}
function sectionCard(title, o) {
  var kv = [], kids = [];
  function rowsTable(k, v) {
    var cols = [];
    v.forEach(function (r) { Object.keys(r).forEach(function (c) { if (cols.indexOf(c) < 0 && r[c] != null && typeof r[c] !== 'object') cols.push(c); }); });
    if (!cols.length) return;
    kids.push(el('h3', { text: k.replace(/_/g, ' ') }));
    kids.push(simpleTable(cols.map(function (c) { return c.replace(/_/g, ' '); }), v.map(function (r) { return cols.map(function (c) { return fmtKeyed(c, r[c]); }); }), cols.map(function (c) { return typeof v[0][c] === 'number' || /_us$|_pct$|^calls$/.test(c); })));
  }
  Object.keys(o).forEach(function (k) {
    var v = o[k];
    if (v == null) return;
    if (Array.isArray(v)) { if (v.length && typeof v[0] === 'object' && v[0] !== null) rowsTable(k, v); else if (v.length) kv.push([k.replace(/_/g, ' '), v.join(', ')]); return; }
    if (typeof v === 'object') { Object.keys(v).forEach(function (k2) { if (v[k2] != null && typeof v[k2] !== 'object') kv.push([(k + ' ' + k2).replace(/_/g, ' '), fmtKeyed(k2, v[k2])]); }); return; }
    kv.push([k.replace(/_/g, ' '), fmtKeyed(k, v)]);
  });
  return card(title, [kv.length ? simpleTable(['', 'value'], kv, [false, true], 'kv') : null].concat(kids));
}
function labelOf(fields, key) { var f = fields.filter(function (x) { return x.key === key; })[0]; return f ? f.label : key; }
function tracePage(p, sec, pageIndex) {
  var A = p.analysis, F = p.fields, tl = null;
  var ranks = A.ranks || [];
  var tlHost = el('div');
  var r0 = ranks[0] || {};
  var kp = [kpi('events', fmtNum(r0.events, 0), 'events'), kpi('ranks', String(ranks.length), 'ranks')];
  /* an ONNX Runtime profile has runs, not ProfilerSteps (as doctor and analyze count them) */
  if (!(r0.steps || []).length && r0.ort && r0.ort.runs != null) {
    kp.push(kpi('model runs', fmtNum(r0.ort.runs, 0), 'ort.runs'));
    kp.push(kpi('run mean', fmtUs(r0.ort.run_mean_us), 'ort.run_mean_us'));
  } else kp.push(kpi('steps', fmtNum((r0.steps || []).length, 0), 'steps'));
  if (A.whole && A.whole.temporal) {
    kp.push(kpi('GPU idle', fmtNum(A.whole.temporal.idle_pct, 2) + ' %', 'temporal.idle_pct'));
    kp.push(kpi('GPU compute', fmtNum(A.whole.temporal.compute_pct, 2) + ' %', 'temporal.compute_pct'));
    kp.push(kpi('GPU non-compute', fmtNum(A.whole.temporal.non_compute_pct, 2) + ' %', 'temporal.non_compute_pct'));
  }
  var finds = (p.doctor && p.doctor.findings) || [];
  kp.push(kpi('findings', String(finds.length), 'findings'));
  sec.appendChild(el('div', { 'class': 'kpis', style: 'margin-bottom:14px' }, kp));
  if (A.preprocessing && A.preprocessing.warning) sec.appendChild(el('p', { 'class': 'mut', text: 'note: ' + A.preprocessing.warning }));
  if (r0.not_applicable && r0.not_applicable.length) sec.appendChild(el('p', { 'class': 'mut', 'data-key': 'not_applicable', text: 'not applicable: ' + r0.not_applicable.map(function (n) { return n.section.replace(/_/g, ' ') + ' (' + n.why + ')'; }).join('; ') }));

  var fc = findingCards(p, 'step', function (x) { if (tl) tl.showUs(x.ts_us, x.dur_us); });
  /* the first screen: what is slow and what to do, then the findings, then the timeline */
  var hl = [];
  if (finds.length) {
    hl.push(['top finding', finds[0].severity + ': ' + finds[0].title]);
    if (finds[0].recommendation) hl.push(['do', finds[0].recommendation]);
  }
  var tk = (r0.top_kernels || [])[0], to = (r0.top_ops_self || [])[0], ot = r0.ort && (r0.ort.op_types || [])[0];
  if (tk) hl.push(['top GPU kernel', tk.name + ' — ' + fmtUs(tk.sum_us) + ' in ' + fmtNum(tk.count, 0) + ' calls']);
  if (ot) hl.push(['top ONNX Runtime op type', ot.name + ' — ' + fmtUs(ot.total_us) + (ot.pct != null ? ' (' + fmtNum(ot.pct, 1) + ' % of node time)' : '')]);
  if (to) hl.push(['top CPU op by self time', to.name + ' — ' + fmtUs(to.self_us) + (r0.ops_self_total_us > 0 ? ' (' + fmtNum(100 * to.self_us / r0.ops_self_total_us, 1) + ' % of op self time)' : '')]);
  if (hl.length) sec.appendChild(card('What is slow' + (ranks.length > 1 ? ' (first rank)' : ''), [el('table', { 'class': 'headline kv' }, el('tbody', null, hl.map(function (r) { return el('tr', null, [el('th', { text: r[0] }), el('td', { text: r[0] === 'do' ? r[1] : shortName(r[1]) })]); })))]));
  sec.appendChild(card('Doctor findings', fc));
  sec.appendChild(card('Timeline' + (p.timeline_rank != null ? ' (rank ' + p.timeline_rank + ')' : ''), [tlHost]));

  /* a name in a table: search it on the timeline and go to its first instance */
  function findOnTimeline(name) {
    if (!tl) return;
    tl.search.value = name;
    tl.setSearch(name);
    tl.sel = null;
    tl.v0 = -1; tl.v1 = 0; /* nextMatch starts from the view centre: the trace start */
    tl.nextMatch();
    tl.wrap.scrollIntoView({ block: 'center' });
  }
  var absent = []; /* cards with nothing to show: one line at the end, not "none" cards first */
  ranks.forEach(function (R) {
    var parts = [];
    var rl = ranks.length > 1 ? ' — rank ' + R.rank : '';
    var cpu = R.cpu_only === true; /* no GPU activity: steps split as analyze's text does */
    FORMAT_SECTIONS.forEach(function (fs) { if (R[fs[0]] && typeof R[fs[0]] === 'object') parts.push(sectionCard(fs[1] + rl, R[fs[0]])); });
    function table(title, rows, fields, keys, onName) {
      if (rows && rows.length) parts.push(card(title + rl, [fieldTable(rows, fields, keys, onName)]));
      else absent.push(title.toLowerCase() + rl);
    }
    if (R.steps && R.steps.length) {
      var sp = cpu ? CPU_STEP_PARTS : STEP_PARTS, sc = cpu ? CPU_STEP_COLORS : STEP_COLORS;
      var labels = sp.map(function (k) { return labelOf(F.steps, k); });
      parts.push(card('Per-step breakdown' + (cpu ? ' (CPU-only trace)' : '') + rl, [stackedBars(R.steps.map(function (s) { return { label: 'step ' + s.step, parts: sp.map(function (k) { return s[k]; }) }; }), labels, sc, fmtUs),
        cpu ? el('p', { 'class': 'mut', text: 'ops: inside a cpu_op; python: in Python code outside any op; other: neither (interpreter, profiler, waiting)' }) : null,
        fieldTable(R.steps, F.steps, cpu ? ['step', 'ts_us', 'dur_us'].concat(CPU_STEP_PARTS) : null)]));
    }
    var g2 = [];
    if (R.temporal) {
      var T = R.temporal;
      g2.push(card('Temporal breakdown' + rl, [stackedBars([{ label: 'GPU', parts: [T.compute_us, T.non_compute_us, T.idle_us] }], ['compute', 'non-compute', 'idle'], ['#2f6fdf', '#e67e22', '#c9ced6'], fmtUs, { rowh: 22 }), fieldTable([T], F.temporal)]));
    }
    if (R.idle && R.idle.length) {
      g2.push(card('Idle breakdown per stream' + rl, [stackedBars(R.idle.map(function (s) { return { label: 'stream ' + s.stream, parts: [s.host_wait_us, s.kernel_wait_us, s.other_us] }; }), ['host wait', 'kernel wait', 'other'], ['#c0392b', '#d4ac0d', '#95a5a6'], fmtUs), fieldTable(R.idle, F.idle)]));
    }
    if (R.kernel_types && R.kernel_types.length) g2.push(card('Kernel types' + rl, [fieldTable(R.kernel_types, F.kernel_types)]));
    if (R.memcpy && R.memcpy.length) g2.push(card('Memory copies' + rl, [fieldTable(R.memcpy, F.memcpy)]));
    if (g2.length) parts.push(el('div', { 'class': 'grid2' }, g2));
    var find = R === ranks[0] ? findOnTimeline : null; /* the timeline shows the first rank */
    var gpuCols = cpu ? [] : ['gpu_us', 'kernels'];
    table('Top kernels', R.top_kernels, F.top_kernels, null, find);
    table('Top operators by total time', R.top_ops, F.top_ops, ['name', 'count', 'total_us', 'self_us'].concat(gpuCols), find);
    table('Top operators by self time', R.top_ops_self, F.top_ops, ['name', 'count', 'self_us', 'total_us'].concat(gpuCols), find);
    table('Operator → kernel mapping', R.op_kernels, F.op_kernels, null, find);
    if (R.syncs && R.syncs.calls && R.syncs.calls.length) parts.push(card('Synchronisations' + rl, [fieldTable(R.syncs.calls, F.syncs)]));
    if (R.cpu && R.cpu.top_stacks && R.cpu.top_stacks.length) {
      var C = R.cpu;
      parts.push(card('CPU samples' + rl + ': ' + fmtNum(C.samples, 0) + ' samples' + (C.period_us ? ' every ' + fmtUs(C.period_us) : ''), [
        el('p', { 'class': 'mut', text: 'The top ' + C.top_stacks.length + ' stacks (analyze --top N shows more), root on top; click a frame to zoom in, click it again to zoom out.' }),
        flameGraph(C.top_stacks),
        el('h3', { text: 'top functions by self samples' }),
        simpleTable(['function', 'self', 'self share', 'total', 'total share'], (C.top_functions_self || []).map(function (f) { return [f.function, fmtNum(f.self, 0), fmtNum(100 * f.self_share, 1) + ' %', fmtNum(f.total, 0), fmtNum(100 * f.total_share, 1) + ' %']; }), [false, true, true, true, true])]));
    }
    parts.forEach(function (x) { sec.appendChild(x); });
  });
  if (absent.length) sec.appendChild(el('p', { 'class': 'mut', 'data-key': 'absent', text: 'Not in this trace: ' + absent.join(', ') + '.' }));
  /* the timeline needs a laid-out width: built when its page is first shown */
  return function () {
    var q0 = now();
    if (!tl && p.timeline) { tl = new Timeline(tlHost, p.timeline); TIMELINES.push(tl); TL_MS.build = now() - q0; }
    var q1 = now();
    if (tl) { tl.draw(); TL_MS.draw = now() - q1; }
    if (!p.timeline) tlHost.textContent = 'no timeline (no duration event)';
  };
}

/* ---- bench pages ---- */
var PKEYS = [['p50', 50], ['p90', 90], ['p95', 95], ['p99', 99], ['p99.9', 99.9]];
function pctSeries(name, d, n, color, dash) {
  if (!d) return null;
  var pts = [];
  PKEYS.forEach(function (k) { if (d[k[0]] != null) pts.push([pctX(k[1]), d[k[0]], k[0]]); });
  if (d.max != null) pts.push([Math.max(pts.length ? pts[pts.length - 1][0] + 0.3 : 1, n > 1 ? Math.log10(n) : 3), d.max, 'max']);
  return { name: name, pts: pts, color: color, dash: dash };
}
function pointLabel(pt) { return pt.concurrency != null ? 'concurrency ' + pt.concurrency : pt.rate != null ? fmtNum(pt.rate) + ' req/s' : 'point'; }
function parseSlo(s) { /* "lat.p99<=20ms,ttft.p99<=200ms" -> [{metric,p,ms}] */
  var out = [];
  String(s || '').split(/[,;]/).forEach(function (t) {
    var m = /^\s*(?:([a-z_]+)\.)?p([0-9.]+)\s*<=\s*([0-9.]+)\s*(ms|s|us)\s*$/.exec(t);
    if (m) out.push({ metric: m[1] || 'latency', p: m[2], ms: parseFloat(m[3]) * (m[4] === 's' ? 1000 : m[4] === 'us' ? 0.001 : 1) });
  });
  return out;
}
/* doctor's findings as the CLI ranks them (p.doctor: doctor_write_json), one card body for every
 * page that has them: unit is what a saving is per ('step', 'request'); jump(example) shows an
 * example on the page's timeline, or null */
function findingCards(p, unit, jump) {
  var fc = [], finds = (p.doctor && p.doctor.findings) || [];
  /* the CLI's verdict, in the CLI's words (src/doctor/render.c verdict_text) */
  var dv = p.doctor && p.doctor.verdict, dt = (p.doctor && p.doctor.traces) || [];
  var unj = dt.filter(function (t) { return t.judged === false; });
  if (!finds.length && dv === 'no rule applies') fc.push(el('p', { text: unj.length === 1 ? 'No rule applies to this input (' + (unj[0].what || '') + '). Nothing was judged: this is not a clean bill.' : 'No rule applies to any of these inputs. Nothing was judged.' }));
  else if (!finds.length) fc.push(el('p', { text: 'No significant finding. The numbers above are under every threshold.' }));
  finds.forEach(function (f) {
    var ev = f.evidence || {}, kv = [], tables = [];
    Object.keys(ev).forEach(function (k) {
      var v = ev[k];
      if (k === 'examples' || k === 'saving_method') return;
      if (Array.isArray(v)) {
        if (v.length && typeof v[0] === 'object') {
          var cols = Object.keys(v[0]);
          tables.push(el('h3', { text: k.replace(/_/g, ' ') }));
          tables.push(simpleTable(cols, v.map(function (r) { return cols.map(function (c) { return typeof r[c] === 'number' ? fmtNum(r[c], /_us/.test(c) ? 3 : undefined) : String(r[c]); }); }), cols.map(function (c) { return typeof v[0][c] === 'number'; })));
        }
        return;
      }
      kv.push([k.replace(/_/g, ' '), typeof v === 'number' ? fmtNum(v, /_us|_pct/.test(k) ? 3 : undefined) : String(v)]);
    });
    var ex = ev.examples || [];
    var exRows = ex.map(function (x) {
      var link = el('a', { 'class': 'jump', text: 'show on timeline', onclick: function () { if (jump) jump(x); } });
      return el('tr', null, [el('td', { 'class': 'name', text: x.name }), el('td', { 'class': 'num', text: fmtUs(x.offset_us) }), el('td', { 'class': 'num', text: fmtUs(x.dur_us) }), el('td', { 'class': 'num', text: x.step == null ? '–' : String(x.step) }), el('td', { 'class': 'name', text: x.note || '' }), el('td', null, link)]);
    });
    fc.push(el('details', { 'class': 'finding', open: fc.length ? null : '' }, [
      el('summary', null, [el('span', { 'class': 'sev ' + f.severity, text: f.severity }), el('b', { text: f.title })]),
      f.saving_us_per_step ? el('p', { 'class': 'mut', text: 'estimated saving ' + ({ lower: 'at least ', estimate: '≈ ' }[f.saving_bound] || '≤ ') + fmtUs(f.saving_us_per_step) + ' per ' + unit + ' (' + fmtNum(f.saving_pct, 1) + ' %) — ' + (ev.saving_method || '') }) : null,
      kv.length ? simpleTable(['evidence', 'value'], kv, [false, true], 'kv') : null
    ].concat(tables).concat([
      ex.length ? el('h3', { text: 'worst examples' }) : null,
      ex.length ? el('table', null, [el('thead', null, el('tr', null, ['name', 'offset', 'duration', 'step', 'note', ''].map(function (h) { return el('th', { text: h }); }))), el('tbody', null, exRows)]) : null,
      f.recommendation ? el('p', null, [el('b', { text: 'do: ' }), f.recommendation]) : null,
      f.next_step ? el('p', { 'class': 'mut', text: 'next: ' + f.next_step }) : null
    ])));
  });
  return fc;
}

function benchPage(p, sec) {
  var b = p.bench, pts = b.points || [];
  /* find-max: the headline is the answer (find_max.point: the best point under the SLO), not the
   * last probe, which is often a failed one */
  var fm = b.find_max, fmi = fm && typeof fm.point === 'number' && pts[fm.point] ? fm.point : -1;
  var hp = fm ? (fmi >= 0 ? pts[fmi] : null) : pts[pts.length - 1], hw = fm ? 'at the answer' : 'last point';
  var hk = [kpi('target', String(b.target), 'target'), kpi('mode', String(b.mode), 'mode'), kpi('points', String(pts.length), 'points')];
  if (fm) {
    var ans = fm.max_rate != null ? fmtNum(fm.max_rate) + ' req/s' : fm.max_concurrency != null ? 'concurrency ' + fm.max_concurrency : 'none met the SLO';
    hk.unshift(kpi('max load under SLO ' + String(fm.slo || ''), ans, 'find_max.answer'));
  }
  if (hp) {
    hk.push(kpi('p99 latency (' + hw + ')', fmtMs(hp.latency_ms && hp.latency_ms.p99), 'p99'));
    hk.push(kpi('achieved (' + hw + ')', fmtNum(hp.achieved_rps) + ' req/s', 'achieved_rps'));
  }
  /* doctor's service rules on this result (the command ran them: `latscope doctor RESULT.json`) */
  var bf = (p.doctor && p.doctor.findings) || [];
  if (p.doctor) hk.push(kpi('findings', String(bf.length), 'findings'));
  sec.appendChild(el('div', { 'class': 'kpis', style: 'margin-bottom:14px' }, hk));
  if (b.anchor) sec.appendChild(el('p', { 'class': 'mut', text: b.anchor }));
  /* the first screen: what is slow and what to do */
  if (bf.length) {
    var bh = [['top finding', bf[0].severity + ': ' + bf[0].title]];
    if (bf[0].recommendation) bh.push(['do', bf[0].recommendation]);
    sec.appendChild(card('What is slow', [el('table', { 'class': 'headline kv' }, el('tbody', null, bh.map(function (r) { return el('tr', null, [el('th', { text: r[0] }), el('td', { text: r[1] })]); })))]));
  }
  if (p.doctor) sec.appendChild(el('div', { 'data-key': 'doctor' }, [card('Doctor findings', findingCards(p, 'request', null))]));
  var rows = pts.map(function (pt) {
    var L = pt.latency_ms || {}, e = pt.errors || {};
    return [pointLabel(pt) + (fm && pts.indexOf(pt) === fmi ? ' (answer)' : ''), fmtNum(pt.requests, 0), fmtNum(e.total, 0), fmtNum(pt.achieved_rps), fmtMs(L.p50), fmtMs(L.p99), fmtMs(L.max), fmtMs(pt.latency_actual_ms && pt.latency_actual_ms.p99), pt.valid ? 'yes' : 'no: ' + (pt.invalid_reason || '')];
  });
  sec.appendChild(card('Load points', [simpleTable(['point', 'requests', 'errors', 'req/s', 'p50', 'p99', 'max', 'p99 (actual send)', 'valid'], rows, [false, true, true, true, true, true, true, true, false])]));
  /* bench --server-pid: which server code the slow requests spent their time in, under the points */
  if (b.server_profile) sec.appendChild(serverProfileCard(b.server_profile));
  /* percentile distributions */
  var dist = [];
  pts.forEach(function (pt, i) {
    if (i < pts.length - 4) return; /* the last four points */
    var s = [pctSeries('intended send', pt.latency_ms, pt.requests, '#2f6fdf'), pctSeries('actual send', pt.latency_actual_ms, pt.requests, '#e67e22', '5 3')].filter(Boolean);
    if (!s.length) return;
    var mx = Math.max.apply(null, s.map(function (x) { return x.pts.length ? x.pts[x.pts.length - 1][0] : 1; }));
    dist.push(card('Latency by percentile — ' + pointLabel(pt), [lineChart({ series: s, x0: 0, xTicks: pctTicks(mx), xLabel: 'percentile (log scale, HdrHistogram style)', yLabel: 'latency', yFmt: fmtMs })]));
  });
  if (dist.length) sec.appendChild(el('div', { 'class': 'grid2' }, dist));
  /* latency vs load */
  if (pts.length > 1) {
    var xk = pts[0].rate != null ? 'rate' : pts[0].concurrency != null ? 'concurrency' : 'achieved_rps';
    var xs = function (pt) { return pt[xk] != null ? pt[xk] : pt.achieved_rps; };
    var order = pts.slice().sort(function (a, c) { return xs(a) - xs(c); });
    var ser = [['p50', '#2f6fdf'], ['p99', '#c0392b'], ['p99.9', '#8e44ad']].map(function (k) { return { name: k[0] + ' (intended)', color: k[1], pts: order.map(function (pt) { return [xs(pt), pt.latency_ms ? pt.latency_ms[k[0]] : null, pointLabel(pt)]; }) }; });
    ser.push({ name: 'p99 (actual send)', color: '#e67e22', dash: '5 3', pts: order.map(function (pt) { return [xs(pt), pt.latency_actual_ms ? pt.latency_actual_ms.p99 : null, pointLabel(pt)]; }) });
    var hl = [], vl = [], slos = [];
    if (b.find_max) {
      slos = parseSlo(b.find_max.slo);
      slos.forEach(function (t) { if (/^(latency|lat|e2e)$/.test(t.metric)) hl.push({ y: t.ms, label: 'SLO ' + t.metric + '.p' + t.p + ' ≤ ' + fmtMs(t.ms) }); });
      if (b.find_max.knee_rate != null && xk === 'rate') vl.push({ x: b.find_max.knee_rate, label: 'knee ' + fmtNum(b.find_max.knee_rate) + ' req/s' });
      if (b.find_max.max_concurrency != null && xk === 'concurrency') vl.push({ x: b.find_max.max_concurrency, label: 'knee ' + b.find_max.max_concurrency });
    }
    var ach = { name: 'achieved req/s', pts: order.map(function (pt) { return [xs(pt), pt.achieved_rps, pointLabel(pt)]; }), color: '#27ae60' };
    sec.appendChild(el('div', { 'class': 'grid2' }, [card('Latency vs load', [lineChart({ series: ser, xLabel: xk === 'achieved_rps' ? 'achieved req/s' : xk === 'rate' ? 'offered rate (req/s)' : 'concurrency', yLabel: 'latency', yFmt: fmtMs, hlines: hl, vlines: vl })]),
      card('Throughput vs load', [lineChart({ series: [ach], xLabel: xk, yLabel: 'req/s', vlines: vl })])]));
    if (pts[0].ttft_ms) { /* LLM: TTFT and TPOT against load, with their own SLO lines */
      var llmCharts = [['ttft_ms', 'TTFT', 'ttft'], ['tpot_ms', 'TPOT', 'tpot']].map(function (m) {
        var ms2 = [['p50', '#2f6fdf'], ['p99', '#c0392b']].map(function (k) { return { name: m[1] + ' ' + k[0], color: k[1], pts: order.map(function (pt) { return [xs(pt), pt[m[0]] ? pt[m[0]][k[0]] : null, pointLabel(pt)]; }) }; });
        var h2 = slos.filter(function (t) { return t.metric === m[2]; }).map(function (t) { return { y: t.ms, label: 'SLO ' + t.metric + '.p' + t.p + ' ≤ ' + fmtMs(t.ms) }; });
        return card(m[1] + ' vs load', [lineChart({ series: ms2, xLabel: xk, yLabel: m[1], yFmt: fmtMs, hlines: h2, vlines: vl })]);
      });
      sec.appendChild(el('div', { 'class': 'grid2' }, llmCharts));
    }
  }
  /* LLM metrics */
  var llm = [['ttft_ms', 'TTFT'], ['itl_ms', 'ITL'], ['tpot_ms', 'TPOT'], ['e2e_ms', 'end-to-end']];
  var last = pts[pts.length - 1];
  if (last && last.ttft_ms) {
    var cs = llm.map(function (m) {
      var s = pctSeries(m[1], last[m[0]], last[m[0]] && last[m[0]].n || last.requests, '#2f6fdf');
      if (!s || !s.pts.length) return null;
      return card(m[1] + ' by percentile — ' + pointLabel(last), [lineChart({ series: [s], x0: 0, xTicks: pctTicks(s.pts[s.pts.length - 1][0]), xLabel: 'percentile (log scale)', yLabel: m[1], yFmt: fmtMs })]);
    }).filter(Boolean);
    sec.appendChild(el('div', { 'class': 'grid2' }, cs));
    sec.appendChild(card('LLM throughput and goodput', [simpleTable(['point', 'output tokens/s', 'requests/s', 'goodput req/s', 'goodput fraction', 'tokens source'],
      pts.map(function (pt) { return [pointLabel(pt), fmtNum(pt.output_tokens_per_s), fmtNum(pt.requests_per_s), fmtNum(pt.goodput_rps), pt.goodput_fraction == null ? '–' : fmtNum(100 * pt.goodput_fraction, 1) + ' %', String(pt.tokens_source || '')]; }), [false, true, true, true, true, false])]));
  }
  var errRows = pts.filter(function (pt) { return pt.errors && pt.errors.total; }).map(function (pt) {
    var e = pt.errors;
    return [pointLabel(pt)].concat(['total', 'connect', 'timeout', 'reset', 'http_4xx', 'http_5xx', 'malformed', 'mismatch'].map(function (k) { return fmtNum(e[k], 0); }));
  });
  sec.appendChild(card('Errors', [errRows.length ? simpleTable(['point', 'total', 'connect', 'timeout', 'reset', '4xx', '5xx', 'malformed', 'mismatch'], errRows, [false, true, true, true, true, true, true, true, true]) : el('p', { 'class': 'mut', text: 'no failed request' })]));
  sec.appendChild(el('p', { 'class': 'mut', text: 'Latency and throughput over time: give the run\'s --hdr-log file as another input.' }));
}
/* bench --server-pid: the server's CPU samples inside the slow requests' windows against those
 * inside the fast ones' (docs/latscope-bench-server-profile.md), function by function. */
function serverProfileCard(sp) {
  var S = sp.slow || {}, Fs = sp.fast || {}, pp = function (v) { return v == null ? '–' : fmtNum(v, 1) + ' %'; };
  var sides = simpleTable(['side', 'rule', 'requests', 'server samples', 'with samples', 'mean latency', 'server CPU per request'], [
    ['slow', String(sp.slow_rule || 'p99') + ' (above ' + fmtMs(sp.slow_threshold_ms) + ')', fmtNum(S.requests, 0), fmtNum(S.samples, 0), fmtNum(S.requests_with_samples, 0), fmtMs(S.latency_mean_ms), fmtMs(S.server_cpu_ms)],
    ['fast', 'below p50 (' + fmtMs(sp.fast_threshold_ms) + ')', fmtNum(Fs.requests, 0), fmtNum(Fs.samples, 0), fmtNum(Fs.requests_with_samples, 0), fmtMs(Fs.latency_mean_ms), fmtMs(Fs.server_cpu_ms)]],
    [false, false, true, true, true, true, true], 'srvprof-sides');
  var note = 'pid ' + sp.pid + ', ' + fmtNum(sp.samples, 0) + ' samples at ' + fmtNum(sp.freq_hz, 0) + ' Hz on ' + String(sp.clock) + ', ' + fmtNum(sp.samples_in_windows, 0) + ' in a request\'s window, ' +
    fmtNum(sp.ambiguous_pct, 1) + ' % of those in more than one (concurrent requests: attributed by time window only)';
  var kids = [el('p', { 'class': 'mut', text: note }), sides];
  var fs = sp.functions || [];
  if (sp.comparison !== 'ok') kids.push(el('p', { 'class': 'mut srvprof-none', text: 'no comparison: ' + String(sp.comparison) }));
  else if (fs.length) {
    var col = function (f) { return f.verdict === 'larger share' ? '#c0392b' : f.verdict === 'smaller share' ? '#27ae60' : '#95a5a6'; };
    kids.push(signedBars(fs.slice(0, 15).map(function (f) { return { label: f.name, v: f.change_pct_points, color: col(f), tip: f.verdict + ', ' + pp(f.total_pct_fast) + ' → ' + pp(f.total_pct_slow) }; }), function (v) { return fmtSigned(v, 1) + ' pp'; }));
    kids.push(simpleTable(['function', 'share, fast', 'share, slow', 'Δ', 'interval of Δ', 'self, fast', 'self, slow', 'verdict'], fs.map(function (f) {
      return [f.name, pp(f.total_pct_fast), pp(f.total_pct_slow), fmtSigned(f.change_pct_points, 1) + ' pp', f.ci_lo_pct_points == null ? '–' : '[' + fmtSigned(f.ci_lo_pct_points, 1) + ', ' + fmtSigned(f.ci_hi_pct_points, 1) + '] pp', pp(f.self_pct_fast), pp(f.self_pct_slow), f.verdict];
    }), [false, true, true, true, true, true, true, false], 'srvprof-functions'));
  }
  return card('Server code of the slow requests (bench --server-pid)', kids);
}

function hlogPage(p, sec) {
  var tags = p.tags || [];
  sec.appendChild(el('div', { 'class': 'kpis', style: 'margin-bottom:14px' }, [kpi('tags', String(tags.length), 'tags'), kpi('intervals', String(p.intervals), 'intervals')]));
  /* group tags by their prefix: lat.sched + lat.send, ttft.sched + ttft.send, ... */
  var groups = {};
  tags.forEach(function (t) { var g = t.tag.split('.')[0] || '(untagged)'; (groups[g] = groups[g] || []).push(t); });
  var cards = [];
  Object.keys(groups).forEach(function (g) {
    var s = groups[g].map(function (t, i) {
      var nm = /\.sched$/.test(t.tag) ? 'intended send (' + t.tag + ')' : /\.send$/.test(t.tag) ? 'actual send (' + t.tag + ')' : t.tag || '(untagged)';
      var pts = t.pct.map(function (q) { return [pctX(q[0]), q[1], fmtNum(q[0], 4) + '%']; }).filter(function (q) { return isFinite(q[0]); });
      var lastx = pts.length ? pts[pts.length - 1][0] : 0;
      pts.push([Math.max(lastx, t.total > 1 ? Math.log10(t.total) : 1), t.max_ms, 'max']);
      return { name: nm, color: PALETTE[i % PALETTE.length], dash: i ? '5 3' : null, pts: pts };
    });
    var mx = 0; s.forEach(function (x) { x.pts.forEach(function (q) { if (q[0] > mx) mx = q[0]; }); });
    cards.push(card(g + ' by percentile (whole run, ' + groups[g].map(function (t) { return fmtNum(t.total, 0); }).join(' / ') + ' values)', [lineChart({ series: s, x0: 0, xTicks: pctTicks(mx), xLabel: 'percentile (log scale, HdrHistogram style)', yLabel: 'ms', yFmt: fmtMs })]));
  });
  sec.appendChild(el('div', { 'class': 'grid2' }, cards));
  var ot = [];
  tags.forEach(function (t) {
    if (!t.iv.length) return;
    var x = function (r) { return r[0] + r[1] / 2; };
    ot.push(card(t.tag + ' over time', [lineChart({ series: [{ name: 'p50', color: '#2f6fdf', pts: t.iv.map(function (r) { return [x(r), r[3]]; }) }, { name: 'p99', color: '#c0392b', pts: t.iv.map(function (r) { return [x(r), r[5]]; }) }, { name: 'max', color: '#8e44ad', dash: '4 3', pts: t.iv.map(function (r) { return [x(r), r[6]]; }) }], xLabel: 'time (s)', yLabel: 'ms', yFmt: fmtMs })]));
    ot.push(card(t.tag + ' throughput over time', [lineChart({ series: [{ name: 'values/s', color: '#27ae60', pts: t.iv.map(function (r) { return [x(r), r[1] > 0 ? r[2] / r[1] : null]; }) }], xLabel: 'time (s)', yLabel: 'per second' })]));
  });
  sec.appendChild(el('div', { 'class': 'grid2' }, ot));
}

/* ---- compare pages (two or more inputs of a kind) ---- */
function pctDelta(a, b) { return a > 0 && b != null ? (b >= a ? '+' : '') + fmtNum(100 * (b - a) / a, 1) + ' %' : '–'; }
function compareBench(pages, sec) {
  var base = null, rows = [], series = [];
  pages.forEach(function (p, i) {
    var pts = p.bench.points || [], pt = pts[pts.length - 1];
    if (!pt || !pt.latency_ms) return;
    var L = pt.latency_ms;
    if (!base) base = L;
    rows.push([p.title, pointLabel(pt), fmtNum(pt.achieved_rps), fmtMs(L.p50), fmtMs(L.p99), fmtMs(L['p99.9']), fmtMs(L.max), pctDelta(base.p50, L.p50), pctDelta(base.p99, L.p99)]);
    var s = pctSeries(p.title, L, pt.requests, PALETTE[i % PALETTE.length], i ? '5 3' : null);
    if (s) series.push(s);
  });
  sec.appendChild(card('Last load point of each run (Δ against the first)', [simpleTable(['run', 'point', 'req/s', 'p50', 'p99', 'p99.9', 'max', 'Δ p50', 'Δ p99'], rows, [false, false, true, true, true, true, true, true, true])]));
  var mx = 0; series.forEach(function (s) { s.pts.forEach(function (q) { if (q[0] > mx) mx = q[0]; }); });
  if (series.length) sec.appendChild(el('div', { 'class': 'grid2' }, [card('Latency by percentile (intended send), last point of each run', [lineChart({ series: series, x0: 0, xTicks: pctTicks(mx), xLabel: 'percentile (log scale)', yLabel: 'latency', yFmt: fmtMs })])]));
}
function compareTraces(pages, sec) {
  var A = pages[0], B = pages[1];
  var ta = (A.analysis.whole || {}).temporal || {}, tb = (B.analysis.whole || {}).temporal || {};
  var ra = A.analysis.ranks[0] || {}, rb = B.analysis.ranks[0] || {};
  function stepMean(r) { var s = r.steps || []; return s.length ? s.reduce(function (x, y) { return x + y.dur_us; }, 0) / s.length : null; }
  var gpu = ta.kernel_time_us != null || tb.kernel_time_us != null; /* GPU rows only where a side has GPU activity */
  var sum = [['mean step', fmtUs(stepMean(ra)), fmtUs(stepMean(rb)), pctDelta(stepMean(ra), stepMean(rb))]];
  if (gpu) sum.push(['GPU kernel time', fmtUs(ta.kernel_time_us), fmtUs(tb.kernel_time_us), pctDelta(ta.kernel_time_us, tb.kernel_time_us)],
    ['GPU idle %', fmtNum(ta.idle_pct, 2), fmtNum(tb.idle_pct, 2), ''],
    ['GPU compute %', fmtNum(ta.compute_pct, 2), fmtNum(tb.compute_pct, 2), '']);
  sum.push(['findings', String(((A.doctor || {}).findings || []).length), String(((B.doctor || {}).findings || []).length), '']);
  sec.appendChild(card(A.title + ' → ' + B.title, [simpleTable(['', A.title, B.title, 'Δ'], sum, [false, true, true, true])]));
  /* names ranked by change: kernels (sum_us), else CPU ops by self time */
  function ranked(key, val, what, col) {
    var m = {};
    (ra[key] || []).forEach(function (k) { if (!k.others) (m[k.name] = m[k.name] || { a: 0, b: 0 }).a = k[val]; });
    (rb[key] || []).forEach(function (k) { if (!k.others) (m[k.name] = m[k.name] || { a: 0, b: 0 }).b = k[val]; });
    var rows = Object.keys(m).map(function (n) { return [n, m[n].a, m[n].b, m[n].b - m[n].a]; });
    if (!rows.length) return false;
    rows.sort(function (x, y) { return Math.abs(y[3]) - Math.abs(x[3]); });
    sec.appendChild(card(what + ' ranked by change of ' + col + ' (among each trace\'s top ' + what.toLowerCase() + '; absent = 0)', [simpleTable([what.toLowerCase().replace(/s$/, ''), A.title, B.title, 'Δ'],
      rows.map(function (r) { return [r[0], fmtUs(r[1]), fmtUs(r[2]), (r[3] >= 0 ? '+' : '') + fmtUs(r[3])]; }), [false, true, true, true])]));
    return true;
  }
  if (!ranked('top_kernels', 'sum_us', 'Kernels', 'total time')) ranked('top_ops_self', 'self_us', 'Operators', 'self time');
}

/* ---- bench --records pages: completions, errors and tokens per second ---- */
function recordsPage(p, sec) {
  var cls = p.error_classes || {};
  sec.appendChild(el('div', { 'class': 'kpis', style: 'margin-bottom:14px' }, [kpi('requests', fmtNum(p.requests, 0), 'requests'), kpi('errors', fmtNum(p.errors, 0), 'errors'),
    kpi('error rate', p.requests ? fmtNum(100 * p.errors / p.requests, 2) + ' %' : '–', 'error_rate'), kpi('interrupted', fmtNum(p.interrupted, 0), 'interrupted'), kpi('load points', String((p.points || []).length), 'rpoints')]));
  var ok = [], er = [], tk = [];
  (p.points || []).forEach(function (pt, i) {
    var name = 'point ' + pt.point, col = PALETTE[i % PALETTE.length];
    ok.push({ name: name, color: col, pts: pt.bins.map(function (b) { return [b[0], b[1], b[0] + ' s']; }) });
    er.push({ name: name, color: col, pts: pt.bins.map(function (b) { return [b[0], b[2], b[0] + ' s']; }) });
    if (p.llm) tk.push({ name: name, color: col, pts: pt.bins.map(function (b) { return [b[0], b[3], b[0] + ' s']; }) });
  });
  var cards = [card('Completed requests per second', [lineChart({ series: ok, xLabel: 'second (of completion)', yLabel: 'req/s' })]),
    card('Errors per second', [lineChart({ series: er, xLabel: 'second (of completion)', yLabel: 'errors/s' })])];
  if (p.llm) cards.push(card('Output tokens per second', [lineChart({ series: tk, xLabel: 'second (of completion)', yLabel: 'tok/s' })]));
  var names = Object.keys(cls);
  if (names.length) cards.push(card('Error classes', [simpleTable(['class', 'requests'], names.map(function (n) { return [n, fmtNum(cls[n], 0)]; }), [false, true], 'error-classes')]));
  sec.appendChild(el('div', { 'class': 'grid2' }, cards));
}

/* ---- diff pages: the embedded `latscope diff --format json` document (D.diffs) ---- */
var VERDICT_COLORS = { REGRESSION: '#c0392b', improvement: '#27ae60', same: '#7f8c8d', noise: '#95a5a6' };
function verdictColor(v) { return VERDICT_COLORS[v] || '#7f8c8d'; }
function fmtSigned(v, d) { return v == null ? '–' : (v >= 0 ? '+' : '') + fmtNum(v, d); }
function diffRowsTable(rows) {
  return simpleTable(['section', 'metric', 'unit', 'before', 'after', 'Δ', 'Δ %', 'interval of Δ %', 'verdict'],
    rows.map(function (r) {
      return [r.section, r.label, r.unit, fmtNum(r.before, 3), fmtNum(r.after, 3), fmtSigned(r.delta, 3), r.delta_pct == null ? '–' : fmtSigned(r.delta_pct, 2) + ' %',
        r.ci_pct ? '[' + fmtSigned(r.ci_pct[0], 2) + ', ' + fmtSigned(r.ci_pct[1], 2) + '] %' : (r.why_no_interval || '–'), r.verdict + (r.invalid_point ? ' (INVALID point)' : '')];
    }), [false, false, false, true, true, true, true, true, false], 'diff-rows');
}
/* Horizontal bars of signed values, ranked: items [{label, v, color, tip}]. */
function signedBars(items, fmt) {
  var w = 1400, lw = 460, rh = 16, gap = 4, h = items.length * (rh + gap) + 20, max = 0;
  items.forEach(function (it) { if (Math.abs(it.v) > max) max = Math.abs(it.v); });
  if (!(max > 0)) max = 1;
  var mid = lw + (w - lw - 10) / 2, half = (w - lw - 10) / 2;
  var svg = sv('svg', { width: '100%', viewBox: '0 0 ' + w + ' ' + h, preserveAspectRatio: 'xMinYMin meet', role: 'img', 'class': 'ranked' });
  svg.appendChild(sv('line', { x1: mid, x2: mid, y1: 0, y2: h - 16, stroke: '#999' }));
  items.forEach(function (it, i) {
    var y = i * (rh + gap), bw = half * Math.abs(it.v) / max;
    var lab = it.label.length > 62 ? it.label.slice(0, 60) + '…' : it.label;
    svg.appendChild(sv('text', { x: lw - 6, y: y + rh - 4, 'text-anchor': 'end', text: lab }));
    var r = sv('rect', { x: it.v >= 0 ? mid : mid - bw, y: y, width: Math.max(bw, 0.5), height: rh, fill: it.color });
    r.appendChild(sv('title', { text: it.label + ': ' + fmt(it.v) + (it.tip ? ' · ' + it.tip : '') }));
    svg.appendChild(r);
    svg.appendChild(sv('text', { x: it.v >= 0 ? mid - 4 : mid + 4, y: y + rh - 4, 'text-anchor': it.v >= 0 ? 'end' : 'start', text: fmt(it.v), fill: '#555' }));
  });
  svg.appendChild(sv('text', { x: lw, y: h - 4, text: '−' + fmt(max).replace(/^[+-]/, '') }));
  svg.appendChild(sv('text', { x: w - 10, y: h - 4, 'text-anchor': 'end', text: '+' + fmt(max).replace(/^[+-]/, '') }));
  return svg;
}
/* Percentile curves of a bench or hlog page: [{name, pts}] (intended-send latency per point, or per tag). */
function pageCurves(p) {
  var out = [];
  if (p.kind === 'bench') (p.bench.points || []).forEach(function (pt) {
    var s = pctSeries(pointLabel(pt), pt.latency_ms || (pt.llm || {}).e2e_ms, pt.requests, null, null);
    if (s && s.pts.length) out.push(s);
  });
  else if (p.kind === 'hlog') (p.tags || []).forEach(function (t) {
    out.push({ name: t.tag, pts: (t.pct || []).map(function (q) { return [q[0] >= 100 ? Math.log10(Math.max(t.total, 10)) : pctX(q[0]), q[1], fmtNum(q[0], 4) + ' %']; }) });
  });
  return out;
}
function diffPage(d, pages, sec) {
  var A = pages[d.before_page] || {}, B = pages[d.after_page] || {}, x = d.diff;
  sec.appendChild(el('h2', { text: 'diff: ' + (A.title || '?') + ' → ' + (B.title || '?') }));
  if (!x) { sec.appendChild(el('p', { 'class': 'mut', text: 'latscope diff cannot compare these inputs: ' + (d.error || 'unknown reason') })); return; }
  var rows = x.rows || [];
  var nreg = rows.filter(function (r) { return r.verdict === 'REGRESSION'; }).length, nimp = rows.filter(function (r) { return r.verdict === 'improvement'; }).length;
  /* CPU samples (latscope diff's cpu_functions): the comparison a CPU-sample trace pair has */
  var cf = x.cpu_functions || [], cfCh = cf.filter(function (f) { return f.verdict === 'larger share' || f.verdict === 'smaller share'; });
  var dk = [];
  if (rows.length || !cf.length) dk.push(kpi('metrics compared', String(rows.length), 'diff-rows'), kpi('regressions', String(nreg), 'diff-regressions'), kpi('improvements', String(nimp), 'diff-improvements'));
  if (cf.length) dk.push(kpi('CPU functions compared', fmtNum(cf.length, 0), 'diff-cpu-functions'), kpi('with a changed share', fmtNum(cfCh.length, 0), 'diff-cpu-changed'),
    kpi('CPU samples before / after', fmtNum(x.cpu_samples_before, 0) + ' / ' + fmtNum(x.cpu_samples_after, 0), 'diff-cpu-samples'));
  dk.push(kpi('confidence', fmtNum(100 * x.confidence, 0) + ' %', 'diff-conf'));
  if (x.kind === 'trace' && (x.steps_before || x.steps_after)) dk.push(kpi('steps before / after', x.steps_before + ' / ' + x.steps_after, 'diff-steps'));
  sec.appendChild(el('div', { 'class': 'kpis' }, dk));
  (x.warnings || []).forEach(function (w) { sec.appendChild(el('p', { 'class': 'mut', text: 'warning: ' + w })); });
  /* side-by-side distributions */
  if (x.kind === 'bench') {
    var ca = pageCurves(A), cb = pageCurves(B), mx = 0;
    ca.concat(cb).forEach(function (s) { s.pts.forEach(function (q) { if (q[0] > mx) mx = q[0]; }); });
    var ymax = 0; ca.concat(cb).forEach(function (s) { s.pts.forEach(function (q) { if (q[1] > ymax) ymax = q[1]; }); });
    function chart(cs, t) { return card(t, [lineChart({ series: cs.map(function (s, i) { return { name: s.name, pts: s.pts, color: PALETTE[i % PALETTE.length] }; }).concat([{ name: '', pts: [[0, ymax]], color: 'transparent' }]), x0: 0, xTicks: pctTicks(mx), xLabel: 'percentile (log scale)', yLabel: 'latency', yFmt: fmtMs })]); }
    if (ca.length || cb.length) sec.appendChild(el('div', { 'class': 'grid2' }, [chart(ca, 'before: ' + A.title), chart(cb, 'after: ' + B.title)]));
  } else {
    var sa = ((A.analysis || {}).ranks || [])[0] || {}, sb = ((B.analysis || {}).ranks || [])[0] || {};
    var st = [{ name: 'before', pts: (sa.steps || []).map(function (q, i) { return [i, q.dur_us / 1000, String(q.step)]; }) }, { name: 'after', pts: (sb.steps || []).map(function (q, i) { return [i, q.dur_us / 1000, String(q.step)]; }), dash: '5 3' }];
    var ta = ((A.analysis || {}).whole || {}).temporal || {}, tb = ((B.analysis || {}).whole || {}).temporal || {};
    var kids = [];
    if (st[0].pts.length || st[1].pts.length) kids.push(card('Step durations, before and after (first rank)', [lineChart({ series: st, xLabel: 'step (in order)', yLabel: 'duration', yFmt: fmtMs })]));
    if (ta.compute_us != null || tb.compute_us != null) kids.push(card('Temporal breakdown (GPU, whole trace)', [stackedBars([{ label: 'before', parts: [ta.compute_us, ta.non_compute_us, ta.idle_us] }, { label: 'after', parts: [tb.compute_us, tb.non_compute_us, tb.idle_us] }],
      ['compute', 'non-compute', 'idle'], ['#2f6fdf', '#e67e22', '#bdc3c7'], fmtUs, { rowh: 22 })]));
    if (kids.length) sec.appendChild(el('div', { 'class': 'grid2' }, kids));
  }
  if (cf.length) {
    var top = cfCh.slice().sort(function (a, b) { return Math.abs(b.total_pct_after - b.total_pct_before) - Math.abs(a.total_pct_after - a.total_pct_before); }).slice(0, 25);
    var pp = function (v) { return fmtNum(v, 2) + ' %'; };
    sec.appendChild(card('CPU functions by change of total share of the on-CPU samples (' + fmtNum(cfCh.length, 0) + ' of ' + fmtNum(cf.length, 0) + ' changed at ' + fmtNum(100 * x.confidence, 0) + ' % confidence)', [
      top.length ? signedBars(top.map(function (f) { var dv = f.total_pct_after - f.total_pct_before; return { label: f.function, v: dv, color: dv > 0 ? '#c0392b' : '#27ae60', tip: f.verdict }; }), function (v) { return fmtSigned(v, 2) + ' pp'; }) : el('p', { 'class': 'mut', text: 'no function changed its share significantly' }),
      simpleTable(['function', 'self before', 'self after', 'total before', 'total after', 'Δ total', 'interval of Δ total', 'verdict'], (top.length ? top : cf.slice(0, 25)).map(function (f) {
        var ci = f.ci_total_pct_points;
        return [f.function, pp(f.self_pct_before), pp(f.self_pct_after), pp(f.total_pct_before), pp(f.total_pct_after), fmtSigned(f.total_pct_after - f.total_pct_before, 2) + ' pp', ci ? '[' + fmtSigned(ci[0], 2) + ', ' + fmtSigned(ci[1], 2) + '] pp' : '–', f.verdict];
      }), [false, true, true, true, true, true, true, false], 'diff-cpu')]));
  }
  /* ranked contributors */
  if (x.kind === 'trace') {
    var ops = (x.ops || []).filter(function (o) { return o.diff_duration_us !== 0; }), n = 15;
    var inc = ops.filter(function (o) { return o.diff_duration_us > 0; }).slice(0, n), dec = ops.filter(function (o) { return o.diff_duration_us < 0; }).slice(-n).reverse();
    var items = inc.concat(dec).map(function (o) { return { label: o.name + ' (' + o.device.toUpperCase() + ')', v: o.diff_duration_us, color: o.diff_duration_us > 0 ? '#c0392b' : '#27ae60', tip: o.status + ', calls ' + o.control_counts + ' → ' + o.test_counts + (o.share_of_step_delta != null ? ', ' + fmtNum(100 * o.share_of_step_delta, 1) + ' % of the step change' : '') }; });
    if (items.length) sec.appendChild(card('Ranked contributors: names by change of total time (largest increases, then largest decreases)', [signedBars(items, function (v) { return fmtSigned(v / 1000, 3) + ' ms'; }),
      simpleTable(['name', 'device', 'calls before', 'calls after', 'total before', 'total after', 'Δ total', 'Δ / Δ step', 'status'], inc.concat(dec).map(function (o) {
        return [o.name, o.device, fmtNum(o.control_counts, 0), fmtNum(o.test_counts, 0), fmtUs(o.control_total_duration_us), fmtUs(o.test_total_duration_us), fmtSigned(o.diff_duration_us / 1000, 3) + ' ms', o.share_of_step_delta == null ? '–' : fmtSigned(o.share_of_step_delta, 2) + 'x', o.status]; }), [false, false, true, true, true, true, true, true, false], 'diff-ops')]));
    if ((x.findings || []).length) sec.appendChild(card('Doctor findings before and after', [simpleTable(['status', 'finding', 'rank', 'title', 'saving before', 'saving after'], x.findings.map(function (f) {
      return [f.status, f.id, String(f.rank), f.title, f.before ? fmtNum(f.before.saving_pct, 1) + ' % (' + f.before.severity + ')' : '–', f.after ? fmtNum(f.after.saving_pct, 1) + ' % (' + f.after.severity + ')' : '–']; }), [false, false, true, false, true, true], 'diff-findings')]));
  } else {
    var sig = rows.filter(function (r) { return (r.verdict === 'REGRESSION' || r.verdict === 'improvement') && r.delta_pct != null; });
    sig.sort(function (a, b) { return Math.abs(b.delta_pct) - Math.abs(a.delta_pct); });
    if (sig.length) sec.appendChild(card('Ranked contributors: significant changes by size (worse in red)', [signedBars(sig.slice(0, 25).map(function (r) { return { label: r.section + ' · ' + r.label, v: r.delta_pct, color: verdictColor(r.verdict), tip: r.verdict + ', ' + fmtNum(r.before, 3) + ' → ' + fmtNum(r.after, 3) + ' ' + r.unit }; }), function (v) { return fmtSigned(v, 1) + ' %'; })]));
    else sec.appendChild(el('p', { 'class': 'mut', text: 'no metric changed significantly (at ' + fmtNum(100 * x.confidence, 0) + ' % confidence)' }));
  }
  if (rows.length) sec.appendChild(card('Every compared metric (latscope diff rows)', [diffRowsTable(rows)]));
}

/* ---- main ---- */
function main() {
  var p0 = now();
  var D = JSON.parse(document.getElementById('report-data').textContent);
  PARSE_MS = now() - p0;
  document.getElementById('meta').textContent = (D.tool || 'latscope report') + ' ' + (D.version || '') + ' · ' + (D.pages || []).length + ' page(s)';
  var nav = document.getElementById('nav'), mainEl = document.getElementById('main');
  mainEl.textContent = '';
  var shows = [];
  (D.pages || []).forEach(function (p, i) {
    var sec = el('section', { 'class': 'page', id: 'page-' + i, 'data-kind': p.kind });
    sec.appendChild(el('p', { 'class': 'mut', text: p.kind + ': ' + p.path }));
    var show = null;
    try { /* one page that cannot be drawn must not take the others with it */
      if (p.kind === 'trace') show = tracePage(p, sec, i);
      else if (p.kind === 'bench') benchPage(p, sec);
      else if (p.kind === 'hlog') hlogPage(p, sec);
      else if (p.kind === 'records') recordsPage(p, sec);
    } catch (e) {
      errors.push(String(e && e.message || e));
      sec.appendChild(el('p', { 'class': 'mut', text: 'this page could not be drawn: ' + String(e && e.message || e) }));
    }
    mainEl.appendChild(sec);
    var btn = el('button', { text: p.title || p.path, onclick: function () { activate(i); } });
    nav.appendChild(btn);
    shows.push({ sec: sec, btn: btn, show: show });
  });
  ['bench', 'trace'].forEach(function (kind) {
    var ps = (D.pages || []).filter(function (p) { return p.kind === kind; });
    if (ps.length < 2) return;
    var sec = el('section', { 'class': 'page', id: 'page-compare-' + kind, 'data-kind': 'compare' });
    sec.appendChild(el('p', { 'class': 'mut', text: 'compare ' + ps.length + ' ' + kind + ' inputs: ' + ps.map(function (p) { return p.title; }).join(', ') }));
    if (kind === 'bench') compareBench(ps, sec); else compareTraces(ps, sec);
    mainEl.appendChild(sec);
    var k = shows.length;
    var btn = el('button', { text: 'compare ' + kind + 'es'.slice(kind === 'bench' ? 0 : 1), onclick: function () { activate(k); } });
    nav.appendChild(btn);
    shows.push({ sec: sec, btn: btn, show: null });
  });
  (D.diffs || []).forEach(function (d, di) {
    var A = (D.pages || [])[d.before_page] || {}, B = (D.pages || [])[d.after_page] || {};
    var sec = el('section', { 'class': 'page', id: 'page-diff-' + di, 'data-kind': 'diff' });
    sec.appendChild(el('p', { 'class': 'mut', text: 'latscope diff ' + (A.path || '?') + ' ' + (B.path || '?') }));
    try { diffPage(d, D.pages || [], sec); } catch (e) {
      errors.push(String(e && e.message || e));
      sec.appendChild(el('p', { 'class': 'mut', text: 'this page could not be drawn: ' + String(e && e.message || e) }));
    }
    mainEl.appendChild(sec);
    var k = shows.length;
    var btn = el('button', { text: 'diff ' + (A.title || '?') + ' → ' + (B.title || '?'), onclick: function () { activate(k); } });
    nav.appendChild(btn);
    shows.push({ sec: sec, btn: btn, show: null });
  });
  function activate(i) {
    shows.forEach(function (s, k) { s.sec.classList.toggle('on', k === i); s.btn.classList.toggle('on', k === i); });
    if (shows[i] && shows[i].show) shows[i].show();
  }
  var want = /page=(\d+)/.exec(location.hash || '');
  if (shows.length) activate(want && +want[1] < shows.length ? +want[1] : 0);
  var t = now() - T0, extra = '';
  /* #page=N&zoomtest: zoom the first timeline in 16 steps around its middle and time each
   * frame (docs/latscope-report.md measures the LOD with it) */
  if (/zoomtest/.test(location.hash || '') && TIMELINES.length) {
    var tl = TIMELINES[0], fr = [];
    for (var z = 0; z < 16; z++) {
      var f0 = now();
      tl.zoom(1 / 2.5, tl.span * 0.37);
      fr.push((tl.level() < 0 ? 'raw' : 'L' + tl.level()) + ':' + tl.lastDrawn + ':' + (now() - f0).toFixed(1) + 'ms');
    }
    extra = ' · zoomtest ' + fr.join(' ');
  }
  /* #flowtest: select the first linked GPU row of the first timeline, zoomed to it (t601) */
  if (/flowtest/.test(location.hash || '') && TIMELINES.length) {
    var ft = TIMELINES[0];
    ft.lanes.some(function (L, li) {
      if (!L.gpu || !L.corr) return false;
      for (var k = 0; k < L.n; k++) if (L.corr[k] > 0 && ft.partner({ lane: li, i: k })) {
        var P = ft.partner({ lane: li, i: k }), t0 = ft.lanes[P.lane].ts[P.i];
        ft.showRange(t0, L.ts[k] + L.dur[k] - t0);
        ft.select({ lane: li, i: k });
        return true;
      }
      return false;
    });
    extra += ' · flowtest ' + ft.selBox.textContent.replace(/\n/g, ' | ');
  }
  /* #rowtest: each lane's rows, deepest nesting and events not drawn at the whole view (t810) */
  if (/rowtest/.test(location.hash || '') && TIMELINES.length) {
    var rt = TIMELINES[0];
    extra += ' · rowtest ' + rt.lanes.map(function (L) { var md = 0; for (var i = 0; i < L.n; i++) if (L.depth[i] > md) md = L.depth[i]; return L.label + ' rows ' + L.rows + ' depth ' + md; }).join(', ') + ' | drawn ' + rt.lastDrawn + ' hidden ' + rt.lastHidden;
  }
  /* #findtest: click the first table name that links to the timeline (t601) */
  if (/findtest/.test(location.hash || '') && TIMELINES.length) {
    var a = document.querySelector('a.jump[title]');
    if (a) { a.click(); extra += ' · findtest ' + a.textContent + ' => ' + TIMELINES[0].selBox.textContent.split('\n')[0]; }
  }
  if (!errors.length) {
    document.getElementById('selfcheck').textContent = 'self-check ok: ' + shows.length + ' page(s) drawn in ' + t.toFixed(0) + ' ms (JSON parse ' + PARSE_MS.toFixed(0) + ' ms' + (TL_MS.build != null ? ', timeline decode ' + TL_MS.build.toFixed(0) + ' ms, first frame ' + TL_MS.draw.toFixed(0) + ' ms' : '') + ')' + extra;
    document.body.setAttribute('data-status', 'ok');
  }
}
function now() { return window.performance ? performance.now() : new Date().getTime(); }
var T0 = now(), PARSE_MS = 0, TIMELINES = [], TL_MS = {};
try { main(); } catch (e) {
  errors.push(String(e && e.stack || e));
  document.getElementById('selfcheck').textContent = 'script error: ' + errors.join('; ');
  document.body.setAttribute('data-status', 'error');
}
})();
