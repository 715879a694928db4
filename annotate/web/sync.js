/* pagesift-annotate: saving to a served workspace (pagesift-annotate --serve),
 * merged with what other browsers saved.  Shared by the page script
 * (annotate.js) and the index (index.js).
 *
 * Labels live in this browser's local storage, per page
 * ("pagesift-annotate:<workspace>:<n>", block_id -> 0/1).  Beside them is the
 * server's view this browser last had ("pagesift-annotate:<workspace>:server":
 * the revision and every page's labels as the server answered them).  A save
 * sends only what differs between the two: per block, the label now and the
 * one it had in that view ("was").  The server applies a change when the
 * file still holds "was"; when another browser changed the block since, the
 * label saved first stays and the change comes back as a conflict.  The
 * answer carries the merged labels of every page: they become this
 * browser's labels, but for the blocks changed while the save was on its way
 * (sent with the next save), and its new view of the server.  One save at a
 * time; a change during one is sent right after it. */
(function () {
  'use strict';
  var ws = window.PS_WORKSPACE;
  if (!ws) return;
  var PREFIX = 'pagesift-annotate:' + ws.id + ':';
  var own = Object.prototype.hasOwnProperty;

  function read(key) {
    try {
      var s = localStorage.getItem(key);
      if (s) return JSON.parse(s);
    } catch (e) { /* unreadable: as none */ }
    return null;
  }
  function pageLabels(p) { return read(PREFIX + p.n) || p.labels || {}; }
  function value(l, id) { return own.call(l, id) ? l[id] : null; }
  function view() {
    var v = read(PREFIX + 'server');
    return v && typeof v.revision === 'number' && v.pages ? v : { revision: 0, pages: {} };
  }

  var busy = null, again = false;

  /* One round trip: @p csvOf (or null) gives labels.csv of the labels sent.
   * Resolves to the server's answer plus "pending" (changes made meanwhile). */
  function once(csvOf) {
    var v = view(), sent = {}, pages = [];
    ws.pages.forEach(function (p) {
      var l = pageLabels(p), was = v.pages[p.n] || {}, ch = {}, any = false;
      sent[p.n] = l;
      Object.keys(l).concat(Object.keys(was)).forEach(function (id) {
        if (own.call(ch, id) || value(l, id) === value(was, id)) return;
        ch[id] = { label: value(l, id), was: value(was, id) };
        any = true;
      });
      if (any) pages.push({ n: p.n, dataset: p.dataset, page_id: p.page_id, url: p.url, site: p.site, changes: ch });
    });
    var body = { format: 'pagesift-annotate-save', version: 1, workspace: ws.id, base: v.revision, pages: pages };
    if (csvOf) body.csv = csvOf();
    return fetch('/save', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Pagesift': 'save' },
                            body: JSON.stringify(body) })
      .then(function (r) {
        if (!r.ok) return r.text().then(function (t) { throw new Error('HTTP ' + r.status + ': ' + t.trim()); });
        return r.json();
      })
      .then(function (a) {
        var merged = {};
        (a.labels.pages || []).forEach(function (p) { merged[p.n] = p.labels || {}; });
        var pending = false;
        ws.pages.forEach(function (p) {
          var now = pageLabels(p), before = sent[p.n], out = {};
          var m = merged[p.n] || {};
          Object.keys(m).forEach(function (id) { out[id] = m[id]; });
          /* changed while the save was on its way: kept, sent next */
          Object.keys(now).concat(Object.keys(before)).forEach(function (id) {
            if (value(now, id) === value(before, id)) return;
            pending = true;
            if (value(now, id) === null) delete out[id]; else out[id] = now[id];
          });
          try { localStorage.setItem(PREFIX + p.n, JSON.stringify(out)); } catch (e) { /* full: next save */ }
        });
        try {
          localStorage.setItem(PREFIX + 'server', JSON.stringify({ revision: a.revision, pages: merged }));
        } catch (e) { /* full */ }
        a.pending = pending;
        return a;
      });
  }

  /* Save (merge) now; resolves to the last answer, with "conflicts" of every
   * round.  @p csvOf: also write labels.csv of the merged labels (retried
   * while other saves come between, at most 5 times). */
  function save(csvOf) {
    if (busy) { again = true; return busy; }
    var conflicts = [];
    function round(k) {
      return once(csvOf).then(function (a) {
        conflicts = conflicts.concat(a.conflicts || []);
        if ((a.pending || (csvOf && !a.csv)) && k < 5) return round(k + 1);
        a.conflicts = conflicts;
        return a;
      });
    }
    busy = round(0).then(function (a) {
      busy = null;
      if (again) { again = false; save(); }
      return a;
    }, function (e) { busy = null; again = false; throw e; });
    return busy;
  }

  /* What the annotator is told of conflicts. */
  function describe(conflicts) {
    if (!conflicts.length) return '';
    var name = function (v) { return v === 1 ? 'content' : v === 0 ? 'noise' : 'none'; };
    return conflicts.length + ' block' + (conflicts.length > 1 ? 's were' : ' was') +
      ' labelled differently in another browser; the label saved first is kept: ' +
      conflicts.slice(0, 5).map(function (c) {
        return 'page ' + c.page + ' ' + c.block + ' ' + name(c.saved) + ' (yours: ' + name(c.yours) + ')';
      }).join(', ') + (conflicts.length > 5 ? ', …' : '');
  }

  window.PSSync = { save: save, describe: describe, view: view };
})();
