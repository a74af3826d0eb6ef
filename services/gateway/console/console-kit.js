// The operations console's shared parts (loaded first; index.html loads console-runs.js and console.js after it): its
// constants, the kinds of resources that run, the element builder, the API client and the page's shared state, all
// on one global, window.opsConsole, that the console's other scripts read. See console.js for what the page is.
'use strict';

(() => {
  const ns = (window.opsConsole = {});
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
  /** `view` is bumped on every navigation: answers for an earlier view are dropped. */
  const state = { refreshTimer: null, view: 0 };

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
      ns.renderLogin('The API key was refused; log in again.');
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
    if (state.refreshTimer) clearTimeout(state.refreshTimer);
    state.refreshTimer = null;
  }

  function show(...nodes) {
    app.replaceChildren(...nodes);
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

  Object.assign(ns, {
    SESSION_KEY,
    PAGE,
    REFRESH_MS,
    ENDED,
    STATUSES,
    KINDS,
    logout,
    state,
    el,
    settings,
    apiKey,
    when,
    api,
    traceRef,
    stopRefresh,
    show,
    pager,
  });
})();
