/* pagesift-annotate: the workspace's index page — progress per page and
 * per site, and the export: labels.csv (pagesift-features' block CSV with
 * the label column filled for confirmed blocks; pagesift-train takes it as
 * it is) and labels.json (pagesift-annotate --resume reads it back).  Served
 * by pagesift-annotate --serve, "Save to disk" writes both into the
 * workspace folder, merged with what other browsers saved (sync.js). */
(function () {
  'use strict';
  var ws = window.PS_WORKSPACE, R = window.PS_ROWS;
  var main = document.getElementById('ps-index');
  var served = location.protocol === 'http:' || location.protocol === 'https:';

  function pageLabels(p) {
    try {
      var s = localStorage.getItem('pagesift-annotate:' + ws.id + ':' + p.n);
      if (s) return JSON.parse(s);
    } catch (e) { /* the workspace's own labels */ }
    return p.labels || {};
  }
  function counts(p) {
    var l = pageLabels(p), c = { total: p.blocks.length, content: 0, noise: 0, pre: 0 };
    p.blocks.forEach(function (id, i) {
      if (Object.prototype.hasOwnProperty.call(l, id)) { if (l[id]) c.content++; else c.noise++; }
      else if (p.pre[i] === 0 || p.pre[i] === 1) c.pre++;
    });
    c.labelled = c.content + c.noise;
    return c;
  }
  function labelsDoc() {
    return { format: 'pagesift-annotate-labels', version: 1, workspace: ws.id,
             pages: ws.pages.map(function (p) {
               return { n: p.n, dataset: p.dataset, page_id: p.page_id, url: p.url, site: p.site,
                        labels: pageLabels(p) };
             }) };
  }
  function csv() {
    var out = [R.header, '\r\n'];
    ws.pages.forEach(function (p) {
      var l = pageLabels(p);
      p.blocks.forEach(function (id) {
        var r = R.rows[id];
        if (!r) return;
        var v = Object.prototype.hasOwnProperty.call(l, id) ? String(l[id]) : '';
        out.push(r[0], ',', v, ',', r[1], '\r\n');
      });
    });
    return out.join('');
  }
  function unconfirmed() {
    return ws.pages.reduce(function (s, p) { return s + counts(p).pre; }, 0);
  }
  function askUnconfirmed() {
    var n = unconfirmed();
    if (!n) return true;
    return window.confirm(n + ' blocks carry model pre-labels that nobody confirmed. They are ' +
      'exported with an empty label (pagesift-train skips them). Press "a" on a page to accept ' +
      'its pre-labels. Export anyway?');
  }
  function download(name, text, type) {
    var url = URL.createObjectURL(new Blob([text], { type: type }));
    var a = document.createElement('a');
    a.href = url;
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 60000);
  }
  function status(msg) { document.getElementById('ps-status').textContent = msg; }

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function bar(c) {
    var b = el('span', undefined, 'bar');
    var d = el('span', undefined, 'done');
    d.style.width = (c.total ? 100 * c.labelled / c.total : 100) + '%';
    var p = el('span', undefined, 'pre');
    p.style.width = (c.total ? 100 * c.pre / c.total : 0) + '%';
    b.appendChild(d);
    b.appendChild(p);
    return b;
  }
  function table(head, rows) {
    var t = el('table'), tr = t.createTHead().insertRow();
    head.forEach(function (h) { tr.appendChild(el('th', h)); });
    var tb = t.createTBody();
    rows.forEach(function (r) {
      var row = tb.insertRow();
      r.forEach(function (v) {
        var td = row.insertCell();
        if (v instanceof Node) td.appendChild(v);
        else { td.textContent = String(v); if (typeof v === 'number') td.className = 'num'; }
      });
    });
    return t;
  }
  function render() {
    main.textContent = '';
    main.appendChild(el('h1', 'pagesift-annotate'));
    var tot = { total: 0, labelled: 0, content: 0, noise: 0, pre: 0 }, sites = {};
    var pageRows = ws.pages.map(function (p) {
      var c = counts(p);
      ['total', 'labelled', 'content', 'noise', 'pre'].forEach(function (k) { tot[k] += c[k]; });
      var s = sites[p.site || '(no site)'] || (sites[p.site || '(no site)'] = { pages: 0, done: 0, total: 0, labelled: 0, pre: 0 });
      s.pages++; s.total += c.total; s.labelled += c.labelled; s.pre += c.pre;
      if (c.labelled === c.total) s.done++;
      var a = el('a', p.title || p.page_id);
      a.href = p.file;
      var u = typeof p.uncertainty === 'number' ? Math.round(100 * p.uncertainty) + ' %' : '';
      return [p.n, p.site, a, c.total, c.labelled, c.content, c.noise, c.pre, u, bar(c)];
    });
    main.appendChild(el('p', ws.pages.length + ' pages · ' + tot.labelled + ' of ' + tot.total +
      ' blocks labelled (' + tot.content + ' content, ' + tot.noise + ' noise)' +
      (tot.pre ? ' · ' + tot.pre + ' model pre-labels not confirmed' : '') +
      (ws.model ? ' · pre-labelled by ' + ws.model : ''), 'muted'));
    var tools = el('div');
    var b1 = el('button', 'Export CSV (labels.csv)');
    b1.id = 'export-csv';
    b1.onclick = function () {
      if (!askUnconfirmed()) { status('export cancelled'); return; }
      download('labels.csv', csv(), 'text/csv');
      status('labels.csv exported: train with pagesift-train labels.csv -o my.model');
    };
    var b2 = el('button', 'Export labels (labels.json)');
    b2.id = 'export-json';
    b2.onclick = function () {
      download('labels.json', JSON.stringify(labelsDoc(), null, 1), 'application/json');
      status('labels.json exported: pagesift-annotate --resume labels.json reads it back');
    };
    tools.appendChild(b1);
    tools.appendChild(b2);
    if (served) {
      var b3 = el('button', 'Save to disk (labels.csv + labels.json)');
      b3.id = 'save';
      b3.onclick = function () {
        if (!askUnconfirmed()) { status('save cancelled'); return; }
        if (!window.PSSync) { status('saving failed: assets/sync.js did not load'); return; }
        // merged with what other browsers saved; labels.csv of the merged labels
        window.PSSync.save(csv).then(function (a) {
          render();
          var c = window.PSSync.describe(a.conflicts);
          status((a.csv ? 'saved labels.csv and labels.json in the workspace folder (revision ' + a.revision +
                          ', merged with other browsers)'
                        : 'saved labels.json (revision ' + a.revision + '); labels.csv not written: other ' +
                          'saves kept coming between, press again') + (c ? ' · ' + c : ''));
        }).catch(function (e) { status('saving failed: ' + e.message); });
      };
      tools.appendChild(b3);
    }
    main.appendChild(tools);
    main.appendChild(el('div', '', '')).id = 'ps-status';
    main.appendChild(el('h2', 'Sites'));
    main.appendChild(table(['site', 'pages', 'pages done', 'blocks', 'labelled', 'to confirm', 'progress'],
      Object.keys(sites).sort().map(function (k) {
        var s = sites[k];
        return [k, s.pages, s.done, s.total, s.labelled, s.pre, bar({ total: s.total, labelled: s.labelled, pre: s.pre })];
      })));
    // Label next: the pages the model is least sure about (the share of
    // their text scored near its decision boundary), not labelled yet.
    // Whether they teach a site model more than other pages is measured in
    // docs/SITE_MODELS.md (so far: not on the mean).
    var next = ws.pages.filter(function (p) {
      return typeof p.uncertainty === 'number' && counts(p).labelled === 0;
    }).sort(function (x, y) { return y.uncertainty - x.uncertainty || x.n - y.n; }).slice(0, 10);
    if (next.length) {
      main.appendChild(el('h2', 'Label next'));
      main.appendChild(el('p', 'Pages not labelled yet, those the model is least sure about first ' +
        '(unsure: the share of their text it scored near its decision boundary): where it errs, ' +
        'if anywhere. Label a few typical pages of each site too, one of each of its layouts: a site ' +
        'model is used only on pages like its labelled ones.', 'muted'));
      var nt = table(['#', 'site', 'page', 'unsure'], next.map(function (p) {
        var a = el('a', p.title || p.page_id);
        a.href = p.file;
        return [p.n, p.site, a, Math.round(100 * p.uncertainty) + ' %'];
      }));
      nt.id = 'label-next';
      main.appendChild(nt);
    }
    main.appendChild(el('h2', 'Pages'));
    main.appendChild(table(['#', 'site', 'page', 'blocks', 'labelled', 'content', 'noise', 'to confirm', 'unsure', 'progress'],
      pageRows));
    main.appendChild(el('p', 'On a page: click toggles a block, shift-click labels a region, alt-click clears; ' +
      'j/k next/previous page, u next unlabelled, z undo, a accept model labels, n rest noise, i back here. ' +
      'Labels are kept in this browser (local storage) until exported.', 'muted'));
  }
  render();
  // served: the labels other browsers saved are counted at once
  if (served && window.PSSync) window.PSSync.save().then(render, function (e) {
    status('could not load the saved labels: ' + e.message);
  });
  window.addEventListener('storage', render);
  window.addEventListener('pageshow', render);
  window.psIndex = { csv: csv, labels: labelsDoc, unconfirmed: unconfirmed };
})();
