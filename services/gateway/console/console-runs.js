// The operations console: one resource's runs (#/<kind>/<id>?<filters>): filters, bulk and single replays, the runs
// table (refreshed while runs are going) and a run's detail. Loaded after console-kit.js, before console.js.
'use strict';

(() => {
  const ns = window.opsConsole;
  const { PAGE, REFRESH_MS, ENDED, STATUSES, KINDS, state, el, settings, when, api, traceRef, show, pager } = ns;
  const nav = (current) => ns.nav(current);
  const go = (hash) => ns.go(hash);

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
    const mine = state.view;
    const skip = Number(params.get('skip')) || 0;
    const filters = filtersOf(params);
    const error = el('p', { class: 'error', role: 'alert' });
    const notice = el('p', { class: 'notice', role: 'status', id: 'notice' }, params.get('notice') || '');
    let resource;
    try {
      resource = await api('GET', `${def.path}/${id}`);
    } catch (err) {
      if (mine === state.view) show(nav(kind), el('p', { class: 'error', role: 'alert' }, err.message));
      return;
    }
    if (mine !== state.view) return;

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
        if (mine === state.view) error.textContent = err.message;
        return;
      }
      const { trace_ui_url: traceUiUrl } = await settings;
      if (mine !== state.view) return;
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
        state.refreshTimer = setTimeout(() => mine === state.view && load(), REFRESH_MS);
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

  Object.assign(ns, { renderRuns, showRun });
})();
