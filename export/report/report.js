// The report's script: it reads the aggregates embedded as JSON (see
// document.go for their layout) and draws the views, the goroutine
// groups' timeline and the tables. Everything is computed from per-node,
// per-class, per-time-slice cells, so a view or a time range is one pass
// over the cells and the nodes; a click that zooms only redraws the canvas.
(function () {
  'use strict';
  const t0 = performance.now();
  const D = JSON.parse(document.getElementById('tachyon-data').textContent);
  const M = D.meta, S = D.strings, NS = M.slices;
  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text != null) e.textContent = text; return e; };
  const fmtN = (n) => Math.round(n).toLocaleString('en-US');
  const pct = (n, d) => d > 0 ? (100 * n / d).toFixed(n === d ? 0 : n / d >= 0.1 ? 1 : 2) + '%' : '0%';
  const fmtUs = (us) => { const a = Math.abs(us); return a >= 1e6 ? (us / 1e6).toFixed(a >= 1e7 ? 1 : 2) + ' s' : a >= 1e3 ? (us / 1e3).toFixed(1) + ' ms' : Math.round(us) + ' µs'; };
  const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // short drops a function's package path: github.com/a/b.F → b.F.
  const short = (n) => n.startsWith('[') ? n : n.slice(n.lastIndexOf('/') + 1);
  const stateVar = (i) => getComputedStyle(document.documentElement).getPropertyValue('--' + M.stateNames[i]).trim();
  const stateColors = M.stateNames.map((_, i) => stateVar(i));
  const VIEW_CLASSES = M.viewClasses; // per view, a bit per class (profile.go's View.Classes)
  const BLOCKED = 2, SYSCALL = 4; // classes OffCPU and InSyscall (profile.go)
  const ALL = M.views.length - 1; // the view of all samples shown
  const runtimeGroup = D.groups.find((g) => g.runtime); // the runtime's system goroutines, left out of the tree

  // State of the page.
  const st = { view: M.defaultView, gran: 'fn', lo: 0, hi: NS, zoom: 0, query: '', matcher: null };
  // changed tells the page's other scripts that the state changed: urlstate.js
  // keeps it in the URL's fragment.
  const changed = () => { if (api && api.onChange) api.onChange(); };
  let api = null; // the page's API, set once it is drawn

  // Tooltip.
  const tip = $('tooltip');
  function showTip(ev, text) {
    tip.textContent = text; tip.hidden = false;
    const w = tip.offsetWidth, h = tip.offsetHeight;
    tip.style.left = Math.min(ev.clientX + 14, innerWidth - w - 8) + 'px';
    tip.style.top = (ev.clientY + 16 + h > innerHeight ? ev.clientY - h - 10 : ev.clientY + 16) + 'px';
  }
  const hideTip = () => { tip.hidden = true; };

  // ---- Trees. The line-level tree as embedded; the function-level tree
  // merges siblings of one function. Both list parents before children.
  const NL = D.tree.length / 3;
  const lFrame = new Int32Array(NL), lParent = new Int32Array(NL), cStart = new Int32Array(NL + 1);
  {
    const stack = []; // [node, children left]
    let c = 0;
    for (let i = 0; i < NL; i++) {
      lFrame[i] = D.tree[3 * i]; cStart[i] = c; c += D.tree[3 * i + 2];
      while (stack.length && stack[stack.length - 1][1] === 0) stack.pop();
      if (stack.length) { const top = stack[stack.length - 1]; lParent[i] = top[0]; top[1]--; } else lParent[i] = -1;
      stack.push([i, D.tree[3 * i + 1]]);
    }
    cStart[NL] = c;
  }
  const frName = (f) => f === -1 ? 'all' : f === -2 ? '(smaller frames)' : S[D.frames[4 * f]];
  const frFile = (f) => f < 0 ? '' : S[D.frames[4 * f + 1]];
  const frLine = (f) => f < 0 ? 0 : D.frames[4 * f + 2];
  const frFn = (f) => f < 0 ? f : D.frames[4 * f + 3];

  function makeTree(parent, frame, map) {
    const n = parent.length, kidsStart = new Int32Array(n + 1), kids = new Int32Array(Math.max(n - 1, 0));
    for (let i = 1; i < n; i++) kidsStart[parent[i] + 1]++;
    for (let i = 0; i < n; i++) kidsStart[i + 1] += kidsStart[i];
    const fill = kidsStart.slice(0, n);
    for (let i = 1; i < n; i++) kids[fill[parent[i]]++] = i;
    const depth = new Int32Array(n);
    for (let i = 1; i < n; i++) depth[i] = depth[parent[i]] + 1;
    const names = new Array(n), files = new Array(n), keys = new Array(n);
    for (let i = 0; i < n; i++) {
      const f = frame[i];
      names[i] = frName(f); files[i] = frFile(f);
      keys[i] = map === null ? f : frFn(f); // what the functions table groups by
    }
    return { n, parent, frame, map, kidsStart, kids, depth, names, files, keys };
  }
  const lineTree = makeTree(lParent, lFrame, null);
  const fnTree = (() => {
    const map = new Int32Array(NL), parent = [-1], frame = [-1], ids = new Map();
    for (let i = 1; i < NL; i++) {
      const p = map[lParent[i]], f = lFrame[i], k = p + ':' + frFn(f);
      let id = ids.get(k);
      if (id === undefined) { id = parent.length; ids.set(k, id); parent.push(p); frame.push(f); }
      map[i] = id;
    }
    return makeTree(Int32Array.from(parent), Int32Array.from(frame), map);
  })();
  let T = fnTree;

  // ---- Aggregation for the view and the range: self and total per node,
  // then the layout (children by total, largest first).
  let self, total, xs, order, endPos, pos;
  function compute() {
    const n = T.n, mask = VIEW_CLASSES[st.view], lo = st.lo, hi = st.hi, C = D.cells, map = T.map;
    self = new Float64Array(n);
    for (let i = 0; i < NL; i++) {
      const t = map === null ? i : map[i];
      for (let c = cStart[i], e = cStart[i + 1]; c < e; c++) {
        const k = C[2 * c], cls = (k / NS) | 0, sl = k - cls * NS;
        if ((mask >> cls) & 1 && sl >= lo && sl < hi) self[t] += C[2 * c + 1];
      }
    }
    total = Float64Array.from(self);
    for (let i = n - 1; i > 0; i--) total[T.parent[i]] += total[i];
    // Preorder layout.
    xs = new Float64Array(n); order = new Int32Array(n); endPos = new Int32Array(n); pos = new Int32Array(n).fill(-1);
    let m = 0;
    const stack = [0];
    xs[0] = 0;
    const seg = [];
    while (stack.length) {
      const i = stack.pop();
      if (i < 0) { endPos[~i] = m; continue; }
      pos[i] = m; order[m++] = i;
      stack.push(~i);
      seg.length = 0;
      for (let k = T.kidsStart[i]; k < T.kidsStart[i + 1]; k++) if (total[T.kids[k]] > 0) seg.push(T.kids[k]);
      seg.sort((a, b) => total[b] - total[a] || a - b);
      let x = xs[i];
      for (const c of seg) { xs[c] = x; x += total[c]; }
      for (let k = seg.length - 1; k >= 0; k--) stack.push(seg[k]);
    }
    order = order.subarray(0, m);
    if (st.zoom >= n || pos[st.zoom] < 0 || total[st.zoom] === 0) st.zoom = 0;
  }

  // ---- Flame graph on a canvas.
  const canvas = $('flame'), ctx = canvas.getContext('2d'), ROW = 18, FONT = '11px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';
  ctx.font = FONT;
  let charW = ctx.measureText('M').width || 6.6;
  let rows = []; // per depth row: flat [x, w, node, ...] of drawn frames
  const colorCache = new Map();
  function hue(s) { let h = 0; for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0; return Math.abs(h); }
  function color(name, f) {
    if (f === -1) return '#d9dde3';
    if (f === -2) return '#e6e8eb';
    let c = colorCache.get(name);
    if (c) return c;
    const h = hue(name);
    if (name.startsWith('[')) c = 'hsl(210,45%,' + (70 + h % 10) + '%)';
    else if (name.startsWith('runtime.')) c = 'hsl(' + (28 + h % 14) + ',75%,' + (70 + h % 8) + '%)';
    else c = 'hsl(' + (h % 55) + ',' + (62 + h % 20) + '%,' + (60 + (h >> 3) % 12) + '%)';
    colorCache.set(name, c);
    return c;
  }
  let hits = null; // per node of T: the search matches it
  function isHit(i) { return hits !== null && hits[i] === 1; }
  function draw() {
    const W = Math.max(canvas.parentElement.clientWidth - 2, 100), dpr = window.devicePixelRatio || 1;
    const z = st.zoom, zt = total[z] || 1, scale = W / zt, x0 = xs[z];
    // Depth of the drawn part: the zoomed node's ancestors, then its subtree.
    let maxDepth = T.depth[z];
    for (let p = pos[z], e = endPos[z]; p < e; p++) { const i = order[p]; if (total[i] * scale >= 0.5 && T.depth[i] > maxDepth) maxDepth = T.depth[i]; }
    const H = (maxDepth + 1) * ROW;
    canvas.width = Math.round(W * dpr); canvas.height = Math.round(H * dpr);
    canvas.style.height = H + 'px';
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.font = FONT; ctx.textBaseline = 'middle';
    rows = [];
    for (let d = 0; d <= maxDepth; d++) rows.push([]);
    const rect = (i, x, w) => {
      const d = T.depth[i], name = T.names[i];
      ctx.fillStyle = isHit(i) ? '#d63ad6' : color(name, T.frame[i]);
      ctx.globalAlpha = hits !== null && !isHit(i) ? 0.45 : 1;
      ctx.fillRect(x, d * ROW, Math.max(w - 1, 0.5), ROW - 1);
      if (w > 3 * charW) {
        const label = short(name), fit = Math.floor((w - 6) / charW);
        ctx.fillStyle = isHit(i) ? '#fff' : '#1b1b1b';
        ctx.fillText(fit >= label.length ? label : label.slice(0, Math.max(fit - 1, 1)) + '…', x + 3, d * ROW + ROW / 2);
      }
      rows[d].push(x, w, i);
    };
    for (let a = z; a >= 0; a = T.parent[a]) rect(a, 0, W);
    ctx.globalAlpha = 1;
    for (let p = pos[z] + 1, e = endPos[z]; p < e;) {
      const i = order[p], w = total[i] * scale;
      if (w < 0.5) { p = endPos[i]; continue; }
      rect(i, (xs[i] - x0) * scale, w);
      p++;
    }
    ctx.globalAlpha = 1;
    const path = [];
    for (let a = z; a > 0; a = T.parent[a]) path.unshift(short(T.names[a]));
    $('crumbs').textContent = path.length ? 'Zoomed: ' + path.join(' → ') : '';
    $('crumbs').title = $('crumbs').textContent;
    canvas.dataset.zoom = z;
  }
  function hitTest(ev) {
    const r = canvas.getBoundingClientRect(), x = ev.clientX - r.left, d = Math.floor((ev.clientY - r.top) / ROW);
    const row = rows[d];
    if (!row) return -1;
    for (let k = 0; k < row.length; k += 3) if (x >= row[k] && x < row[k] + row[k + 1]) return row[k + 2];
    return -1;
  }
  const clicks = [];
  canvas.addEventListener('click', (ev) => {
    const c0 = performance.now();
    const i = hitTest(ev);
    if (i < 0) return;
    st.zoom = i; draw(); changed();
    const ms = performance.now() - c0;
    clicks.push(ms); api.lastClickMs = ms;
  });
  canvas.addEventListener('mousemove', (ev) => {
    const i = hitTest(ev);
    if (i < 0) return hideTip();
    const f = T.frame[i], name = T.names[i];
    let loc = T.files[i];
    if (loc && st.gran === 'line' && frLine(f)) loc += ':' + frLine(f);
    if (!loc && name.startsWith('[')) {
      loc = name === M.runtimeRoot ? 'root of the runtime\'s system goroutines (GC workers, sweeper, scavenger, finalizer)' :
        name === M.noCPUSample ? 'held a P while the CPU profiler saw no CPU time of it: runnable, not on CPU' : 'wait reason of a parked goroutine';
    }
    const vt = total[0];
    let text = name + (loc ? '\n' + loc : '') + '\n' + fmtN(total[i]) + ' samples (' + pct(total[i], vt) + ' of ' + M.views[st.view] + ')';
    if (self[i] > 0) text += '\nself ' + fmtN(self[i]) + ' (' + pct(self[i], vt) + ')';
    if (st.zoom > 0) text += ', ' + pct(total[i], total[st.zoom]) + ' of zoom';
    showTip(ev, text);
  });
  canvas.addEventListener('mouseleave', hideTip);
  function setZoom(i) { st.zoom = i; draw(); changed(); }
  $('reset').addEventListener('click', () => setZoom(0));
  document.addEventListener('keydown', (ev) => { if (ev.key === 'Escape') setZoom(0); });

  function search(q) {
    st.query = q; st.matcher = null;
    if (q) { try { st.matcher = new RegExp(q, 'i'); } catch (e) { st.matcher = new RegExp(esc(q), 'i'); } }
    updateHits();
    draw(); changed();
  }
  function updateHits() {
    if (!st.matcher) { hits = null; $('matches').textContent = ''; return; }
    hits = new Uint8Array(T.n);
    for (let i = 1; i < T.n; i++) if (T.frame[i] >= 0 && (st.matcher.test(T.names[i]) || st.matcher.test(T.files[i]))) hits[i] = 1;
    let n = 0, sum = 0;
    for (let p = 1; p < order.length;) { const i = order[p]; if (hits[i]) { n++; sum += total[i]; p = endPos[i]; } else p++; }
    $('matches').textContent = fmtN(n) + ' matching subtrees, ' + pct(sum, total[0]) + ' of the samples shown';
  }
  let searchTimer = 0;
  $('search').addEventListener('input', (ev) => { clearTimeout(searchTimer); searchTimer = setTimeout(() => search(ev.target.value.trim()), 120); });
  function findInFlame(q) { $('search').value = q; search(q); $('flame-section').scrollIntoView({ block: 'start' }); }
  window.addEventListener('resize', () => { draw(); drawLanes(); });

  // ---- Header.
  document.title = M.title;
  $('title').textContent = M.title;
  {
    const facts = [
      ['Duration', fmtUs(M.duration)], ['Samples', fmtN(M.samples)], ['Goroutines', fmtN(M.goroutines)],
      ['Groups', fmtN(M.groups)], ['Interval', fmtUs(M.interval)],
      ['Mode', M.mode ? M.mode + (M.modeInferred ? ' (inferred)' : '') : 'unknown'],
    ];
    if (M.backend) facts.push(['Backend', M.backend]);
    if (M.startTime > 0) facts.push(['Started', new Date(M.startTime / 1000).toISOString().replace('T', ' ').replace('Z', ' UTC')]);
    for (const [k, v] of facts) { const d = el('div'); d.append(el('dt', null, k), el('dd', null, v)); $('facts').append(d); }
  }
  const viewButtons = M.views.map((name, v) => {
    const b = el('button'); b.type = 'button'; b.dataset.view = v;
    b.append(name, el('small', null, pct(M.viewSamples[v], M.viewSamples[ALL])));
    b.title = fmtN(M.viewSamples[v]) + ' samples';
    b.addEventListener('click', () => setView(v));
    $('views').append(b);
    return b;
  });
  const sliceTime = (k) => M.t0 + k * M.sliceUs; // µs after the first sample
  function rangeSamples() { // samples of the view in the range: the root's total
    return total[0];
  }
  function summary() {
    const whole = st.lo === 0 && st.hi === NS;
    const inView = rangeSamples();
    let all = 0;
    if (whole) all = M.viewSamples[ALL]; else for (let i = 0; i < NL; i++) for (let c = cStart[i]; c < cStart[i + 1]; c++) { const k = D.cells[2 * c], sl = k % NS; if (sl >= st.lo && sl < st.hi) all += D.cells[2 * c + 1]; }
    const s = $('summary');
    s.replaceChildren('View ', el('b', null, M.views[st.view]), ': ' + fmtN(inView) + ' samples, ', el('b', null, pct(inView, all)),
      ' of the ' + fmtN(all) + ' samples' + (whole ? '' : ' in the range') + '.' +
      (st.view === M.defaultView ? ' Shown first: the time code changes can act on.' : '') +
      (runtimeGroup ? ' The runtime\'s system goroutines (' + fmtN(runtimeGroup.samples) + ' samples) are left out: see the runtime group in the timeline; tachyon report --runtime (report.Options.Runtime) shows them in full.' : ''));
    s.dataset.view = st.view;
    $('range-text').textContent = whole ? 'Whole profile; drag across the timeline to pick a range.' :
      'Range ' + fmtUs(Math.max(sliceTime(st.lo), 0)) + ' – ' + fmtUs(sliceTime(st.hi)) + ' (' + (st.hi - st.lo) + ' of ' + NS + ' slices)';
    $('clear-range').disabled = whole;
    $('flame-total').textContent = '— ' + M.views[st.view] + ', ' + fmtN(inView) + ' samples' + (whole ? '' : ' in the range');
    $('flame-total').dataset.total = inView;
    $('table-scope').textContent = '— ' + M.views[st.view] + (whole ? '' : ', in the range');
  }
  function refresh() {
    compute(); updateHits(); draw(); summary(); renderTable(); renderWaits(); updateBusy();
    viewButtons.forEach((b, v) => b.setAttribute('aria-pressed', String(v === st.view)));
    for (const b of $('granularity').children) b.setAttribute('aria-pressed', String(b.dataset.g === st.gran));
    changed();
  }
  function setView(v) { st.view = v; st.zoom = 0; refresh(); }
  for (const b of $('granularity').children) b.addEventListener('click', () => { st.gran = b.dataset.g; T = st.gran === 'fn' ? fnTree : lineTree; st.zoom = 0; refresh(); });
  $('clear-range').addEventListener('click', () => setRange(0, NS));
  function setRange(lo, hi) { st.lo = lo; st.hi = hi; showBrush(); refresh(); }
  // setState sets the frames' granularity, the view and the range at once,
  // as checked by the caller, and redraws once.
  function setState(gran, view, lo, hi) {
    st.gran = gran; T = gran === 'fn' ? fnTree : lineTree; st.view = view; st.lo = lo; st.hi = hi; st.zoom = 0;
    showBrush(); refresh();
  }

  // ---- Tables.
  let rowsData = [], sortKey = 'self', sortDir = -1;
  function tableRows() {
    const byKey = new Map(), onPath = new Map(), path = [];
    for (let p = 1; p < order.length; p++) {
      const i = order[p], d = T.depth[i];
      while (path.length >= d) { const k = path.pop(); onPath.set(k, onPath.get(k) - 1); }
      const k = T.frame[i] === -2 ? 'cut' : T.keys[i];
      let r = byKey.get(k);
      if (!r) {
        const f = T.frame[i];
        r = { name: T.names[i], file: T.files[i], line: st.gran === 'line' ? frLine(f) : 0, self: 0, total: 0 };
        byKey.set(k, r);
      }
      r.self += self[i];
      if (!(onPath.get(k) > 0)) r.total += total[i];
      onPath.set(k, (onPath.get(k) || 0) + 1); path.push(k);
    }
    const out = [...byKey.values()];
    for (const r of out) r.loc = r.file + (r.line ? ':' + r.line : '');
    return out;
  }
  function renderTable() {
    rowsData = tableRows();
    const k = sortKey;
    const cmp = (x, y) => typeof x === 'string' ? (x < y ? -1 : x > y ? 1 : 0) : x - y;
    rowsData.sort((a, b) => cmp(a[k], b[k]) * sortDir || b.total - a.total || cmp(a.name, b.name));
    const shown = rowsData.slice(0, M.maxFunctions), vt = total[0];
    const frag = document.createDocumentFragment(), top = Math.max(1, ...shown.map((r) => r.self));
    for (const r of shown) {
      const tr = el('tr');
      const fn = el('td', 'fn'); fn.append(el('bdi', null, r.name)); fn.title = r.name;
      const loc = el('td', 'loc'); loc.append(el('bdi', null, r.loc)); loc.title = r.loc;
      const selfPct = el('td'); const bar = el('span', 'bar'); bar.style.width = Math.round(60 * r.self / top) + 'px';
      selfPct.append(bar, pct(r.self, vt));
      tr.append(fn, loc, el('td', null, fmtN(r.self)), selfPct, el('td', null, fmtN(r.total)), el('td', null, pct(r.total, vt)));
      tr.dataset.name = r.name;
      frag.append(tr);
    }
    document.querySelector('#functions tbody').replaceChildren(frag);
    const first = document.querySelector('#functions th[data-key="' + sortKey + '"]');
    for (const th of document.querySelectorAll('#functions th')) {
      if (th === first) th.setAttribute('aria-sort', sortDir < 0 ? 'descending' : 'ascending'); else th.removeAttribute('aria-sort');
    }
    $('table-note').textContent = shown.length + ' of ' + fmtN(rowsData.length) + (st.gran === 'fn' ? ' functions' : ' lines') +
      ' in this view. Self: samples with it innermost; total: samples with it anywhere on the stack. Click a row to find it in the flame graph.' +
      (M.nodesShown < M.nodes ? ' The page holds the ' + fmtN(M.nodesShown) + ' heaviest of ' + fmtN(M.nodes) + ' call-tree nodes; the others are "(smaller frames)".' : '');
  }
  document.querySelector('#functions thead').addEventListener('click', (ev) => {
    const th = ev.target.closest('th'); if (!th) return;
    const k = th.dataset.key;
    if (k === sortKey) sortDir = -sortDir; else { sortKey = k; sortDir = (k === 'name' || k === 'loc') ? 1 : -1; }
    renderTable();
  });
  document.querySelector('#functions tbody').addEventListener('click', (ev) => {
    const tr = ev.target.closest('tr'); if (tr) findInFlame('^' + esc(tr.dataset.name) + '$');
  });
  function renderWaits() {
    const by = new Map(), C = D.cells;
    let all = 0;
    for (let i = 1; i < NL; i++) {
      for (let c = cStart[i]; c < cStart[i + 1]; c++) {
        const k = C[2 * c], cls = (k / NS) | 0, sl = k - cls * NS;
        if ((cls !== BLOCKED && cls !== SYSCALL) || sl < st.lo || sl >= st.hi) continue;
        const f = lFrame[i];
        const name = cls === SYSCALL ? '(in a system call)' : f >= 0 && !frFile(f) && frName(f).startsWith('[') ? frName(f) : '(no wait reason)';
        by.set(name, (by.get(name) || 0) + C[2 * c + 1]); all += C[2 * c + 1];
      }
    }
    const frag = document.createDocumentFragment();
    for (const [name, n] of [...by].sort((a, b) => b[1] - a[1])) {
      const tr = el('tr'); tr.dataset.name = name;
      const fn = el('td', 'fn', name); fn.title = name;
      tr.append(fn, el('td', null, fmtN(n)), el('td', null, pct(n, all)));
      frag.append(tr);
    }
    if (!by.size) { const tr = el('tr'); const td = el('td', 'fn', 'no blocked samples'); td.colSpan = 3; tr.append(td); frag.append(tr); }
    document.querySelector('#waits tbody').replaceChildren(frag);
  }
  document.querySelector('#waits tbody').addEventListener('click', (ev) => {
    const tr = ev.target.closest('tr'); if (!tr || !tr.dataset.name || !tr.dataset.name.startsWith('[')) return;
    if (st.view !== 2 && st.view !== 3) setView(2);
    findInFlame('^' + esc(tr.dataset.name) + '$');
  });

  // ---- Timeline: one lane per group, its members' lanes on demand.
  const busyStates = M.busyStates; // running, runnable: they use or want a CPU
  for (let i = 0; i < M.stateNames.length; i++) {
    const s = el('span', 'sw', M.stateNames[i] + ' ' + pct(M.states[i], M.samples)); s.style.setProperty('--c', stateColors[i]); $('legend').append(s);
  }
  const lanesEl = $('lanes');
  const strips = []; // [canvas, draw function]
  const axis = el('canvas', 'axis');
  lanesEl.append(el('div', 'lane-label', D.groups.length ? 'group: goroutines × entry function in where they wait' : 'no goroutines'), el('div', 'busy', 'busy'), axis);
  function drawAxis() {
    const w = axis.clientWidth || 800, dpr = window.devicePixelRatio || 1;
    axis.width = Math.round(w * dpr); axis.height = Math.round(18 * dpr);
    const c = axis.getContext('2d'); c.setTransform(dpr, 0, 0, dpr, 0, 0);
    c.font = '10px system-ui, sans-serif'; c.fillStyle = '#667085'; c.strokeStyle = '#c9ced6';
    const ticks = 8;
    for (let k = 0; k <= ticks; k++) {
      const x = Math.min(k / ticks * w, w - 1);
      c.beginPath(); c.moveTo(x + 0.5, 12); c.lineTo(x + 0.5, 18); c.stroke();
      const label = fmtUs(Math.max(sliceTime(NS * k / ticks), 0));
      c.textAlign = k === 0 ? 'left' : k === ticks ? 'right' : 'center';
      c.fillText(label, x, 8);
    }
  }
  function groupLabel(g) { return g.runtime ? fmtN(g.n) + ' × ' + g.entry + ': the runtime\'s system goroutines' : fmtN(g.n) + ' × ' + short(g.entry) + ' in ' + short(g.where); }
  function groupBusy(g) { // busy and all samples of a group in the range
    let b = 0, a = 0;
    for (let k = 0; k < g.cells.length; k += 2) {
      const key = g.cells[k], s = (key / NS) | 0, sl = key - s * NS;
      if (sl < st.lo || sl >= st.hi) continue;
      a += g.cells[k + 1]; if (busyStates.includes(s)) b += g.cells[k + 1];
    }
    return [b, a];
  }
  const busyEls = [];
  function updateBusy() {
    for (const [e, g] of busyEls) {
      const [b, a] = groupBusy(g);
      e.textContent = pct(b, a); e.title = fmtN(b) + ' of ' + fmtN(a) + ' samples running or runnable' + (st.lo === 0 && st.hi === NS ? '' : ' in the range');
    }
  }
  function drawGroupStrip(cv, g) {
    const nb = M.buckets, H = 16;
    cv.width = nb; cv.height = H;
    const c = cv.getContext('2d');
    const order = [0, 1, 3, 2, 4]; // running, runnable (busy) at the bottom, then syscall, blocked, unknown
    for (let k = 0; k < nb; k++) {
      let y = H;
      for (const s of order) {
        const m = g.mix[s];
        if (!m) continue;
        const v = parseInt(m[k], 36);
        if (!v) continue;
        const h = Math.max(1, Math.round(v / 35 * H));
        c.fillStyle = stateColors[s]; c.fillRect(k, y - h, 1, h); y -= h;
      }
    }
  }
  function drawLaneStrip(cv, L) {
    const t = L.t; cv.width = t.length || 1; cv.height = 1;
    const c = cv.getContext('2d');
    for (let k = 0; k < t.length;) {
      let j = k; while (j < t.length && t[j] === t[k]) j++;
      if (t[k] !== '.') { c.fillStyle = stateColors[t.charCodeAt(k) - 48]; c.fillRect(k, 0, j - k, 1); }
      k = j;
    }
  }
  const stateMix = (states, n) => M.stateNames.map((s, i) => states[i] ? s + ' ' + pct(states[i], n) : '').filter(Boolean).join(', ');
  function stripTip(cv, text) {
    cv.addEventListener('mousemove', (ev) => {
      if (brush.active) return;
      const r = cv.getBoundingClientRect(), x = (ev.clientX - r.left) / r.width;
      const k = Math.min(NS - 1, Math.max(0, Math.floor(x * NS)));
      showTip(ev, text() + '\n' + fmtUs(Math.max(sliceTime(x * NS), 0)) + ' (slice ' + fmtUs(Math.max(sliceTime(k), 0)) + ' – ' + fmtUs(sliceTime(k + 1)) + ')');
    });
    cv.addEventListener('mouseleave', hideTip);
  }
  const FIRST_MEMBERS = 20;
  function memberRow(L, gi) {
    const row = el('div', 'lane member'); row.style.display = 'contents';
    row.dataset.kind = 'goroutine'; row.dataset.g = L.g; row.dataset.group = gi;
    const label = el('div', 'lane-label'); label.append(el('i', null, 'g' + L.g), short(L.entry));
    label.title = 'goroutine ' + L.g + '\nentry: ' + L.entry + '\n' + fmtN(L.n) + ' samples: ' + stateMix(L.states, L.n);
    const cv = el('canvas', 'strip'); drawLaneStrip(cv, L);
    stripTip(cv, () => 'goroutine ' + L.g + ' — ' + short(L.entry) + '\n' + stateMix(L.states, L.n));
    const b = el('div', 'busy', pct(L.busy, L.n)); b.title = 'share of its samples running or runnable, over the whole profile';
    row.append(label, b, cv);
    return row;
  }
  // memberRows returns the rows of a group's goroutines: the first
  // FIRST_MEMBERS lanes, then a row that shows the rest, and a note.
  function memberRows(g, gi) {
    const out = g.lanes.slice(0, FIRST_MEMBERS).map((li) => memberRow(D.lanes[li], gi));
    const note = el('div', 'lane-label member note');
    note.style.gridColumn = '1 / -1'; note.style.paddingLeft = '22px';
    const say = (n) => { note.textContent = (n ? 'the ' + n + ' busiest of ' : 'none of the ') + fmtN(g.n) + ' goroutines shown' + (n < g.lanes.length ? '; ' : '.'); };
    say(Math.min(g.lanes.length, FIRST_MEMBERS));
    if (g.lanes.length > FIRST_MEMBERS) {
      const more = el('button', null, 'show ' + (g.lanes.length - FIRST_MEMBERS) + ' more'); more.type = 'button';
      more.addEventListener('click', () => {
        const rest = g.lanes.slice(FIRST_MEMBERS).map((li) => memberRow(D.lanes[li], gi));
        note.before(...rest); out.splice(out.length - 1, 0, ...rest);
        say(g.lanes.length); showBrush();
      });
      note.append(more);
    }
    if (g.n > 1 || g.lanes.length === 0) out.push(note);
    return out;
  }
  let groupsShown = 0;
  const FIRST_GROUPS = 30;
  function addGroups(upTo) {
    for (let gi = groupsShown; gi < Math.min(upTo, D.groups.length); gi++) {
      const g = D.groups[gi], row = el('div', 'lane group'); row.style.display = 'contents';
      row.dataset.kind = 'group'; row.dataset.group = gi; row.dataset.count = g.n; row.dataset.entry = g.entry; row.dataset.where = g.where;
      const label = el('div', 'lane-label');
      const x = el('button', 'x', '▸'); x.type = 'button'; x.setAttribute('aria-expanded', 'false'); x.title = 'show the goroutines';
      const name = el('span', 'name');
      name.append(el('b', null, fmtN(g.n) + ' ×'), ' ' + short(g.entry) + (g.runtime ? ' (system goroutines)' : ' in ' + short(g.where)));
      label.title = g.runtime ? groupLabel(g) + ' (GC workers, sweeper, scavenger, finalizer)\n' + fmtN(g.samples) + ' samples: ' + stateMix(g.states, g.samples) +
        '\nLeft out of the flame graph and the tables; tachyon report --runtime (report.Options.Runtime) shows them in full.' :
        groupLabel(g) + '\nentry: ' + g.entry + '\nwhere: ' + g.where + '\n' + fmtN(g.samples) + ' samples: ' + stateMix(g.states, g.samples) + '\nClick the name to find the entry function in the flame graph.';
      label.append(x, name);
      const cv = el('canvas', 'strip'); drawGroupStrip(cv, g);
      stripTip(cv, () => groupLabel(g) + '\n' + stateMix(g.states, g.samples));
      const b = el('div', 'busy'); busyEls.push([b, g]);
      row.append(label, b, cv);
      lanesEl.append(row);
      let members = null;
      x.addEventListener('click', () => {
        const open = x.getAttribute('aria-expanded') !== 'true';
        x.setAttribute('aria-expanded', String(open)); x.textContent = open ? '▾' : '▸';
        if (open) { members = memberRows(g, gi); row.after(...members); } else if (members) { members.forEach((m) => m.remove()); members = null; }
        showBrush();
      });
      if (!g.runtime) name.addEventListener('click', () => findInFlame('^' + esc(g.entry) + '$'));
    }
    groupsShown = Math.min(upTo, D.groups.length);
    const more = $('more-groups'), left = D.groups.length - groupsShown;
    more.hidden = left === 0;
    more.textContent = 'Show ' + left + ' more groups';
    updateBusy();
    showBrush();
  }
  $('more-groups').addEventListener('click', () => addGroups(D.groups.length));
  function drawLanes() { drawAxis(); showBrush(); }
  $('timeline-note').textContent = 'Goroutines grouped by entry function and the stack they spent most samples in, ranked by time running or runnable (the "busy" column, in the range)' +
    (runtimeGroup ? '; the runtime\'s system goroutines are one group, last. ' : '. ') +
    fmtN(D.groups.length) + ' of ' + fmtN(M.groups) + ' groups have a lane; ▸ shows a group\'s busiest goroutines. A lane is stacked by the share of its goroutines in each state; each of the ' +
    M.buckets + ' columns is ' + fmtUs(M.bucketUs) + '. Drag across the lanes to filter the flame graph and the tables to a time range.';

  // Brushing: drag across the strips to pick whole time slices.
  const brush = { active: false, x0: 0, x1: 0 }, brushEl = $('brush'), wrap = $('tl-wrap');
  function stripBox() { const r = axis.getBoundingClientRect(), w = wrap.getBoundingClientRect(); return { left: r.left - w.left + wrap.scrollLeft, width: r.width, abs: r.left }; }
  function showBrush(a, b) {
    const box = stripBox();
    let f0, f1;
    if (a !== undefined) { f0 = Math.min(a, b); f1 = Math.max(a, b); } else if (st.lo === 0 && st.hi === NS) { brushEl.hidden = true; return; } else { f0 = st.lo / NS; f1 = st.hi / NS; }
    brushEl.hidden = false;
    brushEl.style.left = box.left + f0 * box.width + 'px'; brushEl.style.width = Math.max((f1 - f0) * box.width, 1) + 'px';
    brushEl.style.height = lanesEl.scrollHeight + 'px';
  }
  const frac = (ev) => { const box = stripBox(); return Math.min(1, Math.max(0, (ev.clientX - box.abs) / box.width)); };
  lanesEl.addEventListener('mousedown', (ev) => {
    if (!ev.target.closest('canvas')) return;
    ev.preventDefault();
    brush.active = true; brush.x0 = brush.x1 = frac(ev); hideTip();
  });
  window.addEventListener('mousemove', (ev) => { if (brush.active) { brush.x1 = frac(ev); showBrush(brush.x0, brush.x1); } });
  window.addEventListener('mouseup', (ev) => {
    if (!brush.active) return;
    brush.active = false; brush.x1 = frac(ev);
    const a = Math.min(brush.x0, brush.x1), b = Math.max(brush.x0, brush.x1);
    if ((b - a) * stripBox().width < 3) { showBrush(); return; } // a click, not a drag
    const lo = Math.min(NS - 1, Math.floor(a * NS)), hi = Math.max(lo + 1, Math.min(NS, Math.ceil(b * NS)));
    setRange(lo, hi);
  });

  // ---- Start.
  addGroups(FIRST_GROUPS);
  refresh();
  drawLanes();
  api = {
    readyMs: 0, renderMs: 0, lastClickMs: -1, clicks,
    view: () => st.view, range: () => [st.lo, st.hi], nodes: () => T.n,
    total: () => total[0],
    // The frames drawn, with their samples in the view and range.
    frames: () => {
      const out = [];
      rows.forEach((row, d) => { for (let k = 0; k < row.length; k += 3) { const i = row[k + 2]; out.push({ name: T.names[i], depth: d, x: row[k], w: row[k + 1], total: total[i], self: self[i], node: i }); } });
      return out;
    },
    setView, setRange, search,
    // The state urlstate.js keeps in the URL, and sets from it.
    gran: () => st.gran, zoom: () => st.zoom, query: () => st.query, slices: NS, views: M.views.length, defaultView: M.defaultView,
    setState, setZoom,
    setQuery: (q) => { $('search').value = q; search(q); },
    // The nodes of the tree shown, parents first: a node's parent, and the
    // name and line (by line only) of its frame.
    tree: () => ({ n: T.n, parent: T.parent, names: T.names, line: (i) => st.gran === 'line' ? frLine(T.frame[i]) : 0 }),
    nodeTotal: (i) => total[i],
    onChange: null,
    // The page's data, for labels.js, which filters its cells.
    data: D,
  };
  api.renderMs = performance.now() - t0; api.readyMs = performance.now();
  window.tachyonReport = api;
  document.body.dataset.ready = '1';
})();
