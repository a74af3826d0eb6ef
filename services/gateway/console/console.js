// The operations console: a page over the platform's public API, served by the gateway at /console/. It keeps the
// API key in this tab's session storage only (gone when the tab closes), sends it as `x-api-key` to the same origin,
// and loads nothing from elsewhere. Data is only ever written as text (never as HTML).
'use strict';

(() => {
  const SESSION_KEY = 'platform-console-api-key';
  const PAGE = 25;
  const REFRESH_MS = 2000;
  const ENDED = ['succeeded', 'failed', 'skipped'];
  const STATUSES = ['queued', 'running', 'succeeded', 'failed', 'skipped'];

  /** The three kinds of resources that run: how to list, name, pause and read the runs of each. */
  const KINDS = {
    webhooks: {
      title: 'Webhooks',
      path: '/agent-webhooks',
      items: 'webhooks',
      runs: (id) => `/agent-webhooks/${id}/executions`,
      name: (r) => r.description || `Webhook ${r.id}`,
      target: (r) => `agent ${r.agent_id}`,
      last: (r) => r.last_triggered_at,
      lastOk: (r) => r.last_trigger_success,
      count: (r) => r.trigger_count,
    },
    schedules: {
      title: 'Schedules',
      path: '/schedules',
      items: 'schedules',
      runs: (id) => `/schedules/${id}/logs`,
      name: (r) => r.message || `Schedule ${r.id}`,
      target: (r) => `${r.cron_expression} (${r.timezone}) → agent ${r.agent_id}`,
      last: (r) => r.last_run_at,
      lastOk: (r) => r.last_run_success,
      count: (r) => r.run_count,
    },
    'http-schedules': {
      title: 'HTTP schedules',
      path: '/http-schedules',
      items: 'schedules',
      runs: (id) => `/http-schedules/${id}/logs`,
      name: (r) => r.name || `HTTP schedule ${r.id}`,
      target: (r) => `${r.cron_expression} (${r.timezone}) → ${r.method} ${r.url}`,
      last: (r) => r.last_run_at,
      lastOk: (r) => r.last_run_success,
      count: (r) => r.run_count,
    },
  };

  const app = document.getElementById('app');
  const logout = document.getElementById('logout');
  let refreshTimer = null;
  let view = 0; // bumped on every navigation: answers for an earlier view are dropped

  // ---- helpers ----

  /** An element with attributes, properties (`on*` handlers) and children (strings become text nodes). */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
      else if (k === 'text') node.textContent = String(v);
      else node.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c instanceof Node ? c : String(c));
    return node;
  }

  /** The gateway's settings for this page (GET /console/settings, no key needed): read once, none if that fails. */
  const settings = fetch('/console/settings')
    .then((res) => (res.ok ? res.json() : {}))
    .catch(() => ({}));

  const apiKey = () => sessionStorage.getItem(SESSION_KEY);
  const when = (iso) => (iso ? new Date(iso).toLocaleString() : '—');

  class ApiError extends Error {
    constructor(status, detail) {
      super(typeof detail === 'string' ? detail : JSON.stringify(detail));
      this.status = status;
    }
  }

  /** Calls the API with the session's key (or `key`, when logging in); a refused session key ends the session. */
  async function api(method, path, body, key) {
    const headers = { 'x-api-key': key || apiKey() || '' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = text;
    }
    if (res.status === 403 && !key && apiKey()) {
      sessionStorage.removeItem(SESSION_KEY);
      renderLogin('The API key was refused; log in again.');
      throw new ApiError(403, 'logged out');
    }
    if (!res.ok) throw new ApiError(res.status, data && data.detail !== undefined ? data.detail : data);
    return data;
  }

  /**
   * A run's trace id (as text), linked to the trace UI when the gateway names one (TRACE_UI_URL: its `{trace_id}`
   * replaced by the id, URL-encoded; only http and https links are made); '—' for a run not traced.
   */
  function traceRef(traceId, traceUiUrl) {
    if (!traceId) return '—';
    let href = null;
    if (typeof traceUiUrl === 'string' && traceUiUrl.includes('{trace_id}')) {
      try {
        const url = new window.URL(traceUiUrl.split('{trace_id}').join(encodeURIComponent(traceId)));
        if (url.protocol === 'http:' || url.protocol === 'https:') href = url.href;
      } catch {
        href = null;
      }
    }
    if (!href) return el('span', { class: 'trace' }, traceId);
    return el(
      'a',
      {
        class: 'trace',
        href,
        target: '_blank',
        rel: 'noopener noreferrer',
        title: 'Open the trace',
        onclick: (e) => e.stopPropagation(), // follows the link without selecting the row
      },
      traceId,
    );
  }

  function stopRefresh() {
    if (refreshTimer) clearTimeout(refreshTimer);
    refreshTimer = null;
  }

  function show(...nodes) {
    app.replaceChildren(...nodes);
  }

  // ---- routing: #/<kind> and #/<kind>/<id>?<filters> ----

  function route() {
    stopRefresh();
    view++;
    if (!apiKey()) return renderLogin();
    logout.hidden = false;
    const [path, query] = location.hash.replace(/^#/, '').split('?');
    const parts = path.split('/').filter(Boolean);
    const kind = KINDS[parts[0]] ? parts[0] : 'webhooks';
    if (parts[1]) return renderRuns(kind, decodeURIComponent(parts[1]), new URLSearchParams(query || ''));
    return renderList(kind, Number(new URLSearchParams(query || '').get('skip')) || 0);
  }

  function go(hash) {
    if (location.hash === hash) route();
    else location.hash = hash;
  }

  function nav(current) {
    return el(
      'nav',
      { 'aria-label': 'Resources' },
      Object.entries(KINDS).map(([k, def]) =>
        el(
          'button',
          { type: 'button', 'aria-current': k === current ? 'page' : null, onclick: () => go(`#/${k}`) },
          def.title,
        ),
      ),
    );
  }

  // ---- log in ----

  function renderLogin(message) {
    stopRefresh();
    logout.hidden = true;
    const input = el('input', { id: 'api-key', type: 'password', autocomplete: 'off', required: true });
    const error = el('p', { class: 'error', role: 'alert' }, message || '');
    const form = el(
      'form',
      {
        class: 'login',
        onsubmit: async (e) => {
          e.preventDefault();
          const key = input.value.trim();
          try {
            await api('GET', '/agent-webhooks/?limit=1', undefined, key);
            sessionStorage.setItem(SESSION_KEY, key);
            go(location.hash && location.hash !== '#/' ? location.hash : '#/webhooks');
          } catch (err) {
            error.textContent = err.status === 403 ? 'This API key is not valid.' : `Cannot log in: ${err.message}`;
          }
        },
      },
      el('h2', {}, 'Log in'),
      el('label', { for: 'api-key' }, 'API key'),
      input,
      el('button', { type: 'submit' }, 'Log in'),
      error,
      el('p', {}, 'The key stays in this browser tab only, until you log out or close it.'),
    );
    show(form);
    input.focus();
  }

  logout.addEventListener('click', () => {
    sessionStorage.removeItem(SESSION_KEY);
    renderLogin('Logged out.');
  });

  // ---- a kind's resources ----

  async function renderList(kind, skip) {
    const def = KINDS[kind];
    const mine = view;
    const error = el('p', { class: 'error', role: 'alert' });
    show(nav(kind), el('h2', {}, def.title), error);
    let data;
    try {
      data = await api('GET', `${def.path}/?skip=${skip}&limit=${PAGE}`);
    } catch (err) {
      if (mine === view) error.textContent = err.message;
      return;
    }
    if (mine !== view) return;
    const rows = data[def.items].map((r) => {
      const toggle = el(
        'button',
        {
          type: 'button',
          onclick: async () => {
            toggle.disabled = true;
            try {
              await api('POST', `${def.path}/${r.id}/${r.is_active ? 'pause' : 'resume'}`);
              route();
            } catch (err) {
              error.textContent = err.message;
              toggle.disabled = false;
            }
          },
        },
        r.is_active ? 'Pause' : 'Resume',
      );
      return el(
        'tr',
        { 'data-id': r.id },
        el('td', {}, def.name(r)),
        el('td', {}, def.target(r)),
        el('td', { class: r.is_active ? 'state-active' : 'state-paused' }, r.is_active ? 'active' : 'paused'),
        el('td', {}, when(def.last(r)), def.lastOk(r) === false ? ' (failed)' : ''),
        el('td', {}, String(def.count(r) ?? 0)),
        el('td', {}, toggle, ' ', el('button', { type: 'button', onclick: () => go(`#/${kind}/${r.id}`) }, 'Runs')),
      );
    });
    show(
      nav(kind),
      el('h2', {}, def.title),
      error,
      rows.length === 0
        ? el('p', {}, `No ${def.title.toLowerCase()} yet.`)
        : el(
            'table',
            { id: 'resources' },
            el(
              'thead',
              {},
              el(
                'tr',
                {},
                ['Name', 'Runs what', 'State', 'Last run', 'Runs', ''].map((h) => el('th', {}, h)),
              ),
            ),
            el('tbody', {}, rows),
          ),
      pager(data.total, skip, (s) => go(`#/${kind}?skip=${s}`)),
    );
  }

  function pager(total, skip, to) {
    return el(
      'div',
      { class: 'bar' },
      el('button', { type: 'button', disabled: skip === 0, onclick: () => to(Math.max(0, skip - PAGE)) }, 'Previous'),
      el('span', {}, total === 0 ? '0 of 0' : `${skip + 1}–${Math.min(total, skip + PAGE)} of ${total}`),
      el('button', { type: 'button', disabled: skip + PAGE >= total, onclick: () => to(skip + PAGE) }, 'Next'),
    );
  }

  // ---- one resource's runs ----

  /** The list's filters as the API takes them (also the body of a bulk replay). */
  function filtersOf(params) {
    const out = {};
    const status = params.getAll('status').filter((s) => STATUSES.includes(s));
    if (status.length > 0) out.status = status;
    for (const k of ['from', 'to']) if (params.get(k)) out[k] = params.get(k);
    return out;
  }

  const localInput = (iso) => {
    if (!iso) return '';
    const d = new Date(iso);
    const pad = (n) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
  };

  async function renderRuns(kind, id, params) {
    const def = KINDS[kind];
    const mine = view;
    const skip = Number(params.get('skip')) || 0;
    const filters = filtersOf(params);
    const error = el('p', { class: 'error', role: 'alert' });
    const notice = el('p', { class: 'notice', role: 'status', id: 'notice' }, params.get('notice') || '');
    let resource;
    try {
      resource = await api('GET', `${def.path}/${id}`);
    } catch (err) {
      if (mine === view) show(nav(kind), el('p', { class: 'error', role: 'alert' }, err.message));
      return;
    }
    if (mine !== view) return;

    // Filters: status boxes, from and to (the browser's local time, sent as UTC instants).
    const boxes = STATUSES.map((s) =>
      el('input', { type: 'checkbox', name: 'status', value: s, checked: (filters.status || []).includes(s) }),
    );
    const from = el('input', { type: 'datetime-local', name: 'from', value: localInput(filters.from) });
    const to = el('input', { type: 'datetime-local', name: 'to', value: localInput(filters.to) });
    const hashWith = (f, s = 0, note) => {
      const q = new URLSearchParams();
      for (const st of f.status || []) q.append('status', st);
      if (f.from) q.set('from', f.from);
      if (f.to) q.set('to', f.to);
      if (s) q.set('skip', String(s));
      if (note) q.set('notice', note);
      return `#/${kind}/${id}?${q}`;
    };
    const form = el(
      'form',
      {
        class: 'filters',
        id: 'filters',
        onsubmit: (e) => {
          e.preventDefault();
          const f = {
            status: boxes.filter((b) => b.checked).map((b) => b.value),
            from: from.value ? new Date(from.value).toISOString() : undefined,
            to: to.value ? new Date(to.value).toISOString() : undefined,
          };
          go(hashWith(f));
        },
      },
      el(
        'fieldset',
        {},
        el('legend', {}, 'Status'),
        STATUSES.map((s, i) => el('label', {}, boxes[i], s)),
      ),
      el('label', {}, 'From', from),
      el('label', {}, 'To', to),
      el('button', { type: 'submit' }, 'Apply filters'),
    );

    // Bulk replay of what the filters match (ended runs only): counted first, then confirmed.
    const replayAll = el('button', { type: 'button', id: 'replay-matching' }, 'Replay matching runs…');
    const confirm = el('button', { type: 'button', id: 'replay-confirm', hidden: true }, '');
    const replayFilters = { ...filters, status: (filters.status || ENDED).filter((s) => ENDED.includes(s)) };
    replayAll.addEventListener('click', async () => {
      error.textContent = '';
      if (replayFilters.status.length === 0) {
        error.textContent = 'Only ended runs (succeeded, failed, skipped) replay.';
        return;
      }
      try {
        const { matched } = await api('POST', `${def.path}/${id}/executions/replay`, {
          ...replayFilters,
          dry_run: true,
        });
        confirm.textContent = `Replay ${Math.min(matched, 1000)} run${matched === 1 ? '' : 's'}`;
        confirm.hidden = matched === 0;
        notice.textContent = matched === 0 ? 'No ended run matches the filters.' : `${matched} ended run(s) match.`;
      } catch (err) {
        error.textContent = err.message;
      }
    });
    confirm.addEventListener('click', async () => {
      confirm.disabled = true;
      try {
        const r = await api('POST', `${def.path}/${id}/executions/replay`, { ...replayFilters, limit: 1000 });
        const note = `Replayed ${r.replayed.length} run(s): ${r.created} new, ${r.replayed.length - r.created} replayed before.`;
        // The replays are new runs: show every status so they appear beside the originals.
        go(hashWith({ from: filters.from }, 0, note));
      } catch (err) {
        error.textContent = err.message;
        confirm.disabled = false;
      }
    });

    const table = el('table', { id: 'runs' });
    const detail = el('section', { class: 'detail', id: 'run-detail', hidden: true });
    const pagerBox = el('div');
    show(
      nav(kind),
      el('h2', {}, `${def.title}: ${def.name(resource)}`),
      el('p', {}, def.target(resource), ' — ', resource.is_active ? 'active' : 'paused'),
      form,
      el('div', { class: 'bar' }, replayAll, confirm),
      notice,
      error,
      table,
      pagerBox,
      detail,
    );

    let selected = null;
    const load = async () => {
      const q = new URLSearchParams({ skip: String(skip), limit: String(PAGE) });
      if (filters.status) q.set('status', filters.status.join(','));
      if (filters.from) q.set('from', filters.from);
      if (filters.to) q.set('to', filters.to);
      let data;
      try {
        data = await api('GET', `${def.runs(id)}?${q}`);
      } catch (err) {
        if (mine === view) error.textContent = err.message;
        return;
      }
      const { trace_ui_url: traceUiUrl } = await settings;
      if (mine !== view) return;
      // Which list the table shows (its query), once its runs are in: what a reader (or a test) waits for.
      table.dataset.query = q.toString();
      table.replaceChildren(
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ['Run', 'Status', 'Triggered', 'Attempt', 'Duration', 'Replay of', 'Trace', ''].map((h) => el('th', {}, h)),
          ),
        ),
        el(
          'tbody',
          {},
          data.executions.map((x) => {
            const replay = ENDED.includes(x.status)
              ? el(
                  'button',
                  {
                    type: 'button',
                    onclick: async (e) => {
                      e.stopPropagation();
                      try {
                        const r = await api('POST', `${def.path}/${id}/executions/${x.id}/replay`);
                        notice.textContent = `Replay ${r.execution_id} is ${r.status}.`;
                        await load();
                      } catch (err) {
                        error.textContent = err.message;
                      }
                    },
                  },
                  'Replay',
                )
              : null;
            const row = el(
              'tr',
              { class: `run${selected === x.id ? ' selected' : ''}`, 'data-id': x.id, 'data-status': x.status },
              el('td', {}, x.id),
              el('td', { class: `status status-${x.status}` }, x.status),
              el('td', {}, when(x.triggered_at)),
              el('td', {}, `${x.attempt} of ${x.max_attempts}`),
              el('td', {}, x.duration_ms === null ? '—' : `${x.duration_ms} ms`),
              el('td', {}, x.replay_of || ''),
              el('td', {}, traceRef(x.trace_id, traceUiUrl)),
              el('td', {}, replay),
            );
            row.addEventListener('click', () => {
              selected = x.id;
              showRun(detail, x, traceUiUrl);
              for (const r of table.querySelectorAll('tr.run')) r.classList.toggle('selected', r === row);
            });
            return row;
          }),
        ),
      );
      pagerBox.replaceChildren(pager(data.total, skip, (s) => go(hashWith(filters, s))));
      if (selected) {
        const x = data.executions.find((e) => e.id === selected);
        if (x) showRun(detail, x, traceUiUrl);
      }
      // Runs still going: look again shortly (only while this view is shown).
      if (data.executions.some((x) => !ENDED.includes(x.status)))
        refreshTimer = setTimeout(() => mine === view && load(), REFRESH_MS);
    };
    await load();
  }

  /** A run's input, output, error, attempts and trace. */
  function showRun(detail, x, traceUiUrl) {
    const field = (label, value) => [
      el('dt', {}, label),
      el('dd', {}, value === null || value === undefined ? '—' : value instanceof Node ? value : String(value)),
    ];
    detail.hidden = false;
    detail.replaceChildren(
      el('h3', {}, `Run ${x.id}`),
      el(
        'dl',
        {},
        field('Status', x.status),
        field('Attempt', `${x.attempt} of ${x.max_attempts}`),
        field('Triggered', when(x.triggered_at)),
        field('Scheduled for', x.scheduled_for && when(x.scheduled_for)),
        field('Started', x.started_at && when(x.started_at)),
        field('Finished', x.finished_at && when(x.finished_at)),
        field('Duration', x.duration_ms === null ? null : `${x.duration_ms} ms`),
        field('Response status', x.response_status),
        field('Replay of', x.replay_of),
        field('Trace', traceRef(x.trace_id, traceUiUrl)),
      ),
      el('h4', {}, 'Input'),
      el('pre', { class: 'input' }, x.payload === undefined ? '—' : JSON.stringify(x.payload, null, 2)),
      el('h4', {}, 'Output'),
      el('pre', { class: 'output' }, x.response_output ?? '—'),
      el('h4', {}, 'Error'),
      el('pre', { class: 'run-error' }, x.error_message ?? '—'),
    );
  }

  window.addEventListener('hashchange', route);
  route();
})();
