// table.js - a server-paged, server-sorted, server-filtered table card.
//
// The table's state (sort, order, offset, limit, filter) lives in the URL
// under the table's prefix; update(route) fetches a page when that state or
// the base query changes. Cells are built from text nodes only.

import { get, apiUrl } from './api.js';
import * as router from './router.js';
import { h, replace, fmtInt, fmtNs, timeSpan, pctSpan, boolSpan, pathText, identText, longText, stackPreview, debounce } from './util.js';

const NUMERIC = new Set(['time', 'int', 'pct', 'bool', 'float', 'timestamp', 'bar']);
export const PAGE_SIZES = [10, 25, 50, 100, 250];
const DEFAULT_LIMIT = 25;

/** The cell content for a value of a column type. */
export function cell(col, row) {
  if (col.render) return col.render(row);
  const v = row[col.key];
  switch (col.type) {
    case 'time':
      return timeSpan(v);
    case 'timestamp':
      return h('span', { class: 'num-time', title: fmtNs(v) }, v === null || v === undefined ? '–' : `${(Number(v) / 1e9).toFixed(6)} s`);
    case 'int':
      return fmtInt(v);
    case 'float':
      return v === null || v === undefined ? '–' : new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 }).format(v);
    case 'pct':
      return pctSpan(v);
    case 'bool':
      return boolSpan(v);
    case 'path':
      return pathText(v);
    case 'ident':
      return identText(v);
    case 'long':
      return longText(v, col.max || 100);
    case 'stack':
      return longText(v, col.max || 100, stackPreview(v));
    default: {
      const s = v === null || v === undefined ? '' : String(v);
      return s.length > 120 ? longText(s, 100) : s;
    }
  }
}

export function isNumeric(col) {
  return NUMERIC.has(col.type);
}

/**
 * opts: title, endpoint, prefix, columns [{key,label,type,title,sortable,render}],
 * groups [{label,span}] (optional two-row header), baseParams(route) -> {} | null,
 * placeholder (shown while baseParams is null), rowKey(row), selected(route),
 * onRowClick(row), noun ('ops'), empty, filterable (true), hint (a Node or text under the title),
 * onData(resp).
 */
export class DataTable {
  constructor(opts) {
    this.o = { prefix: '', filterable: true, noun: 'rows', empty: 'No rows.', ...opts };
    this.p = this.o.prefix;
    this.lastKey = null;
    this.seq = 0;
    this.resp = null;
    this.build();
  }

  param(route, name) {
    return route.params[this.p + name];
  }

  build() {
    const o = this.o;
    this.titleEl = h('h2', { class: 'card-title' }, o.title);
    this.countEl = h('span', { class: 'card-count' });
    this.filterEl = o.filterable
      ? h('input', {
          type: 'search',
          class: 'filter',
          placeholder: o.filterPlaceholder || 'Filter by name…',
          'aria-label': `Filter ${o.title}`,
          spellcheck: 'false',
        })
      : null;
    if (this.filterEl) {
      const push = debounce(() => {
        router.update({ [`${this.p}filter`]: this.filterEl.value.trim() || null, [`${this.p}offset`]: null }, { replace: true });
      }, 300);
      this.filterEl.addEventListener('input', push);
    }
    this.csvEl = h('a', { class: 'btn btn-small', download: '', title: 'Download all matching rows as CSV' }, 'CSV');
    this.toolsEl = h('div', { class: 'card-tools' }, this.filterEl, this.csvEl);
    this.headEl = h('thead');
    this.bodyEl = h('tbody');
    this.tableEl = h('table', { class: ['data', o.onRowClick ? 'clickable' : null] }, this.headEl, this.bodyEl);
    this.footEl = h('div', { class: 'table-foot' });
    this.hintEl = h('div', { class: 'card-hint' }, o.hint || null);
    this.el = h(
      'section',
      { class: ['card', 'table-card', o.cls], dataset: { table: o.id || o.endpoint } },
      h('header', { class: 'card-head' }, h('div', { class: 'card-heading' }, this.titleEl, this.countEl), this.toolsEl),
      this.hintEl,
      h('div', { class: 'table-scroll' }, this.tableEl),
      this.footEl,
    );
  }

  setTitle(...nodes) {
    replace(this.titleEl, ...nodes);
  }

  setHint(...nodes) {
    replace(this.hintEl, ...nodes);
  }

  columns() {
    return this.o.columns.filter((c) => !c.hidden);
  }

