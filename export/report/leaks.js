// The report's leaks view, in the page of a wall profile with goroutines
// blocked at one stack through whole slices of it (leaks.go has the data's
// layout; internal/leaks the analysis, which tachyon leaks prints too):
// a table of the groups, by creation site and wait, the growing ones
// first, each with its count by slice as a sparkline. Groups that do not
// grow (idle workers, or leaks older than the profile) are shown on
// demand. It runs after report.js (and labels.js), through its API
// (window.tachyonReport).
(function () {
  'use strict';
  const api = window.tachyonReport;
  if (!api || !api.data || !api.data.leaks) return;
  try { start(api.data, api); } catch (e) { console.error('leaks:', e); }

  function start(D, api) {
    const S = D.strings, L = D.leaks;
    const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text != null) e.textContent = text; return e; };
    const fmtN = (n) => Math.round(n).toLocaleString('en-US');
    const fmtUs = (us) => us >= 1e6 ? (us / 1e6).toFixed(us >= 1e7 ? 0 : 1) + ' s' : (us / 1e3).toFixed(0) + ' ms';
    const sec = el('section'); sec.id = 'leaks-section';
    sec.append(el('h2', null, 'Goroutines that never come back'));
    const note = el('p', 'note');
    note.textContent = 'Goroutines blocked at one stack from a slice\u2019s start to its end (' + L.slices + ' slices of ' + fmtUs(L.sliceUs) +
      '), by where they were created and where they wait. A group that grows came on during the profile and stayed; one woken between two samples looks blocked all the same, so a pool of idle workers has a flat count. ' +
      (L.marked ? '\u201cCan never wake\u201d: the runtime\u2019s goroutine leak profile proved them unreachable.' : 'No goroutine is marked unreachable: the runtime\u2019s goroutine leak profile (Go 1.27) was not taken, or found none.');
    sec.append(note);
    const wrap = el('div', 'tablewrap');
    const table = el('table'); table.id = 'leaks';
    const head = el('tr');
    for (const [t, c] of [['#', null], ['Created at', 'site'], ['Waiting in', 'fn'], ['Count over time', null], ['At end', null], ['Growth', null], ['Can never wake', null]]) head.append(el('th', c, t));
    table.append(el('thead')); table.tHead.append(head);
    const body = el('tbody'); table.append(body);
    wrap.append(table); sec.append(wrap);
    const more = el('button'); more.type = 'button'; more.id = 'leaks-more';
    sec.append(more);
    let showAll = false;

    function spark(counts, unr) {
      const W = 160, H = 28, n = counts.length, top = Math.max(1, ...counts);
      const NS = 'http://www.w3.org/2000/svg';
      const svg = document.createElementNS(NS, 'svg');
      svg.setAttribute('width', W); svg.setAttribute('height', H); svg.setAttribute('class', 'spark');
      svg.setAttribute('role', 'img'); svg.setAttribute('aria-label', 'count by slice: ' + counts.join(' '));
      const path = (vals, cls) => {
        const p = document.createElementNS(NS, 'path');
        p.setAttribute('d', vals.map((v, i) => (i ? 'L' : 'M') + (n > 1 ? (i * (W - 2) / (n - 1) + 1) : W / 2).toFixed(1) + ' ' + (H - 2 - v * (H - 4) / top).toFixed(1)).join(' '));
        if (cls) p.setAttribute('class', cls);
        svg.append(p);
      };
      path(counts);
      if (unr.some((v) => v > 0)) path(unr, 'unr');
      return svg;
    }

    function draw() {
      body.replaceChildren();
      let k = 0;
      L.groups.forEach((g) => {
        if (!g.listed && !showAll) return;
        k++;
        const tr = el('tr'); tr.dataset.listed = g.listed ? '1' : '0';
        const last = g.counts[g.counts.length - 1], lastU = g.unreachable[g.unreachable.length - 1];
        tr.append(el('td', null, String(k)));
        const site = g.site >= 0 ? S[g.site] : '(not known: created before the profile began)';
        const st = el('td', 'site', site); st.title = site; tr.append(st);
        const wt = el('td', 'wait');
        for (let i = 0; i < g.wait.length && i < 9; i += 3) {
          const fn = S[g.wait[i]], file = S[g.wait[i + 1]], line = g.wait[i + 2];
          const d = el('div', i ? 'more' : null, file ? fn + ' ' + file.slice(file.lastIndexOf('/') + 1) + ':' + line : fn);
          d.title = file ? fn + ' ' + file + ':' + line : fn; wt.append(d);
        }
        tr.append(wt);
        const sp = el('td'); sp.append(spark(g.counts, g.unreachable)); tr.append(sp);
        tr.append(el('td', null, fmtN(last)));
        tr.append(el('td', null, g.grows ? '+' + g.rate + '/s' : 'flat'));
        tr.append(el('td', lastU > 0 ? 'never' : null, lastU > 0 ? fmtN(lastU) + ' of ' + fmtN(last) : '\u2013'));
        body.append(tr);
      });
      if (k === 0) {
        const tr = el('tr'), td = el('td', 'note', 'No group grows, and none is proved unable to wake.');
        td.colSpan = 7; tr.append(td); body.append(tr);
      }
      more.hidden = L.flat === 0;
      more.textContent = showAll ? 'Hide the groups that do not grow' : 'Show ' + fmtN(L.flat) + (L.flat === 1 ? ' group' : ' groups') + ' of ' + fmtN(L.flatGoroutines) + ' goroutines that do not grow';
    }
    more.addEventListener('click', () => { showAll = !showAll; draw(); });
    draw();
    document.getElementById('timeline-section').after(sec);
  }
})();
