/** The Knowledge tab's embeddings line: "n of N chunks embedded" while embeddings are on, nothing while off. */
import { screen, waitForElementToBeRemoved } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeKnowledgeServer, ok } from './testing/fake-knowledge-server';
import { renderTab } from './testing/render-tab';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const status = (over: Record<string, unknown>) => ({ enabled: true, model: 'text-embedding-3-small', embedded: 0, total: 0, running: false, degraded: false, lastError: null, ...over });

describe('KnowledgeTab: embeddings backfill progress', () => {
  it('shows "n of N chunks embedded" with the model while the backfill runs, and the final count when done', async () => {
    const server = fakeKnowledgeServer([]);
    let embedded = 40;
    server.on('GET /api/config/embeddings/status', () => ok(status({ embedded, total: 1234, running: embedded < 1234 })));
    renderTab();
    expect(await screen.findByText('Embeddings (text-embedding-3-small): 40 of 1,234 chunks embedded…')).toBeInTheDocument();
    embedded = 1234;
    expect(await screen.findByText('Embeddings (text-embedding-3-small): 1,234 of 1,234 chunks embedded', {}, { timeout: 3000 })).toBeInTheDocument();
  });

  it('says nothing while embeddings are off (the line goes away when they are switched off)', async () => {
    const server = fakeKnowledgeServer([]);
    let enabled = true;
    server.on('GET /api/config/embeddings/status', () => ok(enabled ? status({ embedded: 5, total: 10, running: true }) : status({ enabled: false, model: null })));
    renderTab();
    const line = await screen.findByText('Embeddings (text-embedding-3-small): 5 of 10 chunks embedded…');
    enabled = false;
    await waitForElementToBeRemoved(line, { timeout: 3000 });
    expect(screen.queryByText(/chunks embedded/)).not.toBeInTheDocument();
  });
});