  renderHead(sort, order) {
    const cols = this.columns();
    const rows = [];
    if (this.o.groups) {
      rows.push(
        h(
          'tr',
          { class: 'group-row' },
          this.o.groups.map((g) => h('th', { colspan: g.span, class: g.label ? 'group' : 'group-empty', scope: 'colgroup' }, g.label || '')),
        ),
      );
    }
    rows.push(
      h(
        'tr',
        null,
        cols.map((c) => {
          const num = isNumeric(c);
          const active = sort === c.key;
          const th = h('th', {
            scope: 'col',
            class: [num ? 'num' : null, active ? 'sorted' : null],
            'aria-sort': active ? (order === 'asc' ? 'ascending' : 'descending') : null,
            title: c.title || null,
          });
          if (c.sortable === false) {
            th.append(c.label);
          } else {
            const arrow = active ? (order === 'asc' ? '▲' : '▼') : '';
            th.append(
              h(
                'button',
                {
                  type: 'button',
                  class: 'sort',
                  dataset: { sort: c.key },
                  on: { click: () => this.sortBy(c) },
                },
                c.label,
                h('span', { class: 'arrow', 'aria-hidden': 'true' }, arrow),
              ),
            );
          }
          return th;
        }),
      ),
    );
    replace(this.headEl, rows);
  }

  sortBy(col) {
    const route = router.current();
    const cur = this.resp ? this.resp.sort : this.param(route, 'sort');
    const curOrder = this.resp ? this.resp.order : this.param(route, 'order');
    let order;
    if (cur === col.key) order = curOrder === 'asc' ? 'desc' : 'asc';
    else order = isNumeric(col) ? 'desc' : 'asc';
    router.update({ [`${this.p}sort`]: col.key, [`${this.p}order`]: order, [`${this.p}offset`]: null });
  }

  query(route) {
    const base = this.o.baseParams(route);
    if (!base) return null;
    const limit = Number(this.param(route, 'limit')) || this.o.limit || DEFAULT_LIMIT;
    return {
      ...base,
      sort: this.param(route, 'sort') || this.o.sort || null,
      order: this.param(route, 'order') || this.o.order || null,
      filter: this.param(route, 'filter') || null,
      offset: Number(this.param(route, 'offset')) || 0,
      limit,
    };
  }

  /** Brings the table in line with the route: fetches when its query changed. */
  update(route) {
    this.route = route;
    const q = this.query(route);
    if (this.filterEl && document.activeElement !== this.filterEl) this.filterEl.value = this.param(route, 'filter') || '';
    if (!q) {
      this.lastKey = null;
      this.resp = null;
      this.el.classList.add('is-empty');
      this.renderHead(null, null);
      replace(this.bodyEl, h('tr', { class: 'placeholder' }, h('td', { colspan: this.columns().length }, this.o.placeholder || '')));
      replace(this.footEl);
      replace(this.countEl);
      this.csvEl.removeAttribute('href');
      return;
    }
    this.el.classList.remove('is-empty');
    const csvQ = { ...q, format: 'csv' };
    delete csvQ.offset;
    delete csvQ.limit;
    this.csvEl.setAttribute('href', apiUrl(this.o.endpoint, csvQ));
    const key = JSON.stringify(q);
    if (key === this.lastKey) {
      this.markSelected();
      return;
    }
    this.lastKey = key;
    this.fetch(q, key);
  }

  async fetch(q, key) {
    const seq = ++this.seq;
    this.el.classList.add('is-loading');
    this.el.setAttribute('aria-busy', 'true');
    if (!this.resp) {
      this.renderHead(q.sort, q.order);
      replace(this.bodyEl, h('tr', { class: 'placeholder' }, h('td', { colspan: this.columns().length }, h('span', { class: 'spinner' }), 'Loading…')));
    }
    try {
      const resp = await get(this.o.endpoint, q);
      if (seq !== this.seq) return;
      this.resp = resp;
      this.render(resp);
      if (this.o.onData) this.o.onData(resp);
    } catch (e) {
      if (seq !== this.seq) return;
      this.lastKey = null;
      this.resp = null;
      replace(
        this.bodyEl,
        h('tr', { class: 'placeholder error' }, h('td', { colspan: this.columns().length }, `Could not load ${this.o.title}: ${e.message}`)),
      );
      replace(this.footEl);
    } finally {
      if (seq === this.seq) {
        this.el.classList.remove('is-loading');
        this.el.setAttribute('aria-busy', 'false');
        this.el.dataset.loaded = key;
      }
    }
  }

