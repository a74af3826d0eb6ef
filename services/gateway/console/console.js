// The operations console: a page over the platform's public API, served by the gateway at /console/. It keeps the
// API key in this tab's session storage only (gone when the tab closes), sends it as `x-api-key` to the same origin,
// and loads nothing from elsewhere. Data is only ever written as text (never as HTML). index.html loads its three
// scripts in order: console-kit.js (constants, the API client and the shared state, on one global, window.opsConsole),
// console-runs.js (a resource's runs) and this one (routing, log in and the lists of resources), which starts it.
'use strict';

(() => {
  const ns = window.opsConsole;
  const { SESSION_KEY, PAGE, KINDS, logout, state, el, apiKey, when, api, stopRefresh, show, pager, renderRuns } = ns;

  // ---- routing: #/<kind> and #/<kind>/<id>?<filters> ----

  function route() {
    stopRefresh();
    state.view++;
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
    const mine = state.view;
    const error = el('p', { class: 'error', role: 'alert' });
    show(nav(kind), el('h2', {}, def.title), error);
    let data;
    try {
      data = await api('GET', `${def.path}/?skip=${skip}&limit=${PAGE}`);
    } catch (err) {
      if (mine === state.view) error.textContent = err.message;
      return;
    }
    if (mine !== state.view) return;
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

  Object.assign(ns, { route, go, nav, renderLogin, renderList });

  window.addEventListener('hashchange', route);
  route();
})();
