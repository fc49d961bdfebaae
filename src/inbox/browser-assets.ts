// The inbox's only browser code and styles, inlined into every page: no bundler, no framework, no asset files to
// ship. Pages are rendered on the server and work without the script; it adds live updates, inline outcomes and the
// JSON editor's schema check. Plain ES2020 (no template literals, so it can live in this string).

/** Styles: readable, high-contrast, and visible focus for keyboard users. */
export const INBOX_STYLE = `
:root { font-family: system-ui, sans-serif; color: #111; background: #fafafa; line-height: 1.45; }
body { margin: 0; }
.top { display: flex; justify-content: space-between; align-items: center; padding: .6rem 1.2rem; background: #1d2b3a; color: #fff; }
.top a, .top button.link { color: #fff; }
.brand { font-weight: 700; text-decoration: none; font-size: 1.1rem; }
main { max-width: 70rem; margin: 0 auto; padding: 1rem 1.2rem 3rem; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.15rem; margin-top: 1.6rem; } h3 { font-size: 1.05rem; margin: 0 0 .3rem; }
table { border-collapse: collapse; width: 100%; background: #fff; }
caption { text-align: left; padding: .3rem 0; color: #444; }
th, td { text-align: left; padding: .45rem .6rem; border-bottom: 1px solid #ddd; vertical-align: top; }
.kind { display: inline-block; font-size: .8rem; padding: 0 .4rem; border-radius: .3rem; background: #e4ecf5; }
.item { background: #fff; border: 1px solid #ccd; border-radius: .4rem; padding: .8rem 1rem; margin: .8rem 0; }
.meta { color: #444; font-size: .9rem; margin: .2rem 0 .5rem; }
pre.args { background: #f3f3f6; padding: .6rem; overflow: auto; max-height: 20rem; }
form.decision { margin: .4rem 0; } details { margin: .3rem 0; }
label { display: block; margin: .3rem 0; } textarea, input[type=text], input[type=password], input[type=number] { width: 100%; box-sizing: border-box; font: inherit; padding: .3rem; }
textarea.json-editor { font-family: ui-monospace, monospace; }
label.field small { display: block; color: #555; } label.field input:not([type=checkbox]), label.field select { display: block; width: 100%; box-sizing: border-box; font: inherit; padding: .3rem; }
button { font: inherit; padding: .3rem .8rem; margin: .2rem .3rem .2rem 0; cursor: pointer; }
button.link { background: none; border: none; text-decoration: underline; }
:focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
.outcome.applied { color: #0a5d1a; } .outcome.stale { color: #6b4e00; } .outcome.refused, .error, .schema-problems { color: #a01616; }
.filters { display: flex; gap: 1rem; align-items: end; flex-wrap: wrap; } .filters label { margin: 0; }
.filters input { width: 12rem; }
ol.trace { padding-left: 1.4rem; } ol.trace li { margin: .2rem 0; white-space: pre-wrap; }
.settled { opacity: .7; } .empty { color: #555; } .who { display: flex; gap: .6rem; align-items: center; margin: 0; }
.asked { white-space: pre-wrap; max-height: 12rem; overflow: auto; margin: .2rem 0 .4rem; } td .asked { color: #444; font-size: .9rem; }
.item.decided { padding: .3rem 1rem; } .decided h3, .decided .outcome { display: inline; font-size: 1rem; } .decided .outcome::before { content: ' → '; }
`;

