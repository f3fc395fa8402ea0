/** The Knowledge Base tab: list, search, filter, editor, save and delete. */
import { act, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SEARCH_DEBOUNCE_MS } from './KnowledgeTab';
import { deferred, fail, fakeKnowledgeServer, makeAttachment, makeKnowledgeItem } from './testing/fake-knowledge-server';
import { expectNotice, noticeTexts, renderTab } from './testing/render-tab';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const list = () => screen.getByRole('list', { name: 'Knowledge Items' });
const row = (title: string | RegExp) => within(list()).getByRole('button', { name: title instanceof RegExp ? title : new RegExp(title) });
const placeholder = 'Select a knowledge item to edit or create a new one';

function seed() {
  return [
    makeKnowledgeItem({
      id: 'warranty',
      title: 'Warranty claims',
      content: 'Every Zentrix blender has a two year warranty covering motor failure.',
      tags: ['warranty', 'blender', 'motor'],
      attachments: [makeAttachment({ id: 'steps', name: 'steps.txt', size: 41, content: undefined })],
    }),
    makeKnowledgeItem({ id: 'dental', title: 'Dental plan', content: 'The dental plan covers two check-ups a year.', vertical: 'hr', category: 'Benefits', tags: ['benefits'] }),
  ];
}

describe('KnowledgeTab: the list panel', () => {
  it("shows 'Knowledge Items' with the plus button, the search box, the vertical filter, the quick upload box, and the placeholder", async () => {
    const server = fakeKnowledgeServer(seed());
    renderTab();
    expect(screen.getByRole('heading', { name: 'Knowledge Items' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'New knowledge item' })).toBeInTheDocument();
    expect(screen.getByRole('searchbox', { name: 'Search knowledge' })).toHaveAttribute('placeholder', 'Search knowledge...');
    const filter = screen.getByRole('combobox', { name: 'Filter by vertical' });
    expect(filter).toHaveValue('all');
    expect(within(filter).getAllByRole('option').map((o) => o.textContent)).toEqual(['All Verticals', 'Customer Support', 'Employee Support', 'Legal Advisor', 'Sales Advisor']);
    expect(screen.getByRole('region', { name: 'Quick Upload Document' })).toHaveTextContent('TXT, JSON, PDF, DOCX, Markdown, HTML, CSV, XLSX');
    expect(screen.getByRole('region', { name: 'Import website' })).toBeInTheDocument();
    expect(screen.getByText(placeholder)).toBeInTheDocument();
    await screen.findByRole('list', { name: 'Knowledge Items' });
    // vertical and search are left out for 'all' and an empty search.
    expect(server.listQueries()).toEqual([{}]);
  });

  it('each row shows the title, the content preview, the vertical, the first two tags only, and a paperclip when it has attachments', async () => {
    fakeKnowledgeServer(seed());
    renderTab();
    await screen.findByRole('list', { name: 'Knowledge Items' });
    const warranty = row('Warranty claims');
    expect(warranty).toHaveTextContent('Every Zentrix blender has a two year warranty covering motor failure.');
    expect(within(warranty).getByText('Customer Support')).toBeInTheDocument();
    expect(within(warranty).getByText('warranty')).toBeInTheDocument();
    expect(within(warranty).getByText('blender')).toBeInTheDocument();
    expect(within(warranty).queryByText('motor')).not.toBeInTheDocument();
    expect(within(warranty).getByRole('img', { name: 'Has supporting documents' })).toBeInTheDocument();
    const dental = row('Dental plan');
    expect(within(dental).getByText('Employee Support')).toBeInTheDocument();
    expect(within(dental).queryByRole('img', { name: 'Has supporting documents' })).not.toBeInTheDocument();
  });

  it('reloads the list when the vertical filter changes (vertical omitted again for All Verticals)', async () => {
    const server = fakeKnowledgeServer(seed());
    const { user } = renderTab();
    await screen.findByRole('list', { name: 'Knowledge Items' });
    await user.selectOptions(screen.getByRole('combobox', { name: 'Filter by vertical' }), 'hr');
    await waitFor(() => expect(within(list()).queryByRole('button', { name: /Warranty claims/ })).not.toBeInTheDocument());
    expect(row('Dental plan')).toBeInTheDocument();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Filter by vertical' }), 'All Verticals');
    await waitFor(() => expect(server.listQueries()).toEqual([{}, { vertical: 'hr' }, {}]));
    expect(await within(list()).findByRole('button', { name: /Warranty claims/ })).toBeInTheDocument();
  });

  it('reloads the list once the search text has rested (debounced), not on every keystroke', async () => {
    const server = fakeKnowledgeServer(seed());
    const { user } = renderTab();
    await screen.findByRole('list', { name: 'Knowledge Items' });
    await user.type(screen.getByRole('searchbox', { name: 'Search knowledge' }), 'dental');
    // Just typed: the text has not rested for SEARCH_DEBOUNCE_MS yet.
    expect(SEARCH_DEBOUNCE_MS).toBeGreaterThanOrEqual(200);
    expect(server.listQueries()).not.toContainEqual({ search: 'dental' });
    await waitFor(() => expect(server.listQueries()).toEqual([{}, { search: 'dental' }]));
    await waitFor(() => expect(within(list()).queryByRole('button', { name: /Warranty claims/ })).not.toBeInTheDocument());
    expect(row('Dental plan')).toBeInTheDocument();

    await user.clear(screen.getByRole('searchbox', { name: 'Search knowledge' }));
    await waitFor(() => expect(server.listQueries()).toEqual([{}, { search: 'dental' }, {}]));
  });

  it('a failed list load is logged and leaves the list empty', async () => {
    const server = fakeKnowledgeServer(seed());
    server.on('GET /api/knowledge', () => fail(500, 'internal_error', 'Something went wrong.'));
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    renderTab();
    expect(await screen.findByText('No knowledge items found.')).toBeInTheDocument();
    expect(screen.queryByRole('list', { name: 'Knowledge Items' })).not.toBeInTheDocument();
    expect(error).toHaveBeenCalledWith('Failed to load knowledge items', expect.anything());
  });

  it('reloads when another console changes the knowledge base (knowledge:changed) and after a reconnect; disconnects on unmount', async () => {
    const server = fakeKnowledgeServer(seed());
    const { live, unmount } = renderTab();
    await screen.findByRole('list', { name: 'Knowledge Items' });
    act(() => live.push('connect'));
    server.items.unshift(makeKnowledgeItem({ id: 'new', title: 'Added elsewhere' }));
    act(() => live.push('knowledge:changed', { id: 'new', action: 'created' }));
    expect(await within(list()).findByRole('button', { name: /Added elsewhere/ })).toBeInTheDocument();
    expect(server.listQueries()).toHaveLength(2);
    act(() => live.push('connect'));
    await waitFor(() => expect(server.listQueries()).toHaveLength(3));
    unmount();
    expect(live.feed.disconnected).toBe(true);
  });
});

