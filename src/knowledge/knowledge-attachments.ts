/** A knowledge item's attachments, written with the item (in the caller's transaction). */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { CheckedAttachment } from '../shared/contracts/knowledge';
import { KnowledgeAttachment } from './knowledge-attachment.entity';
import { KnowledgeError } from './knowledge.errors';

/**
 * Makes the item's attachments exactly `wanted`: new ones are added, ones whose id is kept
 * without content keep their stored file, and the rest are removed.
 */
export async function replaceAttachments(manager: EntityManager, itemId: string, wanted: CheckedAttachment[], now: number): Promise<KnowledgeAttachment[]> {
  const existing = await manager.find(KnowledgeAttachment, { where: { itemId } });
  const byId = new Map(existing.map((a) => [a.id, a]));
  const result: KnowledgeAttachment[] = [];
  for (const [ord, a] of wanted.entries()) {
    const previous = a.id ? byId.get(a.id) : undefined;
    if (a.content === undefined) {
      if (!previous) throw KnowledgeError.invalid('attachments', `"${a.name}" has no content`);
      result.push({ ...previous, name: a.name, ord });
      continue;
    }
    result.push(
      manager.create(KnowledgeAttachment, {
        id: previous ? previous.id : randomUUID(),
        itemId,
        name: a.name,
        type: a.type,
        size: a.size,
        content: a.content,
        uploadedAt: previous?.uploadedAt ?? a.uploadedAt ?? now,
        ord,
      }),
    );
  }
  await manager.delete(KnowledgeAttachment, { itemId });
  for (const row of result) await manager.insert(KnowledgeAttachment, row);
  return result;
}
