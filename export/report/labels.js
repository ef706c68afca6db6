// The report's labels, in the page of a profile whose samples carry
// labels only (labeldoc.go has the data's layout): a label picker (a key,
// then one or more of its values; all by default) that filters the views,
// the flame graph and the tables, and the table "by label × state", both
// for the time range brushed. It runs just after report.js, in the page
// of a labelled profile only, and works through report.js's API
// (window.tachyonReport): its data object and its redraws.
(function () {
  'use strict';
  const api = window.tachyonReport;
  if (!api || !api.data || !api.data.labels) return;
  try { start(api.data, api); } catch (e) { console.error('labels:', e); }

  function start(D, api) {
    const M = D.meta, S = D.strings, L = D.labels, NS = M.slices, NC = L.classes;
    const $ = (id) => document.getElementById(id);
    const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text != null) e.textContent = text; return e; };
    const fmtN = (n) => Math.round(n).toLocaleString('en-US');
    const pct = (n, d) => d > 0 ? (100 * n / d).toFixed(n === d ? 0 : n / d >= 0.1 ? 1 : 2) + '%' : '0%';
    const fmtUs = (us) => { const a = Math.abs(us); return a >= 1e6 ? (us / 1e6).toFixed(a >= 1e7 ? 1 : 2) + ' s' : a >= 1e3 ? (us / 1e3).toFixed(1) + ' ms' : Math.round(us) + ' µs'; };
    const RUNNING = 0, RUNNABLE = 1, BLOCKED = 2, UNKNOWN = 3, SYSCALL = 4; // profile.go's classes
    const NAME_W = 336, COL_W = 88; // the widest value column (labels.css), and a column of times
    const NONE = '\u0000none', OTHER = '\u0000other'; // the rows of sets without the key, and of the Other set
    const cells = D.cells.slice(), cellSets = L.cellSets;
    const keys = L.keys.map((k) => S[k]);
    const sets = L.sets.map((pairs) => { const m = new Map(); for (let i = 0; i < pairs.length; i += 2) m.set(S[pairs[i]], S[pairs[i + 1]]); return m; });
    const reasons = L.reasons.map((r) => S[r]), cols = NC + reasons.length;
    const valueOf = (set, key) => set === L.other ? OTHER : sets[set].has(key) ? sets[set].get(key) : NONE;
    const valueName = (v) => v === NONE ? '(without the key)' : v === OTHER ? '(other label sets)' : v;
    // The table's cells, decoded: set, column, slice, samples.
    const T = [];
    for (let i = 0; i < L.table.length; i += 2) {
      const k = L.table[i], sl = k % NS, r = (k - sl) / NS, col = r % cols;
      T.push([(r - col) / cols, col, sl, L.table[i + 1]]);
    }
    const perSet = new Float64Array(sets.length);
    for (const [set, , , n] of T) perSet[set] += n;
    const st = { key: keys[L.key], picked: null }; // picked: a Set of values, null for all

    // ---- The picker, in the header's controls.
    const pick = el('div', 'labels-pick');
    const keySel = el('select'); keySel.id = 'label-key'; keySel.setAttribute('aria-label', 'Label key');
    for (const k of keys) { const o = el('option', null, k); o.value = k; keySel.append(o); }
    keySel.value = st.key;
    const valSel = el('select'); valSel.id = 'label-values'; valSel.multiple = true; valSel.setAttribute('aria-label', 'Label values');
    pick.append(el('span', 'note', 'Label'), keySel, valSel);
    $('granularity').after(pick);
    function values(key) { // the key's values, heaviest first: [value, samples]
      const by = new Map();
      sets.forEach((_, s) => { const v = valueOf(s, key); by.set(v, (by.get(v) || 0) + perSet[s]); });
      return [...by].filter(([v, n]) => n > 0 || v !== NONE).sort((a, b) => ((a[0] === NONE || a[0] === OTHER) - (b[0] === NONE || b[0] === OTHER)) || b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    }
    let listed = []; // the values listed in the picker, in its order
    function fillValues() {
      const all = el('option', null, 'all'); all.value = ''; all.selected = st.picked === null;
      valSel.replaceChildren(all);
      listed = values(st.key);
      const total = listed.reduce((a, [, n]) => a + n, 0);
      listed.forEach(([v, n], i) => {
        const o = el('option', null, valueName(v) + ' — ' + pct(n, total)); o.value = String(i); o.selected = st.picked !== null && st.picked.has(v);
        valSel.append(o);
      });
      valSel.size = Math.min(listed.length + 1, 5);
    }
    keySel.addEventListener('change', () => { st.key = keySel.value; st.picked = null; fillValues(); filter(); });
    valSel.addEventListener('change', () => {
      const chosen = [...valSel.selectedOptions].map((o) => o.value);
      const values = chosen.filter((v) => v !== '').map((i) => listed[+i][0]);
      // "all" alone, or picked after values, shows all; values picked after "all" replace it.
      st.picked = values.length === 0 || (chosen.includes('') && st.picked !== null) ? null : new Set(values);
      fillValues(); filter();
    });

    // ---- Filtering: the tree's cells of the sets not picked hold 0.
    function passes() {
      if (st.picked === null) return null;
      return sets.map((_, s) => st.picked.has(valueOf(s, st.key)));
    }
    function filter() {
      const pass = passes(), C = cells.slice(), byClass = new Float64Array(NC);
      for (let c = 0; c < cellSets.length; c++) {
        if (pass && !pass[cellSets[c]]) C[2 * c + 1] = 0;
        byClass[(C[2 * c] / NS) | 0] += C[2 * c + 1];
      }
      D.cells = C;
      M.viewSamples = M.viewClasses.map((mask) => byClass.reduce((a, n, c) => (mask >> c) & 1 ? a + n : a, 0));
      const all = M.viewSamples[M.viewSamples.length - 1];
      document.querySelectorAll('#views button').forEach((b, v) => {
        b.querySelector('small').textContent = pct(M.viewSamples[v], all);
        b.title = fmtN(M.viewSamples[v]) + ' samples' + (pass ? ' of the label values picked' : '');
      });
      pick.dataset.filtered = pass ? '1' : '';
      const [lo, hi] = api.range();
      api.setRange(lo, hi); // redraws the views, and so the table
    }

    // ---- The table by label × state.
    const sec = el('section'); sec.id = 'labels-section';
    const h = el('h2', null, 'By label × state '); const scope = el('span', 'note'); scope.id = 'labels-scope'; h.append(scope);
    const table = el('table'); table.id = 'labels';
    table.append(el('thead'), el('tbody'), el('tfoot'));
    const wrap = el('div', 'tablewrap'); wrap.append(table);
    const note = el('p', 'note', 'Time per value of the label key: samples × the ' + fmtUs(M.interval) + ' interval, on CPU (running), runnable (waiting for a CPU), in a system call, and blocked, broken down by the wait reason the sampler puts innermost; in the selected time range, of the label values picked. ' +
      'The runtime\'s system goroutines are left out as in the views. Click a row to pick its value. The picker filters the views, the flame graph and the tables; the timeline shows every goroutine.');
    sec.append(h, wrap, note);
    $('timeline-section').after(sec);
    function rows() {
      const [lo, hi] = api.range(), pass = passes(), by = new Map(), colSum = new Float64Array(cols);
      for (const [set, col, sl, n] of T) {
        if (sl < lo || sl >= hi || (pass && !pass[set])) continue;
        const v = valueOf(set, st.key);
        let r = by.get(v);
        if (!r) { r = { value: v, n: new Float64Array(cols), total: 0 }; by.set(v, r); }
        r.n[col] += n; r.total += n; colSum[col] += n;
      }
      const out = [...by.values()].sort((a, b) => ((a.value === NONE || a.value === OTHER) - (b.value === NONE || b.value === OTHER)) || b.total - a.total || (a.value < b.value ? -1 : 1));
      return { out, colSum };
    }
    let shownRows = []; // the values of the table's rows
    function render() {
      const { out, colSum } = rows();
      const blocked = (n) => { let s = n[BLOCKED]; for (let r = 0; r < reasons.length; r++) s += n[NC + r]; return s; };
      // Columns: [id, heading, samples of a row, sub-column].
      const spec = [['running', 'On CPU', (n) => n[RUNNING]], ['runnable', 'Runnable', (n) => n[RUNNABLE]], ['syscall', 'In a system call', (n) => n[SYSCALL]], ['blocked', 'Blocked', blocked]];
      const waits = reasons.map((r, i) => [i, r]).filter(([i]) => colSum[NC + i] > 0).sort((a, b) => colSum[NC + b[0]] - colSum[NC + a[0]]);
      // The wait reasons whose columns fit the window, heaviest first; the
      // others share one column.
      const fixed = 5 + (colSum[BLOCKED] > 0) + (colSum[UNKNOWN] > 0);
      const fit = Math.max(1, Math.floor((wrap.clientWidth - NAME_W) / COL_W) - fixed);
      const shown = waits.length > fit ? waits.slice(0, fit - 1) : waits, rest = waits.slice(shown.length);
      for (const [i, r] of shown) spec.push(['wait:' + r, r, (n) => n[NC + i], true]);
      if (rest.length) {
        spec.push(['wait:*', rest.length + (shown.length ? ' other' : '') + ' reasons', (n) => rest.reduce((a, [i]) => a + n[NC + i], 0), true,
          rest.map(([, r]) => r).join(', ')]);
      }
      if (colSum[BLOCKED] > 0) spec.push(['wait:', '(no wait reason)', (n) => n[BLOCKED], true]);
      if (colSum[UNKNOWN] > 0) spec.push(['unknown', 'Unknown', (n) => n[UNKNOWN]]);
      spec.push(['total', 'Total', (n, r) => r.total]);
      const head = el('tr'); head.append(el('th', 'fn', st.key));
      for (const [id, name, , sub, title] of spec) {
        const th = el('th', sub ? 'sub' : null);
        // A reason's heading may break after a dot: sync.Mutex.<wbr>Lock.
        (sub ? '↳ ' + name : name).split(/(?<=\.)/).forEach((part, k) => { if (k) th.append(el('wbr')); th.append(part); });
        th.dataset.col = id; th.title = title || name; head.append(th);
      }
      table.tHead.replaceChildren(head);
      const cell = (id, n, of) => { const td = el('td', null, n ? fmtUs(n * M.interval) : '–'); td.dataset.col = id; td.dataset.n = n; td.title = fmtN(n) + ' samples, ' + pct(n, of) + ' of the row'; return td; };
      const frag = document.createDocumentFragment(), sum = { total: 0, n: new Float64Array(cols) };
      shownRows = [];
      for (const r of out) {
        const tr = el('tr'); tr.dataset.kind = r.value === NONE ? 'none' : r.value === OTHER ? 'other' : 'value';
        shownRows.push(r.value); tr.dataset.i = shownRows.length - 1;
        tr.setAttribute('aria-selected', String(st.picked !== null && st.picked.has(r.value)));
        const name = el('td', 'fn', valueName(r.value)); name.title = valueName(r.value); tr.append(name);
        for (const [id, , f] of spec) tr.append(cell(id, f(r.n, r), r.total));
        frag.append(tr);
        sum.total += r.total; for (let c = 0; c < cols; c++) sum.n[c] += r.n[c];
      }
      if (!out.length) { const tr = el('tr'); const td = el('td', 'fn', 'no samples'); td.colSpan = spec.length + 1; tr.append(td); frag.append(tr); }
      table.tBodies[0].replaceChildren(frag);
      const foot = el('tr'); foot.append(el('td', 'fn', 'Total'));
      for (const [id, , f] of spec) foot.append(cell(id, f(sum.n, sum), sum.total));
      table.tFoot.replaceChildren(foot);
      const [lo, hi] = api.range(), whole = lo === 0 && hi === NS;
      scope.textContent = '— ' + st.key + (st.picked ? ', ' + st.picked.size + ' value' + (st.picked.size > 1 ? 's' : '') + ' picked' : '') + (whole ? '' : ', in the range');
    }
    table.tBodies[0].addEventListener('click', (ev) => {
      const tr = ev.target.closest('tr'); if (!tr || tr.dataset.i === undefined) return;
      st.picked = new Set([shownRows[+tr.dataset.i]]); fillValues(); filter();
    });
    new MutationObserver(render).observe($('summary'), { childList: true, subtree: true, characterData: true });
    let resized = 0; // the columns that fit change with the window
    window.addEventListener('resize', () => { cancelAnimationFrame(resized); resized = requestAnimationFrame(render); });
    fillValues();
    render();
    api.labels = {
      key: () => st.key, picked: () => st.picked === null ? null : [...st.picked],
      setKey: (k) => { keySel.value = k; keySel.dispatchEvent(new Event('change')); },
      pick: (vs) => { st.picked = vs === null ? null : new Set(vs); fillValues(); filter(); },
      keys, defaultKey: keys[L.key],
      // set picks key and, of its values, those of vs it has (all when
      // none is), as a link to the page asks; a key the page lacks
      // leaves the picker as it is. It filters only when that changes.
      set: (key, vs) => {
        if (!keys.includes(key)) return;
        const known = new Set(values(key).map(([v]) => v)), ok = vs.filter((v) => known.has(v));
        const picked = ok.length ? new Set(ok) : null;
        const same = key === st.key && (picked === null ? st.picked === null : st.picked !== null && picked.size === st.picked.size && ok.every((v) => st.picked.has(v)));
        if (same) return;
        st.key = key; keySel.value = key; st.picked = picked; fillValues(); filter();
      },
      none: NONE, other: OTHER,
    };
  }
})();