describe('KnowledgeTab: members who may only read (agents, viewers)', () => {
  it.each(['agent', 'viewer'] as const)('a %s reads items with no way to add, import, edit, delete or remove attachments', async (role) => {
    fakeKnowledgeServer(seed());
    renderTab({}, role);
    await screen.findByRole('list', { name: 'Knowledge Items' });
    expect(screen.queryByRole('button', { name: 'New knowledge item' })).not.toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Quick Upload Document' })).not.toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Import website' })).not.toBeInTheDocument();

    row('Warranty claims').click();
    expect(await screen.findByRole('heading', { name: 'Knowledge Item' })).toBeInTheDocument();
    expect(screen.getByLabelText('Title')).toHaveValue('Warranty claims');
    expect(screen.getByLabelText('Title')).toBeDisabled();
    expect(screen.getByLabelText('Content')).toBeDisabled();
    expect(screen.queryByRole('button', { name: /Save/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Delete/ })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Preview steps.txt' })).toBeEnabled();
    expect(screen.queryByRole('button', { name: 'Remove steps.txt' })).not.toBeInTheDocument();
  });
});

describe('KnowledgeTab: the editor', () => {
  it("the plus button opens a blank 'New Knowledge Item' (vertical Customer Support, whatever the filter) without Delete", async () => {
    fakeKnowledgeServer(seed());
    const { user } = renderTab();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Filter by vertical' }), 'hr');
    await user.click(screen.getByRole('button', { name: 'New knowledge item' }));
    expect(screen.getByRole('heading', { name: 'New Knowledge Item' })).toBeInTheDocument();
    expect(screen.queryByText(placeholder)).not.toBeInTheDocument();
    expect(screen.getByLabelText('Title')).toHaveValue('');
    const content = screen.getByLabelText('Content');
    expect(content).toHaveValue('');
    expect(content.tagName).toBe('TEXTAREA');
    expect(content).toHaveAttribute('rows', '8');
    const vertical = screen.getByLabelText('Vertical');
    expect(vertical).toHaveValue('customer-service');
    expect(within(vertical).getAllByRole('option').map((o) => o.textContent)).toEqual(['Customer Support', 'Employee Support', 'Legal Advisor', 'Sales Advisor']);
    expect(screen.getByLabelText('Category')).toHaveValue('');
    expect(screen.getByLabelText('Tags')).toHaveValue('');
    expect(screen.getByRole('heading', { name: 'Supporting Documents' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Save' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Delete' })).not.toBeInTheDocument();
  });

  it("selecting a row opens 'Edit Knowledge Item' with its fields, tags as comma-separated text, Delete, and fetches the whole item", async () => {
    const server = fakeKnowledgeServer(seed());
    const { user } = renderTab();
    await user.click(await screen.findByRole('button', { name: /Dental plan/ }));
    expect(screen.getByRole('heading', { name: 'Edit Knowledge Item' })).toBeInTheDocument();
    expect(row('Dental plan')).toHaveAttribute('aria-current', 'true');
    expect(screen.getByLabelText('Title')).toHaveValue('Dental plan');
    expect(screen.getByLabelText('Content')).toHaveValue('The dental plan covers two check-ups a year.');
    expect(screen.getByLabelText('Vertical')).toHaveValue('hr');
    expect(screen.getByLabelText('Category')).toHaveValue('Benefits');
    expect(screen.getByLabelText('Tags')).toHaveValue('benefits');
    expect(screen.getByRole('button', { name: 'Delete' })).toBeInTheDocument();
    await waitFor(() => expect(server.callsTo('GET /api/knowledge/dental')).toHaveLength(1));

    await user.click(row('Warranty claims'));
    expect(screen.getByLabelText('Title')).toHaveValue('Warranty claims');
    expect(screen.getByLabelText('Tags')).toHaveValue('warranty, blender, motor');
  });

  it('Save in create mode posts the item (tags trimmed, empties dropped), reloads the list and closes the editor', async () => {
    const server = fakeKnowledgeServer(seed());
    const { user } = renderTab();
    await screen.findByRole('list', { name: 'Knowledge Items' });
    await user.click(screen.getByRole('button', { name: 'New knowledge item' }));
    await user.type(screen.getByLabelText('Title'), 'Parental leave');
    await user.type(screen.getByLabelText('Content'), 'Sixteen weeks of paid leave.');
    await user.selectOptions(screen.getByLabelText('Vertical'), 'hr');
    await user.type(screen.getByLabelText('Category'), 'Benefits');
    await user.type(screen.getByLabelText('Tags'), ' leave, , parents ,benefits ,');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    await screen.findByText(placeholder);
    expect(server.callsTo('POST /api/knowledge').map((c) => c.body)).toEqual([
      { title: 'Parental leave', content: 'Sixteen weeks of paid leave.', category: 'Benefits', vertical: 'hr', tags: ['leave', 'parents', 'benefits'], attachments: [] },
    ]);
    expect(await within(list()).findByRole('button', { name: /Parental leave/ })).toBeInTheDocument();
    expect(server.listQueries()).toHaveLength(2);
  });

  it("Save has no client-side required fields: an empty item is sent; the refusal shows once, above the fields, and goes as the title is typed", async () => {
    const server = fakeKnowledgeServer(seed());
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user } = renderTab();
    await user.click(screen.getByRole('button', { name: 'New knowledge item' }));
    await user.click(screen.getByRole('button', { name: 'Save' }));
    // The server's reason is what the user reads, above the fields, and only there: no toast
    // repeating it, and no "Please try again" for a field that is missing.
    await waitFor(() => expect(within(screen.getByRole('form')).getByRole('alert')).toHaveTextContent('Title is required'));
    expect(noticeTexts()).toEqual([]);
    expect(server.callsTo('POST /api/knowledge')[0].body).toEqual({ title: '', content: '', category: '', vertical: 'customer-service', tags: [], attachments: [] });
    expect(screen.getByRole('heading', { name: 'New Knowledge Item' })).toBeInTheDocument();
    expect(error).toHaveBeenCalled();
    await user.type(screen.getByLabelText('Title'), 'Parental leave');
    expect(within(screen.getByRole('form')).queryByRole('alert')).not.toBeInTheDocument();
  });

  it("checks the item with the server's contract before sending: a 201-character title is refused in the contract's words, nothing is sent", async () => {
    const server = fakeKnowledgeServer(seed());
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user } = renderTab();
    await user.click(screen.getByRole('button', { name: 'New knowledge item' }));
    await user.click(screen.getByLabelText('Title'));
    await user.paste('x'.repeat(201));
    await user.type(screen.getByLabelText('Tags'), 'a,b');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(within(screen.getByRole('form')).getByRole('alert')).toHaveTextContent('Title must be at most 200 characters'));
    expect(noticeTexts()).toEqual([]);
    expect(server.callsTo('POST /api/knowledge')).toEqual([]);
    // Fixed, it saves, and the reason goes away with the editor.
    await user.clear(screen.getByLabelText('Title'));
    await user.type(screen.getByLabelText('Title'), 'Short title');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByText(placeholder);
    expect(server.callsTo('POST /api/knowledge')).toHaveLength(1);
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it("Save in edit mode puts the whole item (stored attachments by id, without content), reads 'Saving...' meanwhile, then reloads and closes", async () => {
    const server = fakeKnowledgeServer(seed());
    const pending = deferred({ status: 200, body: { success: true, data: makeKnowledgeItem({ id: 'warranty', title: 'Blender warranty' }) } });
    server.on('PUT /api/knowledge/warranty', pending.handler);
    const { user } = renderTab();
    await user.click(await screen.findByRole('button', { name: /Warranty claims/ }));
    await user.clear(screen.getByLabelText('Title'));
    await user.type(screen.getByLabelText('Title'), 'Blender warranty');
    await user.clear(screen.getByLabelText('Tags'));
    await user.type(screen.getByLabelText('Tags'), 'warranty');
    const listLoads = server.listQueries().length;
    await user.click(screen.getByRole('button', { name: 'Save' }));

    expect(await screen.findByRole('button', { name: 'Saving...' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Delete' })).toBeDisabled();
    expect(server.callsTo('PUT /api/knowledge/warranty')[0].body).toEqual({
      title: 'Blender warranty',
      content: 'Every Zentrix blender has a two year warranty covering motor failure.',
      category: 'Products',
      vertical: 'customer-service',
      tags: ['warranty'],
      attachments: [{ id: 'steps', name: 'steps.txt', type: 'text/plain', size: 41 }],
    });
    pending.release();
    await screen.findByText(placeholder);
    await waitFor(() => expect(server.listQueries().length).toBe(listLoads + 1));
  });

  it('a failed save shows the alert and keeps the editor open with the edits', async () => {
    const server = fakeKnowledgeServer(seed());
    server.on('PUT /api/knowledge/dental', () => 'network-error');
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user } = renderTab();
    await user.click(await screen.findByRole('button', { name: /Dental plan/ }));
    await user.type(screen.getByLabelText('Title'), ' 2026');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await expectNotice('Failed to save knowledge item. Please try again.');
    expect(screen.getByRole('heading', { name: 'Edit Knowledge Item' })).toBeInTheDocument();
    expect(screen.getByLabelText('Title')).toHaveValue('Dental plan 2026');
    expect(screen.getByRole('button', { name: 'Save' })).toBeEnabled();
  });

  it('Delete asks first in an in-page dialog; Cancel keeps the item and sends nothing', async () => {
    const server = fakeKnowledgeServer(seed());
    const confirm = vi.spyOn(window, 'confirm');
    const { user } = renderTab({ undoDeleteMs: 50 });
    await user.click(await screen.findByRole('button', { name: /Dental plan/ }));
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete knowledge item?' });
    expect(dialog).toHaveAccessibleDescription(/"Dental plan" will be removed/);
    // The safe choice has the focus.
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.callsTo('DELETE /api/knowledge/dental')).toHaveLength(0);
    expect(screen.getByRole('heading', { name: 'Edit Knowledge Item' })).toBeInTheDocument();
    expect(confirm).not.toHaveBeenCalled();
  });

  it('a confirmed delete hides the item and closes the editor at once, and is sent once the undo window has passed', async () => {
    const server = fakeKnowledgeServer(seed());
    const { user } = renderTab({ undoDeleteMs: 300 });
    await user.click(await screen.findByRole('button', { name: /Dental plan/ }));
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete' }));
    await screen.findByText(placeholder);
    expect(within(list()).queryByRole('button', { name: /Dental plan/ })).not.toBeInTheDocument();
    const notice = await expectNotice('Deleted "Dental plan".');
    expect(within(notice).getByRole('button', { name: 'Undo' })).toBeInTheDocument();
    expect(server.callsTo('DELETE /api/knowledge/dental')).toHaveLength(0);
    await waitFor(() => expect(server.callsTo('DELETE /api/knowledge/dental')).toHaveLength(1));
    await waitFor(() => expect(noticeTexts()).toEqual([]));
    expect(within(list()).queryByRole('button', { name: /Dental plan/ })).not.toBeInTheDocument();
    expect(row('Warranty claims')).toBeInTheDocument();
  });

  it('Undo within the window brings the item back and nothing is deleted', async () => {
    const server = fakeKnowledgeServer(seed());
    const { user } = renderTab({ undoDeleteMs: 400 });
    await user.click(await screen.findByRole('button', { name: /Dental plan/ }));
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete' }));
    const notice = await expectNotice('Deleted "Dental plan".');
    await user.click(within(notice).getByRole('button', { name: 'Undo' }));
    expect(await within(list()).findByRole('button', { name: /Dental plan/ })).toBeInTheDocument();
    await expectNotice('Restored "Dental plan".');
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(server.callsTo('DELETE /api/knowledge/dental')).toHaveLength(0);
  });

  it("a failed delete brings the item back with the delete alert in an in-page notice", async () => {
    const server = fakeKnowledgeServer(seed());
    server.on('DELETE /api/knowledge/dental', () => fail(500, 'internal_error', 'Database is locked.'));
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user } = renderTab({ undoDeleteMs: 20 });
    await user.click(await screen.findByRole('button', { name: /Dental plan/ }));
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete' }));
    // A 500 gives no reason worth showing: the alert text alone.
    const notice = await expectNotice('Failed to delete knowledge item. Please try again.');
    expect(notice).toHaveAttribute('role', 'alert');
    expect(await within(list()).findByRole('button', { name: /Dental plan/ })).toBeInTheDocument();
  });

  it('leaving the tab during the undo window still deletes the item', async () => {
    const server = fakeKnowledgeServer(seed());
    const { user, unmount } = renderTab({ undoDeleteMs: 60_000 });
    await user.click(await screen.findByRole('button', { name: /Dental plan/ }));
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete' }));
    await expectNotice('Deleted "Dental plan".');
    unmount();
    await waitFor(() => expect(server.callsTo('DELETE /api/knowledge/dental')).toHaveLength(1));
  });

  it('opening an item brings the editor into view when it is below the fold (a phone), and leaves the page alone when it is visible', async () => {
    fakeKnowledgeServer(seed());
    const scrolled: Element[] = [];
    const scrollIntoView = vi.fn(function (this: Element) {
      scrolled.push(this);
    });
    Element.prototype.scrollIntoView = scrollIntoView;
    const rect = vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect');
    // Stacked layout: the editor starts 1,190 px down a 844 px screen.
    rect.mockImplementation(function (this: HTMLElement) {
      return { top: this.classList.contains('kb-main') ? 1190 : 0, bottom: 0, left: 0, right: 0, width: 0, height: 0, x: 0, y: 0, toJSON: () => ({}) } as DOMRect;
    });
    vi.stubGlobal('innerHeight', 844);
    const { user } = renderTab();
    await user.click(await screen.findByRole('button', { name: /Dental plan/ }));
    await waitFor(() => expect(scrollIntoView).toHaveBeenCalledTimes(1));
    expect(scrolled[0]).toHaveClass('kb-main');
    // Side by side: the editor is in view, nothing scrolls.
    rect.mockImplementation(() => ({ top: 120, bottom: 0, left: 0, right: 0, width: 0, height: 0, x: 0, y: 0, toJSON: () => ({}) }) as DOMRect);
    await user.click(row('Warranty claims'));
    await screen.findByDisplayValue('Warranty claims');
    expect(scrollIntoView).toHaveBeenCalledTimes(1);
  });

  it('the close button closes the editor without saving', async () => {
    const server = fakeKnowledgeServer(seed());
    const { user } = renderTab();
    await user.click(await screen.findByRole('button', { name: /Dental plan/ }));
    await user.type(screen.getByLabelText('Title'), ' changed');
    await user.click(screen.getByRole('button', { name: 'Close editor' }));
    expect(screen.getByText(placeholder)).toBeInTheDocument();
    expect(server.callsTo('PUT /api/knowledge/dental')).toHaveLength(0);
  });
});

