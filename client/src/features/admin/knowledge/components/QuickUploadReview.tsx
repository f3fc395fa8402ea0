import { useId, useState, type FormEvent } from 'react';
import { KnowledgeItemInputSchema } from '@shared/contracts/knowledge';
import { check } from '@shared/contracts/rules';
import { Modal } from '../../../../components/Modal';
import type { KnowledgeItemInput } from '../api/knowledge-api';
import type { UploadReview } from '../hooks/useQuickUpload';
import { KNOWLEDGE } from '../strings';
import { verticalLabel } from './KnowledgeList';

const S = KNOWLEDGE.quickUpload;
const VERTICALS = Object.keys(KNOWLEDGE.verticals) as KnowledgeItemInput['vertical'][];
/** How much of the content the preview shows. */
const PREVIEW_CHARS = 600;

/**
 * Quick upload's review step: one item gets its vertical, title and category asked (prefilled
 * from the file); several (a JSON array) are listed with their fields, and the vertical and
 * category asked apply to those that do not set their own. Nothing is created until confirmed.
 */
export function QuickUploadReview({ review, onConfirm, onCancel }: { review: UploadReview; onConfirm(drafts: KnowledgeItemInput[]): void; onCancel(): void }) {
  const ids = useId();
  const single = review.drafts.length === 1;
  const first = review.drafts[0];
  const [title, setTitle] = useState(first.title);
  // For several items, the shared vertical and category replace the defaults; an item's own stay.
  const fallback = review.defaults;
  const [vertical, setVertical] = useState(single ? first.vertical : fallback.vertical);
  const [category, setCategory] = useState(single ? (first.category ?? '') : fallback.category);

  const drafts = (): KnowledgeItemInput[] =>
    single
      ? [{ ...first, title, vertical, category }]
      : review.drafts.map((d) => ({
          ...d,
          vertical: d.vertical === fallback.vertical ? vertical : d.vertical,
          category: d.category === fallback.category ? category : d.category,
        }));

  // The drafts as last confirmed: a problem found then is shown until a field changes (a title
  // typed makes "Title is required" go at once).
  const [refused, setRefused] = useState<{ message: string; for: string } | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const all = drafts();
    // Checked with the server's contract first: a missing field is said here, beside the fields,
    // and the dialog stays open (no "Please try again" toast after it closed).
    for (const draft of all) {
      const result = check(KnowledgeItemInputSchema, draft);
      if (!result.ok) {
        setRefused({ message: single ? result.problem.message : `${draft.title}: ${result.problem.message}`, for: JSON.stringify(all) });
        return;
      }
    }
    onConfirm(all);
  };
  const field = (name: string) => `${ids}-${name}`;
  const shown = drafts();
  const problem = refused && refused.for === JSON.stringify(shown) ? refused.message : null;

  return (
    <Modal open title={S.reviewTitle(review.fileName)} description={single ? S.reviewOne : S.reviewMany(review.drafts.length)} onClose={onCancel} className="kb-review">
      <form className="kb-review-form" onSubmit={submit} noValidate>
        {problem && (
          <p className="kb-save-problem" role="alert">
            {problem}
          </p>
        )}
        <div className="kb-review-fields">
          <label htmlFor={field('vertical')}>{KNOWLEDGE.editor.vertical}</label>
          <select id={field('vertical')} className="kb-select" value={vertical} onChange={(e) => setVertical(e.target.value as KnowledgeItemInput['vertical'])}>
            {VERTICALS.map((v) => (
              <option key={v} value={v}>
                {verticalLabel(v)}
              </option>
            ))}
          </select>
          {single && (
            <>
              <label htmlFor={field('title')}>{KNOWLEDGE.editor.title}</label>
              <input id={field('title')} className="kb-input" value={title} onChange={(e) => setTitle(e.target.value)} />
            </>
          )}
          <label htmlFor={field('category')}>{KNOWLEDGE.editor.category}</label>
          <input id={field('category')} className="kb-input" value={category} onChange={(e) => setCategory(e.target.value)} />
        </div>
        {single ? (
          <>
            <h3 className="kb-review-subtitle" id={field('preview')}>
              {S.contentPreview}
            </h3>
            <pre className="kb-review-preview" aria-labelledby={field('preview')} tabIndex={0}>
              {first.content?.slice(0, PREVIEW_CHARS)}
              {(first.content?.length ?? 0) > PREVIEW_CHARS ? '…' : ''}
            </pre>
          </>
        ) : (
          <div className="kb-review-table-wrap" tabIndex={0} role="region" aria-label={S.itemsLabel}>
            <table className="kb-review-table">
              <caption className="kb-visually-hidden">{S.itemsLabel}</caption>
              <thead>
                <tr>
                  <th scope="col">{S.columns.title}</th>
                  <th scope="col">{S.columns.vertical}</th>
                  <th scope="col">{S.columns.category}</th>
                  <th scope="col">{S.columns.content}</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((d, i) => (
                  <tr key={i}>
                    <th scope="row">{d.title}</th>
                    <td>{verticalLabel(d.vertical)}</td>
                    <td>{d.category}</td>
                    <td className="kb-review-excerpt">{d.content?.slice(0, 160)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <div className="kb-confirm-actions">
          <button type="button" className="kb-button" onClick={onCancel}>
            {S.cancel}
          </button>
          <button type="submit" className="kb-button is-primary">
            {single ? S.create : S.createMany(review.drafts.length)}
          </button>
        </div>
      </form>
    </Modal>
  );
}
