/* pagesift-annotate: the annotation script of one workspace page.
 *
 * The page's blocks carry data-ps="K" (K = index into the page's block data,
 * the JSON in #ps-data); a block's label is 1 (content) or 0 (noise) once a
 * person set it (confirmed), else the model's pre-label when there is one,
 * else none.  Confirmed labels are kept in the browser's local storage under
 * "pagesift-annotate:<workspace id>:<page number>" (a map block_id -> 0/1),
 * so they survive a reload; the index page exports them.  Served by
 * pagesift-annotate --serve, every change is also saved to DIR/labels.json,
 * merged with what other browsers saved (assets/sync.js).
 *
 * Mouse: click toggles (unlabelled -> content -> noise -> content), shift-
 * click gives the block and every block inside it the clicked block's new
 * label, alt-click clears.  Keys: j / ArrowRight next page, k / ArrowLeft
 * previous page, u next block without a confirmed label, z (or Ctrl-Z)
 * undo, a accept the model's pre-labels, n every block without a confirmed
 * label becomes noise, 1 / 0 / Delete label the selected block content /
 * noise / none, p hide or show the panel, i the index page. */
(function () {
  'use strict';
  var ws = window.PS_WORKSPACE;
  var dataEl = document.getElementById('ps-data');
  if (!ws || !dataEl) return;
  var data = JSON.parse(dataEl.textContent);
  var blocks = data.blocks;
  var KEY = 'pagesift-annotate:' + ws.id + ':' + data.n;
  var els = new Array(blocks.length);
  Array.prototype.forEach.call(document.querySelectorAll('[data-ps]'), function (el) {
    var k = Number(el.getAttribute('data-ps'));
    if (k >= 0 && k < blocks.length) els[k] = el;
  });
  var labels = load();
  var undoStack = [];
  var sel = -1;
  var hover = -1;

  function load() {
    try {
      var s = localStorage.getItem(KEY);
      if (s) return JSON.parse(s);
    } catch (e) { /* unreadable storage: start from the workspace's labels */ }
    var init = {};
    blocks.forEach(function (b) { if (b.label === 0 || b.label === 1) init[b.id] = b.label; });
    return init;
  }
  function has(id) { return Object.prototype.hasOwnProperty.call(labels, id); }
  function state(k) {
    var b = blocks[k];
    if (has(b.id)) return labels[b.id] ? 'c' : 'n';
    if (b.pre === 0 || b.pre === 1) return b.pre ? 'pc' : 'pn';
    return 'u';
  }
  function effective(k) {
    var b = blocks[k];
    if (has(b.id)) return labels[b.id];
    if (b.pre === 0 || b.pre === 1) return b.pre;
    return null;
  }
  var NAMES = { c: 'content', n: 'noise', pc: 'content (model, unconfirmed)',
                pn: 'noise (model, unconfirmed)', u: 'unlabelled' };

  /* ---------------- storage ---------------- */
  var served = location.protocol === 'http:' || location.protocol === 'https:';
  var saveTimer = null;
  function save() {
    try {
      localStorage.setItem(KEY, JSON.stringify(labels));
    } catch (e) {
      setStatus('cannot keep the labels in local storage: ' + e.message + ' — export now');
    }
    if (served) {
      clearTimeout(saveTimer);
      saveTimer = setTimeout(saveToServer, 600);
    }
  }
  /* merged with what other browsers saved (sync.js): this page's labels
   * become the merged ones, conflicts are shown */
  var lastConflicts = '';
  function saveToServer() {
    if (!window.PSSync) { setStatus('saving failed: assets/sync.js did not load'); return Promise.resolve(null); }
    return window.PSSync.save().then(function (a) {
      var before = JSON.stringify(labels);
      labels = load();
      if (JSON.stringify(labels) !== before) {
        blocks.forEach(function (b, k) { paint(k); });
        refresh();
      }
      var mine = a.conflicts.filter(function (c) { return c.page === data.n; });
      lastConflicts = window.PSSync.describe(a.conflicts);
      setStatus(a.conflicts.length ? lastConflicts
                                   : 'saved to labels.json (revision ' + a.revision + ', merged with other browsers)');
      if (mine.length) {
        var k = -1;
        blocks.forEach(function (b, i) { if (b.id === mine[0].block) k = i; });
        if (k >= 0) select(k, true);
      }
      return a;
    }).catch(function (e) { setStatus('saving failed: ' + e.message); return null; });
  }

  /* ---------------- labelling ---------------- */
  function setLabels(changes) { /* [[k, 0|1|undefined], ...] */
    var undo = [];
    changes.forEach(function (c) {
      var id = blocks[c[0]].id;
      var prev = has(id) ? labels[id] : undefined;
      if (prev === c[1]) return;
      undo.push([c[0], prev]);
      if (c[1] === undefined) delete labels[id]; else labels[id] = c[1];
    });
    if (!undo.length) return;
    undoStack.push(undo);
    save();
    undo.forEach(function (u) { paint(u[0]); });
    refresh();
  }
  function undoLast() {
    var u = undoStack.pop();
    if (!u) { setStatus('nothing to undo'); return; }
    u.forEach(function (c) {
      var id = blocks[c[0]].id;
      if (c[1] === undefined) delete labels[id]; else labels[id] = c[1];
    });
    save();
    u.forEach(function (c) { paint(c[0]); });
    refresh();
    setStatus('undone (' + u.length + ' block' + (u.length > 1 ? 's' : '') + ')');
  }
  function region(k) {
    var ks = [k];
    if (els[k]) Array.prototype.forEach.call(els[k].querySelectorAll('[data-ps]'), function (d) {
      ks.push(Number(d.getAttribute('data-ps')));
    });
    /* blocks whose element is not on the page: by the block tree */
    var inside = {}; inside[k] = true;
    blocks.forEach(function (b, i) {
      if (b.parent >= 0 && inside[b.parent] && !inside[i]) { inside[i] = true; if (!els[i]) ks.push(i); }
    });
    return ks;
  }
  function clickBlock(k, ev) {
    select(k, false);
    if (ev.altKey) { setLabels([[k, undefined]]); return; }
    var v = effective(k) === 1 ? 0 : 1;
    if (ev.shiftKey) setLabels(region(k).map(function (i) { return [i, v]; }));
    else setLabels([[k, v]]);
  }
  function acceptPre() {
    var ch = [];
    blocks.forEach(function (b, k) { if (!has(b.id) && (b.pre === 0 || b.pre === 1)) ch.push([k, b.pre]); });
    setLabels(ch);
    setStatus(ch.length ? ch.length + ' pre-labels confirmed' : 'no unconfirmed pre-label on this page');
  }
  function restNoise() {
    var ch = [];
    blocks.forEach(function (b, k) { if (!has(b.id)) ch.push([k, 0]); });
    setLabels(ch);
    setStatus(ch.length + ' blocks labelled noise');
  }
  function nextUnlabelled() {
    for (var d = 1; d <= blocks.length; d++) {
      var k = (sel + d + blocks.length) % blocks.length;
      if (!has(blocks[k].id)) { select(k, true); return; }
    }
    setStatus('every block of this page is labelled');
  }
  function go(n) {
    if (n < 1 || n > ws.pages.length) { setStatus(n < 1 ? 'first page' : 'last page'); return; }
    location.href = '../' + ws.pages[n - 1].file;
  }

  /* ---------------- page events ---------------- */
  function blockOf(target) {
    var el = target && target.closest ? target.closest('[data-ps]') : null;
    return el ? Number(el.getAttribute('data-ps')) : -1;
  }
  document.addEventListener('click', function (ev) {
    if (ev.target === host) return;
    ev.preventDefault();
    ev.stopPropagation();
    var k = blockOf(ev.target);
    if (k >= 0) clickBlock(k, ev);
  }, true);
  ['auxclick', 'submit', 'dblclick'].forEach(function (t) {
    document.addEventListener(t, function (ev) { if (ev.target !== host) ev.preventDefault(); }, true);
  });
  document.addEventListener('mouseover', function (ev) {
    var k = blockOf(ev.target);
    if (k === hover) return;
    if (hover >= 0 && els[hover]) els[hover].removeAttribute('data-ps-hover');
    hover = k;
    if (k >= 0 && els[k]) els[k].setAttribute('data-ps-hover', '');
    if (k >= 0 && sel < 0) showBlock(k);
  }, true);
  document.addEventListener('keydown', function (ev) {
    if (ev.metaKey || (ev.ctrlKey && ev.key !== 'z')) return;
    var key = ev.key, done = true;
    if (key === 'ArrowRight' || key === 'j') go(data.n + 1);
    else if (key === 'ArrowLeft' || key === 'k') go(data.n - 1);
    else if (key === 'u') nextUnlabelled();
    else if (key === 'z' || key === 'Z') undoLast();
    else if (key === 'a') acceptPre();
    else if (key === 'n') restNoise();
    else if (key === '1' && sel >= 0) setLabels([[sel, 1]]);
    else if (key === '0' && sel >= 0) setLabels([[sel, 0]]);
    else if ((key === 'Delete' || key === 'Backspace') && sel >= 0) setLabels([[sel, undefined]]);
    else if (key === 'p') togglePanel();
    else if (key === 'i') location.href = '../index.html';
    else if (key === 'Escape') select(-1, false);
    else done = false;
    if (done) ev.preventDefault();
  }, true);

  /* ---------------- panel (shadow root: the page's CSS cannot reach it) ---------------- */
  var host = document.createElement('pagesift-panel');
  host.setAttribute('style', 'all: initial !important; position: fixed !important; top: 0 !important; ' +
    'right: 0 !important; width: 370px !important; height: 100vh !important; z-index: 2147483647 !important; ' +
    'display: block !important;');
  var root = host.attachShadow({ mode: 'open' });
  root.innerHTML =
    '<style>' +
    ':host{all:initial} .p{box-sizing:border-box;height:100vh;display:flex;flex-direction:column;' +
    'font:13px/1.35 system-ui,sans-serif;color:#111;background:#fff;border-left:2px solid #374151;' +
    'box-shadow:-2px 0 8px rgba(0,0,0,.2)} .hd{padding:8px 10px;background:#1f2937;color:#fff}' +
    '.hd b{font-size:14px} .nav{float:right} button{font:inherit;font-size:12px;padding:2px 7px;margin:2px 3px 2px 0;' +
    'border:1px solid #9ca3af;border-radius:3px;background:#fff;color:#111;cursor:pointer} button:hover{background:#e5e7eb}' +
    '.sec{padding:6px 10px;border-bottom:1px solid #e5e7eb} .t{font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}' +
    '.m{color:#6b7280;font-size:12px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}' +
    '.lg span{display:inline-block;margin:0 8px 2px 0;font-size:12px} .sw{display:inline-block;width:10px;height:10px;margin-right:3px;vertical-align:-1px;border-radius:2px}' +
    '.s-c{background:#15803d}.s-n{background:#b91c1c}.s-pc{background:repeating-linear-gradient(45deg,#15803d,#15803d 2px,#fff 2px,#fff 4px)}' +
    '.s-pn{background:repeating-linear-gradient(45deg,#b91c1c,#b91c1c 2px,#fff 2px,#fff 4px)}.s-u{background:#fff;border:1px dashed #2563eb;box-sizing:border-box}' +
    '.s-t{background:#9ca3af}' +
    '.det{max-height:38vh;overflow:auto} .det table{border-collapse:collapse;font-size:11px;width:100%} .det td{padding:0 4px;border-bottom:1px solid #f3f4f6}' +
    '.det td.v{text-align:right;font-variant-numeric:tabular-nums} .code{font:11px ui-monospace,monospace;word-break:break-all}' +
    '.pv{margin:4px 0;padding:4px;background:#f9fafb;border:1px solid #e5e7eb;max-height:80px;overflow:auto;font-size:12px}' +
    '.list{flex:1;overflow:auto} .row{padding:3px 10px;cursor:pointer;border-bottom:1px solid #f3f4f6;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;font-size:12px}' +
    '.row:hover{background:#fef3c7} .row.sel{background:#fde68a} .row .pa{color:#6b7280;font:11px ui-monospace,monospace}' +
    '.st{padding:4px 10px;background:#f3f4f6;min-height:1.3em;font-size:12px} .bar{height:8px;background:#e5e7eb;border-radius:4px;overflow:hidden;margin-top:4px}' +
    '.bar span{display:block;height:100%;background:#15803d} .keys{font-size:11px;color:#6b7280}' +
    '</style>' +
    '<div class="p"><div class="hd"><span class="nav"><button id="prev" title="previous page (k)">&#9664;</button>' +
    '<button id="next" title="next page (j)">&#9654;</button><button id="idx" title="index and export (i)">index</button></span>' +
    '<b>pagesift-annotate</b><div id="pos"></div></div>' +
    '<div class="sec"><div class="t" id="title"></div><div class="m" id="url"></div>' +
    '<div id="prog"></div><div class="bar"><span id="pbar"></span></div></div>' +
    '<div class="sec lg"><span><i class="sw s-c"></i>content</span><span><i class="sw s-n"></i>noise</span>' +
    '<span><i class="sw s-pc"></i>model: content</span><span><i class="sw s-pn"></i>model: noise</span>' +
    '<span><i class="sw s-u"></i>unlabelled</span><span><i class="sw s-t"></i>template</span></div>' +
    '<div class="sec"><button id="bu" title="u">next unlabelled</button><button id="bz" title="z">undo</button>' +
    '<button id="ba" title="a">accept model labels</button><button id="bn" title="n">rest noise</button>' +
    '<div class="keys">click: toggle · shift-click: region · alt-click: clear · j/k pages · u · z · a · n · 1/0 · p · i</div></div>' +
    '<div class="sec det" id="det"><span class="m">Hover or click a block.</span></div>' +
    '<div class="list" id="list"></div><div class="st" id="st"></div></div>';
  document.documentElement.appendChild(host);
  document.documentElement.classList.add('ps-panel-open');
  function $(id) { return root.getElementById(id); }
  function togglePanel() {
    var hidden = host.style.getPropertyValue('display') === 'none';
    host.style.setProperty('display', hidden ? 'block' : 'none', 'important');
    document.documentElement.classList.toggle('ps-panel-open', hidden);
  }
  $('prev').onclick = function () { go(data.n - 1); };
  $('next').onclick = function () { go(data.n + 1); };
  $('idx').onclick = function () { location.href = '../index.html'; };
  $('bu').onclick = nextUnlabelled;
  $('bz').onclick = undoLast;
  $('ba').onclick = acceptPre;
  $('bn').onclick = restNoise;
  $('pos').textContent = 'page ' + data.n + ' of ' + ws.pages.length + (data.site ? ' · ' + data.site : '');
  $('title').textContent = data.title || data.page_id;
  $('title').title = data.title || data.page_id;
  $('url').textContent = data.url || data.page_id;
  $('url').title = data.url || '';
  if (!blocks.length) setStatus('this page has no block with text');

  var list = $('list');
  var rows = blocks.map(function (b, k) {
    var r = document.createElement('div');
    r.className = 'row';
    var sw = document.createElement('i');
    var pa = document.createElement('span');
    pa.className = 'pa';
    pa.textContent = ' ' + b.path.split('/').slice(-3).join('/') + ' ';
    r.appendChild(sw);
    r.appendChild(pa);
    r.appendChild(document.createTextNode(b.text.slice(0, 90)));
    r.title = b.path + '\n' + b.text;
    r.onclick = function () { select(k, true); };
    list.appendChild(r);
    return r;
  });
  function updateListRow(k) { rows[k].firstChild.className = 'sw s-' + state(k); }
  function paint(k) {
    if (els[k]) els[k].setAttribute('data-ps-s', state(k));
    updateListRow(k);
  }
  function select(k, scroll) {
    if (sel >= 0) { if (els[sel]) els[sel].removeAttribute('data-ps-sel'); rows[sel].classList.remove('sel'); }
    sel = k;
    if (k < 0) return;
    if (els[k]) {
      els[k].setAttribute('data-ps-sel', '');
      if (scroll) els[k].scrollIntoView({ block: 'center' });
    }
    rows[k].classList.add('sel');
    if (scroll) rows[k].scrollIntoView({ block: 'nearest' });
    showBlock(k);
  }
  function showBlock(k) {
    var b = blocks[k], det = $('det');
    det.textContent = '';
    function line(label, value, cls) {
      var d = document.createElement('div');
      var s = document.createElement('b');
      s.textContent = label + ' ';
      d.appendChild(s);
      var v = document.createElement('span');
      if (cls) v.className = cls;
      v.textContent = value;
      d.appendChild(v);
      det.appendChild(d);
    }
    line('label', NAMES[state(k)] + (b.score !== undefined ? ' · score ' + b.score.toFixed(3) : ''));
    line('id', b.id, 'code');
    line('path', b.path, 'code');
    line('tag', b.tag + (els[k] ? '' : ' (not on the rendered page)'));
    var pv = document.createElement('div');
    pv.className = 'pv';
    pv.textContent = b.text;
    det.appendChild(pv);
    var t = document.createElement('table');
    data.feature_names.forEach(function (name, i) {
      var tr = t.insertRow();
      tr.insertCell().textContent = name;
      var c = tr.insertCell();
      c.className = 'v';
      var x = b.f[i];
      c.textContent = Number.isInteger(x) ? String(x) : x.toPrecision(4);
    });
    det.appendChild(t);
  }
  function refresh() {
    var conf = 0, pre = 0;
    blocks.forEach(function (b) { if (has(b.id)) conf++; else if (b.pre === 0 || b.pre === 1) pre++; });
    $('prog').textContent = conf + ' of ' + blocks.length + ' blocks labelled' +
      (pre ? ' · ' + pre + ' model labels to confirm' : '');
    $('pbar').style.width = (blocks.length ? 100 * conf / blocks.length : 100) + '%';
    if (sel >= 0) showBlock(sel);
  }
  function setStatus(msg) { $('st').textContent = msg; }

  blocks.forEach(function (b, k) { paint(k); });
  refresh();
  /* another tab of this browser changed this page's labels (the index's
   * save merged other browsers' labels in, or the same page in two tabs):
   * take them, so that the next change here does not write back old ones */
  window.addEventListener('storage', function (ev) {
    if (ev.key !== KEY) return;
    labels = load();
    blocks.forEach(function (b, k) { paint(k); });
    refresh();
  });
  /* served: what other browsers saved is shown at once (a save of no change) */
  if (served) saveToServer();
  /* for tests and scripted sessions */
  window.psAnnotate = {
    page: data, state: state, labels: function () { return JSON.parse(JSON.stringify(labels)); },
    element: function (k) { return els[k] || null; },
    save: function () { clearTimeout(saveTimer); return saveToServer(); },
    status: function () { return $('st').textContent; }
  };
})();
