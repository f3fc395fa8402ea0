/** 'Import website': start an import, follow its progress, see why pages were not imported, cancel and re-sync. */
import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SiteImport } from './api/knowledge-api';
import { fail, fakeKnowledgeServer, ok } from './testing/fake-knowledge-server';
import { renderTab } from './testing/render-tab';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function makeImport(overrides: Partial<SiteImport> = {}): SiteImport {
  return {
    id: '11111111-1111-4111-8111-111111111111',
    status: 'running',
    run: 'import',
    url: 'https://help.example.com/sitemap.xml',
    mode: 'sitemap',
    vertical: 'customer-service',
    category: 'Website',
    maxPages: 200,
    maxDepth: 3,
    resyncHours: 24,
    pagesDone: 3,
    pagesTotal: 8,
    added: 2,
    updated: 0,
    removed: 0,
    unchanged: 0,
    skipped: 1,
    items: 2,
    errors: [{ url: 'https://help.example.com/private/a.html', message: 'robots.txt disallows it' }],
    notes: ['The sitemap lists 10,000 pages; the first 200 are imported (the page cap)'],
    createdAt: '2026-01-01T00:00:00.000Z',
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: null,
    nextResyncAt: null,
    ...overrides,
  };
}

const panel = () => screen.getByRole('region', { name: 'Import website' });

describe('import website', () => {
  it('sends the address, vertical, page cap and depth, then shows the progress, the notes and the pages not imported', async () => {
    const server = fakeKnowledgeServer();
    let imports: SiteImport[] = [];
    server.on('GET /api/knowledge/import/site', () => ok(imports));
    server.on('POST /api/knowledge/import/site', (body) => {
      imports = [makeImport({ url: body.url })];
      return ok(imports[0], 202);
    });
    const { user } = renderTab();
    const region = panel();
    await user.type(within(region).getByLabelText('Website or sitemap address'), 'https://help.example.com/sitemap.xml');
    await user.selectOptions(within(region).getByLabelText('Import into'), 'hr');
    await user.clear(within(region).getByLabelText('Page cap'));
    await user.type(within(region).getByLabelText('Page cap'), '50');
    await user.clear(within(region).getByLabelText('Depth'));
    await user.type(within(region).getByLabelText('Depth'), '2');
    await user.click(within(region).getByRole('button', { name: 'Import' }));
    await waitFor(() => expect(server.callsTo('POST /api/knowledge/import/site')).toHaveLength(1));
    expect(server.callsTo('POST /api/knowledge/import/site')[0].body).toEqual({ url: 'https://help.example.com/sitemap.xml', vertical: 'hr', maxPages: 50, maxDepth: 2 });
    expect(await within(region).findByText('3 of 8 pages')).toBeInTheDocument();
    expect(within(region).getByRole('progressbar', { name: /3 of 8 pages/ })).toHaveAttribute('value', '3');
    expect(within(region).getByText('The sitemap lists 10,000 pages; the first 200 are imported (the page cap)')).toBeInTheDocument();
    expect(within(region).getByText('1 page not imported')).toBeInTheDocument();
    expect(within(region).getByText(/robots\.txt disallows it/)).toBeInTheDocument();
    expect(within(region).getByRole('button', { name: 'Cancel' })).toBeInTheDocument();
  });

  it('shows the server refusal (a private address) and keeps the form', async () => {
    const server = fakeKnowledgeServer();
    server.on('GET /api/knowledge/import/site', () => ok([]));
    server.on('POST /api/knowledge/import/site', () => fail(400, 'validation_failed', 'intranet.example resolves to 10.0.0.7, a private address; only public addresses may be fetched'));
    const { user } = renderTab();
    const region = panel();
    await user.type(within(region).getByLabelText('Website or sitemap address'), 'https://intranet.example/');
    await user.click(within(region).getByRole('button', { name: 'Import' }));
    expect(await within(region).findByRole('alert')).toHaveTextContent('10.0.0.7, a private address');
    expect(within(region).getByLabelText('Website or sitemap address')).toHaveValue('https://intranet.example/');
  });

  it('cancel, resume and re-sync call their routes', async () => {
    const server = fakeKnowledgeServer();
    let current = makeImport();
    server.on('GET /api/knowledge/import/site', () => ok([current]));
    server.on(`POST /api/knowledge/import/site/${current.id}/cancel`, () => {
      current = { ...current, status: 'cancelled' };
      return ok(current);
    });
    server.on(`POST /api/knowledge/import/site/${current.id}/resync`, () => {
      current = { ...current, status: 'queued', run: 'resync' };
      return ok(current, 202);
    });
    const { user } = renderTab();
    const region = panel();
    await user.click(await within(region).findByRole('button', { name: 'Cancel' }));
    expect(await within(region).findByRole('button', { name: 'Resume' })).toBeInTheDocument();
    expect(within(region).getByText('Cancelled')).toBeInTheDocument();
    await user.click(within(region).getByRole('button', { name: 'Re-sync' }));
    expect(await within(region).findByText('Re-syncing')).toBeInTheDocument();
    expect(server.callsTo(`POST /api/knowledge/import/site/${current.id}/cancel`)).toHaveLength(1);
    expect(server.callsTo(`POST /api/knowledge/import/site/${current.id}/resync`)).toHaveLength(1);
  });
});
