// The view in the URL's fragment, so that a link to the page, a reload or
// a saved copy of it (file://) opens the same view:
//
//   #view=2&gran=line&range=120-360&slices=600&q=chan&zoom=1x2y3z.4a5b6c&lk=http.route&lv=%2Fslow
//
// view: the view's index; gran=line: frames by line; range: the time
// slices brushed, of slices (a range of a page with other slices is scaled
// to this one's); q: the search; zoom: the node zoomed into, as a hash of
// the frames from the root to it, so that the same stack is found in
// another page of the profile; lk and lv: the label key and each label
// value picked (labels.js). What is at its default is left out. What does
// not fit the page (an unknown view, a range past its end, a stack or a
// label it lacks, anything malformed) is ignored, and the fragment is
// written again without it. The fragment changes in place (no history
// entry per click); editing it, or following a link to another fragment,
// sets the view again. It runs last, after report.js and labels.js, and
// works through report.js's API.
(function () {
  'use strict';
  const api = window.tachyonReport;
  if (!api || !api.setState) return;
  try { start(api); } catch (e) { console.error('url state:', e); }

  function start(api) {
    // ---- A node's hash: two 32-bit FNV-1a-like hashes of the names (and
    // lines, by line) of the frames from the root down to it.
    const SEED = [0x811c9dc5 | 0, 0x9747b28c | 0], MUL = [0x01000193, 0x5bd1e995];
    const keyOf = (t, i) => t.names[i] + '\u0001' + t.line(i) + '\u0002';
    const fold = (h, s, m) => { for (let k = 0; k < s.length; k++) h = Math.imul(h ^ s.charCodeAt(k), m); return h; };
    const fmt = (a, b) => (a >>> 0).toString(36) + '.' + (b >>> 0).toString(36);
    function nodeHash(t, i) {
      const path = [];
      for (; i > 0; i = t.parent[i]) path.push(i);
      let a = SEED[0], b = SEED[1];
      for (let k = path.length - 1; k >= 0; k--) { const s = keyOf(t, path[k]); a = fold(a, s, MUL[0]); b = fold(b, s, MUL[1]); }
      return fmt(a, b);
    }
    // findNode returns the node of the tree shown with hash h and samples
    // in the view, or 0 (the root) for none.
    function findNode(h) {
      const [ha, hb] = h.split('.').map((x) => parseInt(x, 36));
      const t = api.tree(), a = new Int32Array(t.n), b = new Int32Array(t.n);
      a[0] = SEED[0]; b[0] = SEED[1];
      for (let i = 1; i < t.n; i++) {
        const s = keyOf(t, i), p = t.parent[i];
        a[i] = fold(a[p], s, MUL[0]); b[i] = fold(b[p], s, MUL[1]);
        if (a[i] >>> 0 === ha && b[i] >>> 0 === hb && api.nodeTotal(i) > 0) return i;
      }
      return 0;
    }

    // ---- Reading the fragment: every part checked against the page.
    const int = (s) => s !== null && /^\d{1,9}$/.test(s) ? +s : -1;
    function parse(p) {
      const NS = api.slices, s = { gran: p.get('gran') === 'line' ? 'line' : 'fn', view: int(p.get('view')), lo: 0, hi: NS };
      if (s.view < 0 || s.view >= api.views) s.view = api.defaultView;
      const r = /^(\d{1,9})-(\d{1,9})$/.exec(p.get('range') || ''), n = p.has('slices') ? int(p.get('slices')) : NS;
      if (r && n > 0 && +r[1] < +r[2] && +r[2] <= n) {
        s.lo = Math.min(NS - 1, Math.floor(+r[1] * NS / n));
        s.hi = Math.max(s.lo + 1, Math.min(NS, Math.ceil(+r[2] * NS / n)));
      }
      const z = p.get('zoom');
      s.zoom = z !== null && /^[0-9a-z]{1,7}\.[0-9a-z]{1,7}$/.test(z) ? z : '';
      s.q = (p.get('q') || '').trim();
      s.key = p.get('lk'); s.values = p.getAll('lv');
      return s;
    }
    function read() {
      try { return new URLSearchParams(location.hash.slice(1)); } catch (e) { return new URLSearchParams(); }
    }

    // ---- Setting the view from the fragment, and the fragment from the view.
    let applying = false;
    function apply() {
      const s = parse(read()), [lo, hi] = api.range();
      applying = true;
      try {
        if (s.gran !== api.gran() || s.view !== api.view() || s.lo !== lo || s.hi !== hi) api.setState(s.gran, s.view, s.lo, s.hi);
        const L = api.labels;
        if (L) { // a key the page lacks: the default key, its values all
          const known = s.key === null || L.keys.includes(s.key);
          L.set(known && s.key !== null ? s.key : L.defaultKey, known ? s.values : []);
        }
        const z = s.zoom ? findNode(s.zoom) : 0;
        if (z !== api.zoom()) api.setZoom(z);
        if (s.q !== api.query()) api.setQuery(s.q);
      } finally {
        applying = false;
      }
      save();
    }
    function save() {
      if (applying) return;
      const p = new URLSearchParams(), [lo, hi] = api.range(), L = api.labels;
      if (api.view() !== api.defaultView) p.set('view', api.view());
      if (api.gran() !== 'fn') p.set('gran', api.gran());
      if (lo !== 0 || hi !== api.slices) { p.set('range', lo + '-' + hi); p.set('slices', api.slices); }
      if (api.query()) p.set('q', api.query());
      if (api.zoom() > 0) p.set('zoom', nodeHash(api.tree(), api.zoom()));
      if (L) {
        if (L.key() !== L.defaultKey) p.set('lk', L.key());
        for (const v of L.picked() || []) p.append('lv', v);
      }
      const h = p.toString();
      if (h === location.hash.slice(1)) return;
      try { history.replaceState(history.state, '', h ? '#' + h : location.pathname + location.search); } catch (e) { /* a page whose URL cannot change */ }
    }
    api.onChange = save;
    window.addEventListener('hashchange', apply);
    apply();
    api.urlState = { save, apply, nodeHash: (i) => nodeHash(api.tree(), i) };
  }
})();