  render(resp) {
    const cols = this.columns();
    this.renderHead(resp.sort, resp.order);
    const o = this.o;
    if (!resp.rows.length) {
      const why =
        resp.filtered > 0 && resp.offset >= resp.filtered
          ? `This page is past the last ${o.noun.replace(/s$/, '')}.`
          : resp.total > 0 && resp.filtered < resp.total
            ? `No ${o.noun} match the filter.`
            : o.empty;
      replace(this.bodyEl, h('tr', { class: 'placeholder' }, h('td', { colspan: cols.length }, why)));
    } else {
      replace(
        this.bodyEl,
        resp.rows.map((row) => {
          const tr = h(
            'tr',
            null,
            cols.map((c) => h('td', { class: [isNumeric(c) ? 'num' : null, c.type === 'ident' ? 'ident' : null, c.cls] }, cell(c, row))),
          );
          if (o.rowKey) tr.dataset.key = String(o.rowKey(row));
          if (o.onRowClick) {
            tr.tabIndex = 0;
            tr.addEventListener('click', (ev) => {
              if (ev.target.closest('a, button')) return;
              o.onRowClick(row);
            });
            tr.addEventListener('keydown', (ev) => {
              if (ev.key === 'Enter' || ev.key === ' ') {
                ev.preventDefault();
                o.onRowClick(row);
              }
            });
          }
          return tr;
        }),
      );
    }
    this.markSelected();
    // count
    const noun = (n) => (Number(n) === 1 ? o.noun.replace(/s$/, '') : o.noun);
    replace(
      this.countEl,
      resp.filtered === resp.total ? `${fmtInt(resp.total)} ${noun(resp.total)}` : `${fmtInt(resp.filtered)} of ${fmtInt(resp.total)} ${noun(resp.total)}`,
    );
    this.renderFoot(resp);
  }

  markSelected() {
    if (!this.o.selected || !this.route) return;
    const sel = this.o.selected(this.route);
    for (const tr of this.bodyEl.rows) {
      const on = sel !== null && sel !== undefined && tr.dataset.key === String(sel);
      tr.classList.toggle('selected', on);
      if (on) tr.setAttribute('aria-selected', 'true');
      else tr.removeAttribute('aria-selected');
    }
  }

  renderFoot(resp) {
    const { offset, limit, filtered } = resp;
    const pages = Math.max(1, Math.ceil(filtered / limit));
    const page = Math.min(Math.floor(offset / limit) + 1, pages);
    const goto = (off) => router.update({ [`${this.p}offset`]: off > 0 ? off : null });
    const btn = (label, aria, off, disabled) =>
      h('button', { type: 'button', class: 'btn btn-small pager', 'aria-label': aria, disabled: disabled || null, on: { click: () => goto(off) } }, label);
    const size = h(
      'select',
      {
        class: 'page-size',
        'aria-label': 'Rows per page',
        on: {
          change: (ev) => router.update({ [`${this.p}limit`]: ev.target.value, [`${this.p}offset`]: null }),
        },
      },
      [...new Set([...PAGE_SIZES, limit])].sort((a, b) => a - b).map((n) => h('option', { value: n, selected: n === limit || null }, String(n))),
    );
    const first = resp.rows.length ? offset + 1 : 0;
    const last = Math.min(offset + resp.rows.length, filtered);
    replace(
      this.footEl,
      h(
        'span',
        { class: 'range' },
        resp.rows.length ? `${fmtInt(first)}–${fmtInt(last)} of ${fmtInt(filtered)}` : filtered ? `0 of ${fmtInt(filtered)}` : '0 rows',
      ),
      h('label', { class: 'page-size-label' }, 'Rows per page ', size),
      h(
        'span',
        { class: 'pager-group' },
        // enabled on an offset past the last row too (an old link): back to the rows
        btn('«', 'First page', 0, offset <= 0),
        btn('‹', 'Previous page', Math.max(0, Math.min(offset, (pages - 1) * limit) - limit), offset <= 0),
        h('span', { class: 'page-no' }, `Page ${fmtInt(page)} of ${fmtInt(pages)}`),
        btn('›', 'Next page', offset + limit, page >= pages),
        btn('»', 'Last page', (pages - 1) * limit, page >= pages),
      ),
    );
  }
}
