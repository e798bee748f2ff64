// The page: the attn-tutor command line, compiled to WebAssembly, behind a form. Every lesson, option,
// default, range, message and word comes from the module itself (`attn-tutor lessons --json`); every
// lesson, check, verify and kv-memory view is the HTML the C++ writes (`--html -`), shown here. This
// script only runs commands, places their output, and steps, hovers and downloads. Text from a command
// or a learner reaches the page through the DOM's text APIs or DOMParser, never as markup of ours.
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const PAGE_OPTIONS_SKIPPED = new Set(['--lang']);  // the page's own toggle sets it
  const DISPLAY_OPTIONS_SHOWN = new Set(['--explain']);  // the one display option that changes the page's text

  // 1. What the module says about itself, per language (commands.js runs it).
  const { run } = attnTutorCommands;
  const say = (key, ...values) => {
    let text = state.cat.ui[key];
    if (text === undefined) return key;
    values.forEach((v, i) => { text = text.split('{' + (i + 1) + '}').join(String(v)); });
    return text;
  };
  // The hover box and the keyboard over the pictures (pictures.js).
  const { showTip, hideTip, focusablePictures, movePicture } = attnTutorPictures($('report'), $('tip'), say);
  const catalogs = {};
  async function catalog(lang) {
    if (!catalogs[lang]) {
      const r = await run(['lessons', '--json', '--lang', lang]);
      if (r.status !== 0) throw new Error(r.stderr || 'attn-tutor lessons --json failed');
      catalogs[lang] = JSON.parse(r.stdout);
    }
    return catalogs[lang];
  }

  // 2. The state, all of it in the URL fragment: #VIEW?option=value&lang=zh&cell=5 (`written`: the view's
  // name as the address spells it).
  const state = { view: '', written: '', values: {}, lang: '', cell: 0, from: '', cat: null };

  function views() {
    return state.cat.lessons.concat(state.cat.commands.filter((c) => c.page !== false));
  }
  // The view the address names (no name: the first lesson); null for a word the page does not offer.
  function currentView() {
    if (!state.view) return state.cat.lessons[0];
    return views().find((v) => v.name === state.view) || null;
  }
  function formOptions(view) {
    return (view.options || []).filter((o) => !PAGE_OPTIONS_SKIPPED.has(o.flag) &&
      (!o.display || DISPLAY_OPTIONS_SHOWN.has(o.flag)));
  }

  function readHash() {
    const raw = location.hash.slice(1).split('?')[0] || '';
    let hash = raw;
    try { hash = decodeURIComponent(raw); } catch (e) { /* a broken escape: the name as written */ }
    const query = new URLSearchParams(location.hash.includes('?') ? location.hash.slice(location.hash.indexOf('?') + 1) : '');
    state.view = hash;
    state.written = raw;
    state.values = {};
    state.cell = 0;
    state.from = '';
    for (const [key, value] of query) {
      // Any other lang is the page's to ignore (its toggle), kept only to be refused if it holds a NUL.
      if (key === 'lang') { if (value === 'en' || value === 'zh') state.lang = value; else state.values['--lang'] = value; }
      else if (key === 'cell') state.cell = /^\d{1,6}$/.test(value) ? Number(value) : 0;
      else if (key === 'from') state.from = value;
      else state.values['--' + key] = value;
    }
  }
  function writeHash() {
    const view = currentView();
    if (!view || nulAt()) return;  // the address as given: the page shows why it runs nothing
    const query = new URLSearchParams();
    for (const o of formOptions(view)) {
      const v = state.values[o.flag];
      if (v !== undefined && v !== '') query.set(o.flag.slice(2), v);
    }
    for (const [flag, v] of extraWords(view)) query.append(flag.slice(2), v);
    query.set('lang', state.lang);
    if (state.cell) query.set('cell', String(state.cell));
    else if (state.from) query.set('from', state.from);  // not yet followed (or refused): as given
    const text = '#' + encodeURIComponent(view.name) + '?' + query.toString();
    if (location.hash !== text) history.replaceState(null, '', text);
  }

  // 3. The page's own words and the picker.
  function fill(id, key) { $(id).textContent = say(key); }
  function buildChrome() {
    const cat = state.cat;
    document.documentElement.lang = cat.lang === 'zh' ? 'zh-CN' : 'en';
    document.title = say('page.title');
    fill('title', 'page.title');
    fill('subtitle', 'page.subtitle');
    fill('lesson-label', 'page.lesson');
    $('lang-toggle').textContent = say('page.language');
    $('lang-toggle').lang = cat.lang === 'zh' ? 'en' : 'zh-CN';
    fill('first', 'page.first');
    fill('prev', 'page.prev');
    fill('next', 'page.next');
    fill('last', 'page.last');
    fill('keys', 'page.keys');
    fill('check-title', 'page.check');
    fill('verify-title', 'page.verify');
    $('lang-toggle').setAttribute('aria-label', say('page.language_label') + ': ' + say('page.language'));
    fill('check-help', 'page.check_help');
    fill('check-pick', 'page.check_pick');
    fill('verify-help', 'page.verify_help');
    fill('verify-run', 'page.verify_run');
    fill('downloads-title', 'page.downloads');
    fill('offline', 'page.offline');
    for (const b of document.querySelectorAll('[data-download]')) b.textContent = say('page.download_' + b.dataset.download);
    const select = $('lesson');
    select.replaceChildren();
    const groups = new Map(cat.groups.map((g) => [g.id, g.title]));
    const byGroup = new Map();
    for (const v of views()) {
      if (!byGroup.has(v.group)) byGroup.set(v.group, []);
      byGroup.get(v.group).push(v);
    }
    for (const [group, members] of byGroup) {
      const og = document.createElement('optgroup');
      og.label = groups.get(group) || group;
      for (const v of members) {
        const opt = document.createElement('option');
        opt.value = v.name;
        opt.textContent = (v.sections && v.sections.length ? v.sections.join(', ') + '  ' : '') + v.name + ' \u2014 ' + v.title;
        og.append(opt);
      }
      select.append(og);
    }
    select.value = currentView() ? currentView().name : '';
  }

  // 4. The options form, from the view's options.
  let optionsOpen = null;  // the learner's choice, once made
  function buildForm() {
    const view = currentView();
    const form = $('options');
    form.replaceChildren();
    if (!view) return;
    // Folded on a narrow screen (the lesson comes first there), open beside it on a wide one.
    const details = document.createElement('details');
    details.open = optionsOpen !== null ? optionsOpen : window.matchMedia('(min-width: 821px)').matches;
    const summary = document.createElement('summary');
    summary.addEventListener('click', () => { optionsOpen = !details.open; });  // the learner's, not ours
    summary.textContent = say('page.options');
    const set = document.createElement('fieldset');
    details.append(summary, set);
    for (const o of formOptions(view)) set.append(attnTutorField(o, state.values[o.flag], say, (v) => {
      if (v === '') delete state.values[o.flag]; else state.values[o.flag] = v;
      state.cell = 0;
      render();
    }));
    const reset = document.createElement('button');
    reset.type = 'button';
    reset.textContent = say('page.reset');
    reset.addEventListener('click', () => { state.values = {}; state.cell = 0; buildForm(); render(); });
    set.append(reset);
    form.append(details);
  }
  // 5. Running the current view.
  // The address's options the view has none of by that name (not its display options, which the address
  // never sets): the command gets them as they are and says what is wrong with them.
  function extraWords(view) {
    const known = new Set((view.options || []).map((o) => o.flag).concat(Array.from(PAGE_OPTIONS_SKIPPED)));
    return Object.entries(state.values).filter(([flag]) => !known.has(flag));
  }
  function viewArgs(view, output) {
    const args = [view.name], files = {};
    for (const o of formOptions(view)) {
      const v = state.values[o.flag];
      if (v === undefined || v === '') continue;
      if (o.kind === 'flag') { args.push(o.flag); continue; }
      if (attnTutorIsFileOption(o)) {
        const name = o.flag.slice(2) + '.json';
        files[name] = v;
        args.push(o.flag, name);
      } else args.push(o.flag, v);
    }
    for (const [flag, v] of extraWords(view)) args.push(flag, v);
    args.push('--lang', state.lang);
    if (output) args.push(output, '-');
    return { args, files };
  }

  function showError(text) {
    const box = $('error');
    box.replaceChildren();
    if (!text) { box.hidden = true; return; }
    const head = document.createElement('strong');
    head.textContent = say('page.error');
    const body = document.createElement('pre');
    body.textContent = text.replace(/\s+$/, '');
    box.append(head, body);
    box.hidden = false;
  }

  // Places an HTML document a command wrote: its body, without its own <style>, <script> or <h1>.
  function place(html) {
    // The report's own <style> goes before parsing: even an inert document applies the page's CSP to it
    // (refused, and reported). The C++ escapes every text, so "<style" only ever starts that element.
    const doc = new DOMParser().parseFromString(html.replace(/<style\b[^>]*>[\s\S]*?<\/style>/gi, ''), 'text/html');
    for (const el of doc.querySelectorAll('style, script, link, meta, base, iframe, object, embed')) el.remove();
    const report = $('report');
    report.replaceChildren(...Array.from(doc.body.childNodes, (n) => document.importNode(n, true)));
    const toc = report.querySelector('nav.toc');
    $('toc').replaceChildren();
    if (toc) {
      toc.classList.remove('toc');
      $('toc').append(toc);
    }
  }

  // Where the settings hold a NUL (the view's name as the address writes it, or the option), which no
  // argument of a command line can hold: run, it would end the value there. '' for none.
  function nulAt() {
    if (state.view.includes('\0')) return state.written;
    const flag = Object.keys(state.values).find((f) => (f + state.values[f]).includes('\0'));
    if (flag !== undefined) return flag.split('\0').join('%00');
    return state.from.includes('\0') ? '--from' : '';
  }
  // In place of a view the address cannot have, the refusal, as the command line words its own: for a
  // word it does not know either, its own message (with a suggestion, when it has one) or its output.
  async function refuse(token, started) {
    const nul = nulAt();
    let r = { status: 2, stdout: '', stderr: '' };
    if (nul) r.stderr = say('page.err_nul', nul);
    else if ((state.cat.subcommands || []).includes(state.view)) r.stderr = say('page.err_not_here', state.view);
    else r = await attempt([state.view, '--lang', state.lang], {});
    if (token !== renderToken) return;
    for (const id of ['check-panel', 'verify-panel', 'options', 'downloads', 'stepper']) $(id).hidden = true;
    $('toc').replaceChildren();
    cells = [];
    const out = document.createElement('pre');
    out.textContent = r.status === 0 ? r.stdout : '';
    $('report').replaceChildren(...(r.status === 0 ? [out] : []));
    showError(r.status === 0 ? '' : r.stderr || ('exit ' + r.status));
    finish(started);
  }

  // The command's refusal of the address's --from (a section or cell the lesson does not have), or null.
  async function fromRefused(view) {
    if (!state.from || !(view.options || []).some((o) => o.flag === '--from')) return null;
    const { args, files } = viewArgs(view, null);
    const r = await attempt(args.concat(['--from', state.from]), files);
    return r.status === 0 ? null : r;
  }

  let renders = 0, renderToken = 0;
  async function render() {
    const token = ++renderToken;
    const started = performance.now();
    running();
    const view = currentView();
    if (!view || nulAt()) { await refuse(token, started); return; }
    state.view = view.name;
    const tool = view.name === 'check' || view.name === 'verify';
    $('check-panel').hidden = view.name !== 'check';
    $('verify-panel').hidden = view.name !== 'verify';
    $('options').hidden = tool;
    $('downloads').hidden = true;
    $('stepper').hidden = true;
    writeHash();
    if (tool) {
      showError('');
      $('report').replaceChildren();
      $('toc').replaceChildren();
      finish(started);
      return;
    }
    const { args, files } = viewArgs(view, '--html');
    let r = await fromRefused(view);  // --from is the page's to follow in the report, the command's to judge
    if (!r) r = await attempt(args, files);
    if (token !== renderToken) return;  // a newer change is on its way
    if (r.status !== 0) {  // the message alone: the tensors of other settings would be shown as these
      $('report').replaceChildren();
      $('toc').replaceChildren();
      showError(r.stderr || ('exit ' + r.status));
      finish(started);
      return;
    }
    showError('');
    place(r.stdout);
    $('downloads').hidden = !state.cat.lessons.some((l) => l.name === view.name);
    setupCells();
    focusablePictures();
    finish(started);
  }
  // A command that could not run at all (the module trapped) reads as a failed command with the reason.
  async function attempt(args, files) {
    try {
      return await run(args, files);
    } catch (e) {
      return { status: 70, stdout: '', stdoutBytes: new Uint8Array(0), stderr: String(e && e.message || e) };
    }
  }
  function running() {
    document.body.dataset.state = 'running';
    $('status').textContent = say('page.running');
  }
  function finish(started) {
    $('status').textContent = '';
    const ms = performance.now() - started;
    const t = window.attnTutorTimings || (window.attnTutorTimings = { firstRenderMs: performance.now(), renders: [] });
    t.renders.push(ms);
    document.body.dataset.renders = String(++renders);
    document.body.dataset.state = 'ready';
  }

  // 6. Stepping through the cells.
  let cells = [], at = 0;
  function setupCells() {
    cells = Array.from($('report').querySelectorAll('.cell'));
    $('stepper').hidden = cells.length === 0;
    if (!cells.length) return;
    let index = 0;
    if (state.cell) index = Math.max(0, cells.findIndex((c) => Number(c.dataset.cell) === state.cell));
    else if (state.from) index = fromIndex(state.from);
    goTo(index, Boolean(state.cell || state.from) ? 'instant' : false);
  }
  // --from: a cell number, or a section (its heading starts with it).
  function fromIndex(from) {
    if (/^\d+$/.test(from)) return Math.max(0, cells.findIndex((c) => Number(c.dataset.cell) >= Number(from)));
    for (const h of $('report').querySelectorAll('h2')) {
      if (h.textContent === from || h.textContent.startsWith(from + ' ')) {
        let el = h.nextElementSibling;
        while (el && !el.classList.contains('cell')) el = el.nextElementSibling;
        if (el) return cells.indexOf(el);
      }
    }
    return 0;
  }
  function goTo(index, scroll) {
    if (!cells.length) return;
    at = Math.min(Math.max(index, 0), cells.length - 1);
    cells.forEach((c, i) => {
      c.classList.toggle('current', i === at);
      c.classList.toggle('later', i > at);
    });
    const cell = cells[at];
    state.cell = at === 0 && !scroll ? 0 : Number(cell.dataset.cell);
    $('position').textContent = say('page.cell_of', cell.dataset.cell, cells[cells.length - 1].dataset.cell);
    writeHash();
    if (scroll) cell.scrollIntoView({ block: 'start', behavior: scroll === 'instant' ? 'instant' : 'smooth' });
  }

  // 7. Downloads of the current view, with the current settings.
  const DOWNLOADS = { py: ['--py', 'text/x-python'], ipynb: ['--ipynb', 'application/x-ipynb+json'],
                      json: ['--json', 'application/json'], html: ['--html', 'text/html'] };
  async function download(kind) {
    const view = currentView();
    const [flag, type] = DOWNLOADS[kind];
    const { args, files } = viewArgs(view, flag);
    const r = await attempt(args, files);
    if (r.status !== 0) { showError(r.stderr); return; }
    const url = URL.createObjectURL(new Blob([r.stdoutBytes], { type }));
    const a = document.createElement('a');
    a.href = url;
    a.download = view.name + '.' + kind;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  }

  // 8. check and verify.
  async function runTool(args, files) {
    const started = performance.now();
    running();
    const r = await attempt(args, files);
    if (r.status === 0 || r.status === 1) {  // a verdict either way
      showError('');
      place(r.stdout);
      focusablePictures();
    } else {
      $('report').replaceChildren();
      showError(r.stderr || ('exit ' + r.status));
    }
    document.body.dataset.exit = String(r.status);
    finish(started);
  }
  // At most one byte more than check reads (the module says how much): a larger file is never read
  // whole. Cut short, it goes in as a stream, as from a pipe, which check reads up to its limit and
  // refuses with its own line, as it does a file of that size.
  async function checkFile(file) {
    if (!file) return;
    const max = state.cat.commands.find((c) => c.name === 'check').file_bytes_max;
    let bytes;
    try {
      bytes = new Uint8Array(await file.slice(0, max + 1).arrayBuffer());
    } catch (e) {  // a folder, or a file gone since it was picked: the browser's reason
      showError(String(e && e.message || e));
      return;
    }
    const data = bytes.length > max ? { stream: bytes } : bytes;
    await runTool(['check', 'export.json', '--lang', state.lang, '--html', '-'], { 'export.json': data });
  }

  // 9. Wiring.
  function wire() {
    $('options').addEventListener('submit', (e) => e.preventDefault());  // Enter in a field: its change event renders
    $('lesson').addEventListener('change', () => {
      state.view = $('lesson').value;
      state.values = {};
      state.cell = 0;
      state.from = '';
      buildForm();
      render();
    });
    $('lang-toggle').addEventListener('click', async () => {
      state.lang = state.lang === 'zh' ? 'en' : 'zh';
      state.cat = await catalog(state.lang);
      buildChrome();
      buildForm();
      render();
    });
    $('first').addEventListener('click', () => goTo(0, true));
    $('prev').addEventListener('click', () => goTo(at - 1, true));
    $('next').addEventListener('click', () => goTo(at + 1, true));
    $('last').addEventListener('click', () => goTo(cells.length - 1, true));
    document.addEventListener('keydown', (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const t = e.target;
      if (t && (t.isContentEditable || /^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(t.tagName))) return;
      if (!cells.length || $('stepper').hidden) return;
      const moves = { n: at + 1, ' ': at + 1, b: at - 1, Home: 0, End: cells.length - 1 };
      if (!(e.key in moves)) return;
      e.preventDefault();
      goTo(moves[e.key], true);
    });
    const report = $('report');
    report.addEventListener('pointerover', (e) => {
      const rect = e.target.closest && e.target.closest('rect[data-v]');
      if (rect) showTip(rect); else hideTip();
    });
    report.addEventListener('click', (e) => {
      const rect = e.target.closest && e.target.closest('rect[data-v]');
      if (rect) showTip(rect);
    });
    report.addEventListener('pointerleave', hideTip);
    report.addEventListener('keydown', (e) => {
      const svg = e.target instanceof SVGSVGElement && e.target.hasAttribute('tabindex') ? e.target : null;
      if (svg && movePicture(svg, e.key)) e.preventDefault();
    });
    report.addEventListener('focusin', (e) => {
      if (e.target instanceof SVGSVGElement && e.target.hasAttribute('tabindex')) movePicture(e.target, null);
    });
    report.addEventListener('focusout', hideTip);
    for (const box of [report, $('toc')]) {
      box.addEventListener('click', (e) => {
        const a = e.target.closest && e.target.closest('a[href^="#"]');
        if (!a) return;
        e.preventDefault();
        const target = document.getElementById(a.getAttribute('href').slice(1));
        if (!target) return;
        const cell = target.closest('.cell');
        if (cell) goTo(cells.indexOf(cell), true); else target.scrollIntoView({ block: 'start' });
      });
    }
    for (const b of document.querySelectorAll('[data-download]')) b.addEventListener('click', () => download(b.dataset.download));
    $('verify-run').addEventListener('click', () => runTool(['verify', '--lang', state.lang, '--html', '-'], {}));
    $('check-file').addEventListener('change', (e) => {
      const file = e.target.files[0];
      e.target.value = '';  // the same file, exported again, is a new pick
      checkFile(file);
    });
    const drop = $('drop');
    drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
    drop.addEventListener('dragleave', () => drop.classList.remove('over'));
    drop.addEventListener('drop', (e) => {
      e.preventDefault();
      drop.classList.remove('over');
      checkFile(e.dataTransfer.files[0]);
    });
    drop.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); $('check-file').click(); } });
    window.addEventListener('hashchange', async () => {
      const lang = state.lang;
      readHash();
      if (state.lang !== lang) { state.cat = await catalog(state.lang); buildChrome(); }
      $('lesson').value = currentView() ? currentView().name : '';
      buildForm();
      render();
    });
  }

  async function start() {
    readHash();
    if (!state.lang) state.lang = /^zh\b/i.test(navigator.language || '') ? 'zh' : 'en';
    try {
      state.cat = await catalog(state.lang);
    } catch (e) {
      document.body.dataset.state = 'ready';
      $('error').hidden = false;
      $('error').textContent = String(e && e.message || e);
      return;
    }
    buildChrome();
    buildForm();
    wire();
    await render();
  }
  start();
})();