describe('KnowledgeTab: jurisdiction-scoped legal items', () => {
  it('a Legal item gets a Jurisdiction select and, for a country with states, a sub-region select; Save sends both', async () => {
    const server = fakeKnowledgeServer(seed());
    const { user } = renderTab();
    await screen.findByRole('list', { name: 'Knowledge Items' });
    await user.click(screen.getByRole('button', { name: 'New knowledge item' }));
    expect(screen.queryByLabelText('Jurisdiction')).not.toBeInTheDocument();
    await user.type(screen.getByLabelText('Title'), 'Security deposits in California');
    await user.selectOptions(screen.getByLabelText('Vertical'), 'legal');
    const jurisdiction = screen.getByLabelText('Jurisdiction');
    expect(jurisdiction).toHaveValue('');
    expect(within(jurisdiction).getAllByRole('option')[0]).toHaveTextContent('None (general information)');
    expect(screen.queryByLabelText('State')).not.toBeInTheDocument();
    await user.selectOptions(jurisdiction, 'US');
    const state = screen.getByLabelText('State');
    expect(within(state).getAllByRole('option')).toHaveLength(51);
    expect(state).toHaveValue('');
    expect(within(state).getAllByRole('option')[0]).toHaveTextContent('All of United States');
    await user.selectOptions(state, 'California');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByText(placeholder);
    expect(server.callsTo('POST /api/knowledge').map((c) => c.body)).toEqual([
      { title: 'Security deposits in California', content: '', category: '', vertical: 'legal', tags: [], attachments: [], jurisdiction: 'US', subRegion: 'California' },
    ]);
  });

  it('opening a Legal item shows its jurisdiction; moving it to another vertical drops the jurisdiction', async () => {
    const server = fakeKnowledgeServer([makeKnowledgeItem({ id: 'deposit', title: 'Deposits in Texas', vertical: 'legal', jurisdiction: 'US', subRegion: 'Texas', tags: [] })]);
    const { user } = renderTab();
    await user.click(await within(await screen.findByRole('list', { name: 'Knowledge Items' })).findByRole('button', { name: /Deposits in Texas/ }));
    expect(within(row('Deposits in Texas')).getByText('US · Texas')).toBeInTheDocument();
    expect(screen.getByLabelText('Jurisdiction')).toHaveValue('US');
    expect(screen.getByLabelText('State')).toHaveValue('Texas');
    await user.selectOptions(screen.getByLabelText('Vertical'), 'hr');
    expect(screen.queryByLabelText('Jurisdiction')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByText(placeholder);
    const body = server.callsTo('PUT /api/knowledge/deposit')[0].body;
    expect(body.vertical).toBe('hr');
    expect(body).not.toHaveProperty('jurisdiction');
    expect(body).not.toHaveProperty('subRegion');
  });

  it('with the Legal filter, the list can be filtered by jurisdiction, sub-region, or general items', async () => {
    const server = fakeKnowledgeServer(seed());
    const { user } = renderTab();
    await screen.findByRole('list', { name: 'Knowledge Items' });
    expect(screen.queryByRole('combobox', { name: 'Filter by jurisdiction' })).not.toBeInTheDocument();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Filter by vertical' }), 'legal');
    const filter = screen.getByRole('combobox', { name: 'Filter by jurisdiction' });
    await user.selectOptions(filter, 'US');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Filter by sub-region' }), 'California');
    await user.selectOptions(filter, 'none');
    expect(screen.queryByRole('combobox', { name: 'Filter by sub-region' })).not.toBeInTheDocument();
    await waitFor(() =>
      expect(server.listQueries()).toEqual([
        {},
        { vertical: 'legal' },
        { vertical: 'legal', jurisdiction: 'US' },
        { vertical: 'legal', jurisdiction: 'US', subRegion: 'California' },
        { vertical: 'legal', jurisdiction: 'none' },
      ]),
    );
    // Another vertical: the jurisdiction filter no longer applies.
    await user.selectOptions(screen.getByRole('combobox', { name: 'Filter by vertical' }), 'hr');
    await waitFor(() => expect(server.listQueries().at(-1)).toEqual({ vertical: 'hr' }));
  });
});
