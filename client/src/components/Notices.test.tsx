import { act, renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { MAX_NOTICES, useNotices } from './Notices';

describe('useNotices', () => {
  it('the same message again replaces the one shown instead of piling up', () => {
    const { result } = renderHook(() => useNotices());
    act(() => void result.current.notify('Failed to save knowledge item. Please try again.', { tone: 'error' }));
    act(() => void result.current.notify('Failed to save knowledge item. Please try again.', { tone: 'error' }));
    expect(result.current.notices.map((n) => n.text)).toEqual(['Failed to save knowledge item. Please try again.']);
  });

  it(`keeps only the newest ${MAX_NOTICES}`, () => {
    const { result } = renderHook(() => useNotices());
    for (const n of [1, 2, 3, 4, 5]) act(() => void result.current.notify(`Problem ${n}`, { tone: 'error' }));
    expect(result.current.notices.map((n) => n.text)).toEqual(['Problem 3', 'Problem 4', 'Problem 5']);
  });
});