/** Live updates, inline outcomes, the JSON editor's checks and relative times. */
export const INBOX_SCRIPT = String.raw`
(function () {
  'use strict';
  var csrfMeta = document.querySelector('meta[name="csrf-token"]');
  var csrf = csrfMeta ? csrfMeta.getAttribute('content') : '';

  function ago(iso) {
    var ms = Date.parse(iso) - Date.now();
    var past = ms < 0; var s = Math.round(Math.abs(ms) / 1000);
    var text = s < 60 ? s + ' s' : s < 3600 ? Math.round(s / 60) + ' min' : s < 172800 ? Math.round(s / 3600) + ' h' : Math.round(s / 86400) + ' d';
    return past ? text + ' ago' : 'in ' + text;
  }
  function refreshTimes(root) {
    (root || document).querySelectorAll('time[data-age]').forEach(function (el) {
      var iso = el.getAttribute('datetime'); el.textContent = ago(iso); el.title = iso;
    });
  }

  function parse(fragment) {
    var tpl = document.createElement('template'); tpl.innerHTML = fragment;
    return Array.prototype.slice.call(tpl.content.children);
  }
  // Elements sent to replace those of the same ID elsewhere on the page (a run's status and cost, once it ended).
  function swap(fragment) {
    parse(fragment).forEach(function (el) { var old = el.id && document.getElementById(el.id); if (old) old.replaceWith(el); });
  }
  // Once it no longer waits, an item decided here shrinks to what was asked and what the decision did: its buttons
  // and arguments would say it still waits.
  function decided(item) {
    item.classList.remove('settled'); item.classList.add('decided');
    Array.prototype.slice.call(item.children).forEach(function (child) {
      if (child.tagName !== 'H3' && !child.classList.contains('outcome')) child.remove();
    });
  }

  // A refreshed list keeps the items already shown (and whatever someone is typing in them).
  function merge(target, fragment) {
    var incoming = parse(fragment).filter(function (el) { return el.id; });
    var ids = incoming.map(function (el) { return el.id; });
    // An item decided on this page stays with its outcome (greyed while still listed): the person sees what their
    // decision did.
    Array.prototype.slice.call(target.children).forEach(function (el) {
      if (ids.indexOf(el.id) >= 0) return;
      if (!el.hasAttribute('data-settled')) el.remove(); else if (!el.classList.contains('decided')) decided(el);
    });
    if (incoming.length === 0) { target.insertAdjacentHTML('beforeend', fragment); refreshTimes(target); return; }
    incoming.forEach(function (el) { if (!document.getElementById(el.id)) { target.appendChild(el); wire(el); } });
    refreshTimes(target);
  }

  function follow(el) {
    var source = new EventSource(el.getAttribute('data-stream'));
    var mode = el.getAttribute('data-mode');
    // A trace can take seconds to come (a finished run's worker may be gone): an empty list must not look final.
    var status = null;
    if (mode === 'append') {
      status = document.createElement('p'); status.className = 'meta'; status.setAttribute('role', 'status');
      status.textContent = 'Loading the trace…'; el.after(status);
    }
    function loaded(text) { if (status) status.textContent = text || ''; }
    source.addEventListener('fragment', function (e) {
      if (mode === 'merge') merge(el, e.data); else { el.innerHTML = e.data; refreshTimes(el); }
    });
    source.addEventListener('swap', function (e) { swap(e.data); });
    source.addEventListener('reset', function () { el.innerHTML = ''; });
    source.addEventListener('trace', function (e) { loaded(); el.insertAdjacentHTML('beforeend', e.data); });
    // The server's own error event has data; the browser's (a dropped connection, retried by itself) has none.
    source.addEventListener('error', function (e) { if (e.data) loaded('The trace could not be read: ' + JSON.parse(e.data).error); });
    // The end of the run is said once, in the section of what it waits for.
    source.addEventListener('end', function () { source.close(); loaded(); });
  }

  // A small JSON Schema check (types, required, enums, ranges, lengths): enough to catch a typo before sending.
  // The tool's own schema on the worker has the final word; its refusal is shown the same way.
  function typeOf(v) { return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v; }
  function check(schema, value, path, out) {
    if (!schema || typeof schema !== 'object') return;
    var where = path || 'arguments';
    if (schema.anyOf) {
      var ok = schema.anyOf.some(function (s) { var o = []; check(s, value, path, o); return o.length === 0; });
      if (!ok) out.push(where + ': matches none of the allowed shapes');
      return;
    }
    var t = typeOf(value);
    if (schema.type) {
      var types = Array.isArray(schema.type) ? schema.type : [schema.type];
      var fits = types.some(function (ty) { return ty === t || (ty === 'integer' && t === 'number' && Math.floor(value) === value) || (ty === 'number' && t === 'number'); });
      if (!fits) { out.push(where + ': expected ' + types.join(' or ') + ', got ' + t); return; }
    }
    if (schema.enum && schema.enum.indexOf(value) < 0) out.push(where + ': must be one of ' + JSON.stringify(schema.enum));
    if (t === 'number') {
      if (schema.minimum !== undefined && value < schema.minimum) out.push(where + ': must be at least ' + schema.minimum);
      if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) out.push(where + ': must be more than ' + schema.exclusiveMinimum);
      if (schema.maximum !== undefined && value > schema.maximum) out.push(where + ': must be at most ' + schema.maximum);
    }
    if (t === 'string') {
      if (schema.minLength !== undefined && value.length < schema.minLength) out.push(where + ': must have at least ' + schema.minLength + ' characters');
      if (schema.maxLength !== undefined && value.length > schema.maxLength) out.push(where + ': must have at most ' + schema.maxLength + ' characters');
    }
    if (t === 'object') {
      (schema.required || []).forEach(function (k) { if (!(k in value)) out.push((path ? path + '.' : '') + k + ': required'); });
      var props = schema.properties || {};
      Object.keys(value).forEach(function (k) {
        var sub = (path ? path + '.' : '') + k;
        if (props[k]) check(props[k], value[k], sub, out);
        else if (schema.additionalProperties === false) out.push(sub + ': unknown field');
      });
    }
    if (t === 'array' && schema.minItems !== undefined && value.length < schema.minItems) out.push(where + ': choose at least ' + schema.minItems);
    if (t === 'array' && schema.maxItems !== undefined && value.length > schema.maxItems) out.push(where + ': choose at most ' + schema.maxItems);
    if (t === 'array' && schema.items) value.forEach(function (v, i) { check(schema.items, v, where + '[' + i + ']', out); });
  }
  // A server's form: its inputs read into the JSON answer (an empty optional field is left out).
  function formAnswer(form, out) {
    var value = {};
    form.querySelectorAll('[data-field]').forEach(function (el) {
      var name = el.getAttribute('data-field'), type = el.getAttribute('data-type');
      if (!el.checkValidity()) out.push(name + ': ' + el.validationMessage);
      if (type === 'boolean') value[name] = el.checked;
      else if (type === 'array') value[name] = Array.prototype.map.call(el.selectedOptions, function (o) { return o.value; });
      else if (el.value === '') return;
      else if (type === 'number' || type === 'integer') value[name] = Number(el.value);
      // A date-time is sent as RFC 3339 (the input gives local time without a zone, which servers refuse).
      else if (el.type === 'datetime-local') value[name] = new Date(el.value).toISOString();
      else value[name] = el.value;
    });
    return value;
  }
  function editProblems(form) {
    if (form.hasAttribute('data-schema-form')) {
      var found = [], answer = formAnswer(form, found);
      form.querySelector('input[name=answer]').value = JSON.stringify(answer);
      if (found.length === 0) check(JSON.parse(form.getAttribute('data-schema')), answer, '', found);
      return found;
    }
    var area = form.querySelector('textarea.json-editor'); if (!area) return [];
    var value;
    try { value = JSON.parse(area.value); } catch (err) { return ['not valid JSON: ' + err.message]; }
    if (typeOf(value) !== 'object') return ['the arguments must be a JSON object'];
    var schemaText = form.getAttribute('data-schema'); var out = [];
    if (schemaText) check(JSON.parse(schemaText), value, '', out);
    return out;
  }
  function showProblems(form) {
    var problems = editProblems(form); var box = form.querySelector('.schema-problems');
    if (box) box.textContent = problems.length ? 'Not sent: ' + problems.join('; ') : '';
    var area = form.querySelector('textarea.json-editor');
    if (area) area.setAttribute('aria-invalid', problems.length ? 'true' : 'false');
    return problems;
  }

  function outcomeBox(form) {
    var item = form.closest('.item');
    return item ? item.querySelector('.outcome') : null;
  }
  function submit(form, submitter, e) {
    e.preventDefault();
    var box = outcomeBox(form);
    // Declining or cancelling a form sends no content, so there is nothing to check.
    var checked = form.querySelector('textarea.json-editor') || (form.hasAttribute('data-schema-form') && !(submitter && submitter.name === 'answer'));
    if (checked && showProblems(form).length) return;
    var body = new URLSearchParams(new FormData(form));
    if (submitter && submitter.name) body.set(submitter.name, submitter.value);
    var item = form.closest('.item'); if (item) item.setAttribute('data-settled', '');
    var buttons = form.querySelectorAll('button'); buttons.forEach(function (b) { b.disabled = true; });
    fetch(form.action, { method: 'POST', body: body, headers: { accept: 'application/json', 'x-csrf-token': csrf }, credentials: 'same-origin' })
      // An answer without a status (a 502 or 404 with { error }, a proxy's HTML page) is a failure to show, with the
      // form given back: a reviewer must never be left to believe the decision went through.
      .then(function (r) {
        return r.json().catch(function () { return {}; }).then(function (res) {
          if (typeof res.status !== 'string') throw new Error(res.error || 'the inbox answered HTTP ' + r.status);
          return res;
        });
      })
      .then(function (res) {
        // An invalid edit is shown beside the editor, where it can be fixed.
        var inline = res.status === 'refused' && form.querySelector('.schema-problems');
        if (inline) inline.textContent = res.message;
        else if (box) { box.textContent = res.message; box.className = 'outcome ' + res.status; }
        if (res.status === 'applied' && item) {
          item.classList.add('settled');
          item.querySelectorAll('button, textarea, input, select').forEach(function (el) { el.disabled = true; });
        }
        if (res.status === 'refused') { buttons.forEach(function (b) { b.disabled = false; }); if (item) item.removeAttribute('data-settled'); }
      })
      .catch(function (err) {
        if (box) { box.textContent = 'Not sent: ' + err.message; box.className = 'outcome refused'; }
        buttons.forEach(function (b) { b.disabled = false; });
        if (item) item.removeAttribute('data-settled');
      });
  }
  function wire(root) {
    root.querySelectorAll('form.decision').forEach(function (form) {
      form.addEventListener('submit', function (e) { submit(form, e.submitter, e); });
      var area = form.querySelector('textarea.json-editor');
      if (area) area.addEventListener('input', function () { showProblems(form); });
      if (form.hasAttribute('data-schema-form')) {
        form.addEventListener('input', function () { showProblems(form); });
        form.addEventListener('change', function () { showProblems(form); });
      }
    });
  }

  document.querySelectorAll('[data-stream]').forEach(follow);
  wire(document);
  refreshTimes(document);
  setInterval(function () { refreshTimes(document); }, 15000);
})();
`;
